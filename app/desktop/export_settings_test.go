package desktop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// failingFile is a file whose disk fills up.
type failingFile struct{}

func (failingFile) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (failingFile) Close() error              { return nil }

// TestExportActivityRow: Settings' "Export activity…" writes everything in
// the Activity log to the file chosen, one entry a line, says how many,
// and records the export; a file that cannot be written says why.
func TestExportActivityRow(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	w := test.NewTempWindow(t, nil)
	r := newExportRow(g, w)
	w.SetContent(r.content)

	if _, err := sp.core.Say(ctx, "remind me to call Marcy Howard tomorrow at 3"); err != nil {
		t.Fatal(err)
	}
	before, err := sp.store.LastID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "Spirit activity.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	r.write(f, path)
	settleWork(g, &r.bg)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if int64(len(lines)) != before || !strings.Contains(string(data), "call Marcy Howard") {
		t.Errorf("exported %d lines, want %d with the reminder:\n%s", len(lines), before, data)
	}
	if want := "Exported " + strconv.FormatInt(before, 10) + " entries to " + path + "."; r.status.Text != want || r.button.Disabled() {
		t.Errorf("status %q (button disabled %v), want %q", r.status.Text, r.button.Disabled(), want)
	}
	es, _ := sp.store.Recent(ctx, 1)
	if len(es) != 1 || !strings.Contains(es[0].Text, "exported the activity") {
		t.Errorf("last world-log entry %v, want the export recorded", es)
	}

	r.write(failingFile{}, "/full/disk.txt")
	settleWork(g, &r.bg)
	if !strings.Contains(r.status.Text, "Could not export") || !strings.Contains(r.status.Text, "no space left") {
		t.Errorf("status %q, want the reason the file could not be written", r.status.Text)
	}
}

// Settings → General → Keep activity: the choice is kept as the number of
// days, and a new window shows it.
func TestKeepActivitySetting(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	w := test.NewTempWindow(t, nil)
	v := newSettingsView(g, w)
	if v.activity.Selected != "All of it" {
		t.Fatalf("keep activity shows %q, want All of it", v.activity.Selected)
	}
	v.activity.SetSelected("90 days")
	poll(t, g, "activity kept 90 days", func() bool {
		s, err := sp.core.Settings(ctx)
		return err == nil && s.WorldKeepDays == 90
	})
	if v2 := newSettingsView(g, w); v2.activity.Selected != "90 days" {
		t.Errorf("a new window shows %q, want 90 days", v2.activity.Selected)
	}
}
