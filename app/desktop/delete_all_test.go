package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/voice/model"
)

// TestDeleteAllFromPrivacyPage: on a real running Spirit with data (a
// reminder, the provider's key in secrets.json, a setting, a model) and a
// folder that links outside, Delete all Spirit data… names what goes;
// confirmed with the models ticked, Spirit stops, deletes its own files
// (links as links) and returns to start again; the lawyer's file in the
// folder and everything a link pointed to are untouched.
func TestDeleteAllFromPrivacyPage(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // the key goes to the test folder, never a real keychain
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	dir := g.dataDir()
	outside := t.TempDir()
	if _, err := sp.core.Say(ctx, "remind me to call Dana at 3pm"); err != nil {
		t.Fatal(err)
	}
	if err := sp.core.SaveProviderSettings(ctx, setup.Settings{Kind: setup.Anthropic}, "sk-secret"); err != nil {
		t.Fatal(err)
	}
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "notes.txt"))
	write(filepath.Join(outside, "shared-models", "ggml-small.en.bin"))
	write(filepath.Join(outside, "Events", "hearing.ics"))
	write(filepath.Join(model.Dir(dir), "ggml-tiny.en.bin"))
	if err := os.Symlink(filepath.Join(outside, "shared-models", "ggml-small.en.bin"), filepath.Join(model.Dir(dir), "ggml-small.en.bin")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "Events"), filepath.Join(dir, "Calendar events")); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"spirit.db", "secrets.json", api.InfoFile} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Fatalf("a running Spirit has no %s: %v", n, err)
		}
	}

	w := test.NewWindow(nil)
	w.Resize(fyne.NewSize(700, 700))
	v := newSettingsView(g, w)
	w.SetContent(v.privacy)
	test.Tap(v.deleteAll.button)
	_, buttons, labels := formParts(w)
	for _, want := range []string{"your reminders", "the index of your mail", "your calendars", "your routines",
		"every setting", "your mail passwords and sign-ins", "your AI service's key", "everything Spirit noted: activity",
		"the key Spirit kept in this computer's keychain"} {
		if !containsText(labels, want) {
			t.Errorf("the confirmation does not name %q: %q", want, labels)
		}
	}
	if v.deleteAll.models == nil || v.deleteAll.models.Checked {
		t.Fatal("the speech models must be a tick, off at first")
	}
	test.Tap(v.deleteAll.models)
	i := slices.IndexFunc(buttons, func(b *widget.Button) bool { return b.Text == "Delete everything and start again" })
	if i < 0 {
		t.Fatalf("no confirm button among %d", len(buttons))
	}
	sp.store.Close() // the test's own handle, as another program would let go
	test.Tap(buttons[i])

	select {
	case <-sp.stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("Spirit did not stop after Delete all")
	}
	if !errors.Is(*sp.runErr, app.ErrRestart) {
		t.Fatalf("app.Run returned %v, want ErrRestart", *sp.runErr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{"notes.txt", "spirit.lock"}; !slices.Equal(left, want) {
		t.Errorf("left in the folder %q, want %q", left, want)
	}
	for _, p := range []string{filepath.Join(outside, "shared-models", "ggml-small.en.bin"), filepath.Join(outside, "Events", "hearing.ics")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, outside the folder, was touched: %v", p, err)
		}
	}
}
