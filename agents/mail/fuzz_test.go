package mail

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Fuzz targets for the two parsers of mail as it arrives from anyone:
// RFC 5322 messages (every connector but Graph goes through Parse) and
// HTML bodies. Plain `go test` runs their seeds and the regression inputs
// in testdata/fuzz; build/fuzz.sh runs the fuzzing engine on them.

// fuzzDeadline bounds one input. Real inputs take microseconds; the bound
// is loose because the machine running CI may be busy, and is there to turn
// a hang into a finding rather than a stalled run.
const fuzzDeadline = 10 * time.Second

// within runs f and fails t if it has not returned after d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// seedMessages adds the messages of the mbox files the glance tests keep
// (real-looking mail, with the headers clients write) as seeds.
func seedMessages(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "glance", "testdata", "glance", "*", "mailbox.mbox"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range bytes.Split(b, []byte("\nFrom ")) {
			// Drop the "From " separator line: Parse reads one message.
			if _, rest, ok := bytes.Cut(m, []byte("\n")); ok {
				f.Add(rest)
			}
		}
	}
}

// fuzzMIME are hand-written messages reaching the parts of Parse that the
// plain-text seeds do not: MIME trees, transfer encodings, charsets, RFC 2047
// words, lenient address lists, HTML-only bodies.
var fuzzMIME = []string{
	"From: =?ISO-8859-1?Q?Andr=E9_M=FCller?= <andre@example.de>\r\nTo: \"Petrov, Nadia\" <nadia@example.com>, bob@example.com\r\n" +
		"Subject: =?UTF-8?B?UmU6IEPDtHRlIGQnQXp1cg==?=\r\nDate: Tue, 2 Jun 2026 08:15:00 +0200\r\nMessage-ID: <abc@example.de>\r\n" +
		"In-Reply-To: <prev@example.com> (Nadia's message)\r\nReferences: <root@example.com>\r\n <prev@example.com>\r\n" +
		"List-Id: Closing Team <closing.example.de>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=outer\r\n\r\n" +
		"--outer\r\nContent-Type: multipart/alternative; boundary=inner\r\n\r\n--inner\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>HTML</p>\r\n" +
		"--inner\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nGr=FC=DFe aus K=F6ln,=20\r\n--inner--\r\n" +
		"--outer\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"a.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--outer--\r\n",
	"From: Petrov, Nadia <nadia@example.com>; bob@example.com\nSubject: lenient\nContent-Type: text/plain; charset=windows-1252\nContent-Transfer-Encoding: base64\n\nk5SVlg==\n",
	"From: a@b.c\nSubject: html only\nContent-Type: text/html; charset=shift_jis\n\n<html><head><title>t</title><style>p{}</style></head><body><p>Hi&nbsp;<b>Dana</b></p>" +
		"<blockquote>earlier<blockquote>older<br>text</blockquote></blockquote><script>secret()</script><pre> a\n b</pre></body></html>\n",
	"From: a@b.c\nContent-Type: multipart/alternative; boundary=x\n\n--x\nContent-Type: text/plain; charset=x-unknown\nContent-Transfer-Encoding: x-weird\n\nraw\n--x\nContent-Transfer-Encoding: base64\n\n!!!not base64\n",
	"Sender: \"Quoted, Name\" <s@x.org>\nMessage-ID: bare@id\nDate: not a date\nX-Mozilla-Draft-Info: internal/draft; vcard=0\nAuto-Submitted: auto-replied\n\nbody\r\rwith\rCRs\n",
	"Subject: truncated MIME\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhalf a part",
}

// FuzzParse feeds arbitrary bytes to Parse as a message. Beyond not
// panicking or hanging, what Parse promises callers: a failure without
// ErrPartialBody comes with no message; the body is valid UTF-8 with "\n"
// line ends and never more text than the input could decode to; ids are
// bracketed; addresses are lower case; kept headers are bulk headers in
// lower case, capped at 300 bytes.
func FuzzParse(f *testing.F) {
	seedMessages(f)
	for _, s := range fuzzMIME {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var (
			m   Message
			err error
		)
		within(t, fuzzDeadline, "Parse", func() { m, err = Parse(bytes.NewReader(data)) })
		if err != nil && !errors.Is(err, ErrPartialBody) {
			if !reflect.DeepEqual(m, Message{}) {
				t.Fatalf("Parse failed (%v) but returned a message: %+v", err, m)
			}
			return
		}
		checkMessage(t, m, len(data))

		// The IMAP connector's layout takes the same path with another
		// HTML layout: the same promises hold.
		m2, err2 := ParseOptions{HTML: HTMLLayout{BlankBeforeParagraphs: true, TabCells: true}}.Parse(bytes.NewReader(data))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("the HTML layout changed whether Parse fails: %v vs %v", err, err2)
		}
		checkMessage(t, m2, len(data))
		checkJudged(t, m)
	})
}

// checkJudged runs what the glance, the briefs and the work runner decide
// of a parsed message on what the fuzzer made: bounded in time, one of the
// known answers, the same twice, and AudienceOf's two certain cases.
func checkJudged(t *testing.T, m Message) {
	t.Helper()
	var a, again Automation
	within(t, fuzzDeadline, "Automated", func() {
		a = Automated(m.From, m.Subject, m.Headers, m.Body)
		again = Automated(m.From, m.Subject, m.Headers, m.Body)
	})
	switch a {
	case None, List, Bulk, AutoReply, Notice:
	default:
		t.Fatalf("Automated = %q, not one of the kinds", a)
	}
	if a != again {
		t.Fatalf("Automated said %q, then %q", a, again)
	}
	for _, who := range append(append([]Address{m.From}, m.To...), m.Cc...) {
		me := Me{Name: m.From.Name, Addresses: []string{who.Email}}
		var got Audience
		within(t, fuzzDeadline, "AudienceOf", func() { got = AudienceOf(m.To, m.Cc, m.Body, me) })
		if got < Unknown || got > Addressed {
			t.Fatalf("AudienceOf = %d, out of range", got)
		}
		if slices.ContainsFunc(m.To, func(x Address) bool { return me.Is(x.Email) }) && got != Addressed {
			t.Fatalf("AudienceOf = %v for %q among the To addressees, want addressed", got, who.Email)
		}
	}
	if got := AudienceOf(m.To, m.Cc, m.Body, Me{Name: m.From.Name}); got != Unknown {
		t.Fatalf("AudienceOf = %v with no address of the lawyer's, want unknown", got)
	}
}

// maxExpansion is how many bytes of UTF-8 one input byte can become: a
// Windows-1252 or half-width katakana byte, or a lone invalid byte replaced
// by U+FFFD, is three.
const maxExpansion = 3

func checkMessage(t *testing.T, m Message, inputLen int) {
	t.Helper()
	if !utf8.ValidString(m.Body) {
		t.Fatalf("body is not valid UTF-8: %q", m.Body)
	}
	if strings.Contains(m.Body, "\r") {
		t.Fatalf("body keeps a CR: %q", m.Body)
	}
	// Decoding never makes more text than the input holds, times the
	// widest charset expansion; the quote prefixes of HTML blockquotes
	// are bounded separately (see FuzzHTMLToText).
	if limit := maxExpansion*min(inputLen, maxBodyBytes) + maxQuotePrefixBytes(m.Body); len(m.Body) > limit {
		t.Fatalf("body of %d bytes from %d bytes of input", len(m.Body), inputLen)
	}
	for _, id := range append([]string{m.MessageID, m.InReplyTo}, m.References...) {
		if id != "" && (!strings.HasPrefix(id, "<") || !strings.HasSuffix(id, ">")) {
			t.Fatalf("message id %q is not in angle brackets", id)
		}
	}
	for _, a := range append([]Address{m.From}, append(m.To, m.Cc...)...) {
		if a.Email != strings.ToLower(a.Email) {
			t.Fatalf("address %q is not in lower case", a.Email)
		}
	}
	for k, v := range m.Headers {
		if !IsBulkHeader(k) || k != strings.ToLower(k) {
			t.Fatalf("kept header %q", k)
		}
		if len(v) > maxHeaderValue {
			t.Fatalf("header %s is %d bytes, over the cap of %d", k, len(v), maxHeaderValue)
		}
	}
}

// maxQuotePrefixBytes is what the "> " prefixes of text hold.
func maxQuotePrefixBytes(text string) int {
	n := 0
	for _, ln := range strings.Split(text, "\n") {
		for strings.HasPrefix(ln, "> ") {
			ln = ln[2:]
			n += 2
		}
	}
	return n
}

// fuzzMarker stands for text a page hides in a script or style element.
const fuzzMarker = "QZXJ"

// FuzzHTMLToText renders arbitrary markup in both layouts. Text in
// <script> and <style> never reaches the index (it is not what the reader
// sees, and it is where a hostile page would hide instructions for the
// model); valid UTF-8 stays valid; the output has no blank space at either
// end, at most one empty line in a row, and is bounded by the input's size:
// each line's quote prefix by the quote depth cap, the rest by the text.
func FuzzHTMLToText(f *testing.F) {
	for _, s := range []string{
		"<p>One</p><p>Two</p>",
		"<div>On Monday Bob wrote:</div><blockquote><div>Can you <i>look</i>?</div><blockquote>older</blockquote></blockquote>",
		"<html><head><style>p{}</style></head><body><p>Hello&nbsp;<b>Dana</b>,</p><ul><li>one</li><li>two</li></ul>" +
			"<blockquote>earlier<br>text</blockquote><script>" + fuzzMarker + "()</script></body></html>",
		"<!--[if mso]>x<![endif]--><head><title>T</title><body>a<br><br>b<div></div>c<p></p>d",
		"<table><tr><td>Rent</td><td>$10</td></tr></table><pre>  keep\n  spacing\u00a0 </pre>after",
		"<script/>" + fuzzMarker + "</script>visible",
		"<style>" + fuzzMarker + "</style><noscript>n</noscript><template>t</template>",
		"<blockquote><blockquote><blockquote><pre>a\nb\nc</pre></blockquote></blockquote></blockquote>",
		"x &amp; y &lt;z&gt; &#0; &#xD800; &nGt; \xff\xfe",
		"<p>broken <b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, l := range []HTMLLayout{{}, {BlankBeforeParagraphs: true, TabCells: true}} {
			var out string
			within(t, fuzzDeadline, "HTMLLayout.Text", func() { out = l.Text(s) })
			checkHTMLText(t, s, out)
		}
	})
}

func checkHTMLText(t *testing.T, in, out string) {
	t.Helper()
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("valid UTF-8 in, invalid out: %q", out)
	}
	if out != strings.TrimSpace(out) {
		t.Fatalf("output not trimmed: %q", out)
	}
	if strings.Contains(out, "\n\n\n") {
		t.Fatalf("two empty lines in a row: %q", out)
	}
	for _, ln := range strings.Split(out, "\n") {
		depth := 0
		for strings.HasPrefix(ln[2*depth:], "> ") {
			depth++
		}
		if depth > maxQuoteDepth {
			t.Fatalf("line quoted %d deep, over the cap of %d: %q", depth, maxQuoteDepth, ln)
		}
	}
	// Each byte of text becomes at most two (an entity like "&nGt;" is
	// six bytes of UTF-8 for five of input), each line break costs a
	// byte of markup at least, and the quote prefixes are capped per line.
	if limit := 2*len(in) + maxQuotePrefixBytes(out); len(out) > limit {
		t.Fatalf("%d bytes of text from %d bytes of HTML", len(out), len(in))
	}
	if strings.Contains(out, fuzzMarker) && !visibleHas(in, fuzzMarker) {
		t.Fatalf("text of a <script> or <style> element reached the output: %q", out)
	}
}

// visibleHas reports whether word can come from HTML text outside script
// and style elements, as the tokenizer reads it: the text of all other
// tokens, entities decoded, run together without blank space (the
// renderer may join words across tags).
func visibleHas(in, word string) bool {
	z := html.NewTokenizer(strings.NewReader(in))
	var b strings.Builder
	hidden := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return strings.Contains(strings.Join(strings.Fields(b.String()), ""), word)
		case html.TextToken:
			if !hidden {
				b.Write(z.Text())
			}
			hidden = false
		case html.StartTagToken, html.SelfClosingTagToken:
			// The tokenizer reads a script or style element's content as
			// one raw text token right after its start tag, whether or not
			// the tag claims to close itself (browsers ignore that "/").
			name, _ := z.TagName()
			hidden = string(name) == "script" || string(name) == "style"
		default:
			hidden = false
		}
	}
}
