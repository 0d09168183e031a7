package mail

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	gomessage "github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// MaxMessageBytes is the largest message a sync reads, whatever the
// source: every connector skips a larger one (and reports it, see Skip)
// rather than read it. Most mail services cap a message at 25–35 MB
// (Gmail's 25 MB of attachments is about 34 MB once encoded, Exchange
// Online's default is 35 MB), so a larger one is rare, and its bulk is
// attachments the index does not keep anyway. A message may be held in
// memory while it is parsed, so this cap is what one message can cost.
const MaxMessageBytes = 50 << 20

// Caps on one message's MIME structure, which Parse enforces whatever
// the message's size: a few kilobytes of boundaries make thousands of
// parts, and each part and nesting level costs the parser a buffer and a
// header. Real mail has a handful of parts and two or three levels.
const (
	maxParts = 1000
	maxDepth = 20
	// maxHeaderBytes and maxHeaderLines are the budget of all header
	// blocks of one message together (the message's own and its parts').
	// The parser allocates some hundred bytes per header line, so lines
	// are capped besides bytes. go-message's own cap is 1 MiB for the
	// message's header only.
	maxHeaderBytes = 1 << 20
	maxHeaderLines = 10000
)

// ErrTooLarge marks a message over a size cap (MaxMessageBytes unless a
// test lowered it). Parse returns it without a message: a message cut at
// the cap is not the message. Connectors skip such a message and report
// it as a Skip with Cap set.
var ErrTooLarge = errors.New("message too large")

// Skip is a message a sync left out of the index instead of failing on
// it: too large to read, unreadable, not mail at all.
type Skip struct {
	Folder string `json:"folder"`
	// Where finds the message in its folder: "offset 1234" in an mbox
	// file, a Maildir file name, an IMAP UID, a service's message id.
	Where  string `json:"where"`
	Reason string `json:"reason"`
	// Cap, when set, is the size cap the message is over: it was left
	// unread because it is too large. 0 for the other reasons.
	Cap int64 `json:"cap,omitempty"`
}

// Skipper is implemented by connectors that leave messages out of a sync
// rather than fail it. index.Sync reports what the last Sync skipped.
type Skipper interface {
	// Skipped lists the messages the last Sync left out.
	Skipped() []Skip
}

// TooLarge is the Skip for a message of size bytes (0 when unknown) over
// limit.
func TooLarge(folder, where string, size, limit int64) Skip {
	reason := "too large: over the " + FormatSize(limit) + " a message may have"
	if size > 0 {
		reason = fmt.Sprintf("too large: %s, over the %s a message may have", FormatSize(size), FormatSize(limit))
	}
	return Skip{Folder: folder, Where: where, Reason: reason, Cap: limit}
}

// SkipSummary says in a few words what a sync left out, for the lawyer:
// "skipped 2 too large to read (over 50 MB)", "skipped 1 unreadable",
// or both joined with "and"; "" when nothing was skipped.
func SkipSummary(skips []Skip) string {
	var large, other int
	var limit int64
	for _, s := range skips {
		if s.Cap > 0 {
			large++
			limit = max(limit, s.Cap)
		} else {
			other++
		}
	}
	var parts []string
	if large > 0 {
		parts = append(parts, fmt.Sprintf("%d too large to read (over %s)", large, FormatSize(limit)))
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d unreadable", other))
	}
	if len(parts) == 0 {
		return ""
	}
	return "skipped " + strings.Join(parts, " and ")
}

// FormatSize writes a byte count for people, in the binary units mail
// programs use and the decimal-looking names people know: "50 MB",
// "1.5 MB", "64 KB", "300 bytes".
func FormatSize(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// capReader fails the read once more than its cap has come through. It
// reads one byte past the cap, to tell a message at the cap from one
// over it; over records that it happened, because the parser reports
// read errors in its own words (fmt %v), losing ErrTooLarge.
type capReader struct {
	r    io.Reader
	left int64 // bytes that may still come, the cap's one extra included
	over bool
}

func newCapReader(r io.Reader, limit int64) *capReader {
	return &capReader{r: r, left: limit + 1}
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.over {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left <= 0 {
		c.over = true
		return n, ErrTooLarge
	}
	return n, err
}

// errHeaderBudget ends a read once a message's header blocks exceed the
// budget. errTooManyParts and errTooDeep end the walk of its MIME tree.
var (
	errHeaderBudget = fmt.Errorf("headers over %s or %d lines", FormatSize(maxHeaderBytes), maxHeaderLines)
	errTooManyParts = fmt.Errorf("more than %d MIME parts", maxParts)
	errTooDeep      = fmt.Errorf("MIME parts nested more than %d deep", maxDepth)
)

// headerBudget is what the header blocks of one message may still take.
// over records that they took more: the parser reports the failed read
// in its own words ("malformed MIME header line"), if at all.
type headerBudget struct {
	bytes, lines int
	over         bool
}

// headerGuard counts the header blocks passing through it against the
// message's budget and fails the read when they exceed it. go-message
// reads a part's header whole, without a limit of its own, and costs
// some hundred bytes per line: without the guard, a few megabytes of
// one-letter header lines would take gigabytes.
//
// It sits under the parser, so it finds the header blocks by their
// content, as the parser does: the message's header is at the start
// (dash nil); a part's header follows a line that is the multipart's
// boundary delimiter ("--" and the boundary, then only blanks) and ends
// at the first empty line.
type headerGuard struct {
	r      io.Reader
	budget *headerBudget
	dash   []byte // "--" + boundary; nil for the message itself
	// inHeader is true inside a header block. Of the current line it
	// keeps the length, its first bytes (enough to match dash or an
	// empty line) and whether all after dash's length is blank.
	inHeader bool
	lineLen  int
	head     []byte
	blank    bool
	over     bool
}

func newHeaderGuard(r io.Reader, budget *headerBudget, dash []byte) *headerGuard {
	// The message's own header comes first; a multipart's body starts
	// with a preamble.
	return &headerGuard{r: r, budget: budget, dash: dash, inHeader: dash == nil, blank: true}
}

func (g *headerGuard) Read(p []byte) (int, error) {
	if g.over {
		return 0, errHeaderBudget
	}
	n, err := g.r.Read(p)
	if !g.inHeader && g.dash == nil {
		return n, err // past the message's header: nothing more to watch
	}
	for rest := p[:n]; len(rest) > 0 && (g.inHeader || g.dash != nil); {
		seg := rest
		i := bytes.IndexByte(rest, '\n')
		if i >= 0 {
			seg = rest[:i+1]
		}
		rest = rest[len(seg):]
		g.take(seg)
		if i >= 0 {
			g.endLine()
		}
		if g.budget.bytes < 0 || g.budget.lines < 0 {
			g.over, g.budget.over = true, true
			return n, errHeaderBudget
		}
	}
	return n, err
}

// take notes a piece of the current line.
func (g *headerGuard) take(seg []byte) {
	if g.inHeader {
		g.budget.bytes -= len(seg)
	}
	if keep := max(len(g.dash), 2) - len(g.head); keep > 0 {
		g.head = append(g.head, seg[:min(keep, len(seg))]...)
	}
	if g.blank && !g.inHeader {
		for _, b := range seg[min(max(len(g.dash)-g.lineLen, 0), len(seg)):] {
			if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
				g.blank = false
				break
			}
		}
	}
	g.lineLen += len(seg)
}

// endLine moves between body and header at the end of a line, which
// take saw whole.
func (g *headerGuard) endLine() {
	if g.inHeader {
		g.budget.lines--
		// As bufio.Reader.ReadLine reads it: only "\n" or "\r\n".
		if g.lineLen == 1 || g.lineLen == 2 && g.head[0] == '\r' {
			g.inHeader = false
		}
	} else if g.lineLen > len(g.dash) && bytes.HasPrefix(g.head, g.dash) && g.blank {
		g.inHeader = true
	}
	g.head, g.lineLen, g.blank = g.head[:0], 0, true
}

// walk calls fn for e and every part below it, depth first, as
// gomessage.Entity.Walk does, but within the caps: each multipart's body
// passes through a headerGuard, and the walk stops with an error after
// maxParts parts or below maxDepth levels. The parts not yet walked are
// not read.
func walk(e *gomessage.Entity, budget *headerBudget, fn func(*gomessage.Entity) error) error {
	var open []*textproto.MultipartReader // one per level being walked
	parts := 0
	part := e
	for {
		if part == nil {
			if len(open) == 0 {
				return nil
			}
			p, err := open[len(open)-1].NextPart()
			if err == io.EOF {
				open = open[:len(open)-1]
				continue
			}
			if err != nil {
				return err
			}
			// An unknown charset or transfer encoding still yields a
			// part whose raw bytes can be read, as in Parse.
			part, err = gomessage.New(gomessage.Header{Header: p.Header}, p)
			if err != nil && !gomessage.IsUnknownCharset(err) && !gomessage.IsUnknownEncoding(err) {
				return err
			}
		}
		if parts++; parts > maxParts {
			return errTooManyParts
		}
		if err := fn(part); err != nil {
			return err
		}
		if mt, params, _ := part.Header.ContentType(); strings.HasPrefix(mt, "multipart/") {
			if len(open) >= maxDepth {
				return errTooDeep
			}
			b := params["boundary"]
			open = append(open, textproto.NewMultipartReader(newHeaderGuard(part.Body, budget, []byte("--"+b)), b))
		}
		part = nil
	}
}
