package desktop

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/app/settings"
)

// nudgesView is Settings' "Nudges" page: how often Spirit may speak up on
// its own (at most so many an hour, never in quiet hours), how long Snooze
// puts a reminder off, and whether a dismissal makes Spirit hold back.
// What is typed is checked as it is typed, with the reason under the box;
// Enter or Save keeps it. The check is kept at once.
type nudgesView struct {
	g       *gui
	content fyne.CanvasObject

	perHour, quiet, snooze *widget.Entry
	backoff                *widget.Check
	// problems shows, under each box, why its value is not kept.
	problems map[string]*widget.Label
	status   *widget.Label
	save     *widget.Button
	updating bool
	// bg counts the page's work off the main thread, so that a test can
	// wait for it to be shown.
	bg sync.WaitGroup
}

func newNudgesView(g *gui) *nudgesView {
	v := &nudgesView{g: g, problems: map[string]*widget.Label{}, status: widget.NewLabel("")}
	v.status.Importance = widget.LowImportance
	set, err := g.core.Settings(g.ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		g.log.Error("nudges page: settings unreadable, defaults shown", "err", err)
	}

	entry := func(key, text, placeholder string) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(text)
		e.SetPlaceHolder(placeholder)
		v.problems[key] = problemLabel()
		e.OnChanged = func(string) { v.check() }
		e.OnSubmitted = func(string) { v.saveTyped() }
		return e
	}
	v.perHour = entry(settings.KeyGlanceMaxPerHour, strconv.Itoa(set.GlanceMaxPerHour), "4")
	v.quiet = entry(settings.KeyGlanceQuietHours, set.GlanceQuietHours.String(), "e.g. 20-8")
	v.snooze = entry(settings.KeySnoozeMinutes, strconv.Itoa(set.SnoozeMinutes), "10")
	v.save = widget.NewButton("Save", v.saveTyped)

	v.backoff = widget.NewCheck("Hold back after I dismiss one (15 minutes, doubling with each dismissal that day)", func(on bool) {
		if !v.updating {
			v.keep(func(s *settings.Settings) { s.DismissBackoff = on })
		}
	})
	v.updating = true
	v.backoff.SetChecked(set.DismissBackoff)
	v.updating = false

	note := func(s string) *widget.Label {
		l := widget.NewLabel(s)
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.LowImportance
		return l
	}
	form := widget.NewForm(
		widget.NewFormItem("At most", container.NewVBox(v.perHour, v.problems[settings.KeyGlanceMaxPerHour],
			note("nudges an hour that Spirit raises on its own: about email on screen, a meeting ahead, something said on a call, work done for you. 0 turns them off."))),
		widget.NewFormItem("Quiet hours", container.NewVBox(v.quiet, v.problems[settings.KeyGlanceQuietHours],
			note("From hour to hour on the 24-hour clock, e.g. 20-8 for 8 PM to 8 AM; empty for none. Your reminders still come."))),
		widget.NewFormItem("Snooze for", container.NewVBox(v.snooze, v.problems[settings.KeySnoozeMinutes],
			note("minutes, when you snooze a reminder without saying how long."))),
		widget.NewFormItem("After a dismissal", v.backoff),
	)
	v.content = container.NewVScroll(container.NewVBox(form, container.NewHBox(v.save), v.status))
	return v
}

// typed is each box's key and text.
func (v *nudgesView) typed() [][2]string {
	return [][2]string{
		{settings.KeyGlanceMaxPerHour, v.perHour.Text},
		{settings.KeyGlanceQuietHours, v.quiet.Text},
		{settings.KeySnoozeMinutes, v.snooze.Text},
	}
}

// check shows, under each box, why what it holds cannot be kept; it
// reports whether all can.
func (v *nudgesView) check() bool {
	ok := true
	for _, kv := range v.typed() {
		probe := settings.Defaults()
		reason := ""
		if err := probe.Set(kv[0], kv[1]); err != nil {
			reason, ok = problemText(err), false
		}
		showLabel(v.problems[kv[0]], reason)
	}
	if ok {
		v.save.Enable()
	} else {
		v.save.Disable()
	}
	return ok
}

// saveTyped keeps what the boxes hold, when all of it can be kept.
func (v *nudgesView) saveTyped() {
	if !v.check() {
		v.status.SetText("Not saved: see the note under the box.")
		return
	}
	typed := v.typed()
	v.keep(func(s *settings.Settings) {
		for _, kv := range typed {
			_ = s.Set(kv[0], kv[1]) // checked above
		}
	})
}

// keep saves a change off the main thread; the core records it in the
// world log. A refused value shows under the box it names, any other
// failure in the page's status line.
func (v *nudgesView) keep(change func(*settings.Settings)) {
	v.bg.Add(1)
	go func() {
		defer v.bg.Done()
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		_, err := v.g.core.UpdateSettings(ctx, "settings", change)
		if err != nil {
			v.g.log.Error("save nudge settings", "err", err)
		}
		v.g.do(func() {
			var bad *settings.FieldError
			switch {
			case errors.As(err, &bad) && v.problems[bad.Key] != nil:
				showLabel(v.problems[bad.Key], bad.Reason)
				v.status.SetText("Not saved: see the note under the box.")
			case err != nil:
				v.status.SetText("Not saved: " + err.Error())
			default:
				v.status.SetText("Saved.")
			}
		})
	}()
}
