// Package redact removes credentials from text that came from a server (an
// IMAP NO, an HTTP error body, an OAuth token endpoint's answer) before
// Spirit logs, stores or shows it. Servers echo what they were sent more
// often than one would hope: a password in `NO invalid credentials: "user"
// "password"`, a key in "Incorrect API key provided: sk-…", a refresh token
// in a token endpoint's error_description.
//
// A Scrubber knows one connection's secrets (password, user name, access
// and refresh tokens, API key, client secret) and removes them in the forms
// a server may echo them: as sent, quoted with escapes, URL- or
// HTML-encoded, or inside base64 (AUTHENTICATE PLAIN, XOAUTH2, HTTP Basic).
// It also removes what looks like a credential whoever it belongs to:
// Authorization values, access_token=, client_secret=, password= and
// friends in query strings, form bodies, JSON and header dumps, and vendor
// key formats such as sk-….
//
// Mail connectors, the OAuth client and the model providers all scrub with
// this one package, at the point where a server's text enters Spirit, so
// that every later log line, stored status and message is clean.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Placeholder replaces every secret.
const Placeholder = "[redacted]"

// Secrets this long are removed wherever they occur. A shorter one is
// removed only where it stands alone (between non-alphanumerics), and one
// of one or two bytes only where it is quoted: replacing every "a" in a
// message would hide the message and protect nothing, since a two-letter
// password is guessed faster than read.
const (
	anywhereLen = 6
	wholeLen    = 3
)

type tier int

const (
	anywhere tier = iota // as a substring
	whole                // bounded by non-alphanumerics
	quoted               // between matching quotes
)

// variant is one spelling of a secret, ASCII-lowercased: user names are
// case-insensitive, and a password echoed in another case still leaks most
// of it.
type variant struct {
	text string
	tier tier
}

// Scrubber removes known secrets and credential-shaped text. A nil
// *Scrubber removes only the credential-shaped text. Scrubbers are
// immutable and safe for concurrent use.
type Scrubber struct {
	variants []variant // longest first, so a longer spelling wins
}

// New returns a Scrubber for the given secrets; empty ones are ignored.
func New(secrets ...string) *Scrubber {
	var s *Scrubber
	return s.With(secrets...)
}

// With returns a Scrubber that also knows secrets, e.g. an access token
// obtained after the connection was configured.
func (s *Scrubber) With(secrets ...string) *Scrubber {
	out := &Scrubber{}
	if s != nil {
		out.variants = slices.Clone(s.variants)
	}
	for _, sec := range secrets {
		if sec == "" {
			continue
		}
		t := anywhere
		switch {
		case len(sec) < wholeLen:
			t = quoted
		case len(sec) < anywhereLen:
			t = whole
		}
		for _, v := range spellings(sec) {
			v = lowerASCII(v)
			if !slices.Contains(out.variants, variant{v, t}) {
				out.variants = append(out.variants, variant{v, t})
			}
		}
	}
	slices.SortStableFunc(out.variants, func(a, b variant) int { return len(b.text) - len(a.text) })
	return out
}

// spellings are the forms in which a server may echo sec.
func spellings(sec string) []string {
	q := strconv.Quote(sec)
	j, _ := json.Marshal(sec) // escapes <, >, & as \u003c…, as Go servers do
	var jb strings.Builder
	enc := json.NewEncoder(&jb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(sec)
	plain := strings.TrimSpace(jb.String())
	return []string{
		sec,
		q[1 : len(q)-1],
		string(j[1 : len(j)-1]),
		plain[1 : len(plain)-1],
		// PHP's json_encode escapes "/" too.
		strings.ReplaceAll(plain[1:len(plain)-1], "/", `\/`),
		// IMAP quoted strings escape only \ and " (RFC 3501 §4.3).
		strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sec),
		url.QueryEscape(sec),
		strings.ReplaceAll(url.QueryEscape(sec), "+", "%20"),
		url.PathEscape(sec),
		html.EscapeString(sec),
	}
}

// String returns text without the secrets and credential-shaped values.
func (s *Scrubber) String(text string) string {
	if text == "" {
		return text
	}
	text = s.known(text)
	text = s.base64Blobs(text)
	return generic(text)
}

// Error returns err with a scrubbed Error text. errors.Is and errors.As
// still reach err and what it wraps, so callers can test for kinds; but
// what they dig out that way carries the server's raw text and must not be
// shown. When err's text holds nothing to scrub, Error returns err itself,
// so comparisons with sentinel errors keep working. Error(nil) is nil.
func (s *Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	clean := s.String(text)
	if clean == text {
		return err
	}
	return &scrubbedError{err: err, text: clean}
}

// String scrubs text of secrets and of credential-shaped values.
func String(text string, secrets ...string) string { return New(secrets...).String(text) }

// Err scrubs err's text of secrets and of credential-shaped values; see
// Scrubber.Error.
func Err(err error, secrets ...string) error { return New(secrets...).Error(err) }

type scrubbedError struct {
	err  error
	text string
}

func (e *scrubbedError) Error() string { return e.text }
func (e *scrubbedError) Unwrap() error { return e.err }

// known replaces the known secrets.
func (s *Scrubber) known(text string) string {
	spans := s.find(text)
	if len(spans) == 0 {
		return text
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(text[last:sp[0]])
		b.WriteString(Placeholder)
		last = sp[1]
	}
	b.WriteString(text[last:])
	return b.String()
}

// find returns the merged, sorted byte ranges of text holding a known
// secret.
func (s *Scrubber) find(text string) [][2]int {
	if s == nil || len(s.variants) == 0 {
		return nil
	}
	low := lowerASCII(text)
	var spans [][2]int
	for _, v := range s.variants {
		for from := 0; from < len(low); {
			i := strings.Index(low[from:], v.text)
			if i < 0 {
				break
			}
			i += from
			end := i + len(v.text)
			if bounded(low, i, end, v.tier) {
				spans = append(spans, [2]int{i, end})
			}
			from = i + 1
		}
	}
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// bounded reports whether text[i:end] may be replaced under tier t.
func bounded(text string, i, end int, t tier) bool {
	switch t {
	case whole:
		return (i == 0 || !alnum(text[i-1])) && (end == len(text) || !alnum(text[end]))
	case quoted:
		if i == 0 || end == len(text) {
			return false
		}
		q := text[i-1]
		return (q == '"' || q == '\'') && text[end] == q
	}
	return true
}

// alnum treats every non-ASCII byte as a letter: a secret next to one is
// part of a longer word.
func alnum(c byte) bool {
	return c >= 0x80 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lowerASCII lowercases ASCII letters only, keeping byte offsets intact.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// blobRE finds base64 candidates (standard or URL alphabet).
var blobRE = regexp.MustCompile(`[A-Za-z0-9+/_-]{8,}={0,2}`)

// base64Blobs replaces base64 runs that decode to text holding a secret:
// a server echoing the SASL response of AUTHENTICATE PLAIN
// ("\0user\0password"), XOAUTH2 ("user=…\x01auth=Bearer …") or an HTTP
// Basic credential.
func (s *Scrubber) base64Blobs(text string) string {
	return blobRE.ReplaceAllStringFunc(text, func(blob string) string {
		dec, ok := decode64(blob)
		if !ok {
			return blob
		}
		if len(s.find(dec)) > 0 || generic(dec) != dec {
			return Placeholder
		}
		return blob
	})
}

// decode64 decodes blob in whichever base64 flavour fits, and accepts the
// result only if it reads as text: random words decode to binary noise.
func decode64(blob string) (string, bool) {
	encs := []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}
	for _, enc := range encs {
		b, err := enc.DecodeString(blob)
		if err != nil || !utf8.Valid(b) {
			continue
		}
		text := string(b)
		if strings.IndexFunc(text, func(r rune) bool {
			return !unicode.IsPrint(r) && !strings.ContainsRune("\x00\x01\t\r\n", r)
		}) >= 0 {
			continue
		}
		return text, true
	}
	return "", false
}

// A pattern finds credential-shaped text; the submatches listed in groups
// (whichever matched) are the secret value.
type pattern struct {
	re     *regexp.Regexp
	groups []int
	// keep, if set, spares a value that only looks like a credential.
	keep func(value string) bool
}

// names are parameter and field names whose value is a credential.
const names = `(?:access|refresh|id|auth|session)[_-]?token|client[_-]?secret|code[_-]?verifier|device[_-]?code|passw(?:or)?d|pwd|x-api-key|api[_-]?key|apikey|private[_-]?key|secret`

var patterns = []pattern{
	// Authorization: Bearer …, Authorization=Basic …, "authorization": "…"
	// (keeping the scheme, which tells what kind of credential it was).
	{re: regexp.MustCompile(`(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?(?:(?:bearer|basic|digest|negotiate|ntlm|token)\s+)?([^\s"',;&]+)`), groups: []int{1}},
	// A bare bearer token, e.g. inside XOAUTH2's "auth=Bearer …".
	{re: regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9\-._~+/]+=*)`), groups: []int{1}, keep: notTokenLike},
	// A bare Basic credential: base64 of "user:password".
	{re: regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`), groups: []int{1}, keep: func(v string) bool {
		dec, ok := decode64(v)
		return !ok || !strings.Contains(dec, ":")
	}},
	// JSON: "password": "…", also escaped inside another JSON string.
	{re: regexp.MustCompile(`(?i)"(?:` + names + `|authorization|token|key)"\s*:\s*"((?:[^"\\]|\\.)*)"`), groups: []int{1}},
	{re: regexp.MustCompile(`(?i)\\"(?:` + names + `|authorization|token|key)\\"\s*:\s*\\"((?:[^"\\]|\\[^"])*)\\"`), groups: []int{1}},
	// Query strings and form bodies: access_token=…&…
	{re: regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])(?:` + names + `)=([^\s&"',;<>]+)`), groups: []int{1}},
	{re: regexp.MustCompile(`(?i)[?&]key=([^\s&"'<>]+)`), groups: []int{1}},
	// Header dumps and prose: x-api-key: …, password: "…".
	{re: regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])(?:` + names + `|client secret)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s"',;]+))`), groups: []int{1, 2, 3}},
	// Vendor formats: OpenAI/Anthropic keys, Google access and refresh
	// tokens and API keys, JWTs (Microsoft access tokens).
	{re: regexp.MustCompile(`\b(sk-[A-Za-z0-9_\-]{16,})`), groups: []int{1}},
	{re: regexp.MustCompile(`\b(ya29\.[A-Za-z0-9_\-]{10,})`), groups: []int{1}},
	{re: regexp.MustCompile(`(?:^|[^A-Za-z0-9])(1//[A-Za-z0-9_\-]{20,})`), groups: []int{1}},
	{re: regexp.MustCompile(`\b(AIza[0-9A-Za-z_\-]{35})`), groups: []int{1}},
	{re: regexp.MustCompile(`\b(eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*)`), groups: []int{1}},
}

// notTokenLike spares words after "Bearer" ("Bearer token expired",
// "Bearer realm=…"): real tokens are long and hold digits or punctuation.
func notTokenLike(v string) bool {
	return len(v) < 8 || !strings.ContainsAny(v, "0123456789-._~+/=")
}

// generic replaces credential-shaped values.
func generic(text string) string {
	for _, p := range patterns {
		text = p.replace(text)
	}
	return text
}

func (p pattern) replace(text string) string {
	matches := p.re.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		for _, g := range p.groups {
			start, end := m[2*g], m[2*g+1]
			if start < 0 || start == end || start < last {
				continue
			}
			v := text[start:end]
			if v == Placeholder || (p.keep != nil && p.keep(v)) {
				continue
			}
			b.WriteString(text[last:start])
			b.WriteString(Placeholder)
			last = end
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}
