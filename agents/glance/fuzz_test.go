package glance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Fuzz targets for what the glance reads off the screen: window titles,
// which any program (and any web page, through a browser) chooses, and
// OCR text. Both decide whether Spirit speaks up, so besides not failing
// they must not invent: a subject or sender comes from the input's words.

// fuzzMaxTitle bounds fuzzed titles. Titles are short; the matcher the
// subject goes to is not linear in a title's length, and a long title
// would stall the short fuzz run in `make test` on that, not on parsing.
const fuzzMaxTitle = 4 << 10

type fuzzCase struct {
	App        string `json:"app"`
	Title      string `json:"title"`
	ScreenText string `json:"screen_text"`
}

// fuzzCases are the glance test cases and the hour of window switches in
// testdata: real titles of mail clients, browsers, Word and Acrobat.
func fuzzCases(f *testing.F) []fuzzCase {
	var out []fuzzCase
	paths, _ := filepath.Glob(filepath.Join("testdata", "glance", "*", "case.json"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var c fuzzCase
		if err := json.Unmarshal(b, &c); err != nil {
			f.Fatalf("%s: %v", p, err)
		}
		out = append(out, c)
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "trace", "hour.jsonl")); err == nil {
		seen := map[string]bool{}
		for _, ln := range strings.Split(string(b), "\n") {
			var c fuzzCase
			if json.Unmarshal([]byte(ln), &c) == nil && !seen[c.App+"\x00"+c.Title] {
				seen[c.App+"\x00"+c.Title] = true
				out = append(out, c)
			}
		}
	}
	return out
}

func fuzzWithin(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s did not return within 5s", what)
	}
}

// fromInput reports whether every word of out occurs in in: a parser
// may cut, trim and rejoin, and mark a cut with "…", but never invent.
func fromInput(out, in string) bool {
	for _, w := range strings.Fields(out) {
		for _, part := range strings.Split(w, "…") {
			if part != "" && !strings.Contains(in, part) {
				return false
			}
		}
	}
	return true
}

// FuzzParseTitle reads arbitrary window titles under arbitrary app names.
// The client is a known one or none; no client means no list and no
// subject, and a list view has no subject; a subject is trimmed and made
// of the title's words; and an Outlook message window,
// "<subject> - Message (HTML)", gives back its subject whatever it is.
func FuzzParseTitle(f *testing.F) {
	for _, c := range fuzzCases(f) {
		f.Add(c.App, c.Title)
	}
	for _, s := range [][2]string{
		{"Google-chrome", "RE: SNDA - Brooklyn Gardens - dana@hartleyross.com - Gmail - Google Chrome"},
		{"firefox", "Inbox (3) - dana@x.com - Calloway Finch Mail — Mozilla Firefox"},
		{"thunderbird", "Inbox - dana@x.com - Mozilla Thunderbird"},
		{"OUTLOOK.EXE", "Re: Closing – Elm Court - Message (Plain Text)"},
		{"Mail", "Inbox – 12 messages, 3 unread"},
		{"Microsoft Edge", "Mail - Dana Whitfield - Outlook - Work - Microsoft\u200b Edge"},
		{"", " \t "},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, app, title string) {
		if len(title) > fuzzMaxTitle || len(app) > fuzzMaxTitle {
			t.Skip("longer than any title")
		}
		var ti TitleInfo
		fuzzWithin(t, "ParseTitle", func() { ti = ParseTitle(app, title) })
		checkTitleInfo(t, app, title, ti)

		// The Outlook message window form, around a subject made of the
		// fuzzed title: it names the client whatever the app is called.
		subject := strings.Join(strings.Fields(title), " ")
		if subject == "" || strings.Contains(strings.ToLower(subject), "message") || utf8.RuneCountInString(subject) > 400 {
			return
		}
		win := subject + " - Message (HTML)"
		if notMessageKind("outlook", subject) != "" {
			// "Untitled", an item window's name: not a message to read.
			return
		}
		if browserSuffixRe.MatchString(win) || thunderbirdSuffixRe.MatchString(win) {
			// A browser's or Thunderbird's name after a dash wins over
			// the Outlook form, even under Outlook's app name (a subject
			// "Update - Google Chrome" reads as a browser page): the
			// order of ParseTitle's rules, not a parsing slip.
			return
		}
		for _, a := range []string{"Microsoft Outlook", "OUTLOOK.EXE", ""} {
			var got TitleInfo
			fuzzWithin(t, "ParseTitle", func() { got = ParseTitle(a, win) })
			checkTitleInfo(t, a, win, got)
			if got.Client != "outlook" || got.List || got.Subject != subject {
				t.Fatalf("ParseTitle(%q, %q) = %+v, want Outlook's subject %q", a, win, got, subject)
			}
		}
	})
}

func checkTitleInfo(t *testing.T, app, title string, ti TitleInfo) {
	t.Helper()
	switch ti.Client {
	case "":
		if ti.List || ti.Subject != "" {
			t.Fatalf("ParseTitle(%q, %q) = %+v: no client, yet a list or subject", app, title, ti)
		}
	case "outlook", "outlook-web", "thunderbird", "gmail", "webmail", "apple-mail":
	default:
		t.Fatalf("ParseTitle(%q, %q) = %+v: unknown client", app, title, ti)
	}
	if ti.List && ti.Subject != "" {
		t.Fatalf("ParseTitle(%q, %q) = %+v: a list view with a subject", app, title, ti)
	}
	if ti.NotMessage != "" && (ti.List || ti.Subject != "") {
		t.Fatalf("ParseTitle(%q, %q) = %+v: a window that shows no message, yet a list or subject", app, title, ti)
	}
	if ti.Subject != strings.TrimSpace(ti.Subject) {
		t.Fatalf("ParseTitle(%q, %q): subject %q not trimmed", app, title, ti.Subject)
	}
	if !fromInput(ti.Subject, title) {
		t.Fatalf("ParseTitle(%q, %q): subject %q has words the title lacks", app, title, ti.Subject)
	}
	if utf8.ValidString(title) && !utf8.ValidString(ti.Subject) {
		t.Fatalf("ParseTitle(%q, %q): subject %q is not valid UTF-8", app, title, ti.Subject)
	}
}

// FuzzParseScreen reads arbitrary OCR text. A subject is one trimmed line
// of the text; the sender's name and address come from the text (the
// address lower-cased, with OCR's "corn" for "com" and "|" for "l"
// repaired), an address has an "@" and no blank; and an email is only
// ever recognised with a sender.
func FuzzParseScreen(f *testing.F) {
	for _, c := range fuzzCases(f) {
		if c.ScreenText != "" {
			f.Add(c.ScreenText)
		}
	}
	f.Add("Subject: Re: Closing\nFrom: Liam Gray <lgray@grayhold.corn>\nTo: Owen\nReply  Reply all  Forward")
	f.Add("LG   Liam Gray < lgray @grayhold.c0m >\n     Mon 6/15/2026 12:00 PM")
	f.Add("From: \"Ellison, Grant\": GRANT@ELLISON|MARSH.0rg.\nDate: today")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 256<<10 {
			t.Skip("more text than a screen holds")
		}
		var si ScreenInfo
		fuzzWithin(t, "ParseScreen", func() { si = ParseScreen(text) })
		fail := func(why string) { t.Fatalf("ParseScreen(%q) = %+v: %s", text, si, why) }
		if si.Email && si.SenderEmail == "" && si.SenderName == "" {
			fail("an email without a sender")
		}
		// Lines are what "\n" ends; a stray CR is a character like any.
		if si.Subject != strings.TrimSpace(si.Subject) || strings.Contains(si.Subject, "\n") {
			fail("subject not one trimmed line")
		}
		if si.Subject != "" && !strings.Contains(text, si.Subject) {
			fail("subject not in the text")
		}
		// A From line's name is what is left of it without the address,
		// so letters on both sides of an address may meet ("x@y.com2024").
		if si.SenderName != strings.TrimSpace(si.SenderName) || strings.Contains(si.SenderName, "\n") ||
			!fromInput(si.SenderName, text) && !fromInput(si.SenderName, bareAddrRe.ReplaceAllString(text, "")) {
			fail("sender name not a trimmed piece of one line")
		}
		if e := si.SenderEmail; e != "" {
			if !strings.Contains(e, "@") || strings.ContainsAny(e, " \t\r\n") {
				fail("sender address without @ or with a blank")
			}
			// Repairs only ever lower-case, drop blanks and turn "|"
			// into "l" and a top-level domain into its right spelling.
			repaired := strings.NewReplacer(" ", "", "|", "l").Replace(strings.ToLower(text))
			local, _, _ := strings.Cut(e, "@")
			if !strings.Contains(repaired, local+"@") {
				fail("sender address not from the text")
			}
		}
	})
}
