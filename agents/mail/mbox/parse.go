package mbox

import (
	"errors"
	"fmt"
	"io"
	netmail "net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode ISO-8859-x, Windows-125x, Shift-JIS… bodies and headers
	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail"
)

// maxText caps the text read from one body part; the index keeps less.
const maxText = 1 << 20

// maxHeaderValue caps a kept header's value.
const maxHeaderValue = 300

var (
	msgIDRe = regexp.MustCompile(`<[^<>\s]+>`)
	emailRe = regexp.MustCompile(`[^\s<>"',;:()\[\]]+@[^\s<>"',;:()\[\]]+`)
)

// errNoHeaders marks data that is not a mail message at all.
var errNoHeaders = errors.New("no mail headers (From, Date, Message-ID or Subject)")

// parseMessage reads one RFC 5322 message: decoded headers (RFC 2047
// encoded words, any charset go-message knows), the threading ids with
// their angle brackets, and the plain-text body (HTML converted when there
// is no text part). fallbackDate stands in for a missing or unreadable
// Date header. An unknown charset or a broken MIME structure still yields
// the text that could be read; a header that cannot be parsed is an error.
func parseMessage(r io.Reader, fallbackDate time.Time) (mail.Message, error) {
	e, err := message.Read(r)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// The data ends inside the header block, as a client crashing
		// mid-write leaves a message: its fields cannot be trusted.
		return mail.Message{}, errors.New("header block is not terminated by an empty line (half-written message?)")
	}
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return mail.Message{}, fmt.Errorf("header: %w", err)
	}
	h := gomail.Header{Header: e.Header}
	if !h.Has("From") && !h.Has("Date") && !h.Has("Message-Id") && !h.Has("Subject") {
		return mail.Message{}, errNoHeaders
	}

	var m mail.Message
	m.Subject, _ = h.Subject() // on error, the raw value
	m.Subject = oneLine(m.Subject)
	from := addressList(h, "From")
	if len(from) == 0 {
		from = addressList(h, "Sender")
	}
	if len(from) > 0 {
		m.From = from[0]
	}
	m.To = addressList(h, "To")
	m.Cc = addressList(h, "Cc")
	if d, err := h.Date(); err == nil && !d.IsZero() {
		m.Date = d
	} else if d, err := netmail.ParseDate(strings.TrimSpace(h.Get("Date"))); err == nil {
		m.Date = d
	} else {
		m.Date = fallbackDate
	}
	if ids := msgIDRe.FindAllString(h.Get("Message-Id"), 1); len(ids) > 0 {
		m.MessageID = ids[0]
	}
	if ids := msgIDRe.FindAllString(h.Get("In-Reply-To"), -1); len(ids) > 0 {
		// Some clients list several; the last is the parent by convention.
		m.InReplyTo = ids[len(ids)-1]
	}
	m.References = msgIDRe.FindAllString(h.Get("References"), -1)
	m.Headers = keptHeaders(e.Header)
	m.Draft = h.Has("X-Mozilla-Draft-Info") || strings.TrimSpace(h.Get("X-Unsent")) == "1"

	body, berr := bodyText(e)
	m.Body = body
	if berr != nil {
		// Keep what was read: a message with a truncated attachment is
		// still worth finding by its text.
		return m, &partialError{berr}
	}
	return m, nil
}

// partialError says the body could be read only in part.
type partialError struct{ err error }

func (e *partialError) Error() string { return "body read in part: " + e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// addressList parses an address header, falling back to picking out the
// addresses when the field is not strictly RFC 5322 (unquoted commas or
// dots in names are common).
func addressList(h gomail.Header, key string) []mail.Address {
	if !h.Has(key) {
		return nil
	}
	if as, err := h.AddressList(key); err == nil {
		out := make([]mail.Address, 0, len(as))
		for _, a := range as {
			out = append(out, mail.Address{Name: oneLine(a.Name), Email: strings.ToLower(a.Address)})
		}
		return out
	}
	v, _ := h.Text(key)
	return lenientAddresses(v)
}

// lenientAddresses finds "Name <addr>" and bare addresses in s.
func lenientAddresses(s string) []mail.Address {
	var out []mail.Address
	for _, part := range splitAddressList(s) {
		loc := emailRe.FindStringIndex(part)
		if loc == nil {
			continue
		}
		email := strings.ToLower(part[loc[0]:loc[1]])
		name := strings.TrimSpace(part[:loc[0]])
		name = strings.Trim(strings.TrimSpace(strings.TrimRight(name, "<")), `"' `)
		out = append(out, mail.Address{Name: oneLine(name), Email: email})
	}
	return out
}

// splitAddressList splits at commas and semicolons outside quotes and
// angle brackets.
func splitAddressList(s string) []string {
	var parts []string
	var quoted bool
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case (r == ',' || r == ';') && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// keptHeaders returns the fields that tell bulk and automated mail apart,
// with lower-case keys.
func keptHeaders(h message.Header) map[string]string {
	var out map[string]string
	fields := h.Fields()
	for fields.Next() {
		k := strings.ToLower(fields.Key())
		switch {
		case strings.HasPrefix(k, "list-"), k == "precedence", k == "auto-submitted", k == "x-auto-response-suppress",
			k == "x-autoreply", k == "x-autorespond", k == "feedback-id", k == "x-mailer":
		default:
			continue
		}
		v, err := fields.Text()
		if err != nil {
			v = fields.Value()
		}
		v = oneLine(v)
		if len(v) > maxHeaderValue {
			v = strings.ToValidUTF8(v[:maxHeaderValue], "")
		}
		if out == nil {
			out = map[string]string{}
		}
		if _, dup := out[k]; !dup {
			out[k] = v
		}
	}
	return out
}

// bodyText extracts the readable text: the inline text/plain parts, or if
// there are none the text/html parts converted. Attachments, including
// forwarded messages attached whole, are left out.
func bodyText(e *message.Entity) (string, error) {
	var plain, html []string
	err := e.Walk(func(_ []int, part *message.Entity, err error) error {
		// err is an unknown charset or encoding: the part is still
		// readable, as raw bytes.
		mt, _, perr := part.Header.ContentType()
		if perr != nil {
			mt = "text/plain"
		}
		mt = strings.ToLower(mt)
		if disp, _, _ := part.Header.ContentDisposition(); strings.EqualFold(disp, "attachment") {
			return nil
		}
		if mt != "text/plain" && mt != "text/html" {
			return nil
		}
		b, rerr := io.ReadAll(io.LimitReader(part.Body, maxText))
		text := cleanText(b)
		if mt == "text/plain" {
			plain = append(plain, text)
		} else {
			html = append(html, htmlToText(text))
		}
		return rerr
	})
	var text string
	switch {
	case len(plain) > 0:
		text = strings.Join(plain, "\n")
	default:
		text = strings.Join(html, "\n")
	}
	if text = strings.TrimRight(text, "\n "); text != "" {
		text += "\n"
	}
	return text, err
}

// cleanText makes body bytes valid UTF-8 with "\n" line ends.
func cleanText(b []byte) string {
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// oneLine collapses a header value's folding and control characters.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == '\r' || r == '\n' || r == '\t' || r == ' '
	}), " ")
}
