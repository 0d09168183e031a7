package gmail

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/emersion/go-message"
	// Charsets beyond UTF-8 and ASCII (ISO-8859-*, Windows-125x, …).
	_ "github.com/emersion/go-message/charset"
	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail"
)

// maxBodyText bounds the text kept from one message body (as the IMAP
// connector does).
const maxBodyText = 1 << 20

// decodeBase64URL decodes Gmail's base64url, with or without padding.
func decodeBase64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// parseRFC822 reads a message: headers (RFC 2047 words decoded), the
// threading ids in angle brackets, and the first text/plain part as the
// body, or else the first text/html part converted to text. Unknown
// charsets are read as they are rather than failing the message.
func parseRFC822(raw []byte) (mail.Message, error) {
	r, err := gomail.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return mail.Message{}, fmt.Errorf("parsing the message: %w", err)
	}
	h := r.Header
	var m mail.Message
	m.Subject, _ = h.Subject() // on error, the raw value
	if id, err := h.MessageID(); err == nil && id != "" {
		m.MessageID = "<" + id + ">"
	}
	if ids := msgIDList(h, "In-Reply-To"); len(ids) > 0 {
		m.InReplyTo = ids[0]
	}
	m.References = msgIDList(h, "References")
	if from := addressList(h, "From"); len(from) > 0 {
		m.From = from[0]
	}
	m.To = addressList(h, "To")
	m.Cc = addressList(h, "Cc")
	m.Date, _ = h.Date()
	for f := h.Fields(); f.Next(); {
		key := strings.ToLower(f.Key())
		if !bulkHeader(key) {
			continue
		}
		if m.Headers == nil {
			m.Headers = map[string]string{}
		}
		if v, err := f.Text(); err == nil {
			m.Headers[key] = v
		} else {
			m.Headers[key] = f.Value()
		}
	}

	var plain, html string
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			// Keep what was read: a truncated or malformed MIME tree
			// still has useful headers and often a first part.
			break
		}
		ih, ok := p.Header.(*gomail.InlineHeader)
		if !ok {
			continue // attachment
		}
		ct, _, _ := ih.ContentType() // text/plain when absent (RFC 2045)
		switch {
		case ct == "text/plain" && plain == "":
			plain, err = readText(p.Body)
		case ct == "text/html" && html == "":
			html, err = readText(p.Body)
		}
		if err != nil {
			return mail.Message{}, fmt.Errorf("reading the body: %w", err)
		}
	}
	m.Body = plain
	if m.Body == "" && html != "" {
		m.Body = htmlToText(html)
	}
	return m, nil
}

func readText(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBodyText))
	return strings.ReplaceAll(string(b), "\r\n", "\n"), err
}

// msgIDList parses In-Reply-To or References; malformed lists keep their
// bracketed words. Ids come back in angle brackets.
func msgIDList(h gomail.Header, key string) []string {
	ids, err := h.MsgIDList(key)
	if err != nil {
		ids = ids[:0]
		for _, f := range strings.Fields(h.Get(key)) {
			if strings.HasPrefix(f, "<") && strings.HasSuffix(f, ">") && len(f) > 2 {
				ids = append(ids, f[1:len(f)-1])
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "<" + id + ">"
	}
	return out
}

func addressList(h gomail.Header, key string) []mail.Address {
	list, err := h.AddressList(key)
	if err != nil && len(list) == 0 {
		// An address list go-message cannot parse: keep the text.
		if v := strings.TrimSpace(h.Get(key)); v != "" {
			return []mail.Address{{Email: v}}
		}
		return nil
	}
	var out []mail.Address
	for _, a := range list {
		out = append(out, mail.Address{Name: a.Name, Email: a.Address})
	}
	return out
}

// bulkHeader reports whether a header tells bulk or automatic mail apart
// (package mail's Message.Headers).
func bulkHeader(key string) bool {
	switch key {
	case "list-id", "list-unsubscribe", "list-unsubscribe-post", "list-post", "list-owner",
		"precedence", "auto-submitted", "x-auto-response-suppress", "x-autoreply",
		"x-autorespond", "feedback-id", "x-mailer":
		return true
	}
	return false
}
