package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/voice/intent"
)

// handle carries out a parsed command heard at now; source names where the
// words came from ("voice", "say"). The reply is a short sentence for the
// caller; bubbles are shown through the presenter.
func (c *Core) handle(ctx context.Context, in intent.Intent, now time.Time, source string) (api.SayResult, error) {
	res := api.SayResult{Intent: string(in.Kind), Handled: true}
	var err error
	switch in.Kind {
	case intent.PauseListening:
		err = c.SetListeningPaused(ctx, true, source)
		res.Reply = "Listening paused."
	case intent.PauseWatching:
		err = c.SetWatchingPaused(ctx, true, source)
		res.Reply = "Watching paused."
	case intent.Resume:
		if err = c.SetListeningPaused(ctx, false, source); err == nil {
			err = c.SetWatchingPaused(ctx, false, source)
		}
		res.Reply = "Listening and watching again."
	case intent.Remind:
		res.Reply, err = c.remind(ctx, in, now)
	case intent.Cancel:
		res.Reply, err = c.cancelLast(ctx)
	case intent.Snooze:
		minutes := in.Minutes
		if in.NoLength {
			minutes = 0 // the lawyer's own snooze length
		}
		res.Reply, err = c.snoozeCurrent(ctx, minutes)
	case intent.ListReminders:
		res.Reply, err = c.listReminders(ctx, now)
	case intent.Task:
		// Tasks run as agents, which need a model provider; without one
		// startTask says so plainly and no agent starts.
		origin := source
		if origin == "" {
			origin = "voice"
		}
		var t task.Task
		t, err = c.startTask(ctx, task.NewTask{Prompt: in.Task, Origin: origin})
		switch {
		case errors.Is(err, task.ErrNoProvider):
			res.Handled, err = false, nil
			res.Reply = task.ErrNoProvider.Error() + "."
		case err == nil:
			res.Reply = "On it: " + in.Task + "."
			res.Agent = t.Session
		}
	default:
		res.Handled = false
		res.Reply = "Nothing to do."
	}
	if err != nil {
		return api.SayResult{}, err
	}
	return res, nil
}

// remind creates the reminder at once, so nothing the lawyer asked for is
// lost, and asks them to confirm the time, or to give one.
func (c *Core) remind(ctx context.Context, in intent.Intent, now time.Time) (string, error) {
	if in.When != nil {
		// Tied to a moment: it waits for it, and the bubble says which.
		r, err := c.rem.CreateOn(ctx, in.Task, storeTrigger(*in.When), now)
		if err != nil {
			return "", fmt.Errorf("create reminder: %w", err)
		}
		return c.remAns.ConfirmOn(ctx, r)
	}
	r, err := c.rem.Create(ctx, in.Task, in.Due, in.Every, now)
	if err != nil {
		return "", fmt.Errorf("create reminder: %w", err)
	}
	if r.Due == nil {
		return c.remAns.AskWhen(ctx, r)
	}
	return c.remAns.Confirm(ctx, r, now)
}

// cancelLast takes back the last reminder made in this session, else
// withdraws the bubble in front of the lawyer.
func (c *Core) cancelLast(ctx context.Context) (string, error) {
	r, err := c.rem.CancelLast(ctx)
	if err == nil {
		c.closeNudgesAbout(ctx, nudge.ReminderSubject(r.ID))
		return "Cancelled the reminder to " + r.Task + ".", nil
	}
	if !errors.Is(err, reminders.ErrNothingToCancel) {
		return "", err
	}
	open, err := c.store.Nudges(ctx, store.NudgeShown)
	if err != nil {
		return "", err
	}
	if len(open) > 0 {
		if _, err := c.Answer(ctx, open[0].ID, nudge.Dismiss, ""); err != nil {
			return "", err
		}
		return "Dismissed.", nil
	}
	return "Nothing to take back.", nil
}

// closeNudgesAbout expires the open nudges about subject: their question
// is moot. It returns how many it withdrew.
func (c *Core) closeNudgesAbout(ctx context.Context, subject string) int {
	open, err := c.store.Nudges(ctx, store.NudgeShown, store.NudgeSnoozed)
	if err != nil {
		return 0
	}
	n := 0
	for _, o := range open {
		if o.Subject != subject {
			continue
		}
		if _, err := c.store.RespondNudge(ctx, o.ID, store.NudgeExpired, ""); err == nil {
			c.say.withdraw(o.ID)
			n++
		}
	}
	return n
}

// snoozeCurrent pushes back the newest open nudge by minutes, or by the
// lawyer's snooze length when minutes is 0.
func (c *Core) snoozeCurrent(ctx context.Context, minutes int) (string, error) {
	if minutes <= 0 {
		minutes = c.snoozeLength(ctx)
	}
	open, err := c.store.Nudges(ctx, store.NudgeShown)
	if err != nil {
		return "", err
	}
	if len(open) == 0 {
		return "Nothing to snooze.", nil
	}
	if _, err := c.Answer(ctx, open[0].ID, nudge.Snooze, strconv.Itoa(minutes)); err != nil {
		return "", err
	}
	return fmt.Sprintf("Snoozed for %d minutes.", minutes), nil
}

func (c *Core) listReminders(ctx context.Context, now time.Time) (string, error) {
	rs, err := c.rem.List(ctx)
	if err != nil {
		return "", err
	}
	var msg string
	switch len(rs) {
	case 0:
		msg = "You have no reminders."
	default:
		var parts []string
		for i, r := range rs {
			if i == 4 {
				parts = append(parts, fmt.Sprintf("and %d more", len(rs)-4))
				break
			}
			parts = append(parts, reminders.Describe(r, now))
		}
		noun := "reminders"
		if len(rs) == 1 {
			noun = "reminder"
		}
		msg = fmt.Sprintf("%d %s: %s.", len(rs), noun, strings.Join(parts, "; "))
	}
	_, err = c.nudge(ctx, store.Nudge{Kind: nudge.KindReminderList, Message: msg})
	return msg, err
}

// storeTrigger is the grammar's trigger as the store keeps it.
func storeTrigger(t intent.Trigger) store.Trigger {
	return store.Trigger{Kind: store.TriggerKind(t.Kind), Person: t.Person, Subject: t.Subject, Name: t.Name}
}
