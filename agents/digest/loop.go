// Package digest is Spirit's analysis loop: every half minute, when
// something new happened, it looks at the last two minutes of the
// lawyer's desk — the app-switch timeline, text the glance already read
// off the window in front, speech heard nearby — and writes two things:
// a HUD line (what the lawyer is doing now, for the orb) and a digest
// (a few factual sentences, input for Spirit's own reasoning, never shown
// as a nudge).
//
// Code writes the HUD line and a plain digest with no model at all. With a
// model provider a fast model rewrites both from the same context; an
// answer that cannot be read falls back to code's. The loop never captures
// the screen, never sees an excluded window's title, and does nothing at
// all on a quiet tick but count it.
package digest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

// Defaults and bounds of the configuration.
const (
	DefaultInterval = 30 * time.Second
	DefaultWindow   = 2 * time.Minute
	MinInterval     = 5 * time.Second
	MaxInterval     = time.Hour
	MinWindow       = 10 * time.Second
	MaxWindow       = 30 * time.Minute
	// HistorySize is how many analyses the loop keeps in memory.
	HistorySize = 100
	// modelTimeout bounds one model call: a late HUD line is a wrong one.
	modelTimeout = 20 * time.Second
)

// Settings keys the configuration is kept under.
const (
	keyEnabled  = "digest.enabled"
	keyInterval = "digest.interval"
	keyWindow   = "digest.window"
	keyModel    = "digest.model"
)

// PrivateApp stands for an excluded window in the timeline.
const PrivateApp = "a private window"

// Sources of an analysis.
const (
	SourceCode  = "code"
	SourceModel = "model"
)

// Config is what the lawyer (or POST /agent/config) may change.
type Config struct {
	Enabled  bool          `json:"enabled"`
	Interval time.Duration `json:"-"`
	Window   time.Duration `json:"-"`
	// Model is the model asked; "" is the provider's triage (fast) model.
	Model string `json:"model"`
}

// DefaultConfig is the loop's configuration until changed.
func DefaultConfig() Config {
	return Config{Enabled: true, Interval: DefaultInterval, Window: DefaultWindow}
}

// ConfigUpdate changes the fields that are set.
type ConfigUpdate struct {
	Enabled  *bool
	Interval *time.Duration
	Window   *time.Duration
	Model    *string
}

// ErrInvalidConfig is wrapped by SetConfig for a value out of bounds.
var ErrInvalidConfig = errors.New("invalid digest configuration")

// apply returns c changed by u, or an error naming the first bad value.
func (u ConfigUpdate) apply(c Config) (Config, error) {
	if u.Enabled != nil {
		c.Enabled = *u.Enabled
	}
	if u.Interval != nil {
		if *u.Interval < MinInterval || *u.Interval > MaxInterval {
			return c, fmt.Errorf("%w: interval must be between %v and %v", ErrInvalidConfig, MinInterval, MaxInterval)
		}
		c.Interval = *u.Interval
	}
	if u.Window != nil {
		if *u.Window < MinWindow || *u.Window > MaxWindow {
			return c, fmt.Errorf("%w: window must be between %v and %v", ErrInvalidConfig, MinWindow, MaxWindow)
		}
		c.Window = *u.Window
	}
	if u.Model != nil {
		m := strings.TrimSpace(*u.Model)
		if len(m) > 200 || strings.ContainsAny(m, " \t\n") {
			return c, fmt.Errorf("%w: model must be one model name", ErrInvalidConfig)
		}
		c.Model = m
	}
	return c, nil
}

// Analysis is the result of one tick that ran.
type Analysis struct {
	ID     int64     `json:"id"`
	At     time.Time `json:"at"`
	HUD    string    `json:"hud"`
	Digest string    `json:"digest"`
	// Source says who wrote HUD and Digest: "code" or "model".
	Source string `json:"source"`
	// Fallback says why a model's answer was not used ("" if it was, or
	// none was asked).
	Fallback   string   `json:"fallback,omitempty"`
	Model      string   `json:"model,omitempty"`
	LatencyMS  int64    `json:"latency_ms"`
	TokensIn   int      `json:"tokens_in"`
	TokensOut  int      `json:"tokens_out"`
	CurrentApp string   `json:"current_app,omitempty"`
	AppHistory []string `json:"app_history"`
	Utterances int      `json:"utterances"`
	ScreenRead bool     `json:"screen_read"`
}

// Stats are the loop's counters, for /health.
type Stats struct {
	Enabled      bool      `json:"enabled"`
	LastAnalysis time.Time `json:"last_analysis,omitzero"`
	Ticks        int64     `json:"ticks"`
	Analyses     int64     `json:"analyses"`
	IdleSkips    int64     `json:"idle_skips"`
	Calls        int64     `json:"calls"`
	Errors       int64     `json:"errors"`
	TokensIn     int64     `json:"tokens_in"`
	TokensOut    int64     `json:"tokens_out"`
	// CostUSD is estimated from agents/llm's price table; Priced is false
	// when a model used has no known price (a local model).
	CostUSD float64 `json:"estimated_cost_usd"`
	Priced  bool    `json:"priced"`
}

// Provider returns the model provider and the fast model's name; a nil
// provider (no error) means none is set, and code writes everything.
type Provider func(ctx context.Context) (llm.Provider, string, error)

// Settings keeps the configuration between runs (the store).
type Settings interface {
	Setting(ctx context.Context, key string) (value string, ok bool, err error)
	// UpdateSettings writes the values fn returns in one transaction
	// (store.Store.UpdateSettings): the configuration is saved whole or
	// not at all.
	UpdateSettings(ctx context.Context, fn func(stored map[string]string) (map[string]string, error)) error
}

// Options configure a Loop. Every field may be left zero.
type Options struct {
	// Events is the stream to read: AppSwitched, UtteranceUnderstood,
	// ScreenTextRead and WatchingPaused; other types are ignored. Speech is read once the
	// commands part has: a raw UtteranceHeard does not yet say whether it
	// was a command.
	Events <-chan events.Event
	// Provider, if set, gives the model that rewrites the HUD and digest.
	Provider Provider
	// Settings, if set, keeps the configuration; without it the
	// configuration lives as long as the loop.
	Settings Settings
	// OnHUD is told every new HUD line (a changed one only), on the
	// loop's goroutine.
	OnHUD func(hud string)
	// Prices estimate cost; nil is llm.DefaultPrices().
	Prices map[string]llm.Price
	Now    func() time.Time
	Log    *slog.Logger
}

// Loop is the analysis loop. Its methods are safe for concurrent use.
type Loop struct {
	opt      Options
	counters *llm.Counters
	changed  chan struct{} // a new config: re-arm the timer
	// saving is held by SetConfig from reading the config to putting the
	// saved one in force, so that two changes at once do not lose one.
	saving sync.Mutex

	mu      sync.Mutex
	cfg     Config
	in      inputs
	fresh   int // inputs since the last tick that ran
	history []Analysis
	nextID  int64
	lastHUD string
	stats   Stats
}

// New returns a loop with the default configuration; Load reads the
// saved one.
func New(opt Options) *Loop {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	return &Loop{opt: opt, counters: llm.NewCounters(opt.Prices), cfg: DefaultConfig(), changed: make(chan struct{}, 1)}
}

// Load reads the saved configuration; values that do not parse keep
// their defaults.
func (l *Loop) Load(ctx context.Context) error {
	if l.opt.Settings == nil {
		return nil
	}
	var u ConfigUpdate
	get := func(key string) (string, bool, error) {
		v, ok, err := l.opt.Settings.Setting(ctx, key)
		return strings.TrimSpace(v), ok && strings.TrimSpace(v) != "", err
	}
	if v, ok, err := get(keyEnabled); err != nil {
		return fmt.Errorf("digest settings: %w", err)
	} else if b, perr := strconv.ParseBool(v); ok && perr == nil {
		u.Enabled = &b
	}
	for key, dst := range map[string]**time.Duration{keyInterval: &u.Interval, keyWindow: &u.Window} {
		v, ok, err := get(key)
		if err != nil {
			return fmt.Errorf("digest settings: %w", err)
		}
		if d, perr := time.ParseDuration(v); ok && perr == nil {
			*dst = &d
		}
	}
	if v, ok, err := get(keyModel); err != nil {
		return fmt.Errorf("digest settings: %w", err)
	} else if ok {
		u.Model = &v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// Apply field by field: one bad saved value must not lose the others.
	for _, one := range []ConfigUpdate{{Enabled: u.Enabled}, {Interval: u.Interval}, {Window: u.Window}, {Model: u.Model}} {
		if c, err := one.apply(l.cfg); err == nil {
			l.cfg = c
		} else {
			l.opt.Log.Warn("digest: saved setting ignored", "err", err)
		}
	}
	return nil
}

// Config returns the configuration in force.
func (l *Loop) Config() Config {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cfg
}

// SetConfig changes the configuration, saves it in one transaction and
// re-arms the timer. An error changes nothing, saved or in force: an
// invalid value wraps ErrInvalidConfig, and a save that failed (Spirit
// killed in the middle included) leaves the whole saved configuration as
// it was, never a mix of old and new.
func (l *Loop) SetConfig(ctx context.Context, u ConfigUpdate) (Config, error) {
	l.saving.Lock()
	defer l.saving.Unlock()
	old := l.Config()
	c, err := u.apply(old)
	if err != nil {
		return old, err
	}
	if s := l.opt.Settings; s != nil {
		values := map[string]string{keyEnabled: strconv.FormatBool(c.Enabled),
			keyInterval: c.Interval.String(), keyWindow: c.Window.String(), keyModel: c.Model}
		err := s.UpdateSettings(ctx, func(map[string]string) (map[string]string, error) { return values, nil })
		if err != nil {
			return old, fmt.Errorf("save digest settings: %w", err)
		}
	}
	l.mu.Lock()
	l.cfg = c
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
	return c, nil
}

// Observe takes one event off the stream. Run calls it; tests may too.
func (l *Loop) Observe(ev events.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev.Type {
	case events.AppSwitched:
		sw, ok := ev.Data.(screen.Switch)
		if !ok {
			return
		}
		at := sw.At
		if at.IsZero() {
			at = ev.Time
		}
		s := Switch{At: at, App: Product(sw.Process, sw.Class, sw.App), Title: sw.Title}
		if sw.Excluded {
			// Not even which app: a password manager's name says enough.
			s = Switch{At: at, App: PrivateApp, Private: true}
		}
		l.in.switched(s)
	case events.UtteranceUnderstood:
		u, ok := ev.Data.(events.Utterance)
		if !ok || u.Intent != "" {
			return // a command to Spirit is not ambient speech
		}
		at := u.At
		if at.IsZero() {
			at = ev.Time
		}
		l.in.heard(Utterance{At: at, Text: u.Text})
	case events.ScreenTextRead:
		st, ok := ev.Data.(events.ScreenText)
		if !ok {
			return
		}
		l.in.read(ScreenRead{At: ev.Time, App: Product("", "", st.App), Chars: st.Chars, Text: st.Text, switched: st.Switched})
	case events.WatchingPaused:
		paused, ok := ev.Data.(bool)
		if !ok || !paused {
			return // resuming says nothing: the next switch does
		}
		l.in.pausedWatching()
	default:
		return
	}
	l.fresh++
}

// Context is the window an analysis would look at now.
func (l *Loop) Context() Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.in.context(l.opt.Now(), l.cfg.Window)
}

// Latest returns the last analysis; ok is false before the first.
func (l *Loop) Latest() (Analysis, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.history) == 0 {
		return Analysis{}, false
	}
	return l.history[len(l.history)-1], true
}

// History returns up to limit analyses, newest first.
func (l *Loop) History(limit int) []Analysis {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(max(limit, 0), len(l.history))
	out := make([]Analysis, 0, n)
	for i := len(l.history) - 1; i >= 0 && len(out) < n; i-- {
		out = append(out, l.history[i])
	}
	return out
}

// HUDLine is the HUD line in force: the last analysis's, "" before one.
func (l *Loop) HUDLine() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastHUD
}

// Stats returns the counters.
func (l *Loop) Stats() Stats {
	l.mu.Lock()
	s := l.stats
	s.Enabled = l.cfg.Enabled
	l.mu.Unlock()
	tot := l.counters.Snapshot().Total
	s.Calls, s.Errors, s.TokensIn, s.TokensOut, s.CostUSD, s.Priced =
		tot.Calls, tot.Errors, tot.InputTokens, tot.OutputTokens, tot.CostUSD, tot.Priced
	return s
}

// Run reads the stream and ticks every interval until ctx ends or the
// stream closes. A quiet tick costs a lock and a counter: no timer runs
// faster than the interval, and nothing is built.
func (l *Loop) Run(ctx context.Context) error {
	t := time.NewTimer(l.Config().Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-l.opt.Events:
			if !ok {
				return nil
			}
			l.Observe(ev)
		case <-l.changed:
			t.Reset(l.Config().Interval)
		case <-t.C:
			l.Tick(ctx)
			t.Reset(l.Config().Interval)
		}
	}
}

// Tick runs one analysis if the loop is enabled and something new
// happened since the last one; otherwise it counts an idle skip. ran is
// false when it skipped.
func (l *Loop) Tick(ctx context.Context) (a Analysis, ran bool) {
	l.mu.Lock()
	l.stats.Ticks++
	if !l.cfg.Enabled || l.fresh == 0 {
		var line string
		if l.cfg.Enabled {
			l.stats.IdleSkips++
			line = l.callMinutesLocked()
		}
		l.mu.Unlock()
		if line != "" && l.opt.OnHUD != nil {
			l.opt.OnHUD(line)
		}
		return Analysis{}, false
	}
	now := l.opt.Now()
	cfg := l.cfg
	l.in.prune(now.Add(-cfg.Window))
	c := l.in.context(now, cfg.Window)
	l.fresh = 0
	l.mu.Unlock()

	a = l.analyse(ctx, c, cfg)

	l.mu.Lock()
	l.nextID++
	a.ID = l.nextID
	l.history = append(l.history, a)
	if len(l.history) > HistorySize {
		l.history = append(l.history[:0], l.history[len(l.history)-HistorySize:]...)
	}
	l.stats.Analyses++
	l.stats.LastAnalysis = a.At
	changed := a.HUD != l.lastHUD
	l.lastHUD = a.HUD
	l.mu.Unlock()
	if changed && l.opt.OnHUD != nil {
		l.opt.OnHUD(a.HUD)
	}
	return a, true
}

// callMinutesLocked moves code's call line on by the minutes a quiet call
// has lasted ("On a call · 14 min" a minute later is "· 15 min") and
// returns it, or "" when nothing changes. A quiet call is no news: it
// costs no analysis, only the line.
func (l *Loop) callMinutesLocked() string {
	if l.in.callSince.IsZero() || !strings.HasPrefix(l.lastHUD, "On a call") {
		return ""
	}
	line := CallLine(l.opt.Now().Sub(l.in.callSince))
	if line == l.lastHUD {
		return ""
	}
	l.lastHUD = line
	return line
}

// analyse writes the HUD and digest for c: code's, then the model's if
// there is one and its answer reads.
func (l *Loop) analyse(ctx context.Context, c Context, cfg Config) Analysis {
	hud := HUD(c)
	a := Analysis{At: c.Now, HUD: hud, Digest: codeDigest(c, hud), Source: SourceCode,
		AppHistory: c.AppHistory(), Utterances: len(c.Utterances), ScreenRead: c.Screen != nil}
	if a.AppHistory == nil {
		a.AppHistory = []string{}
	}
	if c.Current != nil && !c.Current.Private {
		a.CurrentApp = c.Current.App
	}
	// A private window in front is named by nothing: not even a model
	// that never saw its title writes that line.
	if l.opt.Provider == nil || (c.Current != nil && c.Current.Private) {
		return a
	}
	p, model, err := l.opt.Provider(ctx)
	if err != nil {
		a.Fallback = "provider unusable"
		l.opt.Log.Warn("digest: provider unusable; code writes the HUD", "err", err)
		return a
	}
	if p == nil {
		return a
	}
	if cfg.Model != "" {
		model = cfg.Model
	}
	a.Model = model
	cctx, cancel := context.WithTimeout(ctx, modelTimeout)
	defer cancel()
	start := time.Now()
	resp, err := p.Complete(cctx, llm.Request{System: systemPrompt, MaxTokens: maxReplyTokens, Model: model,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: Prompt(c)}}})
	a.LatencyMS = time.Since(start).Milliseconds()
	priced := model
	if priced == "" {
		priced = p.Name()
	}
	if err != nil {
		l.counters.AddError(priced)
		a.Fallback = "model call failed"
		l.opt.Log.Warn("digest: model call failed; code writes the HUD", "err", err)
		return a
	}
	l.counters.Add(priced, resp.Usage)
	a.TokensIn, a.TokensOut = resp.Usage.InputTokens, resp.Usage.OutputTokens
	r, ok := ParseReply(resp.Text)
	if !ok {
		a.Fallback = "model answer unreadable"
		l.opt.Log.Info("digest: model answer unreadable; code writes the HUD", "chars", len(resp.Text))
		return a
	}
	a.HUD, a.Source = r.HUD, SourceModel
	if r.Digest != "" {
		a.Digest = r.Digest
	}
	return a
}
