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
)

// remindersView lists the open reminders with Edit and Delete.
type remindersView struct {
	g       *gui
	w       fyne.Window
	rows    *fyne.Container
	content fyne.CanvasObject
}

func newRemindersView(g *gui, w fyne.Window) *remindersView {
	v := &remindersView{g: g, w: w, rows: container.NewVBox()}
	hint := widget.NewLabel("Say “remind me to call Marcy tomorrow at 3”, or use the bubble.")
	hint.Importance = widget.LowImportance
	v.content = container.NewBorder(nil, hint, nil, nil, container.NewVScroll(container.NewPadded(v.rows)))
	return v
}

// reload reads the reminders off the main thread, then shows them.
func (v *remindersView) reload() {
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		rs, err := v.g.core.Reminders(ctx)
		fyne.Do(func() { v.show(rs, err) })
	}()
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
	fyne.Do(func() {
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
