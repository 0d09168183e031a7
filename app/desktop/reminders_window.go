package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
)

// commitmentsCore is what the window's "Said on calls" section asks of the
// core (*app.Core): the commitments heard in calls that wait for the
// lawyer, and the two things to do with one. A core without it shows no
// such section.
type commitmentsCore interface {
	OpenCommitments(ctx context.Context) ([]store.Commitment, error)
	CommitmentDone(ctx context.Context, id int64) error
	RemindCommitment(ctx context.Context, id int64, at time.Time) (store.Reminder, error)
}

var _ commitmentsCore = (*app.Core)(nil)

// saidTitle heads the commitments heard in calls that have no reminder:
// said without a time, or not offered (quiet hours, the hourly cap).
const saidTitle = "Said on calls, no reminder yet"

// momentsTitle heads the reminders tied to a moment rather than a time:
// an email, a document or app, a meeting with someone.
const momentsTitle = "Next time you…"

// remindersView lists the open reminders with Edit and Delete, then those
// waiting for a moment with Done and Delete, and below them what the
// lawyer promised on calls, with Done and Remind me….
type remindersView struct {
	g       *gui
	w       fyne.Window
	rows    *fyne.Container
	moments *fyne.Container
	said    *fyne.Container
	content fyne.CanvasObject
}

func newRemindersView(g *gui, w fyne.Window) *remindersView {
	v := &remindersView{g: g, w: w, rows: container.NewVBox(), moments: container.NewVBox(), said: container.NewVBox()}
	hint := widget.NewLabel("Say “remind me to call Marcy tomorrow at 3” or “… next time I talk to Grant”, or use the bubble.")
	hint.Importance = widget.LowImportance
	hint.Wrapping = fyne.TextWrapWord
	v.content = container.NewBorder(nil, hint, nil, nil,
		container.NewVScroll(container.NewPadded(container.NewVBox(v.rows, v.moments, v.said))))
	return v
}

// waitsForMoment reports whether r is listed under momentsTitle.
func waitsForMoment(r store.Reminder) bool {
	return r.State == store.ReminderWaiting && r.Trigger != nil
}

// showMoments lists the reminders waiting for a moment, each in the
// lawyer's words ("When you next open Marcy Howard's email: ask about the
// cure period"), with Done and Delete.
func (v *remindersView) showMoments(rs []store.Reminder) {
	v.moments.RemoveAll()
	var waiting []store.Reminder
	for _, r := range rs {
		if waitsForMoment(r) {
			waiting = append(waiting, r)
		}
	}
	if len(waiting) > 0 {
		v.moments.Add(widget.NewLabelWithStyle(momentsTitle, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	for _, r := range waiting {
		r := r
		line := widget.NewLabel(reminders.Heading(r))
		line.Wrapping = fyne.TextWrapWord
		done := widget.NewButtonWithIcon("Done", theme.ConfirmIcon(), func() {
			go v.apply(func(ctx context.Context) error {
				_, err := v.g.core.CompleteReminder(ctx, r.ID)
				return err
			})
		})
		del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { v.remove(r) })
		v.moments.Add(container.NewBorder(nil, nil, nil, container.NewHBox(done, del), line))
		v.moments.Add(widget.NewSeparator())
	}
	v.moments.Refresh()
}

// reload reads the reminders and open commitments off the main thread,
// then shows them.
func (v *remindersView) reload() {
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		rs, err := v.g.core.Reminders(ctx)
		var cs []store.Commitment
		var cerr error
		if cc, ok := v.g.core.(commitmentsCore); ok {
			cs, cerr = cc.OpenCommitments(ctx)
		}
		v.g.do(func() {
			v.show(rs, err)
			v.showMoments(rs)
			v.showSaid(cs, cerr)
		})
	}()
}

// showSaid lists the open commitments: what was promised, the words it
// was heard in, when, and by when.
func (v *remindersView) showSaid(cs []store.Commitment, err error) {
	v.said.RemoveAll()
	cc, _ := v.g.core.(commitmentsCore)
	if cc == nil || (err == nil && len(cs) == 0) {
		v.said.Refresh()
		return
	}
	v.said.Add(widget.NewLabelWithStyle(saidTitle, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	if err != nil {
		v.said.Add(widget.NewLabel("Could not read what was said on calls: " + err.Error()))
	}
	now := time.Now()
	for _, c := range cs {
		c := c
		task := widget.NewLabelWithStyle(c.Task, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		task.Truncation = fyne.TextTruncateEllipsis
		words := widget.NewLabelWithStyle("“"+c.Words+"”", fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
		words.Wrapping = fyne.TextWrapWord
		when := widget.NewLabel(saidWhen(c, now))
		when.Importance = widget.LowImportance
		done := widget.NewButtonWithIcon("Done", theme.ConfirmIcon(), func() {
			go v.apply(func(ctx context.Context) error { return cc.CommitmentDone(ctx, c.ID) })
		})
		remind := widget.NewButtonWithIcon("Remind me…", theme.HistoryIcon(), func() { v.remindSaid(cc, c) })
		v.said.Add(container.NewBorder(nil, nil, nil, container.NewHBox(done, remind),
			container.NewVBox(task, words, when)))
		v.said.Add(widget.NewSeparator())
	}
	v.said.Refresh()
}

// saidWhen is when a commitment was heard, and the time promised if one
// was: "heard Mon Mar 11 10:02 AM · by Fri Mar 15 9:00 AM".
func saidWhen(c store.Commitment, now time.Time) string {
	const layout = "Mon Jan 2 3:04 PM"
	heard := c.Heard.In(now.Location())
	s := "heard " + heard.Format(layout)
	if heard.Year() != now.Year() {
		s = "heard " + heard.Format("Mon Jan 2 2006 3:04 PM")
	}
	if c.Deadline != nil {
		s += " · by " + c.Deadline.In(now.Location()).Format(layout)
	}
	return s
}

// remindSaid asks when to remind the lawyer of commitment c, offering the
// time Spirit would have offered in the bubble while it is still ahead.
func (v *remindersView) remindSaid(cc commitmentsCore, c store.Commitment) {
	when := widget.NewEntry()
	when.SetPlaceHolder("e.g. tomorrow at 10, Friday 4pm, in 2 hours")
	now := time.Now()
	if c.Deadline != nil {
		if at := app.RemindAt(c.Deadline.In(now.Location()), c.Heard.In(now.Location())); at.After(now) {
			when.SetText(at.Format("Mon Jan 2 3:04 PM"))
		}
	}
	task := widget.NewLabel(c.Task)
	task.Wrapping = fyne.TextWrapWord
	items := []*widget.FormItem{widget.NewFormItem("Remind me to", task), widget.NewFormItem("When", when)}
	dialog.ShowForm("Remind me", "Remind me", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		text := strings.TrimSpace(when.Text)
		at, err := parseWhen(text, nil)
		if err != nil {
			dialog.ShowError(fmt.Errorf("Spirit did not understand the time “%s”: try “tomorrow at 10” or “Friday 4pm”", text), v.w)
			return
		}
		go v.apply(func(ctx context.Context) error {
			_, err := cc.RemindCommitment(ctx, c.ID, at)
			return err
		})
	}, v.w)
}

func (v *remindersView) show(rs []store.Reminder, err error) {
	v.rows.RemoveAll()
	switch {
	case err != nil:
		v.rows.Add(widget.NewLabel("Could not read reminders: " + err.Error()))
	case len(rs) == 0:
		empty := widget.NewLabelWithStyle("No reminders", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		v.rows.Add(empty)
	}
	now := time.Now()
	for _, r := range rs {
		r := r
		if waitsForMoment(r) {
			continue // under momentsTitle
		}
		task := widget.NewLabelWithStyle(r.Task, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		task.Truncation = fyne.TextTruncateEllipsis
		when := widget.NewLabel(reminders.When(r, now))
		if r.Due == nil {
			when.SetText("no time yet")
			when.Importance = widget.WarningImportance
		}
		edit := widget.NewButtonWithIcon("Edit", theme.DocumentCreateIcon(), func() { v.edit(r) })
		del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { v.remove(r) })
		v.rows.Add(container.NewBorder(nil, nil, nil, container.NewHBox(edit, del),
			container.NewVBox(task, when)))
		v.rows.Add(widget.NewSeparator())
	}
	v.rows.Refresh()
}

var repeatLabels = []string{"Once", "Every day", "Every weekday", "Every week"}

func repeatOf(label string) store.Recurrence {
	switch label {
	case "Every day":
		return store.EveryDay
	case "Every weekday":
		return store.EveryWeekday
	case "Every week":
		return store.EveryWeek
	}
	return store.Once
}

func labelOf(r store.Recurrence) string {
	for _, l := range repeatLabels {
		if repeatOf(l) == r {
			return l
		}
	}
	return "Once"
}

func (v *remindersView) edit(r store.Reminder) {
	task := widget.NewEntry()
	task.SetText(r.Task)
	when := widget.NewEntry()
	when.SetPlaceHolder("e.g. tomorrow at 10, Friday 4pm, in 2 hours")
	if r.Due != nil {
		when.SetText(r.Due.Format("Mon Jan 2 3:04 PM"))
	}
	repeat := widget.NewSelect(repeatLabels, nil)
	repeat.SetSelected(labelOf(r.Every))
	items := []*widget.FormItem{
		widget.NewFormItem("Remind me to", task),
		widget.NewFormItem("When", when),
		widget.NewFormItem("Repeat", repeat),
	}
	dialog.ShowForm("Edit reminder", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		u := store.ReminderUpdate{}
		if t := strings.TrimSpace(task.Text); t != r.Task {
			u.Task = &t
		}
		if rec := repeatOf(repeat.Selected); rec != r.Every {
			u.Every = &rec
		}
		text := strings.TrimSpace(when.Text)
		if r.Due == nil || text != r.Due.Format("Mon Jan 2 3:04 PM") {
			at, err := parseWhen(text, r.Due)
			if err != nil {
				dialog.ShowError(fmt.Errorf("Spirit did not understand the time “%s”: try “tomorrow at 10” or “Friday 4pm”", text), v.w)
				return
			}
			u.Due = &at
		}
		go v.apply(func(ctx context.Context) error {
			_, err := v.g.core.UpdateReminder(ctx, r.ID, u)
			return err
		})
	}, v.w)
}

// parseWhen reads the edit form's time: the format the form shows, or words.
func parseWhen(text string, current *time.Time) (time.Time, error) {
	now := time.Now()
	if t, err := time.ParseInLocation("Mon Jan 2 3:04 PM", text, now.Location()); err == nil {
		t = t.AddDate(now.Year(), 0, 0)
		if t.Before(now.AddDate(0, 0, -1)) {
			t = t.AddDate(1, 0, 0)
		}
		return t, nil
	}
	return reminders.ParseNewTime(text, now, current)
}

func (v *remindersView) remove(r store.Reminder) {
	dialog.ShowConfirm("Delete reminder", "Delete “"+r.Task+"”?", func(ok bool) {
		if ok {
			go v.apply(func(ctx context.Context) error { return v.g.core.DeleteReminder(ctx, r.ID) })
		}
	}, v.w)
}

// apply runs a change off the main thread (the core wakes the scheduler)
// and reloads.
func (v *remindersView) apply(change func(context.Context) error) {
	ctx, cancel := context.WithTimeout(v.g.ctx, 10*time.Second)
	defer cancel()
	err := change(ctx)
	v.g.do(func() {
		if err != nil {
			msg := err.Error()
			if errors.Is(err, store.ErrInvalid) {
				msg = "That change is not possible: " + msg
			}
			dialog.ShowError(errors.New(msg), v.w)
		}
		v.reload()
	})
}
