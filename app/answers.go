package app

import (
	"context"
	"strings"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
)

// responders is the table of what acts on the lawyer's answer to each kind
// of nudge, after the answer itself is recorded. Reminder kinds are answered
// by the reminders package; the rest start, or feed, task agents.
func (c *Core) responders() *nudge.Responders {
	// A proposal raised through the local API: accepting it runs it.
	rs := nudge.NewResponders(func(ctx context.Context, n store.Nudge, choice, text string) error {
		if choice == nudge.Accept && (n.ActionPrompt != "" || text != "") {
			return c.taskFromNudge(ctx, n, text)
		}
		return nil
	})
	c.remAns.Register(rs)
	rs.Register(nudge.KindReminderList, func(_ context.Context, _ store.Nudge, choice, _ string) error {
		if choice == nudge.OpenReminders {
			c.bus.Log(events.RemindersRequested, nil)
		}
		return nil
	})
	for _, k := range []nudge.Kind{nudge.KindQuestion, nudge.KindApproval, nudge.KindHelp} {
		rs.Register(k, c.agentAnswer)
	}
	// "Draft it", or what the lawyer typed instead, runs as an agent.
	rs.Register(nudge.KindGlance, func(ctx context.Context, n store.Nudge, choice, text string) error {
		if choice == nudge.Accept {
			return c.taskFromNudge(ctx, n, text)
		}
		return nil
	})
	// Do it on what a heartbeat, a routine or a webhook found, or what the
	// lawyer typed instead, runs as an agent.
	rs.Register(nudge.KindSuggestion, func(ctx context.Context, n store.Nudge, choice, text string) error {
		if choice == nudge.Accept {
			return c.taskFromNudge(ctx, n, text)
		}
		return nil
	})
	// A commitment heard in a call: Set, another time, or Dismiss.
	rs.Register(nudge.KindCommitment, c.commitmentAnswer)
	// A meeting about to start: Brief me prepares the brief.
	rs.Register(nudge.KindMeeting, c.meetingAnswer)
	// Acknowledgements; words typed into the bubble are a new task.
	ack := func(ctx context.Context, n store.Nudge, choice, text string) error {
		if choice == nudge.Accept && strings.TrimSpace(text) != "" {
			return c.taskFromNudge(ctx, store.Nudge{ID: n.ID, Kind: n.Kind}, text)
		}
		return nil
	}
	rs.Register(nudge.KindInfo, ack)
	rs.Register(nudge.KindResult, ack)
	return rs
}
