package mbox

import (
	"errors"
	"io"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// errNoHeaders marks data that is not a mail message at all.
var errNoHeaders = errors.New("no mail headers (From, Date, Message-ID or Subject)")

// parseMessage reads one message of a local file with mail.Parse, and
// adds what local files need: data without any of the headers a mail has
// is rejected, because files in a mail folder are not all mail; fallbackDate
// (the From line's, the Maildir delivery time) stands in for a missing or
// unreadable Date; and the body ends with exactly one line end. An error
// wrapping mail.ErrPartialBody comes with a message worth keeping.
func parseMessage(r io.Reader, fallbackDate time.Time) (mail.Message, error) {
	m, err := mail.Parse(r)
	if err != nil && !errors.Is(err, mail.ErrPartialBody) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// The data ends inside the header block, as a client crashing
			// mid-write leaves a message: its fields cannot be trusted.
			return mail.Message{}, errors.New("header block is not terminated by an empty line (half-written message?)")
		}
		return mail.Message{}, err
	}
	if m.From == (mail.Address{}) && m.Date.IsZero() && m.MessageID == "" && m.Subject == "" {
		return mail.Message{}, errNoHeaders
	}
	if m.Date.IsZero() {
		m.Date = fallbackDate
	}
	m.Body = lineEnded(m.Body)
	return m, err
}

// lineEnded trims trailing blank space from text and ends it with one
// "\n", as text files end; "" stays "".
func lineEnded(text string) string {
	if text = strings.TrimRight(text, "\n "); text != "" {
		text += "\n"
	}
	return text
}
