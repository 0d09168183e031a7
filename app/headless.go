package app

import (
	"log/slog"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
)

// headless presents Spirit through the log and the local API only.
type headless struct{ log *slog.Logger }

func (h headless) StatusChanged(st Status) { h.log.Info("status", "line", st.Line()) }

func (h headless) ShowNudge(n store.Nudge) {
	h.log.Info("nudge", "id", n.ID, "kind", n.Kind, "message", n.Message,
		"answer_with", "spirit API POST /nudges/{id}/respond")
}

func (h headless) NudgeClosed(id int64) { h.log.Info("nudge closed", "id", id) }

func (h headless) Notify(title, body string) {
	h.log.Info("notification", "title", title, "body", body)
}

func (h headless) OpenReminders() {
	h.log.Info("reminders window requested: headless Spirit has no window")
}

func (h headless) Show() { h.log.Info("show requested: headless Spirit has no window") }

func (h headless) Subsystems() map[string]api.Subsystem {
	return map[string]api.Subsystem{"tray": {State: "headless"}, "ui": {State: "headless"}}
}

func (h headless) Hearing(on bool) { h.log.Debug("hearing speech", "on", on) }

func (h headless) Working(n int) { h.log.Debug("agents working", "n", n) }

func (h headless) TaskDone() { h.log.Debug("task done") }
