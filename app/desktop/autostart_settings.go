package desktop

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/platform"
)

// autostartRow is Settings' "Start Spirit when I log in": a check that
// shows what the system holds (read when the window is built, so a change
// made with `spirit autostart` or the desktop's own startup settings
// shows), a note saying what it starts, and why a change failed.
type autostartRow struct {
	g        *gui
	check    *widget.Check
	note     *widget.Label
	problem  *widget.Label
	content  fyne.CanvasObject
	updating bool
	// bg counts the row's work off the main thread, so that a test can
	// wait for it to be shown.
	bg sync.WaitGroup
}

func newAutostartRow(g *gui) *autostartRow {
	r := &autostartRow{g: g, note: widget.NewLabel(""), problem: problemLabel()}
	r.note.Wrapping = fyne.TextWrapBreak
	r.note.Importance = widget.LowImportance
	r.check = widget.NewCheck("Start Spirit when I log in", func(on bool) {
		if !r.updating {
			r.set(on)
		}
	})
	a, err := g.core.Autostart()
	if err != nil {
		g.log.Error("settings: read start at login", "err", err)
		showLabel(r.problem, err.Error())
	}
	r.show(a)
	r.content = container.NewVBox(r.check, r.problem, r.note)
	return r
}

// set turns starting at login on or off off the main thread; a failure
// shows under the check, which goes back to what the system holds.
func (r *autostartRow) set(on bool) {
	r.check.Disable()
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		ctx, cancel := context.WithTimeout(r.g.ctx, 5*time.Second)
		defer cancel()
		a, err := r.g.core.SetAutostart(ctx, on, "settings")
		if err != nil {
			r.g.log.Error("settings: start at login", "on", on, "err", err)
			a, _ = r.g.core.Autostart()
		}
		r.g.do(func() {
			r.check.Enable()
			r.show(a)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			showLabel(r.problem, msg)
		})
	}()
}

// show sets the check and the note from a without saving anything.
func (r *autostartRow) show(a platform.Autostart) {
	r.updating = true
	r.check.SetChecked(a.On)
	r.updating = false
	note := a.Note
	if a.On {
		note = "Set in " + a.Where
	}
	showLabel(r.note, note)
}
