package glance

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail/index"
)

// sndaCase loads the public snda-needs-reply case and its index, or skips
// when the shared cases are not there.
func sndaCase(t *testing.T) (Case, Input, *index.Index) {
	t.Helper()
	dir := filepath.Join(publicCases, "glance", "snda-needs-reply")
	if _, err := os.Stat(filepath.Join(dir, "case.json")); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no case at %s", dir)
	}
	c, in, err := readBenchCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix := benchIndex(t.Context(), t, filepath.Join(t.TempDir(), "snda.db"), c.ID, filepath.Join(dir, "mailbox.mbox"), c.Me.Name, c.Me.Addresses)
	return c, in, ix
}

// TestHugeWindow decides the SNDA case with window titles and screen
// texts far longer than any real one. Each must come to its right
// decision within the code stage's budget; that the work does not grow
// with the input is asserted through the caps (TestCaps), never by the
// clock.
func TestHugeWindow(t *testing.T) {
	c, base, ix := sndaCase(t)
	const listTitle = "Inbox - dana.whitfield@hartleyross.com - Outlook"
	header := "Reply   Reply All   Forward\nRE: SNDA - Brooklyn Gardens\nMH   Marcy Howard <mhoward@greenleafmarkets.com>\nTo   Dana Whitfield\nThu 6/18/2026 9:40 AM\n"
	tests := []struct {
		name, title, screen string
		wantSurface         bool
		wantReason          string
	}{
		{"50 KB title", "RE: " + strings.Repeat("SNDA ", 10_000), "", false, ReasonNoMatch},
		{"200 KB title", "RE: " + strings.Repeat("SNDA ", 40_000), "", false, ReasonNoMatch},
		{"500 KB title", "RE: " + strings.Repeat("SNDA ", 100_000), "", false, ReasonNoMatch},
		{"500 KB title of distinct words", "RE: " + numberedWords("SNDA", 50_000) + " - Message (HTML)", "", false, ReasonNoMatch},
		{"500 KB of reply prefixes", strings.Repeat("RE: ", 125_000) + "SNDA - Brooklyn Gardens - Message (HTML)", "", false, ReasonNoMatch},
		// Whitespace after the subject is cut with the middle of the
		// title, and the subject still matches exactly.
		{"real subject padded to 500 KB", "RE: SNDA - Brooklyn Gardens" + strings.Repeat(" ", 500_000) + " - Message (HTML)", "", true, ReasonNeedsReply},
		// The cut is never a truncation mark: "SNDA" must not match
		// "SNDA - Brooklyn Gardens" as a prefix.
		{"short subject padded to 500 KB", "SNDA" + strings.Repeat(" ", 500_000) + " - dana.whitfield@hartleyross.com - Gmail - Google Chrome", "", false, ReasonNoMatch},
		{"reply prefixes cut mid-prefix", "  " + strings.Repeat("RE: ", 125_000) + "SNDA - Brooklyn Gardens - Message (HTML)", "", false, ReasonNoMatch},
		{"500 KB screen text of one line", listTitle, strings.Repeat("SNDA ", 100_000), false, ReasonNotEmail},
		{"500 KB screen text of lines", listTitle, strings.Repeat("Subject: SNDA\nFrom: SNDA <a@b.co>\nTo: Dana Whitfield\n", 10_000), false, ReasonNoMatch},
		{"header block then 500 KB of screen text", listTitle, header + strings.Repeat("SNDA SNDA SNDA?\n", 32_000), true, ReasonNeedsReply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base
			in.Title, in.ScreenText = tt.title, tt.screen
			// A generous deadline, so that a slow machine cannot fail the
			// test; the code stage's own budget is what is checked.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			d, err := Decide(ctx, ix, in)
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if d.Surface != tt.wantSurface || d.Reason != tt.wantReason {
				t.Errorf("got surface=%v reason=%s (stage %s), want surface=%v reason=%s", d.Surface, d.Reason, d.Stage, tt.wantSurface, tt.wantReason)
			}
			if tt.wantSurface && d.MessageID != c.Expect.MessageID {
				t.Errorf("got message %s, want %s", d.MessageID, c.Expect.MessageID)
			}
		})
	}
}

// numberedWords is n distinct words "<w>1 <w>2 …".
func numberedWords(w string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
	}
	return b.String()
}

// TestCaps checks the bounds that keep the code stage's work independent
// of the input's length: the subject matched, the title parsed and the
// screen text read.
func TestCaps(t *testing.T) {
	huge := "RE: " + strings.Repeat("SNDA ", 100_000)
	tests := []struct {
		name     string
		in       Input
		wantMail bool
	}{
		{"outlook title", Input{App: "Microsoft Outlook", Title: huge + " - Message (HTML)"}, true},
		{"thunderbird title", Input{App: "Thunderbird", Title: huge + " - Mozilla Thunderbird"}, true},
		{"gmail title", Input{App: "Google Chrome", Title: huge + " - dana@example.com - Gmail - Google Chrome"}, true},
		// Within the screen text's cap, so that the sender under it is read.
		{"screen subject", Input{App: "Microsoft Outlook", Title: "Inbox - dana@example.com - Outlook",
			ScreenText: "Reply   Forward\nRE: " + strings.Repeat("SNDA ", 4_000) + "\nMH   Marcy Howard <mhoward@example.com>\nTo   Dana Whitfield\n"}, true},
		{"no mail", Input{App: "Microsoft Word", Title: huge + " - Word"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand, ok := triage(tt.in)
			if ok != tt.wantMail {
				t.Fatalf("triage found mail = %v, want %v", ok, tt.wantMail)
			}
			if n := utf8.RuneCountInString(cand.Subject); n > index.MaxSubjectRunes {
				t.Errorf("subject matched has %d runes, want at most %d", n, index.MaxSubjectRunes)
			}
			if strings.HasSuffix(cand.Subject, "…") || strings.HasSuffix(cand.Subject, "...") {
				t.Errorf("cut subject ends in an ellipsis, which would match as a prefix: …%q", cand.Subject[max(0, len(cand.Subject)-20):])
			}
		})
	}
	if got, want := utf8.RuneCountInString(capTitle(huge+" - Message (HTML)")), titleHeadRunes+1+titleTailRunes; got != want {
		t.Errorf("capTitle kept %d runes, want %d", got, want)
	}
	if got := capTitle("RE: SNDA - Brooklyn Gardens - Message (HTML)"); got != "RE: SNDA - Brooklyn Gardens - Message (HTML)" {
		t.Errorf("capTitle changed a real title: %q", got)
	}
	if got, want := utf8.RuneCountInString(headRunes(strings.Repeat("é", 2*maxScreenRunes), maxScreenRunes)), maxScreenRunes; got != want {
		t.Errorf("headRunes kept %d runes, want %d", got, want)
	}
}

func TestCapSubject(t *testing.T) {
	long := strings.Repeat("ü", index.MaxSubjectRunes)
	tests := []struct {
		name, in, want string
	}{
		{"short", "RE: SNDA - Brooklyn Gardens", "RE: SNDA - Brooklyn Gardens"},
		{"at the cap", long, long},
		{"one over", long + "x", long},
		{"far over", long + strings.Repeat("x", 500_000), long},
		{"truncated, under the cap", "RE: Purchase Agreement – Seller's Du…", "RE: Purchase Agreement – Seller's Du…"},
		{"cut ending in an ellipsis", strings.Repeat("a", index.MaxSubjectRunes-3) + "...more", strings.Repeat("a", index.MaxSubjectRunes-3)},
		{"cut ending in an ellipsis character", strings.Repeat("a", index.MaxSubjectRunes-1) + "…more", strings.Repeat("a", index.MaxSubjectRunes-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := index.CapSubject(tt.in); got != tt.want {
				t.Errorf("CapSubject = %d runes %q…, want %d runes", utf8.RuneCountInString(got), got[:min(len(got), 12)], utf8.RuneCountInString(tt.want))
			}
		})
	}
}

// TestCodeBudget checks what the code stage does when its budget runs
// out (silence that says so, no error) and when the caller gives up (an
// error). An expired budget stands in for a slow stage, so no test waits.
func TestCodeBudget(t *testing.T) {
	c, base, ix := sndaCase(t)
	tests := []struct {
		name         string
		budget       time.Duration
		cancelCaller bool
		wantReason   string
		wantErr      bool
	}{
		{"within budget", CodeBudget, false, ReasonNeedsReply, false},
		{"budget spent", 0, false, ReasonOverBudget, false},
		{"caller cancelled", CodeBudget, true, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancelCaller {
				cancel()
			}
			d, err := decide(ctx, ix, base, tt.budget)
			if (err != nil) != tt.wantErr {
				t.Fatalf("decide error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if d.Surface {
					t.Errorf("got a nudge with an error: %+v", d)
				}
				return
			}
			if d.Reason != tt.wantReason {
				t.Errorf("got reason %s (stage %s), want %s", d.Reason, d.Stage, tt.wantReason)
			}
			if tt.wantReason == ReasonNeedsReply && d.MessageID != c.Expect.MessageID {
				t.Errorf("got message %s, want %s", d.MessageID, c.Expect.MessageID)
			}
			if tt.wantReason == ReasonOverBudget && d.Surface {
				t.Errorf("over budget but surfaced: %+v", d)
			}
		})
	}
}

// TestFindAskLongBody runs the ask finder over bodies whose old handling
// was quadratic: one paragraph hard-wrapped into many lines, and one
// sentence full of abbreviations.
func TestFindAskLongBody(t *testing.T) {
	tests := []struct {
		name, body string
		wantNeeds  bool
	}{
		{"wrapped paragraph with a question at the end", strings.Repeat("the tenant will deliver the estoppel\n", 5_000) + "can you confirm the date?", true},
		{"wrapped paragraph without an ask", strings.Repeat("the tenant will deliver the estoppel\n", 5_000) + "thanks.", false},
		{"abbreviations", strings.Repeat("See No. A and Sec. B of Exh. C ", 5_000) + "for the record.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, needs, err := findAsk(t.Context(), tt.body, "Dana Whitfield", nil)
			if err != nil || needs != tt.wantNeeds {
				t.Errorf("findAsk = %v, %v, want %v", needs, err, tt.wantNeeds)
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := findAsk(ctx, "Can you confirm?", "Dana Whitfield", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("findAsk with a cancelled context: err = %v, want context.Canceled", err)
	}
}

func TestLogicalLines(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"wrapped", "Can you look at\nthe draft\nby Friday?\nThanks,\nMarcy", []string{"Can you look at the draft by Friday?"}},
		{"list items", "Two points:\n- the cap\n- the basket", []string{"Two points:", "- the cap", "- the basket"}},
		{"salutation", "Hi Dana,\nplease call", []string{"Hi Dana,", "please call"}},
		{"blank line ends a paragraph", "first part\n\nsecond part", []string{"first part", "second part"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := logicalLines(tt.body)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
