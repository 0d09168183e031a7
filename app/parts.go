package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/app/supervisor"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/a11y"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr"
	"github.com/spirit-app/spirit/voice/listen"
)

// Names of the long-running parts, as the supervisor, /health and the log
// show them.
const (
	partReminders   = "reminders"
	partAgents      = "agents"
	partKeeper      = "keeper"
	partMaintenance = "maintenance"
	partMail        = "mail"
	partVoice       = "voice"
	partWatcher     = "watcher"
	partGlance      = "glance"
	partCommands    = "commands"
	partAPI         = "api"
	partUI          = "ui"
)

// Subscription buffers of the parts that read the stream. A sense never
// waits for them: past these, events are dropped and counted in /health.
const (
	switchBuffer    = 64
	utteranceBuffer = 64
)

// parts is Spirit built whole: the event stream, the core every front end
// talks to, and every long-running part, added to one supervisor that Run
// starts. Nothing is filled in after construction; tests build the same
// parts and run only what they need.
type parts struct {
	bus    *events.Bus
	core   *Core
	glance *glance.Service
	sup    *supervisor.Supervisor
	subs   []*events.Subscription
}

// partsConfig is what build needs from the caller.
type partsConfig struct {
	Store   *store.Store
	DataDir string
	Version string
	Log     *slog.Logger
	Now     func() time.Time // nil: time.Now
	// Transcriber, if set, stands in for whisper (listen.ServiceOptions):
	// tests that play speech through a sound card give the words.
	Transcriber listen.Transcriber
	// Quit ends Run, as the lawyer's Quit does; nil where nothing runs
	// the parts as Spirit (tests of the core), and then Spirit cannot
	// delete its data and start again.
	Quit func()
}

// build constructs every part, wired through the event stream.
func build(ctx context.Context, cfg partsConfig) (*parts, error) {
	log, st := cfg.Log, cfg.Store
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	set, err := settings.Load(ctx, st)
	switch {
	case errors.Is(err, settings.ErrInvalid):
		log.Warn("some settings are not valid; their defaults are used", "err", err)
	case err != nil:
		return nil, err
	}
	bus := events.NewBus()
	sup := supervisor.New(supervisor.Options{Events: bus, Log: log})
	wl := worldWriter{store: st, log: log}
	keys := newProviders(st, log)
	ann := &announcer{bus: bus}
	ix := index.New(st)
	rem := reminders.New(st, ann, reminders.Options{Logger: log, Clock: nowClock(now)})
	mailSync := newMailSyncer(ix, keys, bus, wl.record, log)
	calTools, calWrites := calendarTools(st, ix, keys, cfg.DataDir, now)
	tasks := task.NewRunner(task.Options{
		Store:     st,
		Index:     ix,
		Provider:  keys.agent,
		Drafts:    drafter{ix: ix, keys: keys, mail: mailSync, log: log},
		Reminders: rem,
		// The calendar's tools and list_open_commitments, the same
		// values the work runner is given.
		Tools:    append(asTools[task.Tool](commitmentTools(st, now().Location())), calTools...),
		Writes:   calWrites,
		Listener: ann,
		Now:      now,
		Log:      log.With("part", partAgents),
	})
	loadSettings := func(ctx context.Context) (settings.Settings, error) { return settings.Load(ctx, st) }
	exclusions := exclusionsFrom(loadSettings, log)
	watch := screen.NewWatchService(screen.ServiceOptions{
		Paused:     set.WatchingPaused,
		Exclusions: exclusions,
		OnSwitch:   switched(bus, wl.record),
		OnState:    ann.statusChanged,
		WatchPane:  glance.WatchPane,
		PaneEvents: (&paneEvents{now: now}).Changes,
		Log:        log,
	})
	defaultDir, _ := platform.DefaultDataDir()
	hearing := listen.NewService(listen.ServiceOptions{
		DataDir:        cfg.DataDir,
		DefaultDataDir: defaultDir,
		Paused:         set.ListeningPaused,
		Choice: func(ctx context.Context) (listen.Choice, error) {
			s, err := loadSettings(ctx)
			if err != nil && !errors.Is(err, settings.ErrInvalid) {
				return listen.Choice{}, err
			}
			return listen.Choice{Model: s.VoiceModel, Device: s.VoiceDevice, Threads: s.VoiceThreads}, nil
		},
		// What was heard is acted on by the commands part: the microphone
		// never waits for a command to be carried out.
		OnHeard:     func(h listen.Heard) { bus.Log(events.UtteranceHeard, events.Utterance{Text: h.Text, At: h.At}) },
		OnSpeech:    func(on bool) { bus.Log(events.SpeechHearing, on) },
		OnState:     ann.statusChanged,
		Transcriber: cfg.Transcriber,
		Log:         log,
	})

	c := newCore(coreParts{
		store: st, bus: bus, sup: sup, wl: wl, keys: keys, say: ann, rem: rem, tasks: tasks,
		voice: hearing, watch: watch, mail: mailSync, version: cfg.Version, now: now, log: log,
		status: Status{ListeningPaused: set.ListeningPaused, WatchingPaused: set.WatchingPaused},
		quit:   cfg.Quit,
	})

	wk, err := newWork(c, ix, loadSettings, log.With("part", partWork))
	if err != nil {
		return nil, err
	}
	c.work = wk
	dg := newDigest(ctx, bus, st, keys, now, log.With("part", partDigest))
	c.digest = dg
	c.calendar = newCalendar(c, ix, log.With("part", partCalendar))

	switches := bus.Subscribe(events.AppSwitched, switchBuffer)
	// The reminders waiting for an app hear the switches on their own, so
	// that a glance cut short never costs one its moment.
	appMoments := bus.Subscribe(events.AppSwitched, switchBuffer)
	utterances := bus.Subscribe(events.UtteranceHeard, utteranceBuffer)
	gl, err := glance.NewService(glance.ServiceOptions{
		Store:      st,
		Index:      ix,
		Switches:   switches.C(),
		Capture:    watch,
		OpenReader: openOCR(),
		// The accessibility tree gives a mail window's open message
		// exactly; the service connects on first need and disconnects
		// when it stops. Where there is none (no bus, accessibility off,
		// Windows and macOS for now) the pane is read by OCR.
		OpenHeaders: openPaneHeaders,
		Policy:      glancePolicy(loadSettings),
		Models:      keys.glanceModels,
		Propose:     c.propose,
		Record:      wl.record,
		Events:      bus,
		Threads:     threadMoments{rem: rem, ix: ix, log: log.With("part", partGlance)},
		Now:         now,
		Log:         log.With("part", partGlance),
	})
	if err != nil {
		return nil, err
	}

	sup.Add(partReminders, rem)
	sup.Add(partAgents, tasks)
	sup.Add(partKeeper, supervisor.Func(func(ctx context.Context) error {
		tasks.KeepEvery(ctx, task.KeeperInterval)
		return nil
	}))
	sup.Add(partMaintenance, supervisor.Func(c.maintain))
	sup.Add(partMail, mailSync)
	sup.Add(partVoice, hearing)
	sup.Add(partWatcher, watch)
	sup.Add(partGlance, gl)
	sup.Add(partMoments, momentsPart{rem: rem, switches: appMoments.C(), log: log.With("part", partMoments)})
	sup.Add(partWork, wk)
	sup.Add(partDigest, dg)
	sup.Add(partCalendar, c.calendar)
	sup.Add(partCommands, supervisor.Func(func(ctx context.Context) error {
		return c.runCommands(ctx, utterances.C())
	}))
	return &parts{bus: bus, core: c, glance: gl, sup: sup, subs: []*events.Subscription{switches, appMoments, utterances, dg.sub}}, nil
}

// exclusionsFrom reads the windows Spirit never looks at: the built-in
// rules and the lawyer's lists, read anew at each ask (a switch, a pane
// watched, a capture), so an edit applies at once. Lists that cannot be
// read exclude every window until they can (screen.ExcludeAll): any
// window may be on them. Invalid entries were refused when typed, and
// read as their defaults.
func exclusionsFrom(load func(context.Context) (settings.Settings, error), log *slog.Logger) func(context.Context) *screen.Exclusions {
	return func(ctx context.Context) *screen.Exclusions {
		s, err := load(ctx)
		if err != nil && !errors.Is(err, settings.ErrInvalid) {
			// A look cut short (the lawyer moved on, Spirit stops) has
			// nothing to say.
			if ctx.Err() == nil {
				log.Warn("the excluded apps and titles cannot be read: Spirit looks at no window until they can", "err", err)
			}
			return screen.ExcludeAll()
		}
		return screen.NewExclusions(s.ExcludedApps, s.ExcludedTitles)
	}
}

// openOCR loads Tesseract for the glance on first need; nil where this
// build reads no screen text (screen/ocr's no_ocr tag: the Windows
// cross-build), so the glance goes without it instead of failing at every
// switch. /health and `spirit doctor` say so.
func openOCR() func() (glance.TextReader, error) {
	if ocr.Available() != nil {
		return nil
	}
	return func() (glance.TextReader, error) {
		t, err := ocr.New(ocr.Config{})
		if err != nil {
			return nil, err
		}
		return t, nil
	}
}

// openPaneHeaders connects to the OS's accessibility tree for the glance.
func openPaneHeaders(ctx context.Context) (glance.HeaderSource, error) {
	r, err := a11y.Open(ctx)
	if err != nil {
		return nil, err
	}
	return paneHeaders{r: r}, nil
}

// paneHeaders is the accessibility tree as the glance asks it: a11y's
// window and header in the glance's words.
type paneHeaders struct{ r *a11y.Reader }

func (p paneHeaders) MessageHeader(ctx context.Context, sw screen.Switch) (glance.ExactHeader, error) {
	return exactHeader(p.r.MessageHeader(ctx, a11y.Window{PID: sw.PID, Title: sw.Title}))
}

func (p paneHeaders) Close() error { return p.r.Close() }

// exactHeader turns a11y's answer into the glance's: its two errors into
// the glance's, which say what to do (read the screen instead, or be
// silent); any other (ctx ended, the bus failed mid-call) stays as it is,
// and the glance reads the screen without resting the tree.
func exactHeader(h a11y.MessageHeader, err error) (glance.ExactHeader, error) {
	switch {
	case errors.Is(err, a11y.ErrNoHeader):
		return glance.ExactHeader{}, fmt.Errorf("%w: %w", glance.ErrNoHeader, err)
	case errors.Is(err, a11y.ErrUnavailable):
		return glance.ExactHeader{}, fmt.Errorf("%w: %w", glance.ErrHeaderUnavailable, err)
	case err != nil:
		return glance.ExactHeader{}, err
	}
	return glance.ExactHeader{SenderName: h.SenderName, SenderEmail: h.SenderEmail,
		To: h.To, Cc: h.Cc, Subject: h.Subject, Date: h.Date}, nil
}

// switched records an app switch and puts it on the stream. An excluded
// window leaves no name: not its title, not its app, not which rule
// excluded it (a password manager, an app the lawyer listed) — the world
// log, and what reads it for a model, hear only that an excluded app came
// to the front. The stream hears only that, and when, so that the
// analysis loop stops describing (and forgets the text of) the window
// before it.
func switched(bus events.Logger, record func(context.Context, string, string, string)) func(context.Context, screen.Switch) {
	return func(ctx context.Context, sw screen.Switch) {
		if sw.Excluded {
			record(ctx, "screen", excludedIdentifier, excludedSwitchLine)
			bus.Log(events.AppSwitched, screen.Switch{Excluded: true, At: sw.At})
			return
		}
		if sw.PaneChanged {
			record(ctx, "screen", sw.App, fmt.Sprintf("another message in the reading pane of %q", sw.Title))
		} else {
			record(ctx, "screen", sw.App, fmt.Sprintf("switched to %q", sw.Title))
		}
		bus.Log(events.AppSwitched, sw)
	}
}

// The world log's line for a switch to an excluded window, and its
// identifier: the same for every excluded app, so that none is named.
const (
	excludedIdentifier = "excluded"
	excludedSwitchLine = "switched to an excluded app: not looked at"
)

// close ends the parts' subscriptions, once the supervisor has stopped.
func (p *parts) close() {
	for _, s := range p.subs {
		s.Unsubscribe()
	}
}

// glancePolicy reads the glance's limits from the settings.
func glancePolicy(load func(context.Context) (settings.Settings, error)) func(context.Context) (glance.Policy, error) {
	return func(ctx context.Context) (glance.Policy, error) {
		s, err := load(ctx)
		if err != nil && !errors.Is(err, settings.ErrInvalid) {
			return glance.Policy{}, err
		}
		return glance.Policy{MaxPerHour: s.GlanceMaxPerHour, Quiet: s.GlanceQuietHours.Contains, ScreenText: s.ScreenText,
			DismissBackoff: s.DismissBackoff}, nil
	}
}

// worldWriter appends to the world log; a failure is logged, never fatal to
// the action that caused it. While another program holds the database
// locked the store keeps the event in memory and writes it, in order, once
// it can. Writes are direct, not through the event stream: the world log
// is the record, and a record must not be dropped to spare a slow reader.
type worldWriter struct {
	store *store.Store
	log   *slog.Logger
}

func (w worldWriter) record(ctx context.Context, source, id, text string) {
	pending, err := w.store.LogEvent(ctx, store.Event{Source: source, Identifier: id, Text: text})
	switch {
	case err != nil:
		w.log.Error("world log append failed", "source", source, "err", err)
	case pending:
		w.log.Warn("world log: the database is busy; the event is kept to be written once it is free",
			"source", source, "pending", w.store.Pending())
	}
}

// drafter saves drafts through the account's own connector.
type drafter struct {
	ix   *index.Index
	keys *providers
	mail *mailSyncer
	log  *slog.Logger
}

func (d drafter) CreateDraft(ctx context.Context, accountID int64, dr mail.Draft) (mail.DraftRef, error) {
	a, err := d.ix.Account(ctx, accountID)
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("mail account %d: %w", accountID, err)
	}
	sec, err := d.keys.secrets()
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("keychain: %w", err)
	}
	conn, err := accounts.Connect(ctx, a, sec, d.log)
	if err != nil {
		return mail.DraftRef{}, err
	}
	defer conn.Close()
	ref, err := conn.CreateDraft(ctx, dr)
	if err == nil {
		// Let the index learn of the draft soon, so the thread shows it.
		d.mail.SyncNow()
	}
	return ref, err
}

// nowClock is the reminders' clock on the parts' own now: the time a
// reminder is said for (the commitment detector, the core) and the time it
// fires by are one clock. Its timers are the system's.
type nowClock func() time.Time

func (c nowClock) Now() time.Time { return c() }

func (nowClock) NewTimer(d time.Duration) reminders.Timer {
	return reminders.SystemClock{}.NewTimer(d)
}
