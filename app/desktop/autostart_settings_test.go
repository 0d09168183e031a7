package desktop

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform"
)

// TestAutostartRow: Settings' "Start Spirit when I log in" shows what the
// system holds; unchecking removes the entry and records it; checking it
// from a temporary build (this test binary, gone by the next login) is
// refused with the reason beside the check, which goes back to off and
// writes nothing.
func TestAutostartRow(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	entry := filepath.Join(cfg, "autostart", "spirit.desktop")
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()

	// Turned on earlier (e.g. with `spirit autostart on` from the
	// installed program): the check shows it.
	if err := platform.EnableAutostart([]string{"/usr/bin/spirit"}); err != nil {
		t.Fatal(err)
	}
	r := newAutostartRow(g)
	if !r.check.Checked || !r.note.Visible() || !strings.Contains(r.note.Text, entry) {
		t.Fatalf("row with an entry: checked %v, note %q; want checked, naming %s", r.check.Checked, r.note.Text, entry)
	}

	test.Tap(r.check)
	settleWork(g, &r.bg)
	if r.check.Checked || r.problem.Visible() {
		t.Errorf("after unchecking: checked %v, problem %q", r.check.Checked, r.problem.Text)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("the entry is still there: %v", err)
	}
	es, err := sp.core.Recent(ctx, 5)
	if err != nil || !slices.ContainsFunc(es, func(e store.Entry) bool { return strings.Contains(e.Text, "start at login = off") }) {
		t.Errorf("world log %v, %v; want the change recorded", es, err)
	}

	test.Tap(r.check)
	settleWork(g, &r.bg)
	if r.check.Checked || !r.problem.Visible() || !strings.Contains(r.problem.Text, "temporary build") {
		t.Errorf("checking from a test binary: checked %v, problem %q; want off and the reason", r.check.Checked, r.problem.Text)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("an entry was written for a temporary build: %v", err)
	}
}
