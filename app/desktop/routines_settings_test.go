package desktop

import (
	"context"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/app/settings"
)

// pageButton is the page's first button labelled text, or nil.
func pageButton(content fyne.CanvasObject, text string) *widget.Button {
	for _, o := range test.LaidOutObjects(content) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && b.Visible() {
			return b
		}
	}
	return nil
}

// pageTexts are the labels the page shows.
func pageTexts(content fyne.CanvasObject) string {
	var out []string
	for _, o := range test.LaidOutObjects(content) {
		if l, ok := o.(*widget.Label); ok && l.Visible() {
			out = append(out, l.Text)
		}
	}
	return strings.Join(out, "\n")
}

// TestRoutinesPage: Settings → Routines adds a routine only with a
// schedule Spirit can read, saying what is wrong as it is typed; lists it
// in words with its prompt; Run now says how the run ended (here: no
// provider); Remove deletes it. The heartbeat toggle and the active hours
// are saved, and hours that are not valid are refused with the reason.
func TestRoutinesPage(t *testing.T) {
	ctx := context.Background()
	g, sp, _ := newTestGUI(t)
	w := g.fa.NewWindow("Settings")
	w.Resize(fyne.NewSize(700, 700))
	v := newRoutinesView(g)
	w.SetContent(v.content)
	if !strings.Contains(pageTexts(v.content), "No routines yet.") {
		t.Fatalf("the page shows %q, want no routines", pageTexts(v.content))
	}

	for _, tc := range []struct {
		name, cron, prompt string
		wantProblem        string // "" : none shown
		wantAdd            bool
	}{
		{"minute 70", "70 8 * * *", "x", "the minute must be 0 to 59", false},
		{"four fields", "30 8 * *", "x", "it has 4 fields, not 5", false},
		{"no prompt", "30 8 * * 1-5", "", "", false},
		{"valid", "30 8 * * 1-5", "What is waiting on me today?", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			test.Type(v.cron, "") // focus
			v.cron.SetText(tc.cron)
			v.prompt.SetText(tc.prompt)
			shown := v.cronProblem.Visible()
			if tc.wantProblem == "" && shown || tc.wantProblem != "" && (!shown || !strings.Contains(v.cronProblem.Text, tc.wantProblem)) {
				t.Errorf("problem shown %v %q, want %q", shown, v.cronProblem.Text, tc.wantProblem)
			}
			if got := !v.add.Disabled(); got != tc.wantAdd {
				t.Errorf("Add enabled = %v, want %v", got, tc.wantAdd)
			}
		})
	}
	test.Tap(v.add)
	settle(g, v)
	if texts := pageTexts(v.content); !strings.Contains(texts, "weekdays at 8:30  (30 8 * * 1-5)") ||
		!strings.Contains(texts, "What is waiting on me today?") || !strings.Contains(texts, "never run") {
		t.Fatalf("the page shows %q, want the routine in words", texts)
	}
	rs, err := sp.core.Routines(ctx)
	if err != nil || len(rs) != 1 || rs[0].Cron != "30 8 * * 1-5" {
		t.Fatalf("routines = %+v, %v", rs, err)
	}

	run := pageButton(v.content, "Run now")
	if run == nil {
		t.Fatal("the routine's row has no Run now")
	}
	test.Tap(run)
	settle(g, v)
	if !strings.Contains(v.status.Text, "Not run: no model provider is set") {
		t.Errorf("status = %q, want the run's outcome", v.status.Text)
	}

	remove := pageButton(v.content, "Remove")
	if remove == nil {
		t.Fatal("the routine's row has no Remove")
	}
	test.Tap(remove)
	settle(g, v)
	if rs, err := sp.core.Routines(ctx); err != nil || len(rs) != 0 || !strings.Contains(pageTexts(v.content), "No routines yet.") {
		t.Errorf("after Remove: routines %+v, %v; page %q", rs, err, pageTexts(v.content))
	}

	// The heartbeat and its hours.
	if !v.heartbeat.Checked || v.hours.Text != "mon-fri 08:00-19:00" {
		t.Errorf("heartbeat %v, hours %q; want the defaults", v.heartbeat.Checked, v.hours.Text)
	}
	v.hours.SetText("weekdays 9 to 5")
	v.hours.OnSubmitted(v.hours.Text)
	if !v.hoursProblem.Visible() || !strings.Contains(v.hoursProblem.Text, "mon-fri 08:00-19:00") {
		t.Errorf("hours problem %v %q, want the rule", v.hoursProblem.Visible(), v.hoursProblem.Text)
	}
	v.hours.SetText("mon-thu 09:00-17:00")
	v.hours.OnSubmitted(v.hours.Text)
	settle(g, v)
	if v.hoursProblem.Visible() || v.status.Text != "Saved." {
		t.Errorf("after valid hours: problem %v %q, status %q", v.hoursProblem.Visible(), v.hoursProblem.Text, v.status.Text)
	}
	test.Tap(v.heartbeat)
	settle(g, v)
	s, err := sp.core.Settings(ctx)
	want, _ := settings.ParseActiveHours("mon-thu 09:00-17:00")
	if err != nil || s.WorkHeartbeat || s.WorkActiveHours != want {
		t.Errorf("settings: heartbeat %v, hours %+v, %v; want off and %+v", s.WorkHeartbeat, s.WorkActiveHours, err, want)
	}
}

// TestSettingsWindowHasRoutines: the Settings window has the Routines
// page, after the model provider.
func TestSettingsWindowHasRoutines(t *testing.T) {
	g, _, _ := newTestGUI(t)
	g.showSettings()
	tabs, ok := g.settingsWindow.Content().(*container.AppTabs)
	if !ok {
		t.Fatalf("the Settings window shows %T, want tabs", g.settingsWindow.Content())
	}
	var names []string
	for _, it := range tabs.Items {
		names = append(names, it.Text)
	}
	if len(names) == 0 || names[len(names)-1] != "Routines" {
		t.Errorf("tabs = %q, want Routines last", names)
	}
}

// settle waits for the page's background work and runs what it handed to
// the UI thread, until neither is left: a result shown may start more
// work (Add reloads the list).
func settle(g *gui, v *routinesView) { settleWork(g, &v.bg) }

// settleWork waits for the work bg counts and runs what it handed to the
// UI thread, until neither is left.
func settleWork(g *gui, bg *sync.WaitGroup) {
	for {
		bg.Wait()
		if len(g.uiq) == 0 {
			return
		}
		pump(g)
	}
}
