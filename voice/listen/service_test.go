package listen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/listen"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

// TestServiceReloadPicksUpModel: without a model the service says so,
// naming the download command with the folder, and waits; a model written
// and Reload make it load that model with no restart; Run ends with ctx.
func TestServiceReloadPicksUpModel(t *testing.T) {
	noLeaks(t)
	dir := t.TempDir()
	changed := make(chan struct{}, 64)
	svc := listen.NewService(listen.ServiceOptions{
		DataDir:        dir,
		DefaultDataDir: "/home/dana/.local/share/spirit",
		Paused:         true, // no microphone is opened
		OnState: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	waitState := func(what string, ok func(state, detail string) bool) {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			s, d := svc.State()
			if ok(s, d) {
				return
			}
			select {
			case <-changed:
			case <-deadline:
				t.Fatalf("never %s: state %q %q", what, s, d)
			}
		}
	}
	waitState("without a model", func(s, d string) bool {
		return s == listen.NoModel && strings.Contains(d, "spirit model download base.en --data-dir "+dir)
	})
	if svc.Model() != "" {
		t.Fatalf("a model in use without one: %q", svc.Model())
	}

	path := filepath.Join(model.Dir(dir), "ggml-tiny.en.bin")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := whispertest.WriteModel(path, whispertest.Tiny()); err != nil {
		t.Fatal(err)
	}
	svc.Reload()
	waitState("listening with the model", func(s, _ string) bool { return svc.Model() == path && s != listen.Loading })

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not end with its context")
	}
	if svc.Model() != "" {
		t.Errorf("model still in use after Run ended: %q", svc.Model())
	}
}
