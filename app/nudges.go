package app

import (
	"context"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
)

// promptFor words the bubble for a nudge: its buttons follow its kind.
func promptFor(n store.Nudge, now time.Time) ui.Prompt {
	p := ui.Prompt{Title: titleFor(n.Kind), Message: n.Message, Cancel: api.ActionDismiss}
	switch n.Kind {
	case kindReminder:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Done"}, {ID: api.ActionSnooze, Label: "Snooze 10 min"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Snooze for… (e.g. 30 minutes)"
	case kindReminderConfirm:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Set"}, {ID: choiceChange, Label: "Change time"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Or type another time, e.g. “at 4 instead”"
	case kindReminderWhen:
		for _, q := range quickTimes(now) {
			p.Choices = append(p.Choices, ui.Choice{ID: choiceAtPrefix + q.At.Format(time.RFC3339), Label: q.Label})
		}
		p.Placeholder = "Or type a time, e.g. “Friday at 10”"
	case kindReminderList:
		p.Choices = []ui.Choice{{ID: choiceOpenReminders, Label: "Open Reminders"}, {ID: api.ActionAccept, Label: "OK"}}
	case kindInfo:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "OK"}}
	case kindGlance:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Draft it"}, {ID: api.ActionSnooze, Label: "Not now"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Or tell Spirit what to do instead…"
	default:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Do it"}, {ID: api.ActionSnooze, Label: "Not now"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
	}
	return p
}

func titleFor(kind string) string {
	switch kind {
	case kindReminder, kindReminderConfirm, kindReminderWhen, kindReminderList:
		return "Reminder"
	case kindInfo:
		return "Spirit"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// ShowNudge implements Presenter: one bubble at a time, newest first.
func (g *gui) ShowNudge(n store.Nudge) {
	fyne.Do(func() {
		g.refreshReminders()
		g.queue = append(g.queue, n)
		if g.bubble == nil {
			g.nextBubble()
		}
	})
}

// NudgeClosed implements Presenter.
func (g *gui) NudgeClosed(id int64) {
	fyne.Do(func() {
		g.refreshReminders()
		for i, n := range g.queue {
			if n.ID == id {
				g.queue = append(g.queue[:i], g.queue[i+1:]...)
				break
			}
		}
		if g.bubble != nil && g.bubbleID == id {
			g.bubble = nil
			g.bubbleWin.Hide()
			g.nextBubble()
		}
	})
}

// nextBubble shows the newest queued nudge; main thread only.
func (g *gui) nextBubble() {
	if len(g.queue) == 0 || g.orb == nil {
		return
	}
	// The newest nudge goes first.
	newest := 0
	for i, q := range g.queue {
		if q.ID > g.queue[newest].ID {
			newest = i
		}
	}
	n := g.queue[newest]
	g.queue = append(g.queue[:newest], g.queue[newest+1:]...)
	b := ui.NewBubble(promptFor(n, time.Now()), func(a ui.Answer) { g.answer(n.ID, a) })
	g.bubble, g.bubbleID = b, n.ID
	if g.bubbleWin == nil {
		g.bubbleWin = g.fa.Driver().(interface{ CreateSplashWindow() fyne.Window }).CreateSplashWindow()
		g.bubbleWin.SetTitle("Spirit nudge")
	}
	g.bubbleWin.SetContent(b)
	g.bubbleWin.Canvas().SetOnTypedKey(b.TypedKey)
	// Lay out once at the bubble's width so the wrapped message gets its height.
	g.bubbleWin.Resize(fyne.NewSize(ui.BubbleWidth, b.MinSize().Height))
	g.bubbleWin.Resize(b.MinSize())
	g.showFloating(g.bubbleWin)
}

// answer records the lawyer's answer; the store write happens off the main thread.
func (g *gui) answer(id int64, a ui.Answer) {
	action := a.Choice
	go func() {
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		defer cancel()
		if _, err := g.core.Answer(ctx, id, action, a.Text); err != nil {
			g.log.Error("record nudge answer", "nudge", id, "err", err)
			g.NudgeClosed(id) // still take the bubble down
		}
	}()
}

// refreshReminders keeps an open Reminders window current: nudges come and
// go as reminders are made, fired, moved and cancelled.
func (g *gui) refreshReminders() {
	if g.remindersView != nil && g.reminders != nil && g.reminders.Content().Visible() {
		g.remindersView.reload()
	}
}
