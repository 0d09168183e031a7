package index

import (
	"bytes"
	"compress/flate"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Lines where a reply's quoted history begins, as Outlook, Gmail, Apple
// Mail and Thunderbird write them (English, German, French, Spanish).
var (
	originalMsgRe = regexp.MustCompile(`(?i)^\s*-{2,}\s*(?:original message|ursprüngliche nachricht|message d'origine|mensaje original)\s*-{2,}\s*$`)
	underscoreRe  = regexp.MustCompile(`^\s*_{10,}\s*$`)
	headerFromRe  = regexp.MustCompile(`(?i)^\s*\*?(?:from|von|de|van)\s*\*?\s*:`)
	headerSentRe  = regexp.MustCompile(`(?i)^\s*\*?(?:sent|date|gesendet|datum|envoyé|fecha|enviado|verzonden)\s*\*?\s*:`)
	wroteRe       = regexp.MustCompile(`(?i)(?:wrote|schrieb|a écrit|escribió|schreef)\s*:\s*$`)
	onRe          = regexp.MustCompile(`(?i)^\s*(?:on|am|le|el|op)\s+\S`)
)

// quoteStart returns the byte offset in body where the quoted history of
// a reply begins, or -1 when body has none or nothing but history (then
// the whole body is the message).
func quoteStart(body string) int {
	lines := strings.SplitAfter(body, "\n")
	offset := 0 // byte offset of lines[i]
	at := -1
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if isQuoteHeader(lines, i, t) || isTrailingQuote(lines, i, t) {
			at = offset
			break
		}
		offset += len(l)
	}
	if at < 0 || strings.TrimSpace(body[:at]) == "" {
		return -1
	}
	return at
}

// splitQuoted splits a body into the message's own text and the history
// it quotes.
func splitQuoted(body string) (text, quoted string) {
	if at := quoteStart(body); at >= 0 {
		return body[:at], body[at:]
	}
	return body, ""
}

// compressor deflates quoted history, which is three quarters of a
// mailbox's text and read only when a thread is opened. One per Apply:
// a flate writer carries hundreds of kilobytes of state.
type compressor struct {
	buf bytes.Buffer
	w   *flate.Writer
}

func (c *compressor) compress(s string) ([]byte, error) {
	c.buf.Reset()
	if c.w == nil {
		w, err := flate.NewWriter(&c.buf, flate.DefaultCompression)
		if err != nil {
			return nil, err
		}
		c.w = w
	} else {
		c.w.Reset(&c.buf)
	}
	if _, err := io.WriteString(c.w, s); err != nil {
		return nil, err
	}
	if err := c.w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(c.buf.Bytes()), nil
}

func decompress(b []byte) (string, error) {
	if len(b) == 0 {
		return "", nil
	}
	r := flate.NewReader(bytes.NewReader(b))
	defer r.Close()
	out, err := io.ReadAll(r)
	return string(out), err
}

// isQuoteHeader reports whether line i opens an attribution block.
func isQuoteHeader(lines []string, i int, t string) bool {
	if originalMsgRe.MatchString(t) {
		return true
	}
	if underscoreRe.MatchString(t) || headerFromRe.MatchString(t) {
		// Outlook: "From: …" then "Sent: …" within a few lines.
		for j := i + 1; j < len(lines) && j <= i+4; j++ {
			if headerSentRe.MatchString(lines[j]) {
				return true
			}
		}
		return false
	}
	if onRe.MatchString(t) {
		// "On Tue, Jun 16, 2026 at 3:20 PM Graham <g@x.com> wrote:", which
		// clients wrap over two lines when it is long.
		if wroteRe.MatchString(t) {
			return true
		}
		return i+1 < len(lines) && len(t) < 200 && wroteRe.MatchString(strings.TrimRight(lines[i+1], "\r\n"))
	}
	return false
}

// isTrailingQuote reports whether line i starts a block of "> " lines that
// runs to the end of the body; interleaved answers are not history.
func isTrailingQuote(lines []string, i int, t string) bool {
	if !strings.HasPrefix(t, ">") {
		return false
	}
	for _, l := range lines[i+1:] {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, ">") {
			return false
		}
	}
	return true
}

// snippet is the start of text on one line, at most max runes.
func snippet(text string, max int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max]
	// Cut at a word boundary when one is near.
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))*3/4 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
}
