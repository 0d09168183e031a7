package mail

import (
	"encoding/base64"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// parseString parses s with CRLF line ends, as servers deliver messages.
func parseString(t *testing.T, s string) Message {
	t.Helper()
	m, err := Parse(strings.NewReader(strings.ReplaceAll(s, "\n", "\r\n")))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return m
}

// b64 base64-encodes s in 76-column lines, as mailers do.
func b64(s string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\n")
		enc = enc[76:]
	}
	b.WriteString(enc)
	return b.String()
}

func TestParseMultipartAlternativePrefersPlain(t *testing.T) {
	m := parseString(t, `From: =?ISO-8859-1?Q?Andr=E9_M=FCller?= <Andre@Example.DE>
To: "Petrov, Nadia" <nadia@example.com>, bob@example.com
Cc: Undisclosed recipients:;
Subject: =?UTF-8?B?UmU6IEPDtHRlIGQnQXp1cg==?= =?UTF-8?Q?_=E2=80=93_closing?=
Date: Tue, 2 Jun 2026 08:15:00 +0200
Message-ID: <abc@example.de>
In-Reply-To: <prev@example.com> (Nadia's message of Mon)
References: <root@example.com>
 <prev@example.com>
List-Id: Closing Team <closing.example.de>
Precedence: bulk
X-Other: dropped
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary=outer

--outer
Content-Type: multipart/alternative; boundary=inner

--inner
Content-Type: text/html; charset=utf-8

<p>HTML version</p>
--inner
Content-Type: text/plain; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

Gr=FC=DFe aus K=F6ln,
the closing is set for Friday.=20
--inner--
--outer
Content-Type: application/pdf; name="checklist.pdf"
Content-Disposition: attachment; filename="checklist.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K
--outer
Content-Type: text/plain
Content-Disposition: attachment; filename=notes.txt

attached notes
--outer
Content-Type: TEXT/PLAIN; name=draft v2.txt
Content-Disposition: Attachment; filename=draft v2.txt

malformed parameters, still an attachment
--outer--
`)
	if m.From != (Address{Name: "André Müller", Email: "andre@example.de"}) {
		t.Errorf("From %+v", m.From)
	}
	if !slices.Equal(m.To, []Address{{Name: "Petrov, Nadia", Email: "nadia@example.com"}, {Email: "bob@example.com"}}) {
		t.Errorf("To %+v", m.To)
	}
	if len(m.Cc) != 0 {
		t.Errorf("Cc %+v", m.Cc)
	}
	if m.Subject != "Re: Côte d'Azur – closing" {
		t.Errorf("Subject %q", m.Subject)
	}
	if m.MessageID != "<abc@example.de>" || m.InReplyTo != "<prev@example.com>" {
		t.Errorf("ids %q %q", m.MessageID, m.InReplyTo)
	}
	if !slices.Equal(m.References, []string{"<root@example.com>", "<prev@example.com>"}) {
		t.Errorf("References %q", m.References)
	}
	if want := time.Date(2026, 6, 2, 6, 15, 0, 0, time.UTC); !m.Date.Equal(want) {
		t.Errorf("Date %v", m.Date)
	}
	// As sent: the part's own trailing space and line end stay; the line
	// end before the boundary belongs to the boundary.
	if m.Body != "Grüße aus Köln,\nthe closing is set for Friday. " {
		t.Errorf("Body %q", m.Body)
	}
	if len(m.Headers) != 2 || m.Headers["list-id"] != "Closing Team <closing.example.de>" || m.Headers["precedence"] != "bulk" {
		t.Errorf("Headers %v", m.Headers)
	}
	if m.Draft || m.RemoteID != "" || m.Folder != "" {
		t.Errorf("caller's fields set: %+v", m)
	}
}

func TestParseSinglePartAsSent(t *testing.T) {
	m := parseString(t, "From: =?iso-8859-1?q?Ren=E9e_M=FCller?= <renee@example.de>\n"+
		"Subject: =?iso-8859-1?q?R=E9sum=E9_des_d=E9lais?=\n"+
		"Content-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\n"+
		"D=E9lai de 10 jours ouvr=E9s.\n")
	if m.Subject != "Résumé des délais" || m.From != (Address{Name: "Renée Müller", Email: "renee@example.de"}) ||
		m.Body != "Délai de 10 jours ouvrés.\n" {
		t.Errorf("%q %v %q", m.Subject, m.From, m.Body)
	}
}

func TestParseWindows1252AndEncodedBulkHeader(t *testing.T) {
	m := parseString(t, "From: Court Notices <ecf@example.uscourts.gov>\n"+
		"Subject: Notice of Electronic Filing\n"+
		"List-Id: =?utf-8?q?ECF_Notices_=E2=80=93_SDNY?= <ecf.sdny>\n"+
		"MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary=inner\n\n"+
		"--inner\nContent-Type: text/plain; charset=windows-1252\nContent-Transfer-Encoding: quoted-printable\n\n"+
		"Docket entry =93filed=94.\n"+
		"--inner\nContent-Type: text/html; charset=utf-8\n\n<p>Docket entry <b>filed</b>.</p>\n--inner--\n")
	if m.Body != "Docket entry “filed”." {
		t.Errorf("Body %q", m.Body)
	}
	if m.Headers["list-id"] != "ECF Notices – SDNY <ecf.sdny>" {
		t.Errorf("list-id %q", m.Headers["list-id"])
	}
}

func TestParseHTMLOnly(t *testing.T) {
	raw := `From: Property Law Daily <news@propertylawdaily.com>
Subject: Today in property law
Message-ID: <n1@propertylawdaily.com>
List-Unsubscribe: <https://news.example.com/u?x=1>
Auto-Submitted: auto-generated
Content-Type: text/html; charset=windows-1252
Content-Transfer-Encoding: base64

` + b64("<html><head><title>T</title><style>p{color:red}</style></head><body>"+
		"<h1>Top&nbsp;stories</h1><p>Estoppel certificates:\n   what   tenants \x93must\x94 sign.</p>"+
		"<ul><li>First item</li><li>Second &amp; last</li></ul>"+
		"<table><tr><td>Cell A</td><td>Cell B</td></tr></table>"+
		"<blockquote>earlier<br>text</blockquote>"+
		"<script>alert(1)</script>Line<br>break</body></html>")
	m := parseString(t, raw)
	want := "Top stories\nEstoppel certificates: what tenants \u201cmust\u201d sign.\n\n- First item\n- Second & last\nCell A Cell B\n> earlier\n> text\nLine\nbreak"
	if m.Body != want {
		t.Errorf("Body\n%q\nwant\n%q", m.Body, want)
	}
	if m.Headers["list-unsubscribe"] != "<https://news.example.com/u?x=1>" || m.Headers["auto-submitted"] != "auto-generated" {
		t.Errorf("Headers %v", m.Headers)
	}

	// The layout IMAP keeps.
	m, err := ParseOptions{HTML: HTMLLayout{BlankBeforeParagraphs: true, TabCells: true}}.Parse(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	want = "Top stories\n\nEstoppel certificates: what tenants \u201cmust\u201d sign.\n- First item\n- Second & last\nCell A\tCell B\n> earlier\n> text\nLine\nbreak"
	if m.Body != want {
		t.Errorf("IMAP layout Body\n%q\nwant\n%q", m.Body, want)
	}
}

func TestParseJoinsTextParts(t *testing.T) {
	// Apple Mail splits the text around an inline image; a list appends
	// its footer as a part of its own. Empty parts add nothing.
	m := parseString(t, "From: a@x.com\nSubject: s\nContent-Type: multipart/mixed; boundary=b\n\n"+
		"--b\nContent-Type: text/plain\n\nBefore the photo.\n\n"+
		"--b\nContent-Type: image/jpeg\nContent-Disposition: inline\nContent-Transfer-Encoding: base64\n\n/9j/4AAQ\n"+
		"--b\nContent-Type: text/plain\n\n \n"+
		"--b\nContent-Type: text/plain; charset=us-ascii; format flowed\n\nAfter the photo.\n"+
		"--b\nContent-Type: text/html\n\n<p>ignored while there is text</p>\n--b--\n")
	if m.Body != "Before the photo.\n\nAfter the photo." {
		t.Errorf("Body %q", m.Body)
	}
	m = parseString(t, "From: a@x.com\nSubject: s\nContent-Type: multipart/mixed; boundary=b\n\n"+
		"--b\nContent-Type: text/html\n\n<p>One</p>\n--b\nContent-Type: text/html\n\n<p>Two</p>\n--b--\n")
	if m.Body != "One\n\nTwo" {
		t.Errorf("HTML parts %q", m.Body)
	}
}

func TestParseLenient(t *testing.T) {
	m := parseString(t, `From: John Q. Public, Esq. <JQP@example.com>
To: a@example.com, "Broken <b@example.com>
Subject: =?x-unknown?Q?caf=E9?= ok
Date: not a date
Message-ID: bare-id@example.com
In-Reply-To: Your message of Monday
Content-Type: text/plain; charset=x-made-up

Body survives.
`)
	if m.From != (Address{Name: "John Q. Public, Esq.", Email: "jqp@example.com"}) {
		t.Errorf("From %+v", m.From)
	}
	if len(m.To) != 2 || m.To[0].Email != "a@example.com" || m.To[1].Email != "b@example.com" {
		t.Errorf("To %+v", m.To)
	}
	if !strings.Contains(m.Subject, "ok") {
		t.Errorf("Subject %q", m.Subject)
	}
	if !m.Date.IsZero() {
		t.Errorf("Date %v, want zero (the caller has a better date)", m.Date)
	}
	if m.MessageID != "<bare-id@example.com>" || m.InReplyTo != "" {
		t.Errorf("ids %q %q", m.MessageID, m.InReplyTo)
	}
	if m.Body != "Body survives.\n" {
		t.Errorf("Body %q", m.Body)
	}
}

func TestParseLenientAddresses(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   []Address
	}{
		{"Baptiste, Ray <RBaptiste@Title.com>", []Address{{Name: "Baptiste, Ray", Email: "rbaptiste@title.com"}}},
		{"a@x.com; b@y.com", []Address{{Email: "a@x.com"}, {Email: "b@y.com"}}},
		// A name without an address before a bare address is not its name.
		{"Dana Whitfield, bob@example.com; Carla <c@x.com>", []Address{{Email: "bob@example.com"}, {Name: "Carla", Email: "c@x.com"}}},
		{`"Ortega, Luis" <l@x.com>;; junk`, []Address{{Name: "Ortega, Luis", Email: "l@x.com"}}},
	} {
		m := parseString(t, "From: x@y.com\nTo: "+tc.header+"\nSubject: s\n\nbody\n")
		if !slices.Equal(m.To, tc.want) {
			t.Errorf("To: %s\n got %+v\nwant %+v", tc.header, m.To, tc.want)
		}
	}
}

func TestParseSenderAndDraft(t *testing.T) {
	m := parseString(t, "Sender: Robot <robot@x.com>\nX-Mozilla-Draft-Info: internal/draft; vcard=0\nSubject: s\n\nbody\n")
	if m.From != (Address{Name: "Robot", Email: "robot@x.com"}) || !m.Draft {
		t.Errorf("From %+v Draft %v", m.From, m.Draft)
	}
	if m := parseString(t, "From: a@x.com\nX-Unsent: 1\n\nbody\n"); !m.Draft {
		t.Error("X-Unsent: 1 is not a draft")
	}
}

func TestParseNoContentType(t *testing.T) {
	m := parseString(t, "From: a@example.com\nSubject: plain\n\nhello\n")
	if m.Body != "hello\n" || m.Subject != "plain" {
		t.Errorf("%+v", m)
	}
	// LF line ends, as in mbox files, and a lone CR.
	m, err := Parse(strings.NewReader("From: a@example.com\nSubject:   folded\n   subject\n\nline one\rline two\n"))
	if err != nil || m.Body != "line one\nline two\n" || m.Subject != "folded subject" {
		t.Errorf("%+v, %v", m, err)
	}
}

func TestParseInvalidUTF8(t *testing.T) {
	m := parseString(t, "From: a@x.com\nContent-Type: text/plain; charset=x-unknown\n\ncaf\xe9\n")
	if m.Body != "caf\uFFFD\n" {
		t.Errorf("Body %q", m.Body)
	}
}

func TestParseBodyCap(t *testing.T) {
	big := strings.Repeat("0123456789abcde\n", maxBodyBytes/16+100)
	m, err := Parse(strings.NewReader("From: a@x.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\n\n" + big + "--b\n\nsecond part\n--b--\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Body) != maxBodyBytes || strings.Contains(m.Body, "second part") {
		t.Errorf("body of %d bytes, want the cap %d", len(m.Body), maxBodyBytes)
	}
}

func TestParsePartialBody(t *testing.T) {
	// The message ends inside its only part: no closing boundary.
	m, err := Parse(strings.NewReader("From: a@x.com\nSubject: cut\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhello\nworld"))
	if !errors.Is(err, ErrPartialBody) || !errors.Is(err, io.ErrUnexpectedEOF) || m.Subject != "cut" || m.Body != "hello\nworld" {
		t.Errorf("truncated: %+v, %v", m, err)
	}
	// Bad base64 in one part: its good start and the next part are kept.
	m, err = Parse(strings.NewReader("From: a@x.com\nContent-Type: multipart/mixed; boundary=b\n\n" +
		"--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29y!!!bGQ=\n" +
		"--b\nContent-Type: text/plain\n\nsecond\n--b--\n"))
	if !errors.Is(err, ErrPartialBody) || m.Body != "hello wor\nsecond" {
		t.Errorf("bad base64: %q, %v", m.Body, err)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	if _, err := Parse(strings.NewReader("this is not a header line\nSubject: broken\n\nbody\n")); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("malformed header: %v", err)
	}
	failing := errors.New("connection reset")
	_, err := Parse(io.MultiReader(strings.NewReader("From: a@x.com\r\n"), iotest.ErrReader(failing)))
	if !errors.Is(err, failing) || errors.Is(err, ErrPartialBody) {
		t.Errorf("reader failing in the header: %v", err)
	}
}

func TestMsgIDs(t *testing.T) {
	got := MsgIDs("<a@x> <b@y>(comment)<c@z> <bad id> junk")
	if strings.Join(got, ",") != "<a@x>,<b@y>,<c@z>" {
		t.Errorf("msgIDs = %q", got)
	}
	if got := MsgIDs("no ids here"); got != nil {
		t.Errorf("MsgIDs without ids = %q", got)
	}
	for in, want := range map[string]string{
		"<a@x> <b@y>":             "<a@x>",
		" bare@host ":             "<bare@host>",
		"<<nested@x>":             "<nested@x>",
		"Your message of Monday":  "",
		"not-an-id":               "",
		"":                        "",
		"<a@x> (from Dana, 10am)": "<a@x>",
	} {
		if got := MsgID(in); got != want {
			t.Errorf("MsgID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBulkHeaders(t *testing.T) {
	for _, name := range []string{"List-Id", "list-unsubscribe", "List-Unsubscribe-Post", "List-Post", "List-Owner", "List-Help",
		"Precedence", "Auto-Submitted", "X-Auto-Response-Suppress", "X-Autoreply", "X-Autorespond", "Feedback-ID", "X-Mailer"} {
		if !IsBulkHeader(name) {
			t.Errorf("%s is not a bulk header", name)
		}
	}
	for _, name := range []string{"Subject", "X-Other", "Listing", "Received"} {
		if IsBulkHeader(name) {
			t.Errorf("%s is a bulk header", name)
		}
	}

	var h map[string]string
	h = AddBulkHeader(h, "Subject", "not kept")
	if h != nil {
		t.Errorf("a non-bulk header made %v", h)
	}
	h = AddBulkHeader(h, "List-ID", "=?utf-8?q?Caf=C3=A9?=\r\n  <cafe.example>")
	h = AddBulkHeader(h, "list-id", "second, ignored")
	h = AddBulkHeader(h, "X-Mailer", strings.Repeat("é", 200))
	if h["list-id"] != "Café <cafe.example>" {
		t.Errorf("list-id %q", h["list-id"])
	}
	if v := h["x-mailer"]; len(v) > maxHeaderValue || len(v) < maxHeaderValue-1 || !strings.HasPrefix(v, "éé") || strings.ContainsRune(v, '\uFFFD') {
		t.Errorf("x-mailer not capped at a rune boundary: %d bytes %q", len(v), v)
	}
	if len(h) != 2 {
		t.Errorf("headers %v", h)
	}

	// In a message: the first of repeated fields wins, keys in lower case.
	m := parseString(t, "From: a@x.com\nPRECEDENCE: list\nPrecedence: bulk\nX-Mailer: iPhone Mail (23F79)\n\nbody\n")
	if len(m.Headers) != 2 || m.Headers["precedence"] != "list" || m.Headers["x-mailer"] != "iPhone Mail (23F79)" {
		t.Errorf("Headers %v", m.Headers)
	}
	if m := parseString(t, "From: a@x.com\n\nbody\n"); m.Headers != nil {
		t.Errorf("Headers %v, want nil", m.Headers)
	}
}
