// Package app is Spirit's composition root: it opens the store, starts the
// local API and wires the senses and the mind to the UI — the Fyne tray,
// orb and bubble, or, in headless mode, the log.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
	"github.com/spirit-app/spirit/screen/ocr"
	"github.com/spirit-app/spirit/voice/intent"
)

// Setting keys kept in the store.
const (
	settingListeningPaused = "listening.paused"
	settingWatchingPaused  = "watching.paused"
	settingPauseHotkey     = "hotkey.pause_listening" // "Ctrl+Alt+P" by default; "off" disables
	settingWakePhrase      = "voice.wake_phrase"      // empty: no wake phrase needed
	settingTranscriptDays  = "voice.transcript_days"  // how long transcripts are kept
	defaultTranscriptDays  = 7
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
	// Notify shows a desktop notification.
	Notify(title, body string)
	// OpenReminders opens the Reminders window.
	OpenReminders()
	// Subsystems reports the UI's own parts for /health.
	Subsystems() map[string]api.Subsystem
	// Hearing tells whether speech is being heard right now (the orb pulses).
	Hearing(on bool)
	// Working tells how many agents are running now; 0 means none.
	Working(n int)
	// TaskDone tells that an agent's task just finished well (a brief sparkle).
	TaskDone()
}

// Status is what the tray's status line and toggles show.
type Status struct {
	ListeningPaused bool
	WatchingPaused  bool
	Voice           string // the voice pipeline's state; "" before it starts
	Watch           string // the app-switch watcher's state ("on", "unavailable", "error"); "" before it starts
	Mail            string // "Syncing mail 120/500" while the index catches up
}

// Line is the tray's status line: "Listening · Watching", or what is paused
// or missing ("No speech model · Watching").
func (s Status) Line() string {
	listening := "Listening"
	switch {
	case s.ListeningPaused:
		listening = "Listening paused"
	case s.Voice == "":
		listening = "Starting" // the voice pipeline has not looked for a microphone and model yet
	case s.Voice != "" && s.Voice != voiceCapturing && s.Voice != voiceLoading:
		listening = strings.ToUpper(s.Voice[:1]) + s.Voice[1:]
	}
	watching := "Watching"
	switch {
	case s.WatchingPaused:
		watching = "Watching paused"
	case s.Watch == "unavailable" || s.Watch == "error":
		watching = "Not watching" // no display, or the display went away: see /health or doctor
	}
	line := listening + " · " + watching
	if s.ListeningPaused && s.WatchingPaused {
		line = "Paused: not listening or watching"
	}
	if s.Mail != "" {
		line += " · " + s.Mail
	}
	return line
}

// Core holds Spirit's state and the handlers every front end shares: the
// tray and orb, the local API, voice. It implements api.Backend.
type Core struct {
	store   *store.Store
	rem     *reminders.Scheduler
	tasks   *task.Runner // task agents; set by Run
	voice   *voice
	mail    *mailSyncer
	watch   *watching
	version string
	started time.Time
	now     func() time.Time
	log     *slog.Logger

	runCtx context.Context // lives as long as Spirit runs; set by Run

	glanceMu    sync.Mutex     // one glance at a time; guards ocr
	ocr         *ocr.Tesseract // loaded on first need
	llmCounters *llm.Counters  // tokens and cost per model, for /health
	sec         secrets.Store  // opened on first use; see secrets()

	mu        sync.Mutex
	status    Status
	presenter Presenter

	says, nudgesShown, responses, heard, commands atomic.Int64
}

var _ api.Backend = (*Core)(nil)

// NewCore loads the persisted toggles from st.
func NewCore(ctx context.Context, st *store.Store, version string, log *slog.Logger) (*Core, error) {
	c := &Core{store: st, version: version, started: time.Now(), now: time.Now, log: log,
		runCtx: context.Background(), llmCounters: llm.NewCounters(nil)}
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

// Status returns the current toggles and voice state.
func (c *Core) Status() Status {
	c.mu.Lock()
	st, v, m, w := c.status, c.voice, c.mail, c.watch
	c.mu.Unlock()
	if v != nil {
		st.Voice, _ = v.State()
	}
	if w != nil {
		st.Watch, _ = w.State()
	}
	if m != nil {
		st.Mail, _ = m.Progress()
	}
	return st
}

// voiceChanged tells the UI that the microphone or model state moved.
func (c *Core) voiceChanged() {
	if p := c.ui(); p != nil {
		p.StatusChanged(c.Status())
	}
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
	p, v := c.presenter, c.voice
	c.mu.Unlock()
	if key == settingListeningPaused && v != nil {
		v.setPaused(paused) // the microphone is closed before we say so
	}
	if w := c.watcher(); key == settingWatchingPaused && w != nil {
		w.setPaused(c.runCtx, paused) // the watcher is gone before we say so
	}
	st := c.Status()

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
// action that caused it. While another program holds the database locked
// the store keeps the event in memory and writes it, in order, once it can.
func (c *Core) event(ctx context.Context, source, id, text string) {
	pending, err := c.store.LogEvent(ctx, store.Event{Source: source, Identifier: id, Text: text})
	switch {
	case err != nil:
		c.log.Error("world log append failed", "source", source, "err", err)
	case pending:
		c.log.Warn("world log: the database is busy; the event is kept to be written once it is free",
			"source", source, "pending", c.store.Pending())
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
			"listening": c.listeningState(st),
			"watching":  c.watchingState(st),
		},
		Counters: map[string]int64{
			"say_commands":    c.says.Load(),
			"nudges_shown":    c.nudgesShown.Load(),
			"nudge_responses": c.responses.Load(),
			"utterances":      c.heard.Load(),
			"voice_commands":  c.commands.Load(),
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
	h.Database = api.DatabaseHealth{BusyWaits: c.store.BusyWaits(), PendingEvents: c.store.Pending()}
	if n := h.Database.PendingEvents; n > 0 && h.Subsystems["store"].State == "ok" {
		// Reads still work, so the store looks fine; say that writes wait.
		h.Subsystems["store"] = api.Subsystem{State: "busy",
			Detail: fmt.Sprintf("another program holds %s locked: %d world-log events wait in memory", c.store.Path(), n)}
	}
	if w := c.watcher(); w != nil {
		h.Counters["app_switches"] = w.switches.Load()
	}
	if c.tasks != nil {
		h.Subsystems["agents"] = c.agentsHealth(ctx, h.Counters)
	}
	tot := c.llmCounters.Snapshot().Total
	h.Counters["model_calls"] = tot.Calls
	h.Counters["model_input_tokens"] = tot.InputTokens
	h.Counters["model_output_tokens"] = tot.OutputTokens
	if ps, err := setup.Load(ctx, c.store); err == nil && ps.Configured() {
		h.Subsystems["model_provider"] = api.Subsystem{State: ps.Kind,
			Detail: fmt.Sprintf("%d calls, %d errors, $%.4f so far", tot.Calls, tot.Errors, tot.CostUSD)}
	} else {
		h.Subsystems["model_provider"] = api.Subsystem{State: "none", Detail: "on-device rules only"}
	}
	c.mu.Lock()
	ms := c.mail
	c.mu.Unlock()
	if ms != nil {
		h.Subsystems["mail"] = ms.health(ctx, h.Counters)
	}
	if p := c.ui(); p != nil {
		for k, v := range p.Subsystems() {
			h.Subsystems[k] = v
		}
	}
	return h
}

func (c *Core) listeningState(st Status) api.Subsystem {
	if st.ListeningPaused {
		return api.Subsystem{State: "paused"}
	}
	c.mu.Lock()
	v := c.voice
	c.mu.Unlock()
	if v == nil {
		return api.Subsystem{State: "on"}
	}
	state, detail := v.State()
	if state == voiceCapturing {
		state = "on"
	}
	return api.Subsystem{State: state, Detail: detail}
}

func (c *Core) watchingState(st Status) api.Subsystem {
	if st.WatchingPaused {
		return api.Subsystem{State: "paused"}
	}
	w := c.watcher()
	if w == nil {
		return api.Subsystem{State: "starting"}
	}
	state, detail := w.State()
	return api.Subsystem{State: state, Detail: detail}
}

// watcher returns the app-switch watcher, or nil before it starts.
func (c *Core) watcher() *watching {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watch
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

// Say implements api.Backend: text handled as if spoken. Like speech, only
// what Spirit acts on goes to the world log; other typed words are not kept.
func (c *Core) Say(ctx context.Context, text string) (api.SayResult, error) {
	c.says.Add(1)
	now := c.now()
	in, addressed := c.understand(ctx, text, now)
	if in.Kind == intent.None {
		return notUnderstoodResult(addressed), nil
	}
	c.event(ctx, "user", "say", string(in.Kind)+": "+text)
	return c.handle(ctx, in, now, "say")
}

// Heard handles an utterance transcribed at at. Ambient speech is kept only
// as a transcript (deleted after the retention period), never in the world log.
func (c *Core) Heard(ctx context.Context, text string, at time.Time) (api.SayResult, error) {
	in, addressed := c.understand(ctx, text, at)
	c.heard.Add(1)
	if days := c.retentionDays(ctx); days > 0 {
		if _, err := c.store.AddTranscript(ctx, store.Transcript{TS: at, Text: text, Intent: string(in.Kind)}); err != nil {
			c.log.Error("keep transcript", "err", err)
		}
	}
	if in.Kind == intent.None {
		return notUnderstoodResult(addressed), nil
	}
	c.commands.Add(1)
	c.event(ctx, "voice", "command", string(in.Kind)+": "+text)
	return c.handle(ctx, in, at, "voice")
}

// parseOptions reads the wake-phrase setting (off by default).
func (c *Core) parseOptions(ctx context.Context) intent.ParseOptions {
	var o intent.ParseOptions
	if v, ok, err := c.store.Setting(ctx, settingWakePhrase); err == nil && ok && strings.TrimSpace(v) != "" {
		o.RequireWake, o.WakePhrase = true, strings.TrimSpace(v)
	}
	return o
}

// retentionDays is how long transcripts are kept; 0 keeps none.
func (c *Core) retentionDays(ctx context.Context) int {
	if v, ok, err := c.store.Setting(ctx, settingTranscriptDays); err == nil && ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	return defaultTranscriptDays
}

// Notify implements api.Backend: a nudge from a local integration.
func (c *Core) Notify(ctx context.Context, n api.NewNudge) (store.Nudge, error) {
	return c.nudge(ctx, store.Nudge{Kind: n.Kind, Message: n.Message, ActionPrompt: n.ActionPrompt, Detail: n.Detail})
}

// nudge records a nudge and shows it.
func (c *Core) nudge(ctx context.Context, n store.Nudge) (store.Nudge, error) {
	n, err := c.store.CreateNudge(ctx, n)
	if err != nil {
		return store.Nudge{}, fmt.Errorf("record nudge: %w", err)
	}
	c.event(ctx, "spirit", fmt.Sprintf("nudge-%d", n.ID), n.Kind+": "+n.Message)
	c.present(n, "")
	return n, nil
}

// present shows a recorded nudge, and also as a desktop notification
// titled notify when that is not empty.
func (c *Core) present(n store.Nudge, notify string) {
	c.nudgesShown.Add(1)
	if p := c.ui(); p != nil {
		p.ShowNudge(n)
		if notify != "" {
			p.Notify(notify, n.Message)
		}
	}
}

// withdraw takes down a nudge that is no longer current.
func (c *Core) withdraw(id int64) {
	if p := c.ui(); p != nil {
		p.NudgeClosed(id)
	}
}

// Nudges implements api.Backend: the nudges still open.
func (c *Core) Nudges(ctx context.Context) ([]store.Nudge, error) {
	return c.store.Nudges(ctx, store.NudgeShown, store.NudgeSnoozed)
}

// RespondNudge implements api.Backend.
func (c *Core) RespondNudge(ctx context.Context, id int64, action, text string) (store.Nudge, error) {
	switch {
	case action == api.ActionAccept, action == api.ActionDismiss, action == api.ActionSnooze:
	case action == api.ActionEdit, strings.HasPrefix(action, api.ActionAnswerPrefix):
		// An approval with an edited body; a question's option.
	default:
		return store.Nudge{}, fmt.Errorf("unknown action %q: %w", action, api.ErrBadRequest)
	}
	return c.Answer(ctx, id, action, text)
}

// Answer records the lawyer's answer to nudge id — an API action or one of
// the bubble's own choices — and then acts on it.
func (c *Core) Answer(ctx context.Context, id int64, choice, text string) (store.Nudge, error) {
	if choice == ui.ChoiceReply {
		choice = api.ActionAccept // typed text is a yes, with instructions
	}
	state := store.NudgeAccepted
	switch choice {
	case api.ActionDismiss:
		state = store.NudgeDismissed
	case api.ActionSnooze:
		state = store.NudgeSnoozed
	}
	answer := text
	if choice != api.ActionAccept && choice != api.ActionDismiss && choice != api.ActionSnooze {
		answer = strings.TrimSpace(choice + " " + text)
	}
	n, err := c.store.RespondNudge(ctx, id, state, answer)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Nudge{}, fmt.Errorf("nudge %d: %w", id, api.ErrNotFound)
	case errors.Is(err, store.ErrNudgeClosed):
		return store.Nudge{}, fmt.Errorf("nudge %d is already closed: %w", id, api.ErrConflict)
	case err != nil:
		return store.Nudge{}, err
	}
	c.responses.Add(1)
	line := choice
	if text != "" {
		line += ": " + text
	}
	c.event(ctx, "user", fmt.Sprintf("nudge-%d", id), line)
	c.withdraw(id)
	if err := c.followUp(ctx, n, choice, text); err != nil {
		// The answer is recorded; tell the lawyer what could not be done.
		c.log.Error("act on answer", "nudge", id, "err", err)
		c.nudge(ctx, store.Nudge{Kind: kindInfo, Message: "Spirit could not do that: " + plainError(err)})
	}
	return n, nil
}

// plainError drops wrapping prefixes a lawyer need not read.
func plainError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && i+2 < len(msg) {
		msg = msg[i+2:]
	}
	return strings.TrimSuffix(msg, ".") + "."
}

// Show implements api.Backend.
func (c *Core) Show(context.Context) error {
	if p := c.ui(); p != nil {
		p.Show()
	}
	return nil
}

// presentOpen shows the nudges still waiting for an answer, such as a
// reminder that fired just before Spirit stopped.
func (c *Core) presentOpen(ctx context.Context) {
	open, err := c.store.Nudges(ctx, store.NudgeShown)
	if err != nil {
		c.log.Error("read open nudges", "err", err)
		return
	}
	p := c.ui()
	if p == nil {
		return
	}
	// Oldest first, so the newest ends up in front.
	for i := len(open) - 1; i >= 0; i-- {
		p.ShowNudge(open[i])
	}
}

// maintain deletes transcripts past their retention, now and every few hours.
func (c *Core) maintain(ctx context.Context) {
	t := time.NewTicker(6 * time.Hour)
	defer t.Stop()
	for {
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
			return
		case <-t.C:
		}
	}
}

// voiceState is the voice pipeline's state in words ("no speech model").
func (c *Core) voiceState() (string, string) {
	c.mu.Lock()
	v := c.voice
	c.mu.Unlock()
	if v == nil {
		return "starting", ""
	}
	return v.State()
}

// secrets opens the keychain-backed secret store once: opening probes the
// keychain, which must not happen on every app switch. A failure is retried
// on the next call (the keyring may be unlocked later).
func (c *Core) secrets() (secrets.Store, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sec != nil {
		return c.sec, nil
	}
	sec, err := secrets.Open(filepath.Dir(c.store.Path()))
	if err != nil {
		return nil, err
	}
	c.sec = sec
	return sec, nil
}
