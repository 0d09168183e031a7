package desktop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/settings"
)

// routineRunWait bounds how long Run now waits to say how a run ended.
const routineRunWait = 3 * time.Minute

// routinesView is Settings' "Routines" page: the heartbeat and its active
// hours, the routines the lawyer scheduled (when, what, last run) with
// Run now and Remove, and a form to add one.
type routinesView struct {
	g *gui
	// work is the core's work side; the page's core has it (app.Core).
	work    api.WorkBackend
	rows    *fyne.Container
	status  *widget.Label
	content fyne.CanvasObject

	heartbeat    *widget.Check
	hours        *widget.Entry
	hoursProblem *widget.Label
	cron, prompt *widget.Entry
	cronProblem  *widget.Label
	add          *widget.Button
	updating     bool
	// saveMu makes this page's saves one at a time: UpdateSettings loads,
	// changes and saves, so two at once could undo each other.
	saveMu sync.Mutex
	// bg counts the page's work off the main thread, so that a test can
	// wait for it to be shown.
	bg sync.WaitGroup
}

// background runs f off the main thread; f shows its result with fyne.Do.
func (v *routinesView) background(f func()) {
	v.bg.Add(1)
	go func() {
		defer v.bg.Done()
		f()
	}()
}

func newRoutinesView(g *gui) *routinesView {
	v := &routinesView{g: g, rows: container.NewVBox(), status: widget.NewLabel("")}
	v.work, _ = g.core.(api.WorkBackend)
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Importance = widget.LowImportance

	set, err := g.core.Settings(g.ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		g.log.Error("routines page: settings unreadable, defaults shown", "err", err)
	}
	v.hoursProblem = problemLabel()
	v.heartbeat = widget.NewCheck("Every 30 minutes in my active hours, look over the day and speak up only when I must act", func(on bool) {
		if !v.updating {
			v.background(func() {
				v.saveSettings(settings.KeyWorkHeartbeat, func(s *settings.Settings) { s.WorkHeartbeat = on })
			})
		}
	})
	v.updating = true
	v.heartbeat.SetChecked(set.WorkHeartbeat)
	v.updating = false
	v.hours = widget.NewEntry()
	v.hours.SetText(set.WorkActiveHours.String())
	v.hours.SetPlaceHolder("mon-fri 08:00-19:00")
	saveHours := func() {
		text := v.hours.Text
		a, err := settings.ParseActiveHours(text)
		if err != nil {
			showLabel(v.hoursProblem, problemText(err))
			return
		}
		v.background(func() {
			v.saveSettings(settings.KeyWorkActiveHours, func(s *settings.Settings) { s.WorkActiveHours = a })
		})
	}
	v.hours.OnSubmitted = func(string) { saveHours() }
	saveHoursButton := widget.NewButton("Save hours", saveHours)
	hoursRow := container.NewBorder(nil, nil, widget.NewLabel("Active hours"), saveHoursButton, v.hours)

	v.cron = widget.NewEntry()
	v.cron.SetPlaceHolder("30 8 * * 1-5")
	v.prompt = widget.NewEntry()
	v.prompt.SetPlaceHolder("What is waiting on me today?")
	v.cronProblem = problemLabel()
	v.add = widget.NewButtonWithIcon("Add routine", theme.ContentAddIcon(), v.addRoutine)
	v.add.Disable()
	v.cron.OnChanged = func(string) { v.validate() }
	v.prompt.OnChanged = func(string) { v.validate() }
	form := container.NewVBox(
		widget.NewLabelWithStyle("New routine", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewBorder(nil, nil, widget.NewLabel("When (cron)"), nil, v.cron),
		v.cronProblem,
		container.NewBorder(nil, nil, widget.NewLabel("Prompt"), nil, v.prompt),
		container.NewHBox(v.add),
	)
	note := widget.NewLabel("Cron's five fields are minute, hour, day of the month, month and day of the week (0 or 7 is Sunday), " +
		"in your time zone: \"30 8 * * 1-5\" is weekdays at 8:30. A routine missed while Spirit was off runs once when it starts.")
	note.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(v.heartbeat, hoursRow, v.hoursProblem, widget.NewSeparator())
	v.content = container.NewBorder(top, container.NewVBox(widget.NewSeparator(), form, note, v.status), nil, nil,
		container.NewVScroll(v.rows))
	// The first list is read here, on the main thread, as the settings
	// above are: the window is being built and shows it complete.
	if v.work == nil {
		v.show(nil, errors.New("this Spirit has no work runner"), time.Now())
		v.add.Disable()
	} else {
		ctx, cancel := context.WithTimeout(g.ctx, 5*time.Second)
		rs, err := v.work.Routines(ctx)
		cancel()
		v.show(rs, err, time.Now())
	}
	return v
}

func problemLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	l.Hide()
	return l
}

// problemText is a refused setting's reason, else the error.
func problemText(err error) string {
	var fe *settings.FieldError
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return err.Error()
}

// showLabel shows text in l, or hides l when text is empty.
func showLabel(l *widget.Label, text string) {
	l.SetText(text)
	if text == "" {
		l.Hide()
	} else {
		l.Show()
	}
}

// saveSettings saves a change off the main thread and shows a refusal
// under the hours.
func (v *routinesView) saveSettings(key string, change func(*settings.Settings)) {
	v.saveMu.Lock()
	defer v.saveMu.Unlock()
	ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
	defer cancel()
	_, err := v.g.core.UpdateSettings(ctx, "settings", change)
	if err != nil {
		v.g.log.Error("save setting", "key", key, "err", err)
	}
	v.g.do(func() {
		if err != nil {
			showLabel(v.hoursProblem, problemText(err))
			return
		}
		showLabel(v.hoursProblem, "")
		v.status.SetText("Saved.")
	})
}

// validate enables Add only for a schedule Spirit can read and a prompt,
// and says what is wrong with the schedule as it is typed.
func (v *routinesView) validate() {
	problem := ""
	if v.cron.Text != "" {
		if _, err := work.ParseSchedule(v.cron.Text); err != nil {
			problem = app.RoutineError(err)
		}
	}
	showLabel(v.cronProblem, problem)
	if problem == "" && v.cron.Text != "" && v.prompt.Text != "" && v.work != nil {
		v.add.Enable()
	} else {
		v.add.Disable()
	}
}

func (v *routinesView) addRoutine() {
	spec, prompt := v.cron.Text, v.prompt.Text
	v.add.Disable()
	v.background(func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		rt, err := v.work.AddRoutine(ctx, api.NewRoutine{Cron: spec, Prompt: prompt})
		v.g.do(func() {
			if err != nil {
				v.validate()
				showLabel(v.cronProblem, app.RoutineError(err))
				return
			}
			v.cron.SetText("")
			v.prompt.SetText("")
			v.status.SetText(fmt.Sprintf("Added routine %d: %s.", rt.ID, app.ScheduleWords(rt.Cron)))
			v.reload()
		})
	})
}

// reload shows the routines again, read off the main thread.
func (v *routinesView) reload() {
	if v.work == nil {
		return
	}
	v.background(func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		rs, err := v.work.Routines(ctx)
		v.g.do(func() { v.show(rs, err, time.Now()) })
	})
}

func (v *routinesView) show(rs []api.Routine, err error, now time.Time) {
	v.rows.RemoveAll()
	switch {
	case err != nil:
		v.rows.Add(widget.NewLabel("Could not read the routines: " + err.Error()))
	case len(rs) == 0:
		v.rows.Add(widget.NewLabel("No routines yet."))
	}
	for _, r := range rs {
		when := app.ScheduleWords(r.Cron)
		if when != r.Cron {
			when += "  (" + r.Cron + ")"
		}
		title := widget.NewLabelWithStyle(when, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		detail := "never run"
		if r.LastRun != nil {
			detail = "last run " + r.LastRun.In(now.Location()).Format("Mon 2 Jan 15:04")
		}
		switch {
		case !r.Enabled:
			detail = "off · " + detail
		case r.Next != nil:
			detail = "next " + r.Next.In(now.Location()).Format("Mon 2 Jan 15:04") + " · " + detail
		}
		info := widget.NewLabel(detail)
		info.Importance = widget.LowImportance
		prompt := widget.NewLabel(r.Prompt)
		prompt.Wrapping = fyne.TextWrapWord
		id := r.ID
		run := widget.NewButtonWithIcon("Run now", theme.MediaPlayIcon(), func() { v.runNow(id) })
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { v.remove(id) })
		v.rows.Add(container.NewVBox(title, info, prompt, container.NewHBox(run, remove), widget.NewSeparator()))
	}
}

func (v *routinesView) remove(id int64) {
	v.background(func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		err := v.work.RemoveRoutine(ctx, id)
		v.g.do(func() {
			if err != nil {
				v.status.SetText(fmt.Sprintf("Could not remove routine %d: %v", id, err))
				return
			}
			v.status.SetText(fmt.Sprintf("Removed routine %d.", id))
			v.reload()
		})
	})
}

// runNow runs a routine and says how it ended.
func (v *routinesView) runNow(id int64) {
	v.status.SetText(fmt.Sprintf("Running routine %d…", id))
	v.background(func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, routineRunWait)
		defer cancel()
		run, err := v.work.RunRoutine(ctx, id)
		for err == nil && !run.Ended() {
			select {
			case <-ctx.Done():
				err = fmt.Errorf("still running after %v", routineRunWait)
			case <-time.After(250 * time.Millisecond):
				run, err = v.work.WorkRun(ctx, run.ID)
			}
		}
		v.g.do(func() {
			if err != nil {
				v.status.SetText(fmt.Sprintf("Routine %d: %v", id, err))
				return
			}
			// A run now does not move the routine's last run: the list
			// stands as it is.
			v.status.SetText(fmt.Sprintf("Routine %d: %s", id, app.WorkRunWords(run)))
		})
	})
}
