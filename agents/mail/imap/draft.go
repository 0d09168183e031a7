package imap

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail"
)

// buildDraft writes d as an RFC 5322 message from the account's address:
// a single text/plain UTF-8 part, quoted-printable (safe for any line
// length and any character), with a fresh Message-ID and the threading
// headers that make mail clients file the reply in its conversation.
// It returns the message and its Message-ID, angle brackets kept.
func buildDraft(from mail.Address, d mail.Draft, now time.Time) ([]byte, string, error) {
	var h gomail.Header
	h.SetDate(now)
	h.SetAddressList("From", []*gomail.Address{{Name: from.Name, Address: from.Email}})
	if len(d.To) > 0 {
		h.SetAddressList("To", toGomail(d.To))
	}
	if len(d.Cc) > 0 {
		h.SetAddressList("Cc", toGomail(d.Cc))
	}
	h.SetSubject(d.Subject)

	// The right-hand side of a Message-ID should be a domain the sender
	// controls; the account's own domain is the natural choice.
	host := "spirit.invalid"
	if _, domain, ok := strings.Cut(from.Email, "@"); ok && domain != "" {
		host = domain
	}
	if err := h.GenerateMessageIDWithHostname(host); err != nil {
		return nil, "", fmt.Errorf("imap: generating a Message-ID: %w", err)
	}
	id, err := h.MessageID()
	if err != nil {
		return nil, "", fmt.Errorf("imap: reading back the Message-ID: %w", err)
	}

	if irt := bareID(d.InReplyTo); irt != "" {
		h.SetMsgIDList("In-Reply-To", []string{irt})
	}
	if refs := draftRefs(d); len(refs) > 0 {
		h.SetMsgIDList("References", refs)
	}
	h.Set("MIME-Version", "1.0")
	h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	h.Set("Content-Transfer-Encoding", "quoted-printable")

	var buf bytes.Buffer
	w, err := gomail.CreateSingleInlineWriter(&buf, h)
	if err != nil {
		return nil, "", fmt.Errorf("imap: writing draft header: %w", err)
	}
	body := strings.ReplaceAll(d.Body, "\r\n", "\n")
	if _, err := io.WriteString(w, body); err != nil {
		return nil, "", fmt.Errorf("imap: writing draft body: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, "", fmt.Errorf("imap: writing draft body: %w", err)
	}
	return buf.Bytes(), "<" + id + ">", nil
}

// draftRefs is d.References with d.InReplyTo appended when missing, as
// RFC 5322 §3.6.4 builds References for a reply.
func draftRefs(d mail.Draft) []string {
	var refs []string
	seen := map[string]bool{}
	add := func(id string) {
		if id = bareID(id); id != "" && !seen[id] {
			seen[id] = true
			refs = append(refs, id)
		}
	}
	for _, r := range d.References {
		add(r)
	}
	add(d.InReplyTo)
	return refs
}

// bareID strips the angle brackets go-message adds back itself.
func bareID(id string) string {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(id, "<")
	id = strings.TrimSuffix(id, ">")
	if strings.ContainsAny(id, " \t\r\n<>") {
		return ""
	}
	return id
}

func toGomail(as []mail.Address) []*gomail.Address {
	out := make([]*gomail.Address, 0, len(as))
	for _, a := range as {
		out = append(out, &gomail.Address{Name: a.Name, Address: a.Email})
	}
	return out
}
