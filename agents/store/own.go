package store

import "strings"

// AgentEventSource is the world log source of the steps a task agent logs
// itself; the identifier is its session. Its log (SessionEntries) holds
// only these and its lifecycle records.
const AgentEventSource = "agent"

// HeartbeatCursor is the world log's cursor of the heartbeat: the last
// entry a heartbeat's model has read.
const HeartbeatCursor = "heartbeat"

// ownSources are the world log sources Spirit's own parts write under.
// A line under one reads as that part's own: the lawyer's answer (user),
// an agent's step, what the screen showed.
var ownSources = []string{AgentEventSource, "spirit", "user", "voice", "screen", "system", "mail", "glance",
	"calendar", ReminderEventSource, CommitmentEventSource, WorkEventSource, RoutineEventSource}

// OwnSource reports whether source is, or is under ("agent:x"), one of the
// world log sources Spirit's own parts write: a fact from outside (a
// script, through the local API) may not use one.
func OwnSource(source string) bool {
	name, _, _ := strings.Cut(source, ":")
	for _, s := range ownSources {
		if name == s {
			return true
		}
	}
	return false
}

// OwnCursor reports whether consumer is a cursor Spirit's own parts keep:
// a check from outside may not move it.
func OwnCursor(consumer string) bool { return consumer == HeartbeatCursor }
