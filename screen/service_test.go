package screen

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestWatchServicePauseIsDoneBeforeItReturns: SetPaused returns once the
// service has applied it, so the status the lawyer is shown next is true;
// with no display the service is unavailable, and each resume tries again.
func TestWatchServicePauseIsDoneBeforeItReturns(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	changes := make(chan struct{}, 64)
	w := NewWatchService(ServiceOptions{
		OnState: func() { changes <- struct{}{} },
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if got, _ := w.State(); got != "" {
		t.Fatalf("state before Run = %q, want \"\"", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil after cancel", err)
		}
	}()
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("the service never reported a state")
	}
	steps := []struct {
		name   string
		paused bool
		want   string
	}{
		{"pause", true, WatchPaused},
		{"resume without a display", false, WatchUnavailable},
		{"pause again", true, WatchPaused},
	}
	for _, s := range steps {
		if err := w.SetPaused(ctx, s.paused); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		// Resuming re-opens the display on Run's goroutine after the
		// request is taken; wait for the state it reports.
		for got, _ := w.State(); got != s.want; got, _ = w.State() {
			select {
			case <-changes:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: state = %q, want %q", s.name, got, s.want)
			}
		}
	}
	if _, err := w.Capture(ctx, Switch{}); err == nil {
		t.Error("Capture while paused succeeded, want an error")
	}
}
