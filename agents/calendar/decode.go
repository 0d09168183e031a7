package calendar

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/emersion/go-ical"
)

// Bounds on what one calendar may make Spirit hold. A calendar comes from
// outside (a file someone sent, a server), so its size, its depth and the
// cost of reading it are capped before anything is built from it. go-ical's
// own decoder is not used on outside input: it recurses once per BEGIN (a
// deep enough file overflows Go's stack, which no recover catches), panics
// on some malformed parameters, and reads a quoted parameter in quadratic
// time.
const (
	// maxLineBytes bounds one content line, folded lines joined. Real
	// lines are short; the longest seen in exports are HTML descriptions
	// (X-ALT-DESC) of a few tens of KiB. A longer line is skipped.
	maxLineBytes = 256 << 10
	// maxDepth bounds nesting: VCALENDAR > VEVENT > VALARM is 3, and
	// VCALENDAR > VTIMEZONE > STANDARD the same. A component deeper than
	// this is skipped whole.
	maxDepth = 8
	// maxComponents bounds the components of one calendar, alarms and
	// zones included: a busy lawyer's ten years are about 15,000 events.
	maxComponents = 200_000
	// maxProps bounds the properties of one component (a meeting with a
	// thousand attendees is a webinar, and still fits).
	maxProps = 5_000
	// maxParams bounds the parameters of one property.
	maxParams = 64
)

// ErrNotCalendar is the answer for input that holds no VCALENDAR.
var ErrNotCalendar = errors.New("no VCALENDAR: not an iCalendar file")

// DecodeStats counts what reading a calendar left out.
type DecodeStats struct {
	// Lines is the content lines read.
	Lines int
	// Skipped counts lines that were not valid content lines, or too long,
	// or outside any component, and properties over maxProps.
	Skipped int
	// Dropped counts components left out: too deep, over maxComponents,
	// or never ended.
	Dropped int
}

func (s DecodeStats) String() string {
	return fmt.Sprintf("%d lines read, %d skipped, %d components left out", s.Lines, s.Skipped, s.Dropped)
}

// decoder reads iCalendar content lines (RFC 5545 §3.1) with every bound
// above: each line once, in time linear in its length.
type decoder struct {
	br    *bufio.Reader
	stats DecodeStats
	// ahead is a physical line read to see whether it continues the
	// current one.
	ahead    physLine
	hasAhead bool
	eof      bool
}

// physLine is one physical line without its line ending: its bytes (nil
// when it was over maxLineBytes: not kept), and whether it starts with
// white space, folding it into the line before.
type physLine struct {
	b       []byte
	fold    bool
	tooLong bool
}

func (d *decoder) physical() (physLine, error) {
	if d.hasAhead {
		d.hasAhead = false
		return d.ahead, nil
	}
	if d.eof {
		return physLine{}, io.EOF
	}
	var pl physLine
	first := true
	for {
		frag, isPrefix, err := d.br.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				d.eof = true
				if !first {
					return pl, nil
				}
			}
			return physLine{}, err
		}
		if first {
			pl.fold = len(frag) > 0 && (frag[0] == ' ' || frag[0] == '\t')
			pl.b = []byte{}
			first = false
		}
		if !pl.tooLong {
			if len(pl.b)+len(frag) > maxLineBytes {
				pl.tooLong, pl.b = true, nil
			} else {
				pl.b = append(pl.b, frag...)
			}
		}
		if !isPrefix {
			return pl, nil
		}
	}
}

// logical reads one content line, its folded continuations joined.
// tooLong marks a line over maxLineBytes, whose text is not returned.
func (d *decoder) logical() (line string, tooLong bool, err error) {
	for {
		first, err := d.physical()
		if err != nil {
			return "", false, err
		}
		long := first.tooLong
		var b strings.Builder
		if !long {
			b.Write(first.b)
		}
		for {
			p, err := d.physical()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return "", false, err
			}
			if !p.fold {
				d.ahead, d.hasAhead = p, true
				break
			}
			if long || p.tooLong || b.Len()+len(p.b)-1 > maxLineBytes {
				long = true
				b.Reset()
				continue
			}
			b.Write(p.b[1:])
		}
		if long {
			return "", true, nil
		}
		if s := b.String(); strings.TrimSpace(s) != "" {
			return s, false, nil
		}
	}
}

// parseLine reads one content line: name *(";" param) ":" value. It never
// panics and is linear in the line's length; ok false for a line that is
// not a content line.
func parseLine(s string) (ical.Prop, bool) {
	i := strings.IndexAny(s, ";:")
	if i <= 0 {
		return ical.Prop{}, false
	}
	name := s[:i]
	for j := 0; j < len(name); j++ {
		c := name[j]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return ical.Prop{}, false
		}
	}
	p := ical.Prop{Name: strings.ToUpper(name)}
	s = s[i:]
	for len(s) > 0 && s[0] == ';' {
		s = s[1:]
		eq := strings.IndexAny(s, "=;:")
		if eq <= 0 || s[eq] != '=' {
			return ical.Prop{}, false
		}
		pname := strings.ToUpper(s[:eq])
		s = s[eq+1:]
		var vals []string
		for {
			var v string
			if len(s) > 0 && s[0] == '"' {
				end := strings.IndexByte(s[1:], '"')
				if end < 0 {
					return ical.Prop{}, false
				}
				v, s = s[1:1+end], s[2+end:]
			} else {
				end := strings.IndexAny(s, ";:,\"")
				if end < 0 || s[end] == '"' {
					return ical.Prop{}, false
				}
				v, s = s[:end], s[end:]
			}
			vals = append(vals, v)
			if len(s) > 0 && s[0] == ',' {
				s = s[1:]
				continue
			}
			break
		}
		if len(s) == 0 || (s[0] != ';' && s[0] != ':') {
			return ical.Prop{}, false
		}
		if p.Params == nil {
			p.Params = ical.Params{}
		}
		if len(p.Params) >= maxParams {
			return ical.Prop{}, false
		}
		p.Params[pname] = append(p.Params[pname], vals...)
	}
	if len(s) == 0 || s[0] != ':' {
		return ical.Prop{}, false
	}
	p.Value = s[1:]
	return p, true
}

// frame is a component being read; c nil for one being skipped (too deep,
// over the count, or outside a calendar), kept to match its END.
type frame struct {
	name  string
	c     *ical.Component
	props int
}

// decodeCalendars reads every VCALENDAR in r and calls top with each of
// their children as it ends (an event, a zone, a to-do), in order; the
// VCALENDARs' own properties go to props. Nothing but the component being
// read is held, so a large calendar costs memory in proportion to what top
// keeps. Lines that cannot be read are skipped and counted, never an error;
// only input with no VCALENDAR, or a failing reader or callback, is.
//
// want, when not nil, says which of a calendar's children to read at all:
// the others are skipped as they come, without building them.
func decodeCalendars(r io.Reader, want func(name string) bool, props func(ical.Prop), top func(*ical.Component) error) (DecodeStats, error) {
	d := &decoder{br: bufio.NewReaderSize(r, 64<<10)}
	var stack []frame // stack[0] is a VCALENDAR, or something skipped
	// skipped counts the BEGINs open inside a component being skipped:
	// nothing of them is kept, so that no input grows the stack past
	// maxDepth (4.7 million BEGINs without END once took 800 MB).
	skipped := 0
	calendars, comps := 0, 0
	for {
		line, long, err := d.logical()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return d.stats, fmt.Errorf("read calendar: %w", err)
		}
		d.stats.Lines++
		if long {
			d.stats.Skipped++
			continue
		}
		p, ok := parseLine(line)
		if !ok {
			d.stats.Skipped++
			continue
		}
		if skipped > 0 {
			// Inside a skipped component only BEGIN and END count, and
			// only as a depth: its END is the one that brings it to zero.
			// An END naming a component open above it ends the skip too
			// (and is handled below), so that a flood of BEGINs without
			// END cannot swallow the rest of the calendar.
			if p.Name == "BEGIN" {
				skipped++
				continue
			}
			if p.Name != "END" {
				continue
			}
			top := len(stack) - 1
			name := strings.ToUpper(strings.TrimSpace(p.Value))
			if stack[top].name == name || !openAbove(stack[:top], name) {
				if skipped--; skipped == 0 {
					stack = stack[:top]
				}
				continue
			}
			skipped = 0
		}
		switch p.Name {
		case "BEGIN":
			f := frame{name: strings.ToUpper(strings.TrimSpace(p.Value))}
			switch {
			case len(stack) == 0 && f.name != ical.CompCalendar:
				d.stats.Skipped++ // outside a calendar: skipped whole
				skipped = 1
			case len(stack) == 0:
				calendars++
				f.c = &ical.Component{Name: f.name, Props: ical.Props{}}
			case len(stack) == 1 && want != nil && !want(f.name):
				skipped = 1 // not wanted: neither read nor counted
			case len(stack) >= maxDepth || comps >= maxComponents:
				d.stats.Dropped++
				skipped = 1
			default:
				comps++
				f.c = &ical.Component{Name: f.name, Props: ical.Props{}}
			}
			stack = append(stack, f)
		case "END":
			// An END names the innermost component; one that names an
			// outer component ends every component inside it, which are
			// left out as never ended. Any other END is a stray line.
			name := strings.ToUpper(strings.TrimSpace(p.Value))
			at := -1
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].name == name {
					at = i
					break
				}
			}
			if at < 0 {
				d.stats.Skipped++
				continue
			}
			for _, f := range stack[at+1:] {
				if f.c != nil {
					d.stats.Dropped++
				}
			}
			f := stack[at]
			stack = stack[:at]
			switch {
			case f.c == nil || at == 0:
				// Skipped, or a VCALENDAR, whose children went to top.
			case at == 1:
				if err := top(f.c); err != nil {
					return d.stats, err
				}
			default:
				if parent := stack[at-1].c; parent != nil {
					parent.Children = append(parent.Children, f.c)
				}
			}
		default:
			if len(stack) == 0 {
				d.stats.Skipped++
				continue
			}
			f := &stack[len(stack)-1]
			switch {
			case f.c == nil:
			case len(stack) == 1:
				props(p)
			case f.props >= maxProps:
				d.stats.Skipped++
			default:
				f.props++
				f.c.Props[p.Name] = append(f.c.Props[p.Name], p)
			}
		}
	}
	// Components never ended (a truncated file) are left out: half an
	// event is worse than none. The VCALENDAR itself may go unended. A
	// skipped component at the top was counted when it began.
	if skipped > 0 {
		stack = stack[:len(stack)-1]
	}
	for i, f := range stack {
		if i > 0 && f.c != nil {
			d.stats.Dropped++
		}
	}
	if calendars == 0 {
		return d.stats, ErrNotCalendar
	}
	return d.stats, nil
}

// openAbove reports whether a component named name is open in stack.
func openAbove(stack []frame, name string) bool {
	for _, f := range stack {
		if f.name == name {
			return true
		}
	}
	return false
}

// decodeLimited is decodeCalendars on at most maxBytes of r: more is an
// error.
func decodeLimited(r io.Reader, maxBytes int64, want func(string) bool, props func(ical.Prop), top func(*ical.Component) error) (DecodeStats, error) {
	lr := &limitedReader{r: r, n: maxBytes}
	stats, err := decodeCalendars(lr, want, props, top)
	if lr.over {
		return stats, fmt.Errorf("calendar larger than %d MiB: %w", maxBytes>>20, ErrTooLarge)
	}
	return stats, err
}

// ErrTooLarge is a calendar or answer over its size bound.
var ErrTooLarge = errors.New("too large")

// limitedReader reads at most n bytes and then fails, noting that the input
// went on (io.LimitReader would end it quietly, as if it were whole).
type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// One byte more tells a reader that stops exactly at the bound
		// from one that goes on.
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			l.over = true
			return 0, ErrTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}
