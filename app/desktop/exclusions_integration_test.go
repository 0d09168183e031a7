package desktop_test

import (
	"context"
	"fmt"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// TestExcludedAppEditedWhileWatching: the lawyer adds an app to the
// excluded apps while Spirit watches (as Settings saves it, to the
// database); from the next switch to it on, the real Spirit records only
// that an excluded app came to the front, never its title.
func TestExcludedAppEditedWhileWatching(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	p := d.start(t, ctx, dataDir, nil)
	defer stopSpirit(t, ctx, p)
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	d.waitOrb(t, ctx, dockedAt(wa))
	c := apiClient(t, ctx, dataDir)

	const chat = "Signal - Marcy Howard"
	signal := mailWindow(t, ctx, d.disp, chat, "Signal", image.Rect(40, 40, 640, 440), nil)
	waitWorld(t, ctx, c, fmt.Sprintf("switched to %q", chat))

	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	err = st.SetSetting(ctx, "screen.excluded_apps", "Signal")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	es, err := c.World(ctx, 0, 1000)
	if err != nil || len(es) == 0 {
		t.Fatalf("world log: %v, %v", es, err)
	}
	edited := es[len(es)-1].ID

	const notes = "Notes - Harborview closing"
	mailWindow(t, ctx, d.disp, notes, "Gedit", image.Rect(660, 40, 1100, 440), nil)
	waitWorld(t, ctx, c, fmt.Sprintf("switched to %q", notes))
	if err := d.disp.Xdotool(ctx, "windowactivate", "--sync", fmt.Sprint(signal.win)); err != nil {
		t.Logf("xdotool windowactivate: %v", err)
	}
	signal.waitFocused(t, ctx)
	waitWorld(t, ctx, c, "switched to an excluded app: not looked at")

	es, err = c.World(ctx, edited, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Text+e.Identifier, "Marcy Howard") || strings.Contains(e.Text+e.Identifier, "Signal") {
			t.Errorf("after Signal was excluded, the world log names its window or app: %d %s %s: %s", e.ID, e.Source, e.Identifier, e.Text)
		}
	}
}
