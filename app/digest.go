package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spirit-app/spirit/agents/digest"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
)

// partDigest is the analysis loop's part (agents/digest, issue 14 §3).
const partDigest = "digest"

// digestBuffer is the loop's subscription buffer: a busy half minute of
// switches, speech and screen reads between two ticks.
const digestBuffer = 128

// digestTypes are the events the loop reads: speech once the commands
// part has read it, so a command is not taken for conversation.
const digestTypes = events.AppSwitched | events.UtteranceUnderstood | events.ScreenTextRead | events.WatchingPaused

// errNoDigest is the answer of a core built without the loop.
var errNoDigest = fmt.Errorf("the analysis loop is not running: %w", api.ErrNotFound)

// digestPart runs the analysis loop inside Spirit: it reads the stream,
// ticks every interval and puts each new HUD line on the stream for the
// orb.
type digestPart struct {
	loop *digest.Loop
	sub  *events.Subscription
}

// newDigest builds the loop on the bus, with its saved configuration and
// the provider's fast model when one is set.
func newDigest(ctx context.Context, bus *events.Bus, st *store.Store, keys *providers, now func() time.Time, log *slog.Logger) *digestPart {
	sub := bus.Subscribe(digestTypes, digestBuffer)
	loop := digest.New(digest.Options{
		Events:   sub.C(),
		Provider: keys.digestModel,
		Settings: st,
		OnHUD:    func(hud string) { bus.Log(events.HUDChanged, hud) },
		Now:      now,
		Log:      log,
	})
	if err := loop.Load(ctx); err != nil {
		log.Warn("digest: saved settings unreadable; defaults in force", "err", err)
	}
	return &digestPart{loop: loop, sub: sub}
}

// Run implements supervisor.Service.
func (d *digestPart) Run(ctx context.Context) error { return d.loop.Run(ctx) }

// digestModel is the provider and its fast (triage) model for the loop,
// or the first model the lawyer named when no triage model is set; nil
// without a provider.
func (p *providers) digestModel(ctx context.Context) (llm.Provider, string, error) {
	pr, s, err := p.provider(ctx)
	if err != nil || pr == nil {
		return nil, "", err
	}
	for _, m := range []string{s.Roles.Triage, s.Roles.Analyst, s.Roles.Agent} {
		if m != "" {
			return pr, m, nil
		}
	}
	return pr, "", nil
}

// HUDLine is the analysis loop's line for the orb: what the lawyer is
// doing now; "" before the first analysis or without the loop.
func (c *Core) HUDLine() string {
	if c.digest == nil {
		return ""
	}
	return c.digest.loop.HUDLine()
}

// LatestDigest is the loop's last analysis, for Spirit's own reasoning
// (the heartbeat): never to be shown as a nudge by itself. ok is false
// before the first.
func (c *Core) LatestDigest() (a digest.Analysis, ok bool) {
	if c.digest == nil {
		return digest.Analysis{}, false
	}
	return c.digest.loop.Latest()
}

// digestStats is /health's "agent"; nil without the loop.
func (c *Core) digestStats() *digest.Stats {
	if c.digest == nil {
		return nil
	}
	s := c.digest.loop.Stats()
	return &s
}

// DigestLast implements api.Backend.
func (c *Core) DigestLast(context.Context) (digest.Analysis, error) {
	if c.digest == nil {
		return digest.Analysis{}, errNoDigest
	}
	a, ok := c.digest.loop.Latest()
	if !ok {
		return a, fmt.Errorf("no analysis yet: %w", api.ErrNotFound)
	}
	return a, nil
}

// DigestHistory implements api.Backend.
func (c *Core) DigestHistory(_ context.Context, limit int) ([]digest.Analysis, error) {
	if c.digest == nil {
		return nil, errNoDigest
	}
	return c.digest.loop.History(limit), nil
}

// DigestContext implements api.Backend.
func (c *Core) DigestContext(context.Context) (digest.Context, error) {
	if c.digest == nil {
		return digest.Context{}, errNoDigest
	}
	return c.digest.loop.Context(), nil
}

// DigestConfig implements api.Backend.
func (c *Core) DigestConfig(context.Context) (digest.Config, error) {
	if c.digest == nil {
		return digest.Config{}, errNoDigest
	}
	return c.digest.loop.Config(), nil
}

// SetDigestConfig implements api.Backend; the change is kept in the
// settings and logged.
func (c *Core) SetDigestConfig(ctx context.Context, u digest.ConfigUpdate) (digest.Config, error) {
	if c.digest == nil {
		return digest.Config{}, errNoDigest
	}
	cfg, err := c.digest.loop.SetConfig(ctx, u)
	if errors.Is(err, digest.ErrInvalidConfig) {
		return cfg, fmt.Errorf("%w: %w", api.ErrBadRequest, err)
	}
	if err != nil {
		return cfg, err
	}
	c.event(ctx, "user", "digest", fmt.Sprintf("analysis loop: enabled %v, every %v, window %v, model %q",
		cfg.Enabled, cfg.Interval, cfg.Window, cfg.Model))
	return cfg, nil
}
