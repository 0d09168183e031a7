package desktop

import (
	"context"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/spirit-app/spirit/app/settings"
)

// countingCore is the real core, counting the settings saves asked of it.
type countingCore struct {
	Core
	updates atomic.Int32
}

func (c *countingCore) UpdateSettings(ctx context.Context, by string, change func(*settings.Settings)) ([]string, error) {
	c.updates.Add(1)
	return c.Core.UpdateSettings(ctx, by, change)
}

// TestSettingsOpenSavesNothing: opening the General page on settings that
// are not the defaults shows them and saves nothing (a save of the shown
// values ran on a goroutine and could undo the lawyer's first change); the
// lawyer's change is then the one save.
func TestSettingsOpenSavesNothing(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	if _, err := sp.core.UpdateSettings(ctx, "test", func(s *settings.Settings) {
		s.WakePhrase, s.TranscriptDays, s.WorldKeepDays, s.ScreenText = "hey spirit", 7, 90, true
	}); err != nil {
		t.Fatal(err)
	}
	cc := &countingCore{Core: sp.core}
	g.core = cc
	w := g.fa.NewWindow("Settings")
	w.Resize(fyne.NewSize(640, 500))
	v := newSettingsView(g, w)
	w.SetContent(v.content)
	g.saves.Wait()
	pump(g)
	if n := cc.updates.Load(); n != 0 {
		t.Fatalf("opening Settings saved %d times, want none", n)
	}
	if v.activity.Selected != "90 days" {
		t.Errorf("Keep activity shows %q, want 90 days", v.activity.Selected)
	}
	v.activity.SetSelected("30 days")
	g.saves.Wait()
	pump(g)
	s, err := sp.core.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := cc.updates.Load(); n != 1 || s.WorldKeepDays != 30 || s.TranscriptDays != 7 || !s.ScreenText || s.WakePhrase != "hey spirit" {
		t.Errorf("after one change: %d saves, settings %+v", n, s)
	}
}
