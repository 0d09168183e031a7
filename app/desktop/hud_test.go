package desktop

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/app/events"
)

// hudShown reports whether the tooltip is up, and what it says.
func (g *gui) hudShown() (string, bool) {
	if g.hud.tip == nil || g.hud.label == nil {
		return "", false
	}
	return g.hud.label.Text, g.hud.over && g.hud.line != "" && !g.panelShown()
}

// panelFirstLine is the text atop the panel, "" when it opens on the menu.
func panelFirstLine(g *gui) string {
	c, ok := g.panel.Content().(*fyne.Container)
	if !ok || len(c.Objects) == 0 {
		return ""
	}
	if l, ok := c.Objects[0].(*widget.Label); ok {
		return l.Text
	}
	return ""
}

func TestHUDOnOrb(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	g.rebuildPanel()
	if _, ok := g.panel.Content().(*widget.Menu); !ok {
		t.Fatalf("panel without a HUD line = %T, want the menu alone", g.panel.Content())
	}
	// Hovering with no line shows nothing.
	g.orbHover(true)
	if _, shown := g.hudShown(); shown {
		t.Error("a tooltip without a line")
	}

	steps := []struct {
		name, line string
		hover      bool
		panel      bool
		wantTip    bool
	}{
		{"line, pointer on the orb", "Reading ‘RE: SNDA’ in Outlook", true, false, true},
		{"new line follows", "Drafting in Word", true, false, true},
		{"pointer leaves", "Drafting in Word", false, false, false},
		{"panel open: no tooltip over it", "On a call · 14 min", true, true, false},
	}
	for _, s := range steps {
		sp.bus.Log(events.HUDChanged, s.line)
		pump(g)
		if s.panel && !g.panelShown() {
			g.togglePanel()
		}
		g.orbHover(s.hover)
		if got := g.orb.Title(); got != "Spirit" {
			t.Errorf("%s: orb title %q: tests and window lists find the orb by its name", s.name, got)
		}
		text, shown := g.hudShown()
		if shown != s.wantTip || (shown && text != s.line) {
			t.Errorf("%s: tooltip %q shown %v; want shown %v with %q", s.name, text, shown, s.wantTip, s.line)
		}
		g.rebuildPanel()
		if got := panelFirstLine(g); got != s.line {
			t.Errorf("%s: panel first line %q, want %q", s.name, got, s.line)
		}
		if c, ok := g.panel.Content().(*fyne.Container); !ok || c.Objects[len(c.Objects)-1] != g.panelMenu {
			t.Errorf("%s: the menu is not under the line", s.name)
		}
	}
}
