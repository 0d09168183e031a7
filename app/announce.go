package app

import (
	"context"
	"sync/atomic"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
)

// announcer puts what Spirit wants to say on the event stream, where the
// desktop (or the headless log) picks it up. It is how reminders, task
// agents and the core show and withdraw nudges: none of them knows who
// listens. It implements reminders.Notifier, reminders.Withdrawer and
// task.Listener.
type announcer struct {
	bus   events.Logger
	shown atomic.Int64 // nudges put in front of the lawyer, for /health
}

// show puts a recorded nudge in front of the lawyer, and also as a desktop
// notification titled notify when that is not empty.
func (a *announcer) show(n store.Nudge, notify string) {
	a.shown.Add(1)
	a.bus.Log(events.NudgeShown, n)
	if notify != "" {
		a.bus.Log(events.NotifyRequested, events.Notification{Title: notify, Body: n.Message})
	}
}

// withdraw takes down a nudge that is no longer current.
func (a *announcer) withdraw(id int64) { a.bus.Log(events.NudgeWithdrawn, id) }

// statusChanged tells the front end to read the status again.
func (a *announcer) statusChanged() { a.bus.Log(events.StatusChanged, nil) }

// Fired implements reminders.Notifier: the firing is recorded; show it.
func (a *announcer) Fired(_ context.Context, r store.Reminder, n store.Nudge, _ bool) {
	a.bus.Log(events.ReminderDue, r.ID)
	a.show(n, "Spirit reminder")
}

// Withdrawn implements reminders.Withdrawer.
func (a *announcer) Withdrawn(_ context.Context, id int64) { a.withdraw(id) }

// NudgeCreated implements task.Listener: a finished task also notifies.
func (a *announcer) NudgeCreated(n store.Nudge) {
	notify := ""
	if n.Kind == nudge.KindResult {
		notify = "Spirit"
	}
	a.show(n, notify)
}

// NudgeClosed implements task.Listener.
func (a *announcer) NudgeClosed(id int64) { a.withdraw(id) }

// Working implements task.Listener: the orb shows agents at work.
func (a *announcer) Working(n int) { a.bus.Log(events.AgentsWorking, n) }

// Verified implements task.Listener: a brief sparkle on the orb.
func (a *announcer) Verified(session string) { a.bus.Log(events.TaskDone, session) }

// Lifecycle implements task.Listener: the Activity window and the coming
// mind follow agents through the stream.
func (a *announcer) Lifecycle(session string, status store.AgentStatus) {
	a.bus.Log(events.AgentLifecycle, events.AgentChange{Session: session, Phase: string(status)})
}
