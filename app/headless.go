package app

import (
	"context"
	"log/slog"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
)

// headless presents Spirit through the log and the local API only: it
// reads the event stream and logs what a window would show.
type headless struct {
	core *Core
	sub  *events.Subscription
	log  *slog.Logger
}

// headlessEvents are what a window would show.
const headlessEvents = events.NudgeShown | events.NudgeWithdrawn | events.StatusChanged |
	events.ShowRequested | events.NotifyRequested | events.RemindersRequested |
	events.SpeechHearing | events.AgentsWorking | events.TaskDone | events.ServiceChanged

// newHeadless subscribes at once, so nothing said before Run is missed.
func newHeadless(c *Core, bus *events.Bus, log *slog.Logger) *headless {
	return &headless{core: c, sub: bus.Subscribe(headlessEvents, 0), log: log}
}

// Run has nothing to show on the main goroutine: it waits for ctx.
func (h *headless) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// Events logs the nudges still open, then what happens, until ctx ends.
func (h *headless) Events(ctx context.Context) error {
	defer h.sub.Unsubscribe()
	open, err := h.core.Waiting(ctx)
	if err != nil {
		h.log.Error("read open nudges", "err", err)
	}
	for _, n := range open {
		h.nudge(n)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-h.sub.C():
			h.show(ev)
		}
	}
}

func (h *headless) nudge(n store.Nudge) {
	h.log.Info("nudge", "id", n.ID, "kind", n.Kind, "message", n.Message,
		"answer_with", "spirit API POST /nudges/{id}/respond")
}

func (h *headless) show(ev events.Event) {
	switch d := ev.Data.(type) {
	case store.Nudge:
		h.nudge(d)
	case events.Notification:
		h.log.Info("notification", "title", d.Title, "body", d.Body)
	case events.ServiceState:
		h.log.Info("part", "name", d.Name, "state", d.State, "err", d.LastError)
	default:
		switch ev.Type {
		case events.NudgeWithdrawn:
			h.log.Info("nudge closed", "id", ev.Data)
		case events.StatusChanged:
			h.log.Info("status", "line", h.core.Status().Line())
		case events.RemindersRequested:
			h.log.Info("reminders window requested: headless Spirit has no window")
		case events.ShowRequested:
			h.log.Info("show requested: headless Spirit has no window")
		default:
			h.log.Debug(ev.Type.String(), "data", ev.Data)
		}
	}
}

// Subsystems implements UI.
func (h *headless) Subsystems() map[string]api.Subsystem {
	return map[string]api.Subsystem{"tray": {State: "headless"}, "ui": {State: "headless"}}
}
