package app

import (
	"context"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
)

// CheckWorld implements api.Backend: the entries past consumer's cursor,
// which moves past them in the same transaction.
func (c *Core) CheckWorld(ctx context.Context, consumer string, limit int) ([]api.Entry, error) {
	es, err := c.store.Check(ctx, consumer, limit)
	if err != nil {
		return nil, err
	}
	return api.Views(es, api.EntryOf), nil
}

// LogWorldEvent implements api.Backend: a fact a local script logs.
func (c *Core) LogWorldEvent(ctx context.Context, source, identifier, text string) (api.Entry, error) {
	e, err := c.store.AppendEvent(ctx, store.Event{Source: source, Identifier: identifier, Text: text})
	if err != nil {
		return api.Entry{}, err
	}
	return api.EntryOf(e), nil
}
