package mail

import (
	"errors"
	"fmt"
	"io"
	"mime"
	netmail "net/mail"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	gomessage "github.com/emersion/go-message"
	// Registers legacy charsets (ISO-8859-x, Windows-125x, Shift_JIS…) for
	// bodies and RFC 2047 words; charset.Reader decodes the words of
	// header values that arrive outside a message (Graph's).
	"github.com/emersion/go-message/charset"
	gomail "github.com/emersion/go-message/mail"
)

// maxBodyBytes caps the decoded text kept from one message's body parts.
// The index needs the words of a mail, not a 40 MB pasted log; the cap
// also bounds the memory one hostile message can take during a sync.
const maxBodyBytes = 1 << 20

// maxHeaderValue caps the value of a kept bulk-mail header.
const maxHeaderValue = 300

var (
	msgIDRe = regexp.MustCompile(`<[^<>\s]+>`)
	emailRe = regexp.MustCompile(`[^\s<>"',;:()\[\]]+@[^\s<>"',;:()\[\]]+`)
)

// ErrPartialBody marks a message whose body could be read only in part
// (a truncated MIME tree, bad base64, a cut connection). Parse returns it
// wrapped together with the message, which is still worth indexing.
var ErrPartialBody = errors.New("body read in part")

// ParseOptions adjust Parse. The zero value is what Parse uses.
type ParseOptions struct {
	// HTML lays out the text of a body that has only HTML parts.
	HTML HTMLLayout
	// MaxBytes caps the bytes read from the message (0: MaxMessageBytes);
	// reading past it fails the parse with ErrTooLarge.
	MaxBytes int64
}

// Parse reads one RFC 5322 message with the default options.
func Parse(r io.Reader) (Message, error) { return ParseOptions{}.Parse(r) }

// Parse reads one RFC 5322 message and returns what the index keeps:
//
//   - Subject, with RFC 2047 words decoded and folding collapsed;
//   - From (Sender when From is missing), To and Cc, addresses in lower
//     case; a list the strict RFC 5322 parser rejects (unquoted commas or
//     dots in names, semicolons) is picked apart leniently;
//   - Date, zero when missing or unreadable (callers have a better
//     fallback: INTERNALDATE, Gmail's internalDate, the mbox From line);
//   - MessageID, InReplyTo (its first id, as RFC 5256 threads) and
//     References, in angle brackets; a bare Message-ID gets brackets;
//   - Headers: the bulk-mail headers (see IsBulkHeader), lower-case keys;
//   - Draft, for the headers Thunderbird and Outlook mark drafts with;
//   - Body: the inline text/plain parts, joined, as sent but for "\n"
//     line ends and invalid UTF-8 replaced; when there are none, the
//     text/html parts as text (o.HTML's layout). At most 1 MiB is read.
//     Attachments are skipped unread, so a 20 MB PDF costs transfer, not
//     memory.
//
// RemoteID, Folder and ConversationID are left for the caller.
//
// It is lenient on purpose: real mailboxes hold broken dates, unknown
// charsets and truncated MIME trees, and one bad message must not stop a
// sync. It fails only when not even the header can be read: a malformed
// header line, or r failing inside the header (the error wraps r's). When
// the body could be read only in part, it returns the message with an
// error wrapping ErrPartialBody.
//
// What one message may cost is bounded, since anyone can send one: past
// o.MaxBytes it fails with ErrTooLarge and no message; past 1000 MIME
// parts, 20 levels of nesting, or 1 MiB or 10,000 lines of headers in
// all, it stops reading and returns what it has with ErrPartialBody.
func (o ParseOptions) Parse(r io.Reader) (Message, error) {
	limit := o.MaxBytes
	if limit <= 0 {
		limit = MaxMessageBytes
	}
	cr := newCapReader(r, limit)
	budget := &headerBudget{bytes: maxHeaderBytes, lines: maxHeaderLines}
	e, err := gomessage.Read(newHeaderGuard(cr, budget, nil))
	if cr.over {
		return Message{}, fmt.Errorf("%w: over %s", ErrTooLarge, FormatSize(limit))
	}
	if budget.over {
		err = errHeaderBudget
	}
	if err != nil && !gomessage.IsUnknownCharset(err) && !gomessage.IsUnknownEncoding(err) {
		// An unknown charset or transfer encoding still yields an entity
		// whose raw bytes can be read.
		return Message{}, fmt.Errorf("reading the message header: %w", err)
	}
	h := gomail.Header{Header: e.Header}
	m := Message{
		MessageID:  MsgID(h.Get("Message-Id")),
		InReplyTo:  MsgID(h.Get("In-Reply-To")),
		References: MsgIDs(h.Get("References")),
		Subject:    headerText(h.Header, "Subject"),
		To:         addressList(h, "To"),
		Cc:         addressList(h, "Cc"),
		Date:       parseDate(h.Get("Date")),
		Draft:      h.Has("X-Mozilla-Draft-Info") || strings.TrimSpace(h.Get("X-Unsent")) == "1",
	}
	if from := addressList(h, "From"); len(from) > 0 {
		m.From = from[0]
	} else if sender := addressList(h, "Sender"); len(sender) > 0 {
		m.From = sender[0]
	}
	for f := e.Header.Fields(); f.Next(); {
		m.Headers = AddBulkHeader(m.Headers, f.Key(), f.Value())
	}
	body, err := o.body(e, budget)
	if cr.over {
		// Whatever was read of a cut message, it is not the message.
		return Message{}, fmt.Errorf("%w: over %s", ErrTooLarge, FormatSize(limit))
	}
	m.Body = body
	if err != nil {
		return m, fmt.Errorf("%w: %w", ErrPartialBody, err)
	}
	return m, nil
}

// body returns the inline text/plain parts, joined, or when there are
// none the text/html parts as text. Parts with an unknown charset or
// transfer encoding are read as their raw bytes. A part that fails midway
// keeps what was read and the walk goes on; the first error is returned.
// The walk stops at the caps on parts, nesting and headers (see walk).
func (o ParseOptions) body(e *gomessage.Entity, headers *headerBudget) (string, error) {
	var plain, htmlText []string
	budget := int64(maxBodyBytes)
	var firstErr error
	walkErr := walk(e, headers, func(part *gomessage.Entity) error {
		mt := mediaType(part.Header.Get("Content-Type"))
		if mt == "" {
			mt = "text/plain" // RFC 2045's default
		}
		if mt != "text/plain" && mt != "text/html" {
			return nil // multipart containers, attachments by type
		}
		if mediaType(part.Header.Get("Content-Disposition")) == "attachment" {
			return nil
		}
		if budget <= 0 {
			return nil
		}
		var b strings.Builder
		n, err := io.Copy(&b, io.LimitReader(part.Body, budget))
		budget -= n
		if err != nil && firstErr == nil {
			firstErr = err
		}
		text := cleanText(b.String())
		if strings.TrimSpace(text) == "" {
			return nil
		}
		if mt == "text/plain" {
			plain = append(plain, text)
		} else {
			htmlText = append(htmlText, o.HTML.Text(text))
		}
		return nil
	})
	if headers.over {
		// The walk stopped here, whatever the parser made of it.
		walkErr = errHeaderBudget
	}
	if firstErr == nil {
		firstErr = walkErr
	}
	if len(plain) > 0 {
		return strings.Join(plain, "\n"), firstErr
	}
	return strings.Join(htmlText, "\n\n"), firstErr
}

// mediaType returns a Content-Type or Content-Disposition value without
// its parameters, in lower case. Unlike mime.ParseMediaType it still
// answers when a parameter is malformed ("attachment; filename=a b.pdf").
func mediaType(v string) string {
	t, _, _ := strings.Cut(v, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// cleanText makes body text valid UTF-8 with "\n" line ends.
func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// headerText returns a header's value with RFC 2047 words decoded and
// folding whitespace collapsed. Undecodable words are left as sent rather
// than dropping the header.
func headerText(h gomessage.Header, key string) string {
	v, err := h.Text(key)
	if err != nil {
		v = h.Get(key)
	}
	return oneLine(v)
}

// oneLine collapses runs of whitespace, folding included, to one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func parseDate(v string) time.Time {
	d, err := netmail.ParseDate(strings.TrimSpace(v))
	if err != nil {
		return time.Time{}
	}
	return d
}

// MsgIDs extracts every "<…>" message id of v in order, brackets kept.
// Message-ID, In-Reply-To and References are often malformed in practice
// (comments, missing spaces, trailing garbage); pulling out the bracketed
// ids is what threading implementations (RFC 5256, JWZ) do.
func MsgIDs(v string) []string {
	return msgIDRe.FindAllString(v, -1)
}

// MsgID returns the first bracketed id of v. A bare id without brackets
// ("abc@host", as some mass mailers and Graph's internetMessageId write
// it) gets brackets, so the index always stores one form; text that is not
// an id gives "".
func MsgID(v string) string {
	if id := msgIDRe.FindString(v); id != "" {
		return id
	}
	v = strings.TrimSpace(v)
	if !strings.Contains(v, "@") || strings.ContainsAny(v, " \t\r\n<>()") {
		return ""
	}
	return "<" + v + ">"
}

// addressList parses an address header. When the strict RFC 5322 parser
// rejects the whole list, because a display name has an unquoted comma or
// dot or items are separated by semicolons, it picks the addresses out.
func addressList(h gomail.Header, key string) []Address {
	if strings.TrimSpace(h.Get(key)) == "" {
		return nil
	}
	list, err := h.AddressList(key)
	if err != nil {
		v, err := h.Text(key)
		if err != nil {
			v = h.Get(key)
		}
		return lenientAddresses(v)
	}
	var out []Address
	for _, a := range list {
		if a.Address != "" {
			out = append(out, Address{Name: oneLine(a.Name), Email: strings.ToLower(a.Address)})
		}
	}
	return out
}

// lenientAddresses finds "Name <addr>" and bare addresses in s. Text
// without an address before a "Name <addr>" item is the start of that
// name, cut at an unquoted comma ("Petrov, Nadia <n@x.com>").
func lenientAddresses(s string) []Address {
	var out []Address
	var pending []string
	for _, part := range splitAddressList(s) {
		loc := emailRe.FindStringIndex(part)
		if loc == nil {
			if t := strings.TrimSpace(part); t != "" {
				pending = append(pending, t)
			}
			continue
		}
		name := strings.TrimSpace(part[:loc[0]])
		angle := strings.HasSuffix(name, "<")
		name = strings.TrimSpace(strings.TrimSuffix(name, "<"))
		if angle && len(pending) > 0 {
			name = strings.Join(append(pending, name), ", ")
		}
		pending = nil
		name = strings.Trim(strings.TrimSpace(name), `"' ,`)
		out = append(out, Address{Name: oneLine(name), Email: strings.ToLower(part[loc[0]:loc[1]])})
	}
	return out
}

// splitAddressList splits at commas and semicolons outside quotes and
// angle brackets.
func splitAddressList(s string) []string {
	var parts []string
	quoted := false
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

// IsBulkHeader reports whether a header field (name in any case) is one
// of those that tell newsletters, lists and robots from people, which
// Message.Headers keeps: the RFC 2369 List-* fields, Precedence,
// Auto-Submitted (RFC 3834), Outlook's X-Auto-Response-Suppress, the
// X-Autoreply family, Feedback-ID (bulk senders at Gmail) and X-Mailer.
func IsBulkHeader(name string) bool {
	name = strings.ToLower(name)
	if strings.HasPrefix(name, "list-") {
		return true
	}
	switch name {
	case "precedence", "auto-submitted", "x-auto-response-suppress", "x-autoreply", "x-autorespond",
		"feedback-id", "x-mailer":
		return true
	}
	return false
}

// AddBulkHeader adds a header field as raw from the wire to headers, the
// way Message.Headers keeps it, and returns the map (made when nil, as
// append makes a slice): only bulk-mail headers (IsBulkHeader), the key in
// lower case, the value with RFC 2047 words decoded, folding collapsed and
// capped at 300 bytes; the first of repeated fields wins.
func AddBulkHeader(headers map[string]string, name, value string) map[string]string {
	if !IsBulkHeader(name) {
		return headers
	}
	key := strings.ToLower(name)
	if _, dup := headers[key]; dup {
		return headers
	}
	dec := mime.WordDecoder{CharsetReader: charset.Reader}
	if v, err := dec.DecodeHeader(value); err == nil {
		value = v
	}
	value = oneLine(value)
	if len(value) > maxHeaderValue {
		value = strings.ToValidUTF8(value[:maxHeaderValue], "")
	}
	if headers == nil {
		headers = make(map[string]string)
	}
	headers[key] = value
	return headers
}
