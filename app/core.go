// Package app is Spirit's composition root: it opens the store, starts the
// local API and wires the senses and the mind to the UI — the Fyne tray,
// orb and bubble, or, in headless mode, the log.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/voice/intent"
)

// Setting keys kept in the store.
const (
	settingListeningPaused = "listening.paused"
	settingWatchingPaused  = "watching.paused"
	settingPauseHotkey     = "hotkey.pause_listening" // "Ctrl+Alt+P" by default; "off" disables
)

// Presenter shows Spirit to the lawyer: the GUI, or the log when headless.
// Its methods may be called from any goroutine.
type Presenter interface {
	// StatusChanged refreshes the tray and panel after a state change.
	StatusChanged(Status)
	// ShowNudge puts a nudge in front of the lawyer.
	ShowNudge(store.Nudge)
	// NudgeClosed withdraws a nudge answered elsewhere (the API, voice).
	NudgeClosed(id int64)
	// Show brings Spirit forward (a second instance was started).
	Show()
	// Subsystems reports the UI's own parts for /health.
	Subsystems() map[string]api.Subsystem
}

// Status is what the tray's status line and toggles show.
type Status struct {
	ListeningPaused bool
	WatchingPaused  bool
}

// Line is the tray's status line: "Listening · Watching", or what is paused.
func (s Status) Line() string {
	switch {
	case s.ListeningPaused && s.WatchingPaused:
		return "Paused: not listening or watching"
	case s.ListeningPaused:
		return "Listening paused · Watching"
	case s.WatchingPaused:
		return "Listening · Watching paused"
	}
	return "Listening · Watching"
}

// Core holds Spirit's state and the handlers every front end shares: the
// tray and orb, the local API, voice. It implements api.Backend.
type Core struct {
	store   *store.Store
	version string
	started time.Time
	now     func() time.Time
	log     *slog.Logger

	mu        sync.Mutex
	status    Status
	presenter Presenter

	says, nudgesShown, responses atomic.Int64
}

var _ api.Backend = (*Core)(nil)

// NewCore loads the persisted toggles from st.
func NewCore(ctx context.Context, st *store.Store, version string, log *slog.Logger) (*Core, error) {
	c := &Core{store: st, version: version, started: time.Now(), now: time.Now, log: log}
	var err error
	if c.status.ListeningPaused, err = st.BoolSetting(ctx, settingListeningPaused, false); err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	if c.status.WatchingPaused, err = st.BoolSetting(ctx, settingWatchingPaused, false); err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	return c, nil
}

// SetPresenter attaches the UI; nil means nobody is shown anything.
func (c *Core) SetPresenter(p Presenter) {
	c.mu.Lock()
	c.presenter = p
	c.mu.Unlock()
}

func (c *Core) ui() Presenter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.presenter
}

// Status returns the current toggles.
func (c *Core) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// SetListeningPaused pauses or resumes listening, persists the choice and
// records it in the world log.
func (c *Core) SetListeningPaused(ctx context.Context, paused bool, by string) error {
	return c.setToggle(ctx, settingListeningPaused, paused, by, func(s *Status) *bool { return &s.ListeningPaused })
}

// SetWatchingPaused pauses or resumes watching the screen.
func (c *Core) SetWatchingPaused(ctx context.Context, paused bool, by string) error {
	return c.setToggle(ctx, settingWatchingPaused, paused, by, func(s *Status) *bool { return &s.WatchingPaused })
}

func (c *Core) setToggle(ctx context.Context, key string, paused bool, by string, field func(*Status) *bool) error {
	// Persist first: a toggle the lawyer saw change must survive a crash.
	if err := c.store.SetBoolSetting(ctx, key, paused); err != nil {
		return fmt.Errorf("save %s: %w", key, err)
	}
	c.mu.Lock()
	*field(&c.status) = paused
	st := c.status
	p := c.presenter
	c.mu.Unlock()

	what := strings.TrimSuffix(key, ".paused")
	verb := "resumed"
	if paused {
		verb = "paused"
	}
	c.event(ctx, "user", by, what+" "+verb)
	if p != nil {
		p.StatusChanged(st)
	}
	return nil
}

// event appends to the world log; a failure is logged, never fatal to the
// action that caused it.
func (c *Core) event(ctx context.Context, source, id, text string) {
	if _, err := c.store.AppendEvent(ctx, store.Event{Source: source, Identifier: id, Text: text}); err != nil {
		c.log.Error("world log append failed", "source", source, "err", err)
	}
}

// Health implements api.Backend.
func (c *Core) Health(ctx context.Context) api.Health {
	st := c.Status()
	h := api.Health{
		Status:        "ok",
		Version:       c.version,
		UptimeSeconds: time.Since(c.started).Seconds(),
		Subsystems: map[string]api.Subsystem{
			"listening": pausedState(st.ListeningPaused, "voice capture arrives with the voice module"),
			"watching":  pausedState(st.WatchingPaused, "screen watching arrives with the screen module"),
		},
		Counters: map[string]int64{
			"say_commands":    c.says.Load(),
			"nudges_shown":    c.nudgesShown.Load(),
			"nudge_responses": c.responses.Load(),
		},
	}
	if counts, err := c.store.Counts(ctx); err != nil {
		h.Status = "degraded"
		h.Subsystems["store"] = api.Subsystem{State: "error", Detail: err.Error()}
	} else {
		h.Subsystems["store"] = api.Subsystem{State: "ok", Detail: c.store.Path()}
		h.Counters["world_entries"] = counts.Entries
		h.Counters["world_events"] = counts.Events
		h.Counters["agent_sessions"] = counts.Sessions
	}
	if p := c.ui(); p != nil {
		for k, v := range p.Subsystems() {
			h.Subsystems[k] = v
		}
	}
	return h
}

func pausedState(paused bool, detail string) api.Subsystem {
	if paused {
		return api.Subsystem{State: "paused"}
	}
	return api.Subsystem{State: "on", Detail: detail}
}

// World implements api.Backend.
func (c *Core) World(ctx context.Context, since int64, limit int) ([]store.Entry, error) {
	return c.store.Since(ctx, since, limit)
}

// Say implements api.Backend: text handled as if spoken.
func (c *Core) Say(ctx context.Context, text string) (api.SayResult, error) {
	c.says.Add(1)
	c.event(ctx, "user", "say", text)
	in := intent.Parse(text, c.now())
	res := api.SayResult{Intent: string(in.Kind)}
	var err error
	switch in.Kind {
	case intent.PauseListening:
		err = c.SetListeningPaused(ctx, true, "say")
		res.Handled, res.Reply = true, "Listening paused."
	case intent.PauseWatching:
		err = c.SetWatchingPaused(ctx, true, "say")
		res.Handled, res.Reply = true, "Watching paused."
	case intent.Resume:
		if err = c.SetListeningPaused(ctx, false, "say"); err == nil {
			err = c.SetWatchingPaused(ctx, false, "say")
		}
		res.Handled, res.Reply = true, "Listening and watching again."
	case intent.None:
		res.Reply = "Nothing to do."
	default:
		res.Reply = "Spirit heard a " + string(in.Kind) + " command; that command is not handled yet."
	}
	if err != nil {
		return api.SayResult{}, err
	}
	return res, nil
}

// Notify implements api.Backend: a nudge from a local integration.
func (c *Core) Notify(ctx context.Context, n api.NewNudge) (store.Nudge, error) {
	return c.nudge(ctx, store.Nudge{Kind: n.Kind, Message: n.Message, ActionPrompt: n.ActionPrompt})
}

// nudge records a nudge and shows it.
func (c *Core) nudge(ctx context.Context, n store.Nudge) (store.Nudge, error) {
	n, err := c.store.CreateNudge(ctx, n)
	if err != nil {
		return store.Nudge{}, fmt.Errorf("record nudge: %w", err)
	}
	c.nudgesShown.Add(1)
	c.event(ctx, "spirit", fmt.Sprintf("nudge-%d", n.ID), n.Kind+": "+n.Message)
	if p := c.ui(); p != nil {
		p.ShowNudge(n)
	}
	return n, nil
}

// Nudges implements api.Backend: the nudges still open.
func (c *Core) Nudges(ctx context.Context) ([]store.Nudge, error) {
	return c.store.Nudges(ctx, store.NudgeShown, store.NudgeSnoozed)
}

// RespondNudge implements api.Backend; the bubble answers through it too.
func (c *Core) RespondNudge(ctx context.Context, id int64, action, text string) (store.Nudge, error) {
	var state store.NudgeState
	switch action {
	case api.ActionAccept:
		state = store.NudgeAccepted
	case api.ActionDismiss:
		state = store.NudgeDismissed
	case api.ActionSnooze:
		state = store.NudgeSnoozed
	default:
		return store.Nudge{}, fmt.Errorf("unknown action %q: %w", action, api.ErrBadRequest)
	}
	n, err := c.store.RespondNudge(ctx, id, state, text)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Nudge{}, fmt.Errorf("nudge %d: %w", id, api.ErrNotFound)
	case errors.Is(err, store.ErrNudgeClosed):
		return store.Nudge{}, fmt.Errorf("nudge %d is already closed: %w", id, api.ErrConflict)
	case err != nil:
		return store.Nudge{}, err
	}
	c.responses.Add(1)
	line := action
	if text != "" {
		line += ": " + text
	}
	c.event(ctx, "user", fmt.Sprintf("nudge-%d", id), line)
	if p := c.ui(); p != nil {
		p.NudgeClosed(id)
	}
	return n, nil
}

// Show implements api.Backend.
func (c *Core) Show(context.Context) error {
	if p := c.ui(); p != nil {
		p.Show()
	}
	return nil
}
