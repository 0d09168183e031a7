package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
)

// maintainEvery is how often transcripts past their retention are deleted.
const maintainEvery = 6 * time.Hour

// maintain deletes transcripts past their retention, now and every few hours.
func (c *Core) maintain(ctx context.Context) error {
	t := time.NewTicker(maintainEvery)
	defer t.Stop()
	for {
		// Activity past its retention goes too (compactActivity).
		if _, err := c.compactActivity(ctx); err != nil && ctx.Err() == nil {
			c.log.Error("compact the activity log", "err", err)
		}
		days := c.retentionDays(ctx)
		cutoff := c.now().AddDate(0, 0, -days)
		if n, err := c.store.PurgeTranscripts(ctx, cutoff); err != nil {
			if ctx.Err() == nil {
				c.log.Error("purge transcripts", "err", err)
			}
		} else if n > 0 {
			c.event(ctx, "system", "transcripts", fmt.Sprintf("deleted %d transcripts older than %d days", n, days))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
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
