package api

import (
	"context"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// AgentBackend is the part of the Backend that serves task agents.
type AgentBackend interface {
	// Agents returns the agents, newest first.
	Agents(ctx context.Context) ([]task.Task, error)
	// Agent returns one agent with its world-log entries; ErrNotFound
	// for an unknown session.
	Agent(ctx context.Context, session string) (AgentDetail, error)
	// CancelAgent stops an agent; ErrConflict if it has already ended.
	CancelAgent(ctx context.Context, session string) (task.Task, error)
}

// AgentDetail is the body of GET /agents/{id}: the agent's saved state
// (plan, step, phase, result) and its history from the world log.
type AgentDetail struct {
	task.Task
	Entries []store.Entry `json:"entries"`
}
