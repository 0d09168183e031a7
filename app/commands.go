package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/voice/intent"
)

// Nudge kinds Spirit itself creates. The bubble words its buttons by kind.
const (
	kindReminder        = "reminder"         // a reminder fired
	kindReminderConfirm = "reminder_confirm" // "Remind you to … — tomorrow 3:00 PM?"
	kindReminderWhen    = "reminder_when"    // "When should I remind you to …?"
	kindInfo            = "info"
	kindReminderList    = "reminder_list"
)

// Bubble choices beyond the API's accept/dismiss/snooze.
const (
	choiceChange        = "change"         // reminder_confirm: ask for another time
	choiceOpenReminders = "open_reminders" // reminder_list: open the window
	choiceAtPrefix      = "at:"            // reminder_when quick choice: "at:" + RFC 3339
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
		res.Reply, err = c.snoozeCurrent(ctx, in.Minutes)
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
	if c.rem == nil {
		return "", errors.New("reminders are not running")
	}
	r, err := c.rem.Create(ctx, in.Task, in.Due, in.Every, now)
	if err != nil {
		return "", fmt.Errorf("create reminder: %w", err)
	}
	if r.Due == nil {
		return c.askWhen(ctx, r, now)
	}
	return c.confirm(ctx, r, now)
}

func (c *Core) confirm(ctx context.Context, r store.Reminder, now time.Time) (string, error) {
	desc := reminders.Describe(r, now)
	_, err := c.nudge(ctx, store.Nudge{Kind: kindReminderConfirm, Subject: store.ReminderIdentifier(r.ID),
		Message: "Remind you to " + desc + "?"})
	return "I'll remind you to " + desc + ".", err
}

func (c *Core) askWhen(ctx context.Context, r store.Reminder, now time.Time) (string, error) {
	_, err := c.nudge(ctx, store.Nudge{Kind: kindReminderWhen, Subject: store.ReminderIdentifier(r.ID),
		Message: "When should I remind you to " + r.Task + "?"})
	return "When should I remind you to " + r.Task + "?", err
}

// quickTimes are the bubble's ready answers to "when?", relative to now.
func quickTimes(now time.Time) []struct {
	Label string
	At    time.Time
} {
	day := func(d time.Time, h int) time.Time {
		return time.Date(d.Year(), d.Month(), d.Day(), h, 0, 0, 0, d.Location())
	}
	hour := now.Truncate(time.Minute).Add(time.Hour)
	tomorrow := day(now.AddDate(0, 0, 1), 9)
	out := []struct {
		Label string
		At    time.Time
	}{{"In 1 hour", hour}}
	if evening := day(now, 17); evening.Sub(now) > 90*time.Minute {
		out = append(out, struct {
			Label string
			At    time.Time
		}{"Today 5 PM", evening})
	}
	out = append(out, struct {
		Label string
		At    time.Time
	}{"Tomorrow 9 AM", tomorrow})
	return out
}

// reminderOf finds the reminder a nudge is about.
func (c *Core) reminderOf(ctx context.Context, n store.Nudge) (store.Reminder, error) {
	if n.Kind == kindReminder {
		if r, err := c.store.ReminderForNudge(ctx, n.ID); err == nil {
			return r, nil
		}
	}
	id, ok := strings.CutPrefix(n.Subject, "reminder-")
	if !ok {
		return store.Reminder{}, fmt.Errorf("nudge %d is not about a reminder: %w", n.ID, api.ErrBadRequest)
	}
	rid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return store.Reminder{}, fmt.Errorf("nudge %d: bad subject %q", n.ID, n.Subject)
	}
	return c.store.Reminder(ctx, rid)
}

// followUp acts on the lawyer's answer to one of Spirit's own nudges, after
// the answer itself is recorded. choice is an API action or a bubble choice.
func (c *Core) followUp(ctx context.Context, n store.Nudge, choice, text string) error {
	now := c.now()
	switch n.Kind {
	case kindReminder:
		r, err := c.reminderOf(ctx, n)
		if err != nil {
			return err
		}
		if choice == api.ActionSnooze {
			mins := 10
			if m, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(text, "min"))); err == nil && m > 0 {
				mins = m
			} else if text != "" {
				if in := intent.Parse("snooze "+text, now); in.Kind == intent.Snooze && in.Minutes > 0 {
					mins = in.Minutes
				}
			}
			_, err = c.rem.Snooze(ctx, r.ID, mins)
			return err
		}
		_, err = c.rem.Complete(ctx, r.ID)
		return err

	case kindReminderConfirm, kindReminderWhen:
		r, err := c.reminderOf(ctx, n)
		if err != nil {
			return err
		}
		switch {
		case choice == api.ActionDismiss:
			_, err = c.rem.Cancel(ctx, r.ID)
			return err
		case choice == choiceChange:
			_, err = c.askWhen(ctx, r, now)
			return err
		case choice == api.ActionSnooze:
			// Snoozing the question puts the bubble off; its text is the
			// snooze length ("20"), never a new time for the reminder.
			return nil
		case strings.HasPrefix(choice, choiceAtPrefix):
			at, perr := time.Parse(time.RFC3339, strings.TrimPrefix(choice, choiceAtPrefix))
			if perr != nil {
				return fmt.Errorf("quick time %q: %w", choice, api.ErrBadRequest)
			}
			_, err = c.rem.SetTime(ctx, r.ID, at)
			return err
		case text != "":
			at, perr := reminders.ParseNewTime(text, now, r.Due)
			if perr != nil {
				// Ask again rather than guess: a wrong time is worse than a question.
				c.event(ctx, "reminders", store.ReminderIdentifier(r.ID), "no time understood in "+strconv.Quote(text))
				_, err = c.nudge(ctx, store.Nudge{Kind: kindReminderWhen, Subject: n.Subject,
					Message: "I didn't catch a time in “" + text + "”. When should I remind you to " + r.Task + "?"})
				return err
			}
			if r, err = c.rem.SetTime(ctx, r.ID, at); err != nil {
				return err
			}
			_, err = c.confirm(ctx, r, now)
			return err
		case n.Kind == kindReminderWhen && choice == api.ActionAccept:
			// "OK" without a time: ask again, the reminder waits.
			_, err = c.askWhen(ctx, r, now)
			return err
		}
		return nil // Set, or Not now: the reminder stands as it is.

	case kindReminderList:
		if choice == choiceOpenReminders {
			if p := c.ui(); p != nil {
				p.OpenReminders()
			}
		}

	case task.KindQuestion, task.KindApproval, task.KindHelp:
		return c.agentAnswer(ctx, n, choice, text)

	case kindGlance:
		// "Draft it", or what the lawyer typed instead, runs as an agent.
		if choice == api.ActionAccept {
			return c.taskFromNudge(ctx, n, text)
		}

	case kindInfo, task.KindResult:
		// Acknowledgements; words typed into the bubble are a new task.
		if choice == api.ActionAccept && strings.TrimSpace(text) != "" {
			return c.taskFromNudge(ctx, store.Nudge{ID: n.ID, Kind: n.Kind}, text)
		}

	default:
		// A proposal raised through the local API: accepting it runs it.
		if choice == api.ActionAccept && (n.ActionPrompt != "" || text != "") {
			return c.taskFromNudge(ctx, n, text)
		}
	}
	return nil
}

// cancelLast takes back the last reminder made in this session, else
// withdraws the bubble in front of the lawyer.
func (c *Core) cancelLast(ctx context.Context) (string, error) {
	if c.rem != nil {
		r, err := c.rem.CancelLast(ctx)
		if err == nil {
			c.closeNudgesAbout(ctx, store.ReminderIdentifier(r.ID))
			return "Cancelled the reminder to " + r.Task + ".", nil
		}
		if !errors.Is(err, reminders.ErrNothingToCancel) {
			return "", err
		}
	}
	open, err := c.store.Nudges(ctx, store.NudgeShown)
	if err != nil {
		return "", err
	}
	if len(open) > 0 {
		if _, err := c.Answer(ctx, open[0].ID, api.ActionDismiss, ""); err != nil {
			return "", err
		}
		return "Dismissed.", nil
	}
	return "Nothing to take back.", nil
}

// closeNudgesAbout expires the open nudges about subject: their question is moot.
func (c *Core) closeNudgesAbout(ctx context.Context, subject string) {
	open, err := c.store.Nudges(ctx, store.NudgeShown, store.NudgeSnoozed)
	if err != nil {
		return
	}
	for _, n := range open {
		if n.Subject != subject {
			continue
		}
		if _, err := c.store.RespondNudge(ctx, n.ID, store.NudgeExpired, ""); err == nil {
			c.withdraw(n.ID)
		}
	}
}

// snoozeCurrent pushes back the newest open nudge.
func (c *Core) snoozeCurrent(ctx context.Context, minutes int) (string, error) {
	if minutes <= 0 {
		minutes = 10
	}
	open, err := c.store.Nudges(ctx, store.NudgeShown)
	if err != nil {
		return "", err
	}
	if len(open) == 0 {
		return "Nothing to snooze.", nil
	}
	if _, err := c.Answer(ctx, open[0].ID, api.ActionSnooze, strconv.Itoa(minutes)); err != nil {
		return "", err
	}
	return fmt.Sprintf("Snoozed for %d minutes.", minutes), nil
}

func (c *Core) listReminders(ctx context.Context, now time.Time) (string, error) {
	if c.rem == nil {
		return "", errors.New("reminders are not running")
	}
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
	_, err = c.nudge(ctx, store.Nudge{Kind: kindReminderList, Message: msg})
	return msg, err
}

// Fired implements reminders.Notifier: the firing is recorded; show it.
func (c *Core) Fired(ctx context.Context, r store.Reminder, n store.Nudge, missed bool) {
	c.present(n, "Spirit reminder")
}

// Withdrawn implements reminders.Withdrawer.
func (c *Core) Withdrawn(ctx context.Context, nudgeID int64) { c.withdraw(nudgeID) }
