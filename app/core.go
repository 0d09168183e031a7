// Package app is Spirit's composition root and its core. build wires every
// part through one event stream (app/events) and one supervisor
// (app/supervisor); Run starts them, serves the local API and hands the
// main goroutine to the front end — the desktop (app/desktop, passed in by
// main) or, headless, the log. The Core holds the handlers every front end
// shares: the tray and bubble, the local API, voice.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/app/supervisor"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr"
	"github.com/spirit-app/spirit/voice/commit"
	"github.com/spirit-app/spirit/voice/intent"
	"github.com/spirit-app/spirit/voice/listen"
)

// Status is what the tray's status line and toggles show.
type Status struct {
	ListeningPaused bool
	WatchingPaused  bool
	Voice           string // the voice pipeline's state; "" before it starts
	Watch           string // the app-switch watcher's state ("on", "unavailable", "error"); "" before it starts
	Mail            string // "Syncing mail 120/500" while the index catches up
	Calendars       string // "Syncing calendars…", or the calendars whose sync fails
	Failing         string // parts that stopped with an error and are being restarted, in the lawyer's words ("Mail, Watching")
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
	case s.Voice != listen.Capturing && s.Voice != listen.Loading:
		listening = strings.ToUpper(s.Voice[:1]) + s.Voice[1:]
	}
	watching := "Watching"
	switch {
	case s.WatchingPaused:
		watching = "Watching paused"
	case s.Watch == screen.WatchUnavailable || s.Watch == screen.WatchError:
		watching = "Not watching" // no display, or the display went away: see /health or doctor
	}
	line := listening + " · " + watching
	if s.ListeningPaused && s.WatchingPaused {
		line = "Paused: not listening or watching"
	}
	if s.Mail != "" {
		line += " · " + s.Mail
	}
	if s.Calendars != "" {
		line += " · " + s.Calendars
	}
	if s.Failing != "" {
		line += " · " + s.Failing + ": trouble, retrying"
	}
	return line
}

// partWords names a part for the lawyer in the status line.
var partWords = map[string]string{
	partReminders: "Reminders", partAgents: "Tasks", partKeeper: "Tasks", partMaintenance: "Clean-up",
	partMail: "Mail", partVoice: "Listening", partWatcher: "Watching", partGlance: "Email check",
	partCommands: "Commands", partAPI: "Local API", partUI: "Display",
	partWork: "Routines", partDigest: "Activity summary",
	partCalendar: "Calendars",
}

// Core holds Spirit's state and the handlers every front end shares: the
// tray and orb, the local API, voice. It implements api.Backend. Every
// field is set by newCore, before anything runs.
type Core struct {
	store   *store.Store
	bus     events.Logger
	sup     *supervisor.Supervisor
	wl      worldWriter
	keys    *providers
	say     *announcer
	rem     *reminders.Scheduler
	remAns  reminders.Answers
	tasks   *task.Runner
	voice   *listen.Service
	watch   *screen.WatchService
	mail    *mailSyncer
	answers *nudge.Responders
	work    *workPart   // set by build before anything runs; nil in a core built without it
	digest  *digestPart // likewise: the analysis loop
	// calendar is the calendar part, likewise.
	calendar *calendarPart
	version  string
	started  time.Time
	now      func() time.Time
	log      *slog.Logger
	quit     func() // ends Run; nil when nothing runs this core as Spirit

	mu     sync.Mutex
	status Status // the toggles; the parts' states are read from them
	// deleteAll is what the lawyer asked to delete before Spirit starts
	// again (DeleteAllData); nil when not asked.
	deleteAll *DeleteAll

	// speech is the ambient speech heard lately (hearCommitments), oldest
	// first and bounded, so that a commitment said twice is offered once.
	speechMu sync.Mutex
	speech   []commit.Utterance

	// settingsMu makes each settings change one load-change-save, so two
	// saves at once (Settings and the tray, say) cannot undo each other.
	settingsMu sync.Mutex

	says, responses, heard, commands atomic.Int64
}

var _ api.Backend = (*Core)(nil)

// coreParts is what newCore is built from.
type coreParts struct {
	store   *store.Store
	bus     events.Logger
	sup     *supervisor.Supervisor
	wl      worldWriter
	keys    *providers
	say     *announcer
	rem     *reminders.Scheduler
	tasks   *task.Runner
	voice   *listen.Service
	watch   *screen.WatchService
	mail    *mailSyncer
	version string
	now     func() time.Time
	log     *slog.Logger
	status  Status
	quit    func()
}

func newCore(p coreParts) *Core {
	c := &Core{store: p.store, bus: p.bus, sup: p.sup, wl: p.wl, keys: p.keys, say: p.say, rem: p.rem,
		tasks: p.tasks, voice: p.voice, watch: p.watch, mail: p.mail, version: p.version,
		started: time.Now(), now: p.now, log: p.log, status: p.status, quit: p.quit}
	c.remAns = reminders.Answers{Store: p.store, Scheduler: p.rem, Propose: c.propose, Record: p.wl.record, Now: p.now,
		SnoozeLength: c.snoozeLength}
	c.answers = c.responders()
	return c
}

// Status returns the current toggles and the parts' states.
func (c *Core) Status() Status {
	c.mu.Lock()
	st := c.status
	c.mu.Unlock()
	st.Voice, _ = c.voice.State()
	st.Watch, _ = c.watch.State()
	st.Mail, _ = c.mail.Progress()
	if c.calendar != nil {
		st.Calendars = c.calendar.note()
	}
	var failing []string
	for _, s := range c.sup.States() {
		if w := partWords[s.Name]; s.State == "restarting" && w != "" && !slices.Contains(failing, w) {
			failing = append(failing, w)
		}
	}
	st.Failing = strings.Join(failing, ", ")
	return st
}

// SetListeningPaused pauses or resumes listening, persists the choice and
// records it in the world log.
func (c *Core) SetListeningPaused(ctx context.Context, paused bool, by string) error {
	return c.setToggle(ctx, settings.KeyListeningPaused, paused, by, func(s *settings.Settings) *bool { return &s.ListeningPaused },
		func(st *Status) *bool { return &st.ListeningPaused })
}

// SetWatchingPaused pauses or resumes watching the screen.
func (c *Core) SetWatchingPaused(ctx context.Context, paused bool, by string) error {
	return c.setToggle(ctx, settings.KeyWatchingPaused, paused, by, func(s *settings.Settings) *bool { return &s.WatchingPaused },
		func(st *Status) *bool { return &st.WatchingPaused })
}

func (c *Core) setToggle(ctx context.Context, key string, paused bool, by string,
	setting func(*settings.Settings) *bool, field func(*Status) *bool) error {
	// Persist first: a toggle the lawyer saw change must survive a crash.
	c.settingsMu.Lock()
	s, err := c.settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		c.settingsMu.Unlock()
		return fmt.Errorf("save %s: %w", key, err)
	}
	*setting(&s) = paused
	_, err = settings.Save(ctx, c.store, s)
	c.settingsMu.Unlock()
	if err != nil {
		return fmt.Errorf("save %s: %w", key, err)
	}
	c.mu.Lock()
	*field(&c.status) = paused
	c.mu.Unlock()
	switch key {
	case settings.KeyListeningPaused:
		c.voice.SetPaused(paused) // the microphone is closed before we say so
	case settings.KeyWatchingPaused:
		if err := c.watch.SetPaused(ctx, paused); err != nil { // the watcher is gone before we say so
			return fmt.Errorf("pause watching: %w", err)
		}
		// The analysis loop forgets what it was told of the screen.
		c.bus.Log(events.WatchingPaused, paused)
	}
	what := strings.TrimSuffix(key, ".paused")
	verb := "resumed"
	if paused {
		verb = "paused"
	}
	c.event(ctx, "user", by, what+" "+verb)
	c.say.statusChanged()
	return nil
}

// settings reads the typed settings. An ErrInvalid error comes with usable
// settings (defaults where a stored value was not valid); callers that can
// go on with them do.
func (c *Core) settings(ctx context.Context) (settings.Settings, error) {
	return settings.Load(ctx, c.store)
}

// Quit asks Spirit to stop, as SIGTERM does: the UI closes, the parts stop
// and Run returns. Quitting this way, and not by closing the toolkit
// alone, arms Run's watchdog for a toolkit that never lets go. It reports
// false when nothing runs this core as Spirit (tests that build a core
// alone), and the caller closes its UI itself.
func (c *Core) Quit() bool {
	if c.quit == nil {
		return false
	}
	c.log.Info("quit: the lawyer asked Spirit to stop")
	c.quit()
	return true
}

// event appends to the world log.
func (c *Core) event(ctx context.Context, source, id, text string) {
	c.wl.record(ctx, source, id, text)
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
			"nudges_shown":    c.say.shown.Load(),
			"nudge_responses": c.responses.Load(),
			"utterances":      c.heard.Load(),
			"voice_commands":  c.commands.Load(),
			"app_switches":    c.watch.Switches(),
			"pane_changes":    c.watch.PaneChanges(),
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
	h.Subsystems["agents"] = c.agentsHealth(ctx, h.Counters)
	tot := c.keys.counters.Snapshot().Total
	h.Counters["model_calls"] = tot.Calls
	h.Counters["model_input_tokens"] = tot.InputTokens
	h.Counters["model_output_tokens"] = tot.OutputTokens
	if _, ps, err := c.keys.provider(ctx); err == nil && ps.Configured() {
		h.Subsystems["model_provider"] = api.Subsystem{State: ps.Kind,
			Detail: fmt.Sprintf("%d calls, %d errors, $%.4f so far", tot.Calls, tot.Errors, tot.CostUSD)}
	} else {
		h.Subsystems["model_provider"] = api.Subsystem{State: "none", Detail: "on-device rules only"}
	}
	h.Subsystems["screen_text"] = screenTextHealth(ocr.Available())
	h.Subsystems["mail"] = c.mail.health(ctx, h.Counters)
	h.Subsystems["calendars"] = c.calendarHealth(ctx, h.Counters)
	h.Agent = c.digestStats()
	if c.work != nil {
		ws := c.work.runner.Stats()
		h.Work = &ws
	}
	if bus, ok := c.bus.(*events.Bus); ok {
		h.Counters["events_published"] = bus.Published()
		h.Counters["events_dropped"] = bus.Dropped()
	}
	// A part that stopped with an error is restarted; until it runs again
	// /health says which and why.
	for _, s := range c.sup.States() {
		if s.State != "restarting" {
			continue
		}
		h.Status = "degraded"
		h.Subsystems["part:"+s.Name] = api.Subsystem{State: s.State,
			Detail: fmt.Sprintf("%s (restarted %d times)", s.LastError, s.Restarts)}
	}
	return h
}

// screenTextHealth is /health's "screen_text": whether this build reads
// text off the screen at all (ocr.Available's answer).
func screenTextHealth(avail error) api.Subsystem {
	if avail != nil {
		return api.Subsystem{State: "unavailable", Detail: avail.Error()}
	}
	return api.Subsystem{State: "available", Detail: "read with Tesseract when a glance needs it"}
}

func (c *Core) listeningState(st Status) api.Subsystem {
	if st.ListeningPaused {
		return api.Subsystem{State: "paused"}
	}
	state, detail := c.voice.State()
	switch state {
	case "":
		state = "starting"
	case listen.Capturing:
		state = "on"
	}
	return api.Subsystem{State: state, Detail: detail}
}

func (c *Core) watchingState(st Status) api.Subsystem {
	if st.WatchingPaused {
		return api.Subsystem{State: "paused"}
	}
	state, detail := c.watch.State()
	if state == "" {
		state = screen.WatchStarting
	}
	return api.Subsystem{State: state, Detail: detail}
}

// World implements api.Backend.
func (c *Core) World(ctx context.Context, since int64, limit int) ([]api.Entry, error) {
	es, err := c.store.Since(ctx, since, limit)
	if err != nil {
		return nil, err
	}
	return api.Views(es, api.EntryOf), nil
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
// as a transcript (deleted after the retention period), never in the world
// log; what the lawyer commits to in it is kept as a commitment, with the
// words it was heard in (hearCommitments). A command is only a command: it
// never reaches the commitment detector.
func (c *Core) Heard(ctx context.Context, text string, at time.Time) (api.SayResult, error) {
	in, addressed := c.understand(ctx, text, at)
	c.heard.Add(1)
	c.bus.Log(events.UtteranceUnderstood, events.Utterance{Text: text, At: at, Intent: heardIntent(in, addressed)})
	if days := c.retentionDays(ctx); days > 0 {
		if _, err := c.store.AddTranscript(ctx, store.Transcript{TS: at, Text: text, Intent: string(in.Kind)}); err != nil {
			c.log.Error("keep transcript", "err", err)
		}
	}
	if in.Kind == intent.None {
		if !addressed { // words led by the wake phrase were meant for Spirit
			c.hearCommitments(ctx, commit.Utterance{Text: text, End: at})
		}
		return notUnderstoodResult(addressed), nil
	}
	c.commands.Add(1)
	c.event(ctx, "voice", "command", string(in.Kind)+": "+text)
	return c.handle(ctx, in, at, "voice")
}

// heardIntent is an utterance's Intent on the stream: "" only for words
// not meant for Spirit, so a command, and words led by the wake phrase
// that Spirit could not read, are never taken for conversation.
func heardIntent(in intent.Intent, addressed bool) string {
	if in.Kind == intent.None && !addressed {
		return ""
	}
	return string(in.Kind)
}

// parseOptions reads the wake-phrase setting (off by default).
func (c *Core) parseOptions(ctx context.Context) intent.ParseOptions {
	var o intent.ParseOptions
	s, err := c.settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		c.log.Warn("wake phrase: settings unreadable", "err", err)
	}
	if s.WakePhrase != "" {
		o.RequireWake, o.WakePhrase = true, s.WakePhrase
	}
	return o
}

// Notify implements api.Backend: a nudge from a local integration.
func (c *Core) Notify(ctx context.Context, n api.NewNudge) (api.Nudge, error) {
	nn, err := c.nudge(ctx, store.Nudge{Kind: n.Kind, Message: n.Message, ActionPrompt: n.ActionPrompt, Detail: n.Detail})
	if err != nil {
		return api.Nudge{}, err
	}
	return api.NudgeOf(nn), nil
}

// nudge records a nudge and shows it: the one way every part proposes
// something to the lawyer.
func (c *Core) nudge(ctx context.Context, n store.Nudge) (store.Nudge, error) {
	n, err := c.store.CreateNudge(ctx, n)
	if err != nil {
		return store.Nudge{}, fmt.Errorf("record nudge: %w", err)
	}
	c.event(ctx, "spirit", fmt.Sprintf("nudge-%d", n.ID), n.Kind+": "+n.Message)
	c.say.show(n, "")
	return n, nil
}

// propose is nudge for parts that need only to know it failed.
func (c *Core) propose(ctx context.Context, n store.Nudge) error {
	_, err := c.nudge(ctx, n)
	return err
}

// Nudges implements api.Backend: the nudges still open.
func (c *Core) Nudges(ctx context.Context) ([]api.Nudge, error) {
	ns, err := c.store.Nudges(ctx, store.NudgeShown, store.NudgeSnoozed)
	if err != nil {
		return nil, err
	}
	return api.Views(ns, api.NudgeOf), nil
}

// Waiting returns the nudges shown and not yet answered, oldest first, for
// a front end that starts: such as a reminder that fired just before Spirit
// stopped.
func (c *Core) Waiting(ctx context.Context) ([]store.Nudge, error) {
	open, err := c.store.Nudges(ctx, store.NudgeShown)
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(open)-1; i < j; i, j = i+1, j-1 {
		open[i], open[j] = open[j], open[i]
	}
	return open, nil
}

// RespondNudge implements api.Backend.
func (c *Core) RespondNudge(ctx context.Context, id int64, action, text string) (api.Nudge, error) {
	switch {
	case action == nudge.Accept, action == nudge.Dismiss, action == nudge.Snooze:
	case action == nudge.Edit, strings.HasPrefix(action, nudge.AnswerPrefix):
		// An approval with an edited body; a question's option.
	default:
		return api.Nudge{}, fmt.Errorf("unknown action %q: %w", action, api.ErrBadRequest)
	}
	n, err := c.Answer(ctx, id, action, text)
	if err != nil {
		return api.Nudge{}, err
	}
	return api.NudgeOf(n), nil
}

// Answer records the lawyer's answer to nudge id — an API action or one of
// the bubble's own choices — and then acts on it.
func (c *Core) Answer(ctx context.Context, id int64, choice, text string) (store.Nudge, error) {
	if choice == nudge.Reply {
		choice = nudge.Accept // typed text is a yes, with instructions
	}
	state := store.NudgeAccepted
	switch choice {
	case nudge.Dismiss:
		state = store.NudgeDismissed
	case nudge.Snooze:
		state = store.NudgeSnoozed
	}
	answer := text
	if choice != nudge.Accept && choice != nudge.Dismiss && choice != nudge.Snooze {
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
	c.bus.Log(events.NudgeAnswered, events.NudgeAnswer{ID: id, Choice: choice, Text: text})
	c.say.withdraw(id)
	if err := c.answers.Respond(ctx, n, choice, text); err != nil {
		// The answer is recorded; tell the lawyer what could not be done.
		c.log.Error("act on answer", "nudge", id, "err", err)
		c.nudge(ctx, store.Nudge{Kind: nudge.KindInfo, Message: "Spirit could not do that: " + plainError(err)})
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

// Show implements api.Backend: a second instance asks the first to show itself.
func (c *Core) Show(context.Context) error {
	c.bus.Log(events.ShowRequested, nil)
	return nil
}
