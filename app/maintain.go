package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
)

// maintainEvery is how often maintenance runs: transcripts past their
// retention, old work runs.
const maintainEvery = 6 * time.Hour

// How long work runs are kept: their outcomes for a month (the world log
// keeps its own line of each), a heartbeat's prompt for a week. A
// heartbeat's prompt is written by code from the world log, up to about
// 18 KB every half hour; past a week nobody reads it.
const (
	workRunsKept         = 30 * 24 * time.Hour
	heartbeatPromptsKept = 7 * 24 * time.Hour
)

// maintain runs maintainOnce now and every few hours.
func (c *Core) maintain(ctx context.Context) error {
	t := time.NewTicker(maintainEvery)
	defer t.Stop()
	for {
		c.maintainOnce(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// maintainOnce deletes transcripts and activity past their retention and
// prunes old work runs. A failure is logged: the next pass tries again.
func (c *Core) maintainOnce(ctx context.Context) {
	now := c.now()
	if _, err := c.compactActivity(ctx); err != nil && ctx.Err() == nil {
		c.log.Error("compact the activity log", "err", err)
	}
	days := c.retentionDays(ctx)
	if n, err := c.store.PurgeTranscripts(ctx, now.AddDate(0, 0, -days)); err != nil {
		if ctx.Err() == nil {
			c.log.Error("purge transcripts", "err", err)
		}
	} else if n > 0 {
		c.event(ctx, "system", "transcripts", fmt.Sprintf("deleted %d transcripts older than %d days", n, days))
	}
	deleted, cleared, err := c.store.PruneWorkRuns(ctx, store.WorkPrune{RunsBefore: now.Add(-workRunsKept),
		Source: string(work.SourceHeartbeat), PromptsBefore: now.Add(-heartbeatPromptsKept)})
	switch {
	case err != nil:
		if ctx.Err() == nil {
			c.log.Error("prune work runs", "err", err)
		}
	case deleted > 0 || cleared > 0:
		c.log.Info("work runs pruned", "deleted", deleted, "heartbeat_prompts_cleared", cleared)
	}
}

// compactActivity deletes the world log's entries older than the lawyer
// keeps activity (Settings: world.keep_days; 0 keeps all), but for the
// agents' lifecycles and the reminders' events (store.CompactWorld), and
// records how many went. It returns that number.
func (c *Core) compactActivity(ctx context.Context) (int64, error) {
	s, err := c.settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		return 0, err
	}
	if s.WorldKeepDays <= 0 {
		return 0, nil
	}
	n, err := c.store.CompactWorld(ctx, c.now().AddDate(0, 0, -s.WorldKeepDays))
	if err != nil {
		return 0, err
	}
	if n > 0 {
		c.event(ctx, "system", "activity", fmt.Sprintf("deleted %d activity entries older than %d days", n, s.WorldKeepDays))
	}
	return n, nil
}

// retentionDays is how long transcripts are kept; 0 keeps none.
func (c *Core) retentionDays(ctx context.Context) int {
	s, err := c.settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		c.log.Warn("transcript retention: settings unreadable, default used", "err", err)
	}
	return s.TranscriptDays
}

// runCommands acts on what the microphone heard, one utterance at a time.
func (c *Core) runCommands(ctx context.Context, heard <-chan events.Event) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-heard:
			if !ok {
				return nil
			}
			u, ok := ev.Data.(events.Utterance)
			if !ok {
				continue
			}
			hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			if _, err := c.Heard(hctx, u.Text, u.At); err != nil {
				c.log.Error("act on what was heard", "err", err)
			}
			cancel()
		}
	}
}
