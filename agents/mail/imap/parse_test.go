package imap

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

func parseString(t *testing.T, s string) mailMessage {
	t.Helper()
	m, err := parseMessage(strings.NewReader(strings.ReplaceAll(s, "\n", "\r\n")), 0)
	if err != nil {
		t.Fatalf("parseMessage: %v", err)
	}
	return m
}

func TestParseMultipartAlternativePrefersPlain(t *testing.T) {
	m := parseString(t, `From: =?ISO-8859-1?Q?Andr=E9_M=FCller?= <andre@example.de>
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
--outer--
`)
	if m.From.Name != "André Müller" || m.From.Email != "andre@example.de" {
		t.Errorf("From %+v", m.From)
	}
	if len(m.To) != 2 || m.To[0].Name != "Petrov, Nadia" || m.To[1].Email != "bob@example.com" {
		t.Errorf("To %+v", m.To)
	}
	if m.Subject != "Re: Côte d'Azur – closing" {
		t.Errorf("Subject %q", m.Subject)
	}
	if m.MessageID != "<abc@example.de>" || m.InReplyTo != "<prev@example.com>" {
		t.Errorf("ids %q %q", m.MessageID, m.InReplyTo)
	}
	if strings.Join(m.References, " ") != "<root@example.com> <prev@example.com>" {
		t.Errorf("References %q", m.References)
	}
	if want := time.Date(2026, 6, 2, 6, 15, 0, 0, time.UTC); !m.Date.Equal(want) {
		t.Errorf("Date %v", m.Date)
	}
	if m.Body != "Grüße aus Köln,\nthe closing is set for Friday." {
		t.Errorf("Body %q", m.Body)
	}
	if m.Headers["list-id"] != "Closing Team <closing.example.de>" || m.Headers["precedence"] != "bulk" || len(m.Headers) != 2 {
		t.Errorf("Headers %v", m.Headers)
	}
}

func TestParseHTMLOnly(t *testing.T) {
	m := parseString(t, `From: Property Law Daily <news@propertylawdaily.com>
Subject: Today in property law
Message-ID: <n1@propertylawdaily.com>
List-Unsubscribe: <https://news.example.com/u?x=1>
Auto-Submitted: auto-generated
Content-Type: text/html; charset=windows-1252
Content-Transfer-Encoding: base64

`+b64("<html><head><title>T</title><style>p{color:red}</style></head><body>"+
		"<h1>Top&nbsp;stories</h1><p>Estoppel certificates:\n   what   tenants \x93must\x94 sign.</p>"+
		"<ul><li>First item</li><li>Second &amp; last</li></ul>"+
		"<table><tr><td>Cell A</td><td>Cell B</td></tr></table>"+
		"<script>alert(1)</script>Line<br>break</body></html>"))
	want := "Top stories\n\nEstoppel certificates: what tenants \u201cmust\u201d sign.\n- First item\n- Second & last\nCell A\tCell B\nLine\nbreak"
	if m.Body != want {
		t.Errorf("Body\n%q\nwant\n%q", m.Body, want)
	}
	if m.Headers["list-unsubscribe"] != "<https://news.example.com/u?x=1>" || m.Headers["auto-submitted"] != "auto-generated" {
		t.Errorf("Headers %v", m.Headers)
	}
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

func TestParseLenient(t *testing.T) {
	m := parseString(t, `From: John Q. Public, Esq. <jqp@example.com>
To: a@example.com, "Broken <b@example.com>
Subject: =?x-unknown?Q?caf=E9?= ok
Date: not a date
Message-ID: bare-id@example.com
Content-Type: text/plain; charset=x-made-up

Body survives.
`)
	if m.From.Email != "jqp@example.com" {
		t.Errorf("From %+v", m.From)
	}
	if len(m.To) == 0 || m.To[0].Email != "a@example.com" {
		t.Errorf("To %+v", m.To)
	}
	if !strings.Contains(m.Subject, "ok") {
		t.Errorf("Subject %q", m.Subject)
	}
	if !m.Date.IsZero() {
		t.Errorf("Date %v, want zero (caller uses INTERNALDATE)", m.Date)
	}
	if m.MessageID != "<bare-id@example.com>" {
		t.Errorf("Message-ID %q", m.MessageID)
	}
	if m.Body != "Body survives." {
		t.Errorf("Body %q", m.Body)
	}
}

func TestParseNoContentType(t *testing.T) {
	m := parseString(t, "From: a@example.com\nSubject: plain\n\nhello\n")
	if m.Body != "hello" || m.Subject != "plain" {
		t.Errorf("%+v", m)
	}
}

func TestMsgIDs(t *testing.T) {
	got := mail.MsgIDs("<a@x> <b@y>(comment)<c@z> <bad id> junk")
	if strings.Join(got, ",") != "<a@x>,<b@y>,<c@z>" {
		t.Errorf("msgIDs = %q", got)
	}
}

func TestCursorUIDs(t *testing.T) {
	uids := []uint32{1, 2, 3, 5, 7, 8, 9, 10, 42}
	s := formatUIDs(uids)
	if s != "1:3,5,7:10,42" {
		t.Errorf("formatUIDs = %q", s)
	}
	back, err := parseUIDs(s)
	if err != nil || len(back) != len(uids) {
		t.Fatalf("parseUIDs(%q) = %v, %v", s, back, err)
	}
	for i := range uids {
		if back[i] != uids[i] {
			t.Fatalf("round trip %v != %v", back, uids)
		}
	}
	for _, bad := range []string{"0", "x", "5:3", "1:4294967295", "1,,2"} {
		if _, err := parseUIDs(bad); err == nil {
			t.Errorf("parseUIDs(%q) accepted", bad)
		}
	}
	a, b := diffUIDs([]uint32{1, 2, 3, 5}, []uint32{2, 3, 4, 6})
	if formatUIDs(a) != "1,5" || formatUIDs(b) != "4,6" {
		t.Errorf("diffUIDs = %v %v", a, b)
	}

	if _, err := decodeCursor("{garbage"); err == nil {
		t.Error("corrupt cursor accepted")
	}
	if c, err := decodeCursor(`{"v":99,"folders":{}}`); err == nil || len(c.Folders) != 0 {
		t.Error("future cursor version accepted")
	}
}
