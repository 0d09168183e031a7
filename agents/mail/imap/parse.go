package imap

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	gomessage "github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // registers legacy charsets (ISO-8859-x, Windows-125x, Shift_JIS…) for bodies and RFC 2047 words
	gomail "github.com/emersion/go-message/mail"
	"golang.org/x/net/html"

	"github.com/spirit-app/spirit/agents/mail"
)

// maxBodyBytes caps the decoded text kept from one body part. The index
// needs the words of a mail, not a 40 MB pasted log; the cap also bounds
// the memory one hostile message can take during a sync.
const maxBodyBytes = 1 << 20

// bulkHeaders are the headers the glance uses to tell newsletters, lists
// and robots from people. Kept with lower-case keys.
var bulkHeaders = []string{
	"list-id",
	"list-unsubscribe",
	"list-unsubscribe-post",
	"list-post",
	"precedence",
	"auto-submitted",
	"x-auto-response-suppress",
	"x-autoreply",
	"x-autorespond",
}

// parseMessage reads one RFC 5322 message and returns what the index keeps:
// threading headers, addresses, date, subject, the plain-text body and the
// bulk-mail headers. RemoteID and Folder are left for the caller.
//
// It is lenient on purpose: real mailboxes hold broken dates, undecodable
// charsets and truncated MIME trees, and one bad message must not stop a
// sync. It only fails when not even the header can be read.
func parseMessage(r io.Reader) (mail.Message, error) {
	mr, err := gomail.CreateReader(r)
	if err != nil && !gomessage.IsUnknownCharset(err) {
		return mail.Message{}, fmt.Errorf("reading message header: %w", err)
	}
	h := mr.Header

	m := mail.Message{
		MessageID:  firstMsgID(h.Get("Message-Id")),
		InReplyTo:  firstMsgID(h.Get("In-Reply-To")),
		References: msgIDs(h.Get("References")),
		Subject:    headerText(h.Header, "Subject"),
		To:         addressList(h, "To"),
		Cc:         addressList(h, "Cc"),
	}
	if from := addressList(h, "From"); len(from) > 0 {
		m.From = from[0]
	} else if sender := addressList(h, "Sender"); len(sender) > 0 {
		m.From = sender[0]
	}
	if d, err := h.Date(); err == nil {
		m.Date = d
	}
	for _, k := range bulkHeaders {
		if v := headerText(h.Header, k); v != "" {
			if m.Headers == nil {
				m.Headers = make(map[string]string)
			}
			m.Headers[k] = v
		}
	}
	m.Body = readBody(mr)
	return m, nil
}

// readBody returns the first inline text/plain part, else the first
// text/html part converted to text. Attachments are skipped unread (the
// multipart reader discards them), so a 20 MB PDF costs transfer, not memory.
func readBody(mr *gomail.Reader) string {
	var plain, htmlText string
	havePlain, haveHTML := false, false
	for !havePlain {
		p, err := mr.NextPart()
		if err != nil && !gomessage.IsUnknownCharset(err) {
			// io.EOF, or a truncated/malformed MIME tree: keep what we have.
			break
		}
		ih, ok := p.Header.(*gomail.InlineHeader)
		if !ok {
			continue
		}
		t, _, _ := ih.ContentType()
		if t == "" {
			t = "text/plain" // RFC 2045 default
		}
		switch {
		case t == "text/plain" && !havePlain:
			plain, havePlain = readLimited(p.Body), true
		case t == "text/html" && !haveHTML:
			htmlText, haveHTML = readLimited(p.Body), true
		}
	}
	body := plain
	if !havePlain && haveHTML {
		body = htmlToText(htmlText)
	}
	return cleanText(body)
}

func readLimited(r io.Reader) string {
	var b strings.Builder
	// A read error midway (bad base64, cut connection) still leaves useful
	// text in b; the caller has no better fallback.
	_, _ = io.Copy(&b, io.LimitReader(r, maxBodyBytes))
	return b.String()
}

// cleanText normalises line ends and trims trailing blank space so bodies
// compare and index the same whatever the sender's MUA did.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.TrimRightFunc(s, unicode.IsSpace)
}

// headerText returns a header's value with RFC 2047 words decoded and
// folding whitespace collapsed. Undecodable words are left as sent rather
// than dropping the header.
func headerText(h gomessage.Header, key string) string {
	v, err := h.Text(key)
	if err != nil {
		v = h.Get(key)
	}
	return strings.Join(strings.Fields(v), " ")
}

// msgIDs extracts every "<…>" token in order. Message-ID, In-Reply-To and
// References are often malformed in practice (comments, missing spaces,
// trailing garbage); pulling out the bracketed ids is what threading
// implementations (RFC 5256, JWZ) do.
func msgIDs(v string) []string {
	var ids []string
	for {
		i := strings.IndexByte(v, '<')
		if i < 0 {
			return ids
		}
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			return ids
		}
		id := v[i : i+j+1]
		if len(id) > 2 && !strings.ContainsAny(id, " \t\r\n") {
			ids = append(ids, id)
		}
		v = v[i+j+1:]
	}
}

// firstMsgID returns the first bracketed id in v; a bare id without
// brackets (seen from some mass mailers) gets brackets so the index always
// stores one form.
func firstMsgID(v string) string {
	if ids := msgIDs(v); len(ids) > 0 {
		return ids[0]
	}
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, " \t<>") {
		return ""
	}
	return "<" + v + ">"
}

// addressList parses an address header, falling back to a per-item parse
// and then to anything that looks like an address, because a display name
// with an unquoted comma or dot makes the strict RFC 5322 parser reject the
// whole list.
func addressList(h gomail.Header, key string) []mail.Address {
	raw := h.Get(key)
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	if list, err := h.AddressList(key); err == nil {
		return convertAddrs(list)
	}
	var out []mail.Address
	for _, part := range strings.Split(raw, ",") {
		if a, err := gomail.ParseAddress(part); err == nil {
			out = append(out, mail.Address{Name: a.Name, Email: a.Address})
			continue
		}
		for _, f := range strings.FieldsFunc(part, func(r rune) bool { return unicode.IsSpace(r) || r == '<' || r == '>' || r == '"' }) {
			if strings.Contains(f, "@") {
				out = append(out, mail.Address{Email: f})
				break
			}
		}
	}
	return out
}

func convertAddrs(list []*gomail.Address) []mail.Address {
	out := make([]mail.Address, 0, len(list))
	for _, a := range list {
		out = append(out, mail.Address{Name: a.Name, Email: a.Address})
	}
	return out
}

// htmlToText turns an HTML body into readable plain text: block elements
// become line breaks, list items get a dash, scripts and styles vanish,
// entities are decoded and runs of whitespace collapse.
func htmlToText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0 // depth inside <script>, <style>, <head>…
	pre := 0
	newline := func() {
		str := b.String()
		if str != "" && !strings.HasSuffix(str, "\n") {
			b.WriteByte('\n')
		}
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF or malformed markup: either way, what was read so
			// far is the best text there is.
			return tidyLines(b.String())
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := string(z.Text())
			if pre == 0 {
				text = collapseSpace(text)
				if strings.HasSuffix(b.String(), "\n") || b.Len() == 0 {
					text = strings.TrimLeft(text, " ")
				}
			}
			b.WriteString(text)
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			tag := string(name)
			start := tt != html.EndTagToken
			switch tag {
			case "script", "style", "head", "title", "noscript", "template":
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case "pre":
				if tt == html.StartTagToken {
					pre++
				} else if tt == html.EndTagToken && pre > 0 {
					pre--
				}
				newline()
			case "br":
				b.WriteByte('\n')
			case "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "table", "tr", "ul", "ol", "hr", "section", "article", "header", "footer", "address", "dl", "dt", "dd":
				newline()
				if start && (tag == "p" || strings.HasPrefix(tag, "h") && len(tag) == 2) {
					// Paragraphs and headings get a blank line before them,
					// as a text mailer would write them.
					if str := b.String(); str != "" && !strings.HasSuffix(str, "\n\n") {
						b.WriteByte('\n')
					}
				}
			case "li":
				newline()
				if start {
					b.WriteString("- ")
				}
			case "td", "th":
				if start && !strings.HasSuffix(b.String(), "\n") && b.Len() > 0 {
					b.WriteByte('\t')
				}
			}
		}
	}
}

func collapseSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// tidyLines trims each line and keeps at most one blank line in a row.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank := 0
	for _, l := range lines {
		l = strings.TrimRightFunc(strings.Replace(l, "\u00a0", " ", -1), unicode.IsSpace)
		if l == "" {
			blank++
			if blank > 1 || len(out) == 0 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
