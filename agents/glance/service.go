package glance

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/proposal"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work/pace"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

// DismissCooldown is the quiet time after a dismissed glance nudge; each
// further dismissal within a day doubles it (when Policy.DismissBackoff).
const DismissCooldown = 15 * time.Minute

// Policy is what the lawyer set for glance nudges, read before each glance.
type Policy struct {
	MaxPerHour int                  // glance nudges allowed in any hour
	Quiet      func(time.Time) bool // inside quiet hours; nil: never quiet
	ScreenText bool                 // screen text (OCR) may be read when the title is not enough
	// DismissBackoff holds the glance back after dismissals
	// (DismissCooldown); off, a dismissal closes only its own nudge.
	DismissBackoff bool
}

// Capturer takes the screenshot a glance asks for, in memory only; the
// watcher's display does it, and refuses excluded windows.
type Capturer interface {
	Capture(ctx context.Context, sw screen.Switch) (screen.Shot, error)
}

// TextReader reads text with its positions off a screenshot (screen/ocr's
// Tesseract), and is closed when the service stops.
type TextReader interface {
	LineReader
	Close() error
}

// ServiceOptions is everything the glance service needs, given whole
// before it starts.
type ServiceOptions struct {
	Store    *store.Store
	Index    *index.Index
	Switches <-chan events.Event // events.AppSwitched from the stream
	Capture  Capturer
	// OpenReader loads the OCR on first need (its model is large); nil: no
	// screen text.
	OpenReader func() (TextReader, error)
	// OpenHeaders connects to the OS's view of application windows (the
	// accessibility tree) on first need, for the exact header of the
	// message a mail window shows; nil, or an error: OCR only. What it
	// opens is closed when Run returns.
	OpenHeaders func(ctx context.Context) (HeaderSource, error)
	// Policy reads the lawyer's settings; an error keeps the glance silent.
	Policy func(ctx context.Context) (Policy, error)
	// Models returns the provider's model stages; ok is false without one.
	Models func(ctx context.Context) (Models, bool)
	// Propose records and shows a nudge (the core's one way to do that).
	Propose func(ctx context.Context, n store.Nudge) error
	// Threads hears which mail thread a window showed, whatever the
	// glance decides to say about it; nil: nobody.
	Threads ThreadWatcher
	// Record appends a line to the world log.
	Record func(ctx context.Context, source, id, text string)
	// Events hears that screen text was read; nil: nobody.
	Events events.Logger
	// RedrawWait bounds how long a glance at a reading pane that still
	// shows the message read before looks again; 0 means
	// DefaultRedrawWait.
	RedrawWait time.Duration
	Now        func() time.Time
	Log        *slog.Logger
}

// Service decides, after each app switch, whether the screen shows an
// email that needs the lawyer, and proposes a nudge only when it does.
// Every outcome is written to the world log; every error ends in silence.
// Switches are glanced at in order, only the latest of those that queued
// up, and a glance still running when the lawyer switches again is cut
// short: its outcome is that the lawyer moved on.
type Service struct {
	opt ServiceOptions
	// ocrTurn holds a token while an OCR read runs (turnReader).
	ocrTurn chan struct{}

	// mu guards what follows: a glance cut short may still be running
	// (in an OCR read that cannot be interrupted) beside the next one.
	mu      sync.Mutex
	ocr     TextReader    // loaded on first need
	headers *HeaderReader // reads ocr's pane headers, and remembers them
	// regions are the header regions learned per window (readPane).
	regions map[paneKey]image.Rectangle
	exact   HeaderSource // opened on first need
	// exactOff holds, per app, when a failed exact header may be asked
	// for again; exactOpenAfter the same for opening the source.
	exactOff       map[string]exactBackoff
	exactOpenAfter time.Time
	// lastRead is, per window, the open message read by the last glance
	// that told its outcome (readRedrawn).
	lastRead map[uint64]messageRead
}

// ThreadWatcher hears which mail thread a window showed: reminders tied
// to a thread wait for it (issue 15 §4).
type ThreadWatcher interface {
	// Watching reports whether anything waits for a thread; when it does,
	// a glance that its gate keeps silent still finds the thread from the
	// window's title.
	Watching(ctx context.Context) bool
	// ThreadShown is told the thread the glance matched the window to.
	ThreadShown(ctx context.Context, sw screen.Switch, threadID int64)
}

// NewService checks the options; the service starts with Run.
func NewService(opt ServiceOptions) (*Service, error) {
	switch {
	case opt.Store == nil, opt.Index == nil, opt.Switches == nil, opt.Policy == nil,
		opt.Models == nil, opt.Propose == nil, opt.Record == nil:
		return nil, fmt.Errorf("glance service: store, index, switches, policy, models, propose and record are required")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Events == nil {
		opt.Events = events.Noop{}
	}
	return &Service{opt: opt, ocrTurn: make(chan struct{}, 1),
		regions: make(map[paneKey]image.Rectangle), exactOff: make(map[string]exactBackoff),
		lastRead: make(map[uint64]messageRead)}, nil
}

// errMovedOn is the cause of a glance's context when the lawyer switched
// again before it ended.
var errMovedOn = errors.New("the lawyer moved on")

// glanceRun is one glance: its switch, and whether its outcome is told.
type glanceRun struct {
	sw     screen.Switch
	cancel context.CancelCauseFunc // nil for On's
	done   chan struct{}           // closed when the glance returned

	mu sync.Mutex
	// over is set once the outcome is in the world log (or a nudge
	// proposed), or the glance was cut short: nothing more is told.
	over bool
	// read is what the glance read of the open message, once it has;
	// it becomes the window's last read when the outcome is told.
	read *messageRead
}

// Run glances at each switch until ctx ends or the stream closes. A
// switch that comes while a glance runs cuts it short: the lawyer has left
// the window it is about, and what it would say now comes too late.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer func() {
		// Glances cut short end once their OCR read does.
		wg.Wait()
		s.close()
	}()
	var cur *glanceRun
	// finish waits for the last glance, unless ctx ends first.
	finish := func() error {
		if cur != nil {
			select {
			case <-cur.done:
			case <-ctx.Done():
				cur.cancel(ctx.Err())
			}
		}
		return nil
	}
	for {
		var done <-chan struct{}
		if cur != nil {
			done = cur.done
		}
		select {
		case <-ctx.Done():
			if cur != nil {
				cur.cancel(ctx.Err())
			}
			return nil
		case <-done:
			cur = nil
		case ev, ok := <-s.opt.Switches:
			if !ok {
				return finish()
			}
			sw, ok := ev.Data.(screen.Switch)
			if !ok || sw.Excluded {
				continue
			}
			if cur != nil {
				s.cut(ctx, cur, sw)
			}
			sw, closed := s.latest(ctx, sw)
			cur = s.start(ctx, sw, &wg)
			if closed {
				return finish()
			}
		}
	}
}

// latest returns the newest switch queued up after sw, logging each one
// it passes over: the lawyer has moved on, and only the window in front
// now matters. closed reports that the stream has ended.
func (s *Service) latest(ctx context.Context, sw screen.Switch) (_ screen.Switch, closed bool) {
	for {
		select {
		case next, ok := <-s.opt.Switches:
			if !ok {
				return sw, true
			}
			if nsw, ok := next.Data.(screen.Switch); ok && !nsw.Excluded {
				s.opt.Record(ctx, "glance", sw.App, "silent: "+movedOn(sw, nsw)+" (gate)")
				sw = nsw
			}
		default:
			return sw, false
		}
	}
}

// start runs a glance at sw in a goroutine of its own, so that Run keeps
// hearing switches.
func (s *Service) start(ctx context.Context, sw screen.Switch, wg *sync.WaitGroup) *glanceRun {
	gctx, cancel := context.WithCancelCause(ctx)
	g := &glanceRun{sw: sw, cancel: cancel, done: make(chan struct{})}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(g.done)
		defer cancel(nil)
		s.glance(gctx, g)
	}()
	return g
}

// cut ends glance g because the lawyer switched to next: unless g has
// told its outcome already, the outcome is that the lawyer moved on, and
// g tells nothing more (it may still be in an OCR read or a model call,
// which its cancelled context ends as soon as it can).
func (s *Service) cut(ctx context.Context, g *glanceRun, next screen.Switch) {
	g.mu.Lock()
	if !g.over {
		g.over = true
		s.opt.Record(ctx, "glance", g.sw.App, "silent: "+movedOn(g.sw, next)+" (gate)")
	}
	g.mu.Unlock()
	g.cancel(errMovedOn)
}

// close releases what the glances loaded.
func (s *Service) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ocr != nil {
		s.ocr.Close()
		s.ocr, s.headers = nil, nil
	}
	if s.exact != nil {
		s.exact.Close()
		s.exact = nil
	}
}

// movedOn says what made switch sw history before it was glanced at.
func movedOn(sw, next screen.Switch) string {
	if next.PaneChanged && next.Window == sw.Window && next.Title == sw.Title {
		return "another message opened in the reading pane"
	}
	return "moved on to another window"
}

// WatchPane reports whether sw's window is a mail client's main window,
// whose title does not say which message its reading pane shows: the
// screen watcher then watches the pane and reports a new message as a
// switch with PaneChanged set, which On glances at like any switch (the
// screen is read again; a thread already nudged about stays silent).
func WatchPane(sw screen.Switch) bool {
	if sw.Excluded {
		return false
	}
	t := ParseTitle(sw.App, sw.Title)
	return t.Mail() && t.List
}

// On runs one glance for switch sw to its end; Run runs the same glance
// for each switch, and may cut it short. A pane change (sw.PaneChanged) is
// glanced at like a switch: its title is still the list's, so the pane is
// read: exactly where the OS gives its header, else by OCR of the header
// region learned for the window.
func (s *Service) On(ctx context.Context, sw screen.Switch) {
	s.glance(ctx, &glanceRun{sw: sw})
}

// glance is On for g, which Run may cut short.
func (s *Service) glance(ctx context.Context, g *glanceRun) {
	sw := g.sw
	// say writes a line to the world log, unless the glance is over;
	// outcome marks its last line.
	say := func(text string, outcome bool) {
		g.mu.Lock()
		defer g.mu.Unlock()
		if !g.over {
			s.opt.Record(ctx, "glance", sw.App, text)
			g.over = outcome
			if outcome {
				s.rememberRead(sw, g.read)
			}
		}
	}
	now := s.opt.Now()
	pol, err := s.opt.Policy(ctx)
	if err != nil {
		say("silent: cannot read settings (gate)", true)
		return
	}
	all, err := s.opt.Store.Nudges(ctx)
	if err != nil {
		say("silent: cannot read nudges (gate)", true)
		return
	}
	in := Input{App: sw.App, Title: sw.Title, Excluded: sw.Excluded, Now: now}
	if as, err := s.opt.Index.Accounts(ctx); err == nil {
		for _, a := range as {
			in.Me = append(in.Me, a.Addresses()...)
			if in.MeName == "" {
				in.MeName = a.Name
			}
		}
	}
	// shown tells the thread watcher, once per glance, which thread the
	// window showed: a reminder tied to it fires whether or not the
	// glance has anything to say about replying.
	told := false
	shown := func(d Decision, err error) {
		if told || err != nil || d.ThreadID == 0 || s.opt.Threads == nil {
			return
		}
		told = true
		s.opt.Threads.ThreadShown(ctx, sw, d.ThreadID)
	}
	if reason := Gate(all, now, pol); reason != "" {
		if s.opt.Threads != nil && s.opt.Threads.Watching(ctx) {
			shown(Decide(ctx, s.opt.Index, in)) // the title only: no screen is read for a silent glance
		}
		say("silent: "+reason+" (gate)", true)
		return
	}
	// Code first: it is free, and a thread already nudged about must not
	// cost a model call.
	d, err := Decide(ctx, s.opt.Index, in)
	shown(d, err)
	if err == nil && d.MessageID != "" && Seen(all, nudge.GlanceSubject(d.MessageID)) {
		say("silent: already nudged about this thread (gate)", true)
		return
	}
	// A mail window whose title does not say which message is open (a list
	// view): read its header, exactly where the application tells it, off
	// the screen otherwise, and decide again.
	var shot *Image
	if err == nil && d.Reason == ReasonNotEmail && ParseTitle(sw.App, sw.Title).Mail() {
		rd, ok := s.readRedrawn(ctx, sw, pol, say)
		if !ok {
			return
		}
		g.mu.Lock()
		g.read = &rd
		g.mu.Unlock()
		if rd.none {
			say("silent: no message open (triage)", true)
			return
		}
		in.Header, in.ScreenLines, shot = rd.header, rd.lines, rd.shot
		if in.Header != nil || len(in.ScreenLines) > 0 {
			d, err = Decide(ctx, s.opt.Index, in)
			shown(d, err)
			if err == nil && d.MessageID != "" && Seen(all, nudge.GlanceSubject(d.MessageID)) {
				say("silent: already nudged about this thread (gate)", true)
				return
			}
		}
	}
	// A code stage over its budget is not run again under the models:
	// DecideWithModels starts with the same code, and the user has moved on.
	if m, ok := s.opt.Models(ctx); ok && err == nil && d.Reason != ReasonOverBudget {
		d, err = DecideWithModels(ctx, s.opt.Index, in, m, shot)
		shown(d, err)
	}
	if err != nil {
		say(fmt.Sprintf("silent: error at %s: %v", d.Stage, err), true)
		return
	}
	if !d.Surface {
		reason := d.Reason
		if reason == ReasonOverBudget {
			reason = "code stage over budget"
		}
		say("silent: "+reason+" ("+d.Stage+")", true)
		return
	}
	subject := nudge.GlanceSubject(d.MessageID)
	if all, err := s.opt.Store.Nudges(ctx); err != nil || Seen(all, subject) {
		say("silent: already nudged about this thread (gate)", true)
		return
	}
	checked, err := checkProposal(ctx, s.opt.Index, d, mail.Me{Name: in.MeName, Addresses: in.Me})
	if why := proposal.Why(err); why != nil {
		// What gave it away stays out of the world log, which models read.
		s.opt.Log.Warn("glance: proposal dropped", "reason", why.Reason, "what", why.What,
			"thread", d.ThreadID, "stage", d.Stage)
		say("silent: proposal dropped: "+string(why.Reason)+" ("+d.Stage+")", true)
		return
	}
	if err != nil {
		say(fmt.Sprintf("silent: error at %s: %v", d.Stage, err), true)
		return
	}
	// The proposal is the outcome: none once the glance is cut short, and
	// no cut while it is made.
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.over {
		return
	}
	g.over = true
	s.rememberRead(sw, g.read)
	if err := s.opt.Propose(ctx, store.Nudge{Kind: nudge.KindGlance, Message: checked.Message, ActionPrompt: checked.Prompt, Subject: subject}); err != nil {
		s.opt.Log.Error("glance nudge", "err", err)
	}
}

// Gate returns why no glance nudge may be shown at now, given every nudge
// so far, or "" when one may.
func Gate(all []store.Nudge, now time.Time, p Policy) string {
	// Quiet hours and the hourly cap are one rule for everything Spirit
	// raises unasked (glances and work done outside a conversation), so
	// that together they never show more than the lawyer allowed.
	lastHour := pace.LastHour(all, now)
	switch (pace.Policy{MaxPerHour: p.MaxPerHour, Quiet: p.Quiet}).Gate(now, lastHour) {
	case pace.QuietHours:
		return "quiet hours"
	case pace.HourlyCap:
		return fmt.Sprintf("%d unprompted nudges in the last hour", lastHour)
	}
	if !p.DismissBackoff {
		return ""
	}
	// Dismissed glances alone make the glance hold back.
	var dismissed int
	var lastDismissal time.Time
	for _, n := range all {
		if n.Kind == nudge.KindGlance && n.State == store.NudgeDismissed && now.Sub(n.Updated) < 24*time.Hour {
			dismissed++
			if n.Updated.After(lastDismissal) {
				lastDismissal = n.Updated
			}
		}
	}
	// Each recent dismissal doubles the quiet time after the last one.
	if dismissed > 0 {
		cool := DismissCooldown << min(dismissed-1, 6)
		if now.Sub(lastDismissal) < cool {
			return fmt.Sprintf("cooling down after %d dismissals", dismissed)
		}
	}
	return ""
}

// Seen reports whether a nudge about subject was ever made: a thread is
// nudged about once, whatever the answer was.
func Seen(all []store.Nudge, subject string) bool {
	for _, n := range all {
		if n.Subject == subject {
			return true
		}
	}
	return false
}
