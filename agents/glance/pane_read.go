package glance

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// Reading the message a mail client's main window shows in its reading
// pane, whose title does not name it: first exactly, from what the
// application exposes to the OS (the accessibility tree); else by OCR of
// the pane's header region only. The whole window is read once, to find
// where the header is; later glances at the same window read that region
// alone (about a tenth of the pixels and of the time), and the same
// pixels are never read twice.

// ExactHeader is the header of the message a window shows, as the
// application itself exposes it: exact text, no OCR.
type ExactHeader struct {
	SenderName, SenderEmail string
	To, Cc                  []string
	Subject, Date           string
}

// info is h as a screen header the triage reads.
func (h ExactHeader) info() ScreenInfo {
	return ScreenInfo{
		Email:       h.SenderEmail != "" || h.SenderName != "",
		Subject:     strings.TrimSpace(h.Subject),
		SenderName:  strings.TrimSpace(h.SenderName),
		SenderEmail: strings.TrimSpace(h.SenderEmail),
		Date:        strings.TrimSpace(h.Date),
	}
}

// Errors a HeaderSource answers with.
var (
	// ErrHeaderUnavailable: the OS or the application gives no header of
	// this window (no accessibility bus, an application that exposes no
	// tree, an unknown layout); the glance falls back to OCR and stops
	// asking about the application for a while (exactRest).
	ErrHeaderUnavailable = errors.New("exact message header unavailable")
	// ErrNoHeader: the application answered, and no message is open in
	// the window (an empty folder, nothing selected). The glance is
	// silent without reading the screen.
	ErrNoHeader = errors.New("no message open")
)

// HeaderSource reads the header of the message open in a window from the
// OS (platform/a11y on Linux, adapted by the app). It must be safe for
// concurrent use: a glance the lawyer has left may still be asking while
// the next one asks.
type HeaderSource interface {
	// MessageHeader returns the header of the message sw's window shows,
	// or an error wrapping ErrHeaderUnavailable or ErrNoHeader.
	MessageHeader(ctx context.Context, sw screen.Switch) (ExactHeader, error)
	Close() error
}

// ExactRetry is the longest an application (or the OS) that gave no
// exact header is not asked again; every glance meanwhile goes straight
// to OCR. Asking costs milliseconds (a11y measured 0.2-0.3 ms with
// accessibility off), so the rests are short, and the first shorter
// still (exactRest): an application that was still starting puts its
// tree on the bus seconds later, and the messages the lawyer opens
// meanwhile would otherwise all be read off the screen.
const ExactRetry = time.Minute

// exactRetryFirst is the rest after an application's first failure.
const exactRetryFirst = 5 * time.Second

// exactRest is how long an application that gave no exact header fails
// times in a row is not asked again: 5 s, doubling up to ExactRetry.
func exactRest(fails int) time.Duration {
	d := exactRetryFirst
	for i := 1; i < fails && d < ExactRetry; i++ {
		d *= 2
	}
	return min(d, ExactRetry)
}

// exactBackoff is an application's rest from being asked for exact
// headers.
type exactBackoff struct {
	until time.Time
	fails int // in a row
}

// maxRegions bounds the header regions remembered: one per mail window
// and monitor size, a handful in practice.
const maxRegions = 32

// paneKey is a window as captured: its id and the captured area. The
// region learned in one capture is valid in another of the same window
// while the window stays where it was; a move or a resize shows no header
// in the region, and the region is learned again.
type paneKey struct {
	window uint64
	bounds image.Rectangle
}

// exactHeader asks the HeaderSource for sw's open message, opening it on
// first need. ok is false when there is none to ask, or it was asked too
// recently about sw's application and failed; err is its answer
// otherwise.
func (s *Service) exactHeader(ctx context.Context, sw screen.Switch) (ExactHeader, bool, error) {
	src, ok := s.headerSource(ctx, sw.App)
	if !ok {
		return ExactHeader{}, false, nil
	}
	h, err := src.MessageHeader(ctx, sw)
	switch {
	case err == nil || errors.Is(err, ErrNoHeader):
		// The application answered: its next failure rests it briefly
		// again.
		s.mu.Lock()
		delete(s.exactOff, sw.App)
		s.mu.Unlock()
		if err == nil && h.SenderName == "" && h.SenderEmail == "" && h.Subject == "" {
			return h, true, fmt.Errorf("empty header: %w", ErrNoHeader)
		}
	case errors.Is(err, ErrHeaderUnavailable):
		s.mu.Lock()
		if len(s.exactOff) >= maxRegions {
			clear(s.exactOff)
		}
		b := s.exactOff[sw.App]
		b.fails++
		rest := exactRest(b.fails)
		b.until = s.opt.Now().Add(rest)
		s.exactOff[sw.App] = b
		s.mu.Unlock()
		s.opt.Log.Debug("no exact message header: reading the screen", "app", sw.App, "asked_again_in", rest, "err", err)
	}
	return h, true, err
}

// headerSource returns the HeaderSource, opening it on first need, unless
// there is none or app (or the OS) is resting after a failure.
func (s *Service) headerSource(ctx context.Context, app string) (HeaderSource, bool) {
	if s.opt.OpenHeaders == nil {
		return nil, false
	}
	now := s.opt.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.exactOff[app].until) || now.Before(s.exactOpenAfter) {
		return nil, false
	}
	if s.exact == nil {
		src, err := s.opt.OpenHeaders(ctx)
		if err != nil {
			s.opt.Log.Info("exact message headers are unavailable; reading the screen instead", "err", err)
			s.exactOpenAfter = now.Add(ExactRetry)
			return nil, false
		}
		s.exact = src
	}
	return s.exact, true
}

// readPane returns the lines of the message header on sh, read by OCR of
// the header region learned for its window, or of the whole capture when
// none is learned or the region shows none (then the region is learned
// again). The lines are the header's only: quoted history further down
// the body is never among them. No header: nil.
func (s *Service) readPane(ctx context.Context, sw screen.Switch, sh screen.Shot) ([]layout.Line, error) {
	if sh.Full == nil || s.opt.OpenReader == nil {
		return nil, nil
	}
	hr, err := s.headerReader()
	if err != nil {
		return nil, err
	}
	full := sh.Full.Bounds()
	key := paneKey{window: sw.Window, bounds: full}
	s.mu.Lock()
	region, known := s.regions[key]
	s.mu.Unlock()
	if known {
		ph, err := hr.ReadRegion(ctx, sh.Full.SubImage(region))
		if err != nil {
			return nil, err
		}
		s.readEvent(sh.App, sw.At, ph)
		if ph.Info.Email && ph.Info.Subject != "" {
			s.opt.Log.Debug("pane header read", "region", region, "cached", ph.Cached)
			return ph.Lines, nil
		}
		// The window moved, the layout changed, or no message is open:
		// the whole window tells which.
	}
	ph, err := hr.Read(ctx, sh.Full)
	if err != nil {
		return nil, err
	}
	s.readEvent(sh.App, sw.At, ph)
	header, found, ok := FindHeader(ph.Lines)
	s.opt.Log.Debug("window read for its pane header", "found", ok, "region", found, "cached", ph.Cached)
	if !ok {
		// A region known before is kept: most often no message is open
		// and the next one shows where the last did.
		return nil, nil
	}
	// FindHeader's region is the header's column, with room for a
	// taller or wider header of the next message.
	region = found.Intersect(full)
	if region.Empty() {
		return header, nil
	}
	s.mu.Lock()
	if len(s.regions) >= maxRegions {
		clear(s.regions)
	}
	s.regions[key] = region
	s.mu.Unlock()
	sub := sh.Full.SubImage(region)
	if whole := ParseHeader(header); headerFields(whole) < 3 {
		// OCR of the whole window may read a line into its neighbour
		// (Thunderbird's sender's address into the picture beside it)
		// that the region alone, read as the pane changes, reads whole:
		// a header missing its address, name or subject is read again
		// from the region.
		ph, err := hr.ReadRegion(ctx, sub)
		if err != nil {
			return nil, err
		}
		s.readEvent(sh.App, sw.At, ph)
		if ph.Info.Email && headerFields(ph.Info) > headerFields(whole) {
			return ph.Lines, nil
		}
	}
	// The region's pixels in this capture show this header: the same pane
	// seen again (the lawyer going back to the window) is not read again.
	hr.Remember(sub, header)
	return header, nil
}

// headerFields counts what a header read holds of the sender's name, the
// sender's address and the subject.
func headerFields(info ScreenInfo) int {
	n := 0
	for _, f := range []string{info.SenderName, info.SenderEmail, info.Subject} {
		if f != "" {
			n++
		}
	}
	return n
}

// readEvent tells who listens that OCR ran, and what it read off the
// window of the switch at switched; a read answered from memory read
// nothing off the screen.
func (s *Service) readEvent(app string, switched time.Time, ph PaneHeader) {
	if ph.Cached {
		return
	}
	lines := make([]string, 0, len(ph.Lines))
	n := 0
	for _, l := range ph.Lines {
		n += len([]rune(l.Text))
		lines = append(lines, l.Text)
	}
	s.opt.Events.Log(events.ScreenTextRead, screenText(app, switched, n, strings.Join(lines, "\n")))
}

// screenText is the ScreenTextRead event of text read off a window: the
// text goes on the stream (memory only, for the analysis loop), cut to
// events.MaxScreenText runes.
func screenText(app string, switched time.Time, chars int, text string) events.ScreenText {
	if r := []rune(text); len(r) > events.MaxScreenText {
		text = string(r[:events.MaxScreenText])
	}
	return events.ScreenText{App: app, Chars: chars, Text: text, Switched: switched}
}

// text is an exact header as lines of text, as it reads on screen.
func (h ExactHeader) text() string {
	var b strings.Builder
	from := strings.TrimSpace(h.SenderName)
	if e := strings.TrimSpace(h.SenderEmail); e != "" {
		from = strings.TrimSpace(from + " <" + e + ">")
	}
	for _, f := range [][2]string{{"From", from}, {"Subject", h.Subject}, {"Date", h.Date}} {
		if v := strings.TrimSpace(f[1]); v != "" {
			b.WriteString(f[0] + ": " + v + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// headerReader returns the pane reader, loading the OCR on first need.
func (s *Service) headerReader() (*HeaderReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.headers != nil {
		return s.headers, nil
	}
	r, err := s.opt.OpenReader()
	if err != nil {
		return nil, fmt.Errorf("load OCR: %w", err)
	}
	s.ocr = r
	s.headers = NewHeaderReader(turnReader{r: r, turn: s.ocrTurn}, 0)
	return s.headers, nil
}

// turnReader lets one OCR run at a time, and a glance waiting for its
// turn leave when its context ends. Tesseract serialises its reads too,
// but waits on a mutex and cannot be interrupted once started: without
// the turn, glances the lawyer has already left would queue there and run
// their reads, one after another, before the glance at the window now in
// front got its own.
type turnReader struct {
	r    LineReader
	turn chan struct{} // holds a token while a read runs
}

func (t turnReader) ReadLines(ctx context.Context, img image.Image) ([]layout.Line, error) {
	select {
	case t.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-t.turn }()
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	return t.r.ReadLines(ctx, img)
}

// messageRead is what a glance read of the message a mail window shows.
type messageRead struct {
	header *ScreenInfo   // exact, from the HeaderSource
	lines  []layout.Line // off the screen, the header region's
	shot   *Image        // the screenshot, when one was taken
	// none: the application said no message is open.
	none bool
	// blind: nothing could be read (no screenshot, screen text off).
	blind bool
}

// info is the header rd holds, exact or parsed; the zero ScreenInfo when
// none was read.
func (rd messageRead) info() ScreenInfo {
	switch {
	case rd.header != nil:
		return *rd.header
	case len(rd.lines) > 0:
		return ParseHeader(rd.lines)
	}
	return ScreenInfo{}
}

// DefaultRedrawWait is how long a glance at a reading pane that still
// shows the message read before, or none, looks again (redrawPending)
// before it gives up: a mail client redraws a selected message within a
// few hundred milliseconds, and a pane that changed elsewhere (a new
// message in the list, an image loading in the body) keeps showing the
// same header. Thunderbird's accessibility tree was seen to show no
// message for over 2 s after a selection on a loaded machine (two cores,
// other work running), so the wait is generous: it only ever delays a
// silence, and the next pane change or switch cuts it short.
const DefaultRedrawWait = 5 * time.Second

// redrawRetry is how often such a pane is read again meanwhile off the
// screen: an unchanged pane costs a screenshot and no OCR (HeaderReader
// remembers its pixels). exactRedrawRetry is the same for a header read
// exactly: one question to the accessibility tree, a few milliseconds,
// asked more often because the application's word that the selection
// changed comes before the header is redrawn.
const (
	redrawRetry      = 200 * time.Millisecond
	exactRedrawRetry = 100 * time.Millisecond
)

// redrawPending reports whether a read of a window's open message cannot
// be trusted yet: the pane watcher reported a change, and what was read
// is no message at all, the very message the last glance at this window
// read (last), or a header that shares its subject and is still changing
// (prev is this glance's previous read, nil on the first). The watcher
// can see the message list's highlight move before the client has drawn
// the message, the client clears the header while it loads the next one,
// and the accessibility tree can lag behind the pixels and update a
// header field by field (the date first, measured on Thunderbird 153):
// concluding from such a read would speak of the previous message
// ("already nudged") or of none ("no message open").
//
// A new subject is a new message at once: the subject is the field
// redrawn last. With the same subject, the message is compared whole
// (sender, date): two threads can share a subject ("NDA", "Call"), and
// the next message of a thread is not the one whose outcome was told.
// Such a header is taken once two reads in a row agree, so a header
// caught between its date and its sender is not. Reads that saw nothing
// (no screenshot), and switches to the window, are taken as they are.
func redrawPending(sw screen.Switch, last, prev *messageRead, rd messageRead) bool {
	if !sw.PaneChanged || rd.blind {
		return false
	}
	if !rd.shows() {
		return true
	}
	if last == nil || last.blind || !last.shows() {
		return false
	}
	was, now := last.info(), rd.info()
	switch {
	case was.Subject != now.Subject:
		return false
	case sameMessage(was, now):
		return true
	}
	return prev == nil || !sameMessage(prev.info(), now)
}

// sameMessage reports whether two reads of a header are of one message:
// the same subject, sender and date. A field one read lacks (a date the
// header region cut off) is not held against it.
func sameMessage(a, b ScreenInfo) bool {
	same := func(x, y string) bool { return x == "" || y == "" || strings.EqualFold(x, y) }
	return a.Subject == b.Subject && same(a.SenderName, b.SenderName) &&
		same(a.SenderEmail, b.SenderEmail) && same(a.Date, b.Date)
}

// shows reports whether rd holds a message's header: a sender and a
// subject, what the triage needs to look for its thread.
func (rd messageRead) shows() bool {
	info := rd.info()
	return info.Email && info.Subject != ""
}

// readRedrawn reads the message sw's window shows, and while
// redrawPending says the pane is not redrawn yet, reads it again every
// redrawRetry: the glance's context ends it as soon as the next switch or
// pane change comes (Run cuts it short). After the redraw wait, a pane
// that still shows the message read before ends the glance silently (its
// outcome was told), and one that shows none is taken as it is. ok is
// false when the glance has told its outcome.
func (s *Service) readRedrawn(ctx context.Context, sw screen.Switch, pol Policy, say func(string, bool)) (_ messageRead, ok bool) {
	s.mu.Lock()
	last, seen := s.lastRead[sw.Window]
	s.mu.Unlock()
	var prev *messageRead
	if seen {
		prev = &last
	}
	var giveUp <-chan time.Time
	var tick *time.Ticker
	var before *messageRead
	for {
		rd, err := s.readOpen(ctx, sw, pol, say)
		if err != nil && ctx.Err() != nil {
			// Quitting, or any other end of the glance's context: the
			// message was never read, so there is no judgement to log.
			say("silent: stopped before the message was read (gate)", true)
			return rd, false
		}
		if err != nil {
			say("silent: error at triage: "+err.Error(), true)
			return rd, false
		}
		if !redrawPending(sw, prev, before, rd) {
			return rd, true
		}
		before = &rd
		if tick == nil {
			s.opt.Log.Debug("reading pane not redrawn yet: looking again", "app", sw.App)
			every := redrawRetry
			if rd.header != nil || rd.none {
				every = exactRedrawRetry
			}
			tick = time.NewTicker(every)
			defer tick.Stop()
			wait := s.opt.RedrawWait
			if wait <= 0 {
				wait = DefaultRedrawWait
			}
			t := time.NewTimer(wait)
			defer t.Stop()
			giveUp = t.C
		}
		select {
		case <-ctx.Done():
			say("silent: error at triage: "+context.Cause(ctx).Error(), true)
			return rd, false
		case <-giveUp:
			if !rd.shows() {
				// No message shows after all (the lawyer deleted
				// the one open, or the header cannot be read):
				// the glance decides from that, as on a switch.
				return rd, true
			}
			if prev != nil && !sameMessage(prev.info(), rd.info()) {
				// Another message of the same subject whose header
				// never held still long enough: the last read is the
				// best there is.
				return rd, true
			}
			say("silent: "+SameMessage+" (triage)", true)
			return rd, false
		case <-tick.C:
		}
	}
}

// SameMessage is the glance's outcome when the reading pane, reported
// changed, still shows the message the last glance at the window read:
// that glance's outcome stands.
const SameMessage = "the reading pane still shows the message read before"

// readOpen reads the message sw's window shows: exactly where the
// application tells it, off the screen otherwise. err is the glance's
// context ending.
func (s *Service) readOpen(ctx context.Context, sw screen.Switch, pol Policy, say func(string, bool)) (messageRead, error) {
	if pol.ScreenText {
		h, asked, herr := s.exactHeader(ctx, sw)
		switch {
		case !asked:
		case herr == nil:
			info := h.info()
			s.opt.Events.Log(events.ScreenTextRead, screenText(sw.App, sw.At,
				len([]rune(info.SenderName+info.SenderEmail+info.Subject+info.Date)), h.text()))
			return messageRead{header: &info}, nil
		case errors.Is(herr, ErrNoHeader):
			return messageRead{none: true}, nil
		case ctx.Err() != nil:
			return messageRead{}, context.Cause(ctx)
		default:
			s.opt.Log.Info("no exact message header; reading the screen", "app", sw.App, "err", herr)
		}
	}
	if s.opt.Capture == nil {
		return messageRead{blind: true}, nil
	}
	sh, cerr := s.opt.Capture.Capture(ctx, sw)
	if cerr != nil && ctx.Err() != nil {
		// Stopped, not blind: a capture cut short says nothing of the
		// screen, and the glance must not go on to judge it.
		return messageRead{}, context.Cause(ctx)
	}
	if cerr != nil {
		say("no screenshot: "+cerr.Error(), false)
		return messageRead{blind: true}, nil
	}
	rd := messageRead{shot: &Image{MIME: sh.MIME, Data: sh.Data}, blind: !pol.ScreenText}
	if pol.ScreenText {
		lines, rerr := s.readPane(ctx, sw, sh)
		if rerr != nil && ctx.Err() != nil {
			return messageRead{}, context.Cause(ctx)
		}
		if rerr != nil {
			s.opt.Log.Warn("read the pane header", "err", rerr)
		}
		rd.lines = lines
	}
	return rd, nil
}

// rememberRead makes rd the last read of sw's window, when the glance read
// one.
func (s *Service) rememberRead(sw screen.Switch, rd *messageRead) {
	if rd == nil || rd.blind {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lastRead) >= maxRegions {
		clear(s.lastRead)
	}
	// Only what compares is kept: no screenshot outlives its glance.
	s.lastRead[sw.Window] = messageRead{header: rd.header, lines: rd.lines, none: rd.none}
}
