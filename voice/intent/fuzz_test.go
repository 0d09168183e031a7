package intent

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // the zones below without depending on the host's zoneinfo
	"unicode/utf8"
)

// FuzzParseWith reads arbitrary transcripts (whisper's output, or text a
// local client posts to /say) at arbitrary moments in zones chosen for
// their quirks: half-hour offsets, a 30-minute DST shift, the date line.
//
// What must hold whatever was said:
//   - the Kind is one of the known ones, and each Kind carries only its
//     own fields (a None or a privacy command never has a task or a time);
//   - a Remind or Task has a task, valid UTF-8 when the input was;
//   - a due time is in now's zone and not before the minute now is in,
//     and a "weekday" reminder falls on Monday to Friday;
//   - a Snooze is for a positive number of minutes;
//   - upper-casing the ASCII letters changes nothing but the task's
//     spelling (recognisers capitalise at will);
//   - with the wake phrase required, the answer is None or the same as
//     without it;
//   - it returns promptly.
func FuzzParseWith(f *testing.F) {
	for _, c := range fuzzIntentSeeds(f) {
		f.Add(c.text, c.now.Unix(), uint8(0), false)
		f.Add(c.text, c.now.Unix(), uint8(3), true)
	}
	f.Add("remind me at 2:30 to call the clerk", time.Date(2026, 3, 8, 1, 59, 0, 0, fuzzZones()[0]).Unix(), uint8(0), false)
	f.Add("remind me at 1:30 to call the clerk", time.Date(2026, 11, 1, 1, 45, 0, 0, fuzzZones()[0]).Unix(), uint8(0), false)
	f.Add("remind me every weekday at 8:30 to check the docket", time.Date(2026, 6, 12, 18, 0, 0, 0, time.UTC).Unix(), uint8(4), false)
	f.Add("hey spirit, remind me in an hour and a half to file it", time.Date(2026, 4, 5, 1, 50, 0, 0, time.UTC).Unix(), uint8(2), true)
	f.Fuzz(func(t *testing.T, text string, unix int64, zone uint8, requireWake bool) {
		if len(text) > 4000 {
			// /say takes 2000 characters; whisper far fewer.
			t.Skip("longer than any transcript")
		}
		zones := fuzzZones()
		loc := zones[int(zone)%len(zones)]
		// Any second between 2000 and 2100: where the calendar code has
		// leap years, DST changes and month ends to trip over.
		const from, span = 946684800, 100 * 366 * 24 * 3600
		now := time.Unix(from+((unix%span)+span)%span, 0).In(loc)
		opts := ParseOptions{RequireWake: requireWake}

		in := fuzzParse(t, text, now, opts)
		checkIntent(t, text, now, in)

		upper := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r - 'a' + 'A'
			}
			return r
		}, text)
		up := fuzzParse(t, upper, now, opts)
		if !sameIntent(in, up, false) {
			t.Fatalf("upper case changes the intent:\n%q: %s\n%q: %s", text, fuzzDescribe(in), upper, fuzzDescribe(up))
		}

		if requireWake && in.Kind != None {
			if free := fuzzParse(t, text, now, ParseOptions{}); !sameIntent(in, free, true) {
				t.Fatalf("%q: %s with the wake phrase required, %s without", text, fuzzDescribe(in), fuzzDescribe(free))
			}
		}
	})
}

func fuzzParse(t *testing.T, text string, now time.Time, opts ParseOptions) Intent {
	t.Helper()
	var in Intent
	done := make(chan struct{})
	go func() {
		defer close(done)
		in = ParseWith(text, now, opts)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("ParseWith(%q) did not return within 5s", text)
	}
	return in
}

func checkIntent(t *testing.T, text string, now time.Time, in Intent) {
	t.Helper()
	fail := func(why string) {
		t.Fatalf("ParseWith(%q) at %s = %s: %s", text, now.Format(time.RFC3339), fuzzDescribe(in), why)
	}
	switch in.Kind {
	case None, Cancel, ListReminders, PauseListening, PauseWatching, Resume:
		if in.Task != "" || in.Due != nil || in.Every != "" || in.Minutes != 0 {
			fail("a command without arguments has arguments")
		}
	case Snooze:
		if in.Minutes <= 0 {
			fail("snooze for no time")
		}
		if in.Task != "" || in.Due != nil || in.Every != "" {
			fail("a snooze has reminder fields")
		}
	case Task:
		if in.Task == "" {
			fail("a task without words")
		}
		if in.Due != nil || in.Every != "" || in.Minutes != 0 {
			fail("a task has reminder fields")
		}
	case Remind:
		if in.Task == "" {
			fail("a reminder without a task")
		}
		if in.Minutes != 0 {
			fail("a reminder has snooze minutes")
		}
		switch in.Every {
		case "", "day", "weekday", "week":
		default:
			fail("unknown recurrence")
		}
		if in.Every != "" && in.Due == nil {
			fail("a recurring reminder without a first time")
		}
		if in.Due != nil {
			due := *in.Due
			if due.Location().String() != now.Location().String() {
				fail("due in zone " + due.Location().String())
			}
			// Relative times count from the start of the current minute,
			// as the README says; nothing may be due before that.
			if due.Before(now.Truncate(time.Minute)) {
				fail("due in the past")
			}
			if in.Every == "weekday" && (due.Weekday() == time.Saturday || due.Weekday() == time.Sunday) {
				fail("a weekday reminder first due on a weekend")
			}
		}
	default:
		fail("unknown kind")
	}
	if utf8.ValidString(text) && !utf8.ValidString(in.Task) {
		fail("task is not valid UTF-8")
	}
}

// sameIntent compares two parses; the task's spelling counts only if
// exact.
func sameIntent(a, b Intent, exact bool) bool {
	if a.Kind != b.Kind || a.Every != b.Every || a.Minutes != b.Minutes || (a.Due == nil) != (b.Due == nil) {
		return false
	}
	if a.Due != nil && !a.Due.Equal(*b.Due) {
		return false
	}
	if (a.When == nil) != (b.When == nil) || a.When != nil && (a.When.Kind != b.When.Kind ||
		!strings.EqualFold(a.When.Person+"|"+a.When.Subject+"|"+a.When.Name, b.When.Person+"|"+b.When.Subject+"|"+b.When.Name)) {
		return false
	}
	if exact {
		return a.Task == b.Task
	}
	return strings.EqualFold(a.Task, b.Task)
}

// fuzzZones are loaded once: every input picks one.
var fuzzZones = sync.OnceValue(func() []*time.Location {
	var out []*time.Location
	for _, name := range []string{"America/New_York", "UTC", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham", "Pacific/Apia", "Europe/London"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			panic(err) // time/tzdata is linked in
		}
		out = append(out, loc)
	}
	return out
})

type fuzzIntentSeed struct {
	text string
	now  time.Time
}

// fuzzIntentSeeds are the labelled transcripts of testdata: what people
// say to Spirit, with the moments they said it.
func fuzzIntentSeeds(f *testing.F) []fuzzIntentSeed {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	var out []fuzzIntentSeed
	for _, p := range paths {
		file, err := os.Open(p)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var c struct {
				Now        string   `json:"now"`
				Text       string   `json:"text"`
				Utterances []string `json:"utterances"`
			}
			if json.Unmarshal(sc.Bytes(), &c) != nil {
				continue
			}
			now, err := time.Parse(time.RFC3339, c.Now)
			if err != nil {
				continue
			}
			for _, s := range append(c.Utterances, c.Text) {
				if s != "" {
					out = append(out, fuzzIntentSeed{s, now})
				}
			}
		}
		file.Close()
	}
	return out
}

// fuzzDescribe renders an intent for failure messages, due with its
// offset so a lost zone shows.
func fuzzDescribe(in Intent) string {
	b, _ := json.Marshal(in)
	if in.Due != nil {
		return string(b) + " (due " + in.Due.Format(time.RFC3339) + " " + in.Due.Location().String() + ")"
	}
	return string(b)
}
