package glance

import (
	"context"
	"fmt"
	"image"
	"log/slog"
	"time"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

// DismissCooldown is the quiet time after a dismissed glance nudge; each
// further dismissal within a day doubles it.
const DismissCooldown = 15 * time.Minute

// Policy is what the lawyer set for glance nudges, read before each glance.
type Policy struct {
	MaxPerHour int                  // glance nudges allowed in any hour
	Quiet      func(time.Time) bool // inside quiet hours; nil: never quiet
	ScreenText bool                 // screen text (OCR) may be read when the title is not enough
}

// Capturer takes the screenshot a glance asks for, in memory only; the
// watcher's display does it, and refuses excluded windows.
type Capturer interface {
	Capture(ctx context.Context, sw screen.Switch) (screen.Shot, error)
}

// TextReader reads the text on a screenshot (Tesseract).
type TextReader interface {
	ReadText(ctx context.Context, img image.Image) (string, error)
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
	// Policy reads the lawyer's settings; an error keeps the glance silent.
	Policy func(ctx context.Context) (Policy, error)
	// Models returns the provider's model stages; ok is false without one.
	Models func(ctx context.Context) (Models, bool)
	// Propose records and shows a nudge (the core's one way to do that).
	Propose func(ctx context.Context, n store.Nudge) error
	// Record appends a line to the world log.
	Record func(ctx context.Context, source, id, text string)
	// Events hears that screen text was read; nil: nobody.
	Events events.Logger
	Now    func() time.Time
	Log    *slog.Logger
}

// Service decides, after each app switch, whether the screen shows an
// email that needs the lawyer, and proposes a nudge only when it does.
// Every outcome is written to the world log; every error ends in silence.
// Switches are handled one at a time, in order.
type Service struct {
	opt ServiceOptions
	ocr TextReader // loaded on first need; Run's goroutine only
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
	return &Service{opt: opt}, nil
}

// Run glances at each switch until ctx ends or the stream closes.
func (s *Service) Run(ctx context.Context) error {
	defer func() {
		if s.ocr != nil {
			s.ocr.Close()
			s.ocr = nil
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-s.opt.Switches:
			if !ok {
				return nil
			}
			sw, ok := ev.Data.(screen.Switch)
			if !ok || sw.Excluded {
				continue
			}
			// Switches that came while a glance ran are history: the
			// lawyer has moved on, and only the window in front now
			// matters. Each still gets its line in the world log.
			closed := false
			for latest := false; !latest && !closed; {
				select {
				case next, ok := <-s.opt.Switches:
					if !ok {
						closed = true
						break
					}
					if nsw, ok := next.Data.(screen.Switch); ok && !nsw.Excluded {
						s.opt.Record(ctx, "glance", sw.App, "silent: "+movedOn(sw, nsw)+" (gate)")
						sw = nsw
					}
				default:
					latest = true
				}
			}
			s.On(ctx, sw)
			if closed {
				return nil
			}
		}
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

// On runs one glance for switch sw; Run calls it, and tests may directly.
// A pane change (sw.PaneChanged) is glanced at like a switch: its title is
// still the list's, so the screen is read.
func (s *Service) On(ctx context.Context, sw screen.Switch) {
	say := func(text string) { s.opt.Record(ctx, "glance", sw.App, text) }
	now := s.opt.Now()
	pol, err := s.opt.Policy(ctx)
	if err != nil {
		say("silent: cannot read settings (gate)")
		return
	}
	all, err := s.opt.Store.Nudges(ctx)
	if err != nil {
		say("silent: cannot read nudges (gate)")
		return
	}
	if reason := Gate(all, now, pol); reason != "" {
		say("silent: " + reason + " (gate)")
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
	// Code first: it is free, and a thread already nudged about must not
	// cost a model call.
	d, err := Decide(ctx, s.opt.Index, in)
	if err == nil && d.MessageID != "" && Seen(all, nudge.GlanceSubject(d.MessageID)) {
		say("silent: already nudged about this thread (gate)")
		return
	}
	// A mail window whose title does not say which message is open (a list
	// view): look at the screen, read its text, and decide again.
	var shot *Image
	if err == nil && d.Reason == ReasonNotEmail && ParseTitle(sw.App, sw.Title).Mail() && s.opt.Capture != nil {
		if sh, cerr := s.opt.Capture.Capture(ctx, sw); cerr != nil {
			say("no screenshot: " + cerr.Error())
		} else {
			shot = &Image{MIME: sh.MIME, Data: sh.Data}
			if text := s.readScreen(ctx, pol, sh); text != "" {
				in.ScreenText = text
				d, err = Decide(ctx, s.opt.Index, in)
			}
		}
	}
	// A code stage over its budget is not run again under the models:
	// DecideWithModels starts with the same code, and the user has moved on.
	if m, ok := s.opt.Models(ctx); ok && err == nil && d.Reason != ReasonOverBudget {
		d, err = DecideWithModels(ctx, s.opt.Index, in, m, shot)
	}
	if err != nil {
		say(fmt.Sprintf("silent: error at %s: %v", d.Stage, err))
		return
	}
	if !d.Surface {
		reason := d.Reason
		if reason == ReasonOverBudget {
			reason = "code stage over budget"
		}
		say("silent: " + reason + " (" + d.Stage + ")")
		return
	}
	subject := nudge.GlanceSubject(d.MessageID)
	if all, err := s.opt.Store.Nudges(ctx); err != nil || Seen(all, subject) {
		say("silent: already nudged about this thread (gate)")
		return
	}
	if err := s.opt.Propose(ctx, store.Nudge{Kind: nudge.KindGlance, Message: d.Message, ActionPrompt: d.ActionPrompt, Subject: subject}); err != nil {
		s.opt.Log.Error("glance nudge", "err", err)
	}
}

// readScreen returns the text on the capture, unless screen text is off
// or the OCR cannot be loaded.
func (s *Service) readScreen(ctx context.Context, pol Policy, sh screen.Shot) string {
	if !pol.ScreenText || s.opt.OpenReader == nil {
		return ""
	}
	if s.ocr == nil {
		r, err := s.opt.OpenReader()
		if err != nil {
			s.opt.Log.Warn("screen text is unavailable", "err", err)
			return ""
		}
		s.ocr = r
	}
	text, err := s.ocr.ReadText(ctx, sh.Full)
	if err != nil {
		s.opt.Log.Warn("read screen text", "err", err)
		return ""
	}
	// Only the amount: screen text stays with the glance.
	s.opt.Events.Log(events.ScreenTextRead, events.ScreenText{App: sh.App, Chars: len([]rune(text))})
	return text
}

// Gate returns why no glance nudge may be shown at now, given every nudge
// so far, or "" when one may.
func Gate(all []store.Nudge, now time.Time, p Policy) string {
	if p.Quiet != nil && p.Quiet(now) {
		return "quiet hours"
	}
	var lastHour, dismissed int
	var lastDismissal time.Time
	for _, n := range all {
		if n.Kind != nudge.KindGlance {
			continue
		}
		if now.Sub(n.Created) < time.Hour {
			lastHour++
		}
		if n.State == store.NudgeDismissed && now.Sub(n.Updated) < 24*time.Hour {
			dismissed++
			if n.Updated.After(lastDismissal) {
				lastDismissal = n.Updated
			}
		}
	}
	if lastHour >= p.MaxPerHour {
		return fmt.Sprintf("%d glance nudges in the last hour", lastHour)
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
