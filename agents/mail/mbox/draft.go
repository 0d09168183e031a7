package mbox

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail"
)

// composeDraft renders d as an RFC 5322 message from the user: Date, From,
// To, Cc, Subject (RFC 2047 encoded when not ASCII), a fresh Message-ID,
// In-Reply-To and References for threading, and a quoted-printable UTF-8
// text body. Lines end in "\n", as mbox and Maildir files keep them. It
// returns the message and its Message-ID with angle brackets.
func composeDraft(d mail.Draft, from mail.Address, now time.Time) ([]byte, string, error) {
	if from.Email == "" {
		return nil, "", errors.New("the account's own address (Options.From) is needed for the draft's From header")
	}
	var h gomail.Header
	h.SetDate(now)
	h.SetAddressList("From", []*gomail.Address{{Name: oneLine(from.Name), Address: from.Email}})
	if to := addrs(d.To); len(to) > 0 {
		h.SetAddressList("To", to)
	}
	if cc := addrs(d.Cc); len(cc) > 0 {
		h.SetAddressList("Cc", cc)
	}
	h.SetSubject(oneLine(d.Subject))
	id, err := newMessageID(from.Email)
	if err != nil {
		return nil, "", err
	}
	h.SetMessageID(id)
	refs := bareIDs(d.References)
	if irt := bareIDs([]string{d.InReplyTo}); len(irt) > 0 {
		h.SetMsgIDList("In-Reply-To", irt)
		// References end with the parent (RFC 5322 3.6.4).
		if len(refs) == 0 || refs[len(refs)-1] != irt[0] {
			refs = append(refs, irt[0])
		}
	}
	if len(refs) > 0 {
		h.SetMsgIDList("References", refs)
	}
	h.Set("MIME-Version", "1.0")
	h.Set("User-Agent", "Spirit")
	// Thunderbird opens a message with this header as a draft to edit.
	h.Set("X-Mozilla-Draft-Info", "internal/draft; vcard=0; receipt=0; DSN=0; uuencode=0; attachmentreminder=0; deliveryformat=1")
	h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	h.Set("Content-Transfer-Encoding", "quoted-printable")

	var b bytes.Buffer
	w, err := gomail.CreateSingleInlineWriter(&b, h)
	if err != nil {
		return nil, "", err
	}
	body := strings.ReplaceAll(d.Body, "\r\n", "\n")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if _, err := w.Write([]byte(strings.ReplaceAll(body, "\n", "\r\n"))); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("\r\n"), []byte("\n")), "<" + id + ">", nil
}

func addrs(as []mail.Address) []*gomail.Address {
	var out []*gomail.Address
	for _, a := range as {
		if e := strings.TrimSpace(a.Email); e != "" {
			out = append(out, &gomail.Address{Name: oneLine(a.Name), Address: e})
		}
	}
	return out
}

// bareIDs strips angle brackets and drops empty or malformed ids.
func bareIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		id = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), "<"), ">")
		if id != "" && !strings.ContainsAny(id, " \t\r\n<>") {
			out = append(out, id)
		}
	}
	return out
}

// newMessageID is a random id at the user's domain.
func newMessageID(email string) (string, error) {
	domain := "spirit.local"
	if at := strings.LastIndexByte(email, '@'); at >= 0 && at < len(email)-1 {
		domain = email[at+1:]
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "spirit." + hex.EncodeToString(b) + "@" + domain, nil
}

// oneLine collapses a header value's folding and control characters.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return r == '\r' || r == '\n' || r == '\t' || r == ' '
	}), " ")
}
