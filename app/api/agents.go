package api

import "context"

// AgentBackend is the part of the Backend that serves task agents. It
// hands out views (AgentOf), never the agents' conversations.
type AgentBackend interface {
	// Agents returns the agents, newest first.
	Agents(ctx context.Context) ([]Agent, error)
	// Agent returns one agent with its world-log entries; ErrNotFound
	// for an unknown session.
	Agent(ctx context.Context, session string) (AgentDetail, error)
	// CancelAgent stops an agent; ErrConflict if it has already ended.
	CancelAgent(ctx context.Context, session string) (Agent, error)
}
