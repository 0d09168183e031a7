package graph

import (
	"io"
	"strconv"
	"strings"
)

// DefaultMaxPageBytes bounds one answer of Graph read into memory when
// Options.MaxPageBytes is 0: a delta page of DefaultPageSize messages
// with their text bodies (each cut at maxStringBytes) fits with room to
// spare. A page over it is asked for again in smaller pages.
const DefaultMaxPageBytes = 16 << 20

// maxStringBytes caps one JSON string of an answer as it is read. Graph
// hands message bodies over whole in its pages; the index keeps the first
// 256 KiB of a body's text, so a body of 30 MB pasted text would cost
// memory for nothing.
const maxStringBytes = 1 << 20

// propMessageSize is PidTagMessageSize, the message's size in the
// mailbox with its attachments: what Graph has in place of IMAP's
// RFC822.SIZE and Gmail's sizeEstimate.
const propMessageSize = "Integer 0x0E08"

// size returns the message's PidTagMessageSize, 0 when Graph sent none.
func (m message) size() int64 {
	for _, p := range m.ExtendedProps {
		if sameProp(p.ID, propMessageSize) {
			n, _ := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64)
			return n
		}
	}
	return 0
}

// cutStrings passes a JSON text through, keeping at most max bytes of
// each string value (as written, escapes included) and dropping the rest
// as it streams past: the text stays valid JSON, as a cut happens only
// where a character or an escape sequence starts. A cut inside a UTF-8
// character or between the halves of a \u surrogate pair is decoded as
// U+FFFD, like any invalid text.
type cutStrings struct {
	r   io.Reader
	max int

	inString bool
	esc      int  // -1 just after '\', 1-4 the \u digits still to come
	n        int  // bytes of the current string kept
	cut      bool // dropping the rest of the current string
}

func newCutStrings(r io.Reader, max int) io.Reader { return &cutStrings{r: r, max: max} }

func (c *cutStrings) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		w := 0
		for _, b := range p[:n] {
			keep := true
			switch {
			case !c.inString:
				if b == '"' {
					c.inString, c.n, c.cut = true, 0, false
				}
			case c.esc == -1:
				if b == 'u' {
					c.esc = 4
				} else {
					c.esc = 0
				}
				keep = c.keepByte()
			case c.esc > 0:
				c.esc--
				keep = c.keepByte()
			case b == '"':
				c.inString = false
			default:
				// A character or an escape starts here (not a UTF-8
				// continuation byte): the place to cut.
				if c.n >= c.max && b&0xC0 != 0x80 {
					c.cut = true
				}
				if b == '\\' {
					c.esc = -1
				}
				keep = c.keepByte()
			}
			if keep {
				p[w] = b
				w++
			}
		}
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
		// All of it dropped: read on rather than return nothing.
	}
}

// keepByte reports whether a byte inside a string is kept, counting it.
func (c *cutStrings) keepByte() bool {
	if c.cut {
		return false
	}
	c.n++
	return true
}
