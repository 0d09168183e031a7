package intent

import (
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // America/New_York without depending on the host's zoneinfo
)

func TestParsePrivacyControls(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC)
	for text, want := range map[string]Kind{
		"pause listening":                     PauseListening,
		"Hey Spirit, stop listening please.":  PauseListening,
		"stop watching":                       PauseWatching,
		"okay resume":                         Resume,
		"never mind":                          Cancel,
		"what are my reminders?":              ListReminders,
		"I keep telling him to stop watching": None,
		"the court will resume at two":        None,
		"":                                    None,
	} {
		if got := Parse(text, now).Kind; got != want {
			t.Errorf("Parse(%q) = %s, want %s", text, got, want)
		}
	}
}

// at parses an RFC 3339 time for the tables below.
func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// describe renders an intent for comparison and failure messages; due is
// shown with its offset, so a lost offset fails too.
func describe(in Intent) string {
	s := string(in.Kind)
	if in.Task != "" {
		s += fmt.Sprintf(" task=%q", in.Task)
	}
	if in.Due != nil {
		s += " due=" + in.Due.Format(time.RFC3339)
	}
	if in.Every != "" {
		s += " every=" + in.Every
	}
	if in.Minutes != 0 {
		s += fmt.Sprintf(" minutes=%d", in.Minutes)
	}
	return s
}

// TestGrammarDecisions pins the choices the README leaves open, and the
// guards that keep task words from being read as times.
func TestGrammarDecisions(t *testing.T) {
	for _, c := range []struct{ name, now, text, want string }{
		// Times the README does not settle.
		{"end of day after 17:00 is tomorrow's", "2026-02-17T18:30:00+00:00",
			"remind me to send the redline by end of day", `remind task="send the redline" due=2026-02-18T17:00:00Z`},
		{"today after 09:00 is 17:00", "2026-02-17T11:00:00+00:00",
			"remind me to call Ines today", `remind task="call Ines" due=2026-02-17T17:00:00Z`},
		{"today before 09:00 is 09:00", "2026-02-17T07:00:00+00:00",
			"remind me to call Ines today", `remind task="call Ines" due=2026-02-17T09:00:00Z`},
		{"this friday on a friday is today", "2026-06-12T08:00:00-04:00",
			"remind me this friday to send the invoices", `remind task="send the invoices" due=2026-06-12T09:00:00-04:00`},
		{"next week is next monday 09:00", "2026-06-10T08:00:00-04:00",
			"remind me next week to call the landlord", `remind task="call the landlord" due=2026-06-15T09:00:00-04:00`},
		{"every monday said on a monday morning starts today", "2026-06-08T07:00:00-04:00",
			"remind me every monday at 10 to send the status report", `remind task="send the status report" due=2026-06-08T10:00:00-04:00 every=week`},
		{"every weekday from friday evening is monday", "2026-06-12T18:00:00-04:00",
			"remind me every weekday at 8:30 to check the docket", `remind task="check the docket" due=2026-06-15T08:30:00-04:00 every=weekday`},
		{"tonight at 11", "2026-06-12T18:00:00-04:00",
			"remind me tonight at 11 to file the reply", `remind task="file the reply" due=2026-06-12T23:00:00-04:00`},
		{"a date with a past year has no due", "2026-06-12T18:00:00-04:00",
			"remind me on March 3rd 2020 to file", `remind task="file"`},
		{"the day after tomorrow", "2026-06-12T18:00:00-04:00",
			"remind me the day after tomorrow to call the bank", `remind task="call the bank" due=2026-06-14T09:00:00-04:00`},
		{"24-hour clock", "2026-06-12T08:00:00-04:00",
			"remind me at 15:30 to call the bank", `remind task="call the bank" due=2026-06-12T15:30:00-04:00`},
		{"in the afternoon makes 4 pm", "2026-06-12T08:00:00-04:00",
			"remind me at 4 in the afternoon to call the bank", `remind task="call the bank" due=2026-06-12T16:00:00-04:00`},
		{"in the morning makes 11 am", "2026-06-12T13:00:00-04:00",
			"remind me at 11 in the morning to call the bank", `remind task="call the bank" due=2026-06-13T11:00:00-04:00`},
		{"in a month", "2026-01-20T10:00:00+01:00",
			"remind me in a month to review the retainer", `remind task="review the retainer" due=2026-02-20T09:00:00+01:00`},
		{"end of the week is friday 17:00", "2026-06-10T08:00:00-04:00",
			"remind me to send the summary by the end of the week", `remind task="send the summary" due=2026-06-12T17:00:00-04:00`},

		// Task words that look like times stay in the task.
		{"a bare number is no time", "2026-06-12T08:00:00-04:00",
			"remind me to call 3 clients", `remind task="call 3 clients"`},
		{"at before a noun is no time", "2026-06-12T08:00:00-04:00",
			"remind me to look at 2 cases at 4", `remind task="look at 2 cases" due=2026-06-12T16:00:00-04:00`},
		{"a weekday after the is a noun", "2026-06-12T08:00:00-04:00",
			"remind me to review the Friday deadline", `remind task="review the Friday deadline"`},
		{"for a time belongs to the task", "2026-06-12T08:00:00-04:00",
			"remind me to book a table for 7pm", `remind task="book a table for 7pm"`},
		{"an ordinal noun is no date", "2026-06-12T08:00:00-04:00",
			"remind me to file the 3rd amended complaint", `remind task="file the 3rd amended complaint"`},
		{"a clause keeps its time", "2026-06-12T08:00:00-04:00",
			"remind me that the hearing is on monday", `remind task="the hearing is on monday" due=2026-06-15T09:00:00-04:00`},
		{"glued 3pm reads back as spoken", "2026-06-12T08:00:00-04:00",
			"remind me to confirm the 3pm call with Ada", `remind task="confirm the 3pm call with Ada"`},
		{"an object pronoun before the time", "2026-06-12T08:00:00-04:00",
			"remind me to call her tomorrow", `remind task="call her" due=2026-06-13T09:00:00-04:00`},
		{"monday the 15th", "2026-06-12T08:00:00-04:00",
			"remind me on Monday the 15th at 2:30 to call the bank", `remind task="call the bank" due=2026-06-15T14:30:00-04:00`},
		{"weekday mornings recur", "2026-06-12T08:00:00-04:00",
			"remind me weekday mornings to check the docket", `remind task="check the docket" due=2026-06-12T09:00:00-04:00 every=weekday`},
		{"vague later is dropped", "2026-06-12T08:00:00-04:00",
			"remind me later to call Marcy", `remind task="call Marcy"`},

		// Reminders with no task push back the nudge on screen.
		{"remind me later", "2026-06-12T08:00:00-04:00", "remind me later", `snooze minutes=10`},
		{"remind me again in 5", "2026-06-12T08:00:00-04:00", "remind me again in 5", `snooze minutes=5`},
		{"remind me in 20 minutes", "2026-06-12T08:00:10-04:00", "remind me in 20 minutes", `snooze minutes=20`},
		{"snooze until a time", "2026-06-12T14:20:40-04:00", "snooze until 3", `snooze minutes=40`},
		{"snooze bare number", "2026-06-12T14:20:40-04:00", "snooze 5", `snooze minutes=5`},
		{"push it back", "2026-06-12T14:20:40-04:00", "push it back by an hour", `snooze minutes=60`},
		{"remind me alone asks nothing", "2026-06-12T08:00:00-04:00", "remind me", `none`},

		// Requests and questions.
		{"remind me what is a question to Spirit", "2026-06-12T08:00:00-04:00",
			"spirit, remind me what the retainer was", `task task="remind me what the retainer was"`},
		{"remind me what overheard is asked of a person", "2026-06-12T08:00:00-04:00",
			"remind me what the retainer was", `none`},
		{"cancel with an object is work", "2026-06-12T08:00:00-04:00",
			"cancel my 3 o'clock with Marcy", `task task="cancel my 3 o'clock with Marcy"`},
		{"calendar question", "2026-06-12T08:00:00-04:00",
			"what's on my calendar tomorrow", `task task="what's on my calendar tomorrow"`},
		{"polite prefix and thanks", "2026-06-12T08:00:00-04:00",
			"Spirit, can you please redline the Hale NDA? Thanks.", `task task="redline the Hale NDA"`},
		{"draft a thank you keeps its words", "2026-06-12T08:00:00-04:00",
			"draft a thank you", `task task="draft a thank you"`},

		// Ambient speech.
		{"statement with a task verb noun", "2026-06-12T08:00:00-04:00", "the draft is ready for review", `none`},
		{"noun verb", "2026-06-12T08:00:00-04:00", "email came in from Tom", `none`},
		{"said to a colleague", "2026-06-12T08:00:00-04:00", "tell him I'll call back at 3", `none`},
		{"third person remind", "2026-06-12T08:00:00-04:00", "she'll remind me to call", `none`},
		{"remind someone else", "2026-06-12T08:00:00-04:00", "remind the client about the retainer", `none`},
		{"cancel in a sentence", "2026-06-12T08:00:00-04:00", "we should cancel the deposition", `none`},
		{"resume in a sentence", "2026-06-12T08:00:00-04:00", "let's resume after lunch", `none`},
		{"a question about reminders of others", "2026-06-12T08:00:00-04:00", "what reminders did the client get", `none`},
		{"wake phrase alone", "2026-06-12T08:00:00-04:00", "hey spirit", `none`},
		{"punctuation only", "2026-06-12T08:00:00-04:00", "... ?!", `none`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := describe(Parse(c.text, at(t, c.now))); got != c.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", c.text, got, c.want)
			}
		})
	}
}

// TestLocations: times are resolved in now's location and keep it. With a
// fixed offset (what the cases give) a date across a DST change keeps the
// offset of now; with a real zone it gets that day's offset.
func TestLocations(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	fixed := time.FixedZone("", -5*3600)
	for _, c := range []struct {
		name string
		now  time.Time
		text string
		want string
	}{
		{"fixed offset across spring forward", time.Date(2026, 3, 7, 10, 0, 0, 0, fixed),
			"remind me on monday at 9 to call Ruth", "2026-03-09T09:00:00-05:00"},
		{"real zone across spring forward", time.Date(2026, 3, 7, 10, 0, 0, 0, ny),
			"remind me on monday at 9 to call Ruth", "2026-03-09T09:00:00-04:00"},
		{"real zone, hours across the gap", time.Date(2026, 3, 8, 1, 30, 0, 0, ny),
			"remind me in 2 hours to call Ruth", "2026-03-08T04:30:00-04:00"},
		{"fixed offset across fall back", time.Date(2026, 10, 31, 12, 0, 0, 0, time.FixedZone("", -4*3600)),
			"remind me tomorrow afternoon to call Ruth", "2026-11-01T14:00:00-04:00"},
		{"real zone across fall back", time.Date(2026, 10, 31, 12, 0, 0, 0, ny),
			"remind me tomorrow afternoon to call Ruth", "2026-11-01T14:00:00-05:00"},
		{"half-hour offset", time.Date(2026, 5, 1, 21, 10, 0, 0, time.FixedZone("", 9*3600+1800)),
			"remind me at 8 to call Adelaide", "2026-05-02T08:00:00+09:30"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Parse(c.text, c.now)
			if got.Due == nil {
				t.Fatalf("Parse(%q) = %s, want due %s", c.text, describe(got), c.want)
			}
			if s := got.Due.Format(time.RFC3339); s != c.want {
				t.Errorf("due %s, want %s", s, c.want)
			}
			if got.Due.Location() != c.now.Location() {
				t.Errorf("due in %v, want now's location %v", got.Due.Location(), c.now.Location())
			}
		})
	}
}

func TestParseWithWake(t *testing.T) {
	now := time.Date(2026, 6, 12, 10, 0, 0, 0, time.UTC)
	strict := ParseOptions{RequireWake: true}
	custom := ParseOptions{RequireWake: true, WakePhrase: "OK, Counsel"}
	for _, c := range []struct {
		text string
		opts ParseOptions
		want Kind
	}{
		{"stop listening", strict, None},
		{"hey spirit stop listening", strict, PauseListening},
		{"Hey, Spirit. Stop listening.", strict, PauseListening},
		{"um, hey spirit, stop listening", strict, PauseListening},
		{"so hey spirit stop listening", strict, None}, // words before the wake phrase: not addressed
		{"ok spirit stop listening", strict, None},     // another phrase than the one configured
		{"I told him hey spirit stop listening", strict, None},
		{"hey spirit", strict, None},
		{"ok counsel snooze", custom, Snooze},
		{"hey spirit snooze", custom, None},
		{"ok counsel snooze", ParseOptions{WakePhrase: "ok counsel"}, Snooze},
		{"snooze", ParseOptions{}, Snooze},
	} {
		if got := ParseWith(c.text, now, c.opts).Kind; got != c.want {
			t.Errorf("ParseWith(%q, %+v) = %s, want %s", c.text, c.opts, got, c.want)
		}
	}
}

func TestNumbersAndDurations(t *testing.T) {
	for _, c := range []struct {
		text    string
		minutes int
	}{
		{"15 minutes", 15}, {"fifteen minutes", 15}, {"twenty-five minutes", 25},
		{"twenty five mins", 25}, {"an hour", 60}, {"half an hour", 30},
		{"a half hour", 30}, {"an hour and a half", 90}, {"1.5 hours", 90},
		{"two and a half hours", 150}, {"1 hour 30 minutes", 90},
		{"an hour and 15 minutes", 75}, {"a quarter of an hour", 15},
		{"a couple of hours", 120}, {"another five minutes", 5}, {"five more minutes", 5},
		{"2 days", 2 * 24 * 60},
	} {
		d, n := matchDuration(tokenize(c.text), 0)
		if n != len(tokenize(c.text)) || d.totalMinutes() != c.minutes {
			t.Errorf("matchDuration(%q) = %d minutes using %d tokens, want %d using all", c.text, d.totalMinutes(), n, c.minutes)
		}
	}
	for _, text := range []string{"minutes", "a bit", "half", "0 minutes", "two clients"} {
		if _, n := matchDuration(tokenize(text), 0); n != 0 {
			t.Errorf("matchDuration(%q) read %d tokens, want none", text, n)
		}
	}
}

func TestTokenize(t *testing.T) {
	got := tokenize("Hey Spirit — call Dr. Reyes at 3:30p.m., O’Brien’s file @ noon…")
	var ws, raws []string
	for _, tk := range got {
		ws = append(ws, tk.word)
		raws = append(raws, tk.raw)
	}
	if w := strings.Join(ws, "|"); w != "hey|spirit|call|dr|reyes|at|3:30|pm|o'brien's|file|at|noon" {
		t.Errorf("words %s", w)
	}
	if r := readBack(got[2:5]); r != "call Dr. Reyes" {
		t.Errorf("readBack = %q", r)
	}
	if r := readBack(got[5:8]); r != "at 3:30p.m" {
		t.Errorf("readBack = %q (raws %q)", r, raws)
	}
}

// FuzzParse: no transcript makes Parse panic, and what it returns is
// always well formed.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"remind me to call Marcy Howard tomorrow at 3pm", "snooze for 20 minutes",
		"remind me every weekday at 9 to check the docket", "set a reminder for 11:15 to call Dr. Reyes",
		"remind me on the 31st of February", "remind me at 99:99pm", "remind me in 9999 weeks",
		"remind me on 2/29/2100", "at at at at", "every every every", "in in in an an hour",
		"remind me at half past", "remind me at quarter to", "the the 1st of", "12/", "1/2/",
		"remind me twenty-", "hey spirit", "\x00\xff", "remind me at 0:00", "remind me at 12 am",
		"snooze until midnight", "remind me that", "remind me on next this coming friday",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 2, 28, 23, 59, 59, 0, time.FixedZone("", -7*3600))
	f.Fuzz(func(t *testing.T, text string) {
		in := Parse(text, now)
		switch in.Kind {
		case Remind, Cancel, Snooze, ListReminders, PauseListening, PauseWatching, Resume, Task, None:
		default:
			t.Fatalf("Parse(%q) kind %q", text, in.Kind)
		}
		if in.Due != nil && (in.Kind != Remind || !in.Due.After(now) || in.Due.Location() != now.Location()) {
			t.Fatalf("Parse(%q) = %s: due must be a reminder's, after now, in now's location", text, describe(in))
		}
		if (in.Kind == Snooze) != (in.Minutes > 0) {
			t.Fatalf("Parse(%q) = %s: minutes belong to snooze", text, describe(in))
		}
		if in.Every != "" && in.Due == nil {
			t.Fatalf("Parse(%q) = %s: a recurring reminder needs its first time", text, describe(in))
		}
		if (in.Kind == Remind || in.Kind == Task) && in.Task == "" {
			t.Fatalf("Parse(%q) = %s: empty task", text, describe(in))
		}
	})
}

// TestRandomGrammarWords strings together the grammar's own words at random,
// which reaches far more of the time grammar than FuzzParse's bytes do, and
// checks the same invariants.
func TestRandomGrammarWords(t *testing.T) {
	vocab := strings.Fields(`remind me to that set a reminder for snooze it until in at by on the
		next this every each day weekday week monday friday tomorrow tonight today morning afternoon
		evening night noon midnight end of eod half past quarter an hour hours minutes 1 2 3 5 7 12 13
		24 30 45 59 60 99 3:30 11:15 25:00 pm am p.m. o'clock oh five twenty-five thirty first 3rd 15th
		31st march february 2/29 12/31/2027 2027 and a couple few more later again call Marcy send
		draft cancel never mind stop listening watching resume what are my reminders from now days
		weeks months daily weekly mondays weekdays first thing sharp around`)
	now := time.Date(2026, 12, 31, 23, 59, 30, 0, time.FixedZone("", 13*3600))
	seed := uint64(1)
	next := func(n int) int { // xorshift: reproducible without package state
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	for range 20000 {
		ws := make([]string, 1+next(9))
		for i := range ws {
			ws[i] = vocab[next(len(vocab))]
		}
		text := strings.Join(ws, " ")
		in := Parse(text, now)
		if in.Due != nil && (in.Kind != Remind || !in.Due.After(now) || in.Due.Location() != now.Location()) {
			t.Fatalf("Parse(%q) = %s: due must be a reminder's, after now, in now's location", text, describe(in))
		}
		if (in.Kind == Snooze) != (in.Minutes > 0) || (in.Every != "" && in.Due == nil) {
			t.Fatalf("Parse(%q) = %s: malformed", text, describe(in))
		}
		if (in.Kind == Remind || in.Kind == Task) && in.Task == "" {
			t.Fatalf("Parse(%q) = %s: empty task", text, describe(in))
		}
	}
}

// A snooze that says no length is marked, so that a caller can use the
// lawyer's own length; one that says a length is not.
func TestSnoozeNoLength(t *testing.T) {
	now := time.Date(2026, 6, 12, 14, 20, 40, 0, time.Local)
	for _, tc := range []struct {
		text     string
		noLength bool
		minutes  int
	}{
		{"snooze", true, 10},
		{"snooze that", true, 10},
		{"remind me later", true, 10},
		{"remind me about it later", true, 10},
		{"snooze for 10 minutes", false, 10},
		{"snooze 5", false, 5},
		{"snooze until 3", false, 40},
		{"give me five more minutes", false, 5},
	} {
		t.Run(tc.text, func(t *testing.T) {
			in := Parse(tc.text, now)
			if in.Kind != Snooze || in.NoLength != tc.noLength || in.Minutes != tc.minutes {
				t.Errorf("Parse(%q) = %+v, want a snooze of %d minutes, NoLength %v", tc.text, in, tc.minutes, tc.noLength)
			}
		})
	}
}
