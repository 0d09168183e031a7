package commit

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below without depending on the host's zoneinfo
	"unicode/utf8"
)

// fuzzZones have the quirks that trip calendar code: a DST change, a
// half-hour offset, the date line.
func fuzzZones(t testing.TB) []*time.Location {
	var zs []*time.Location
	for _, name := range []string{"America/New_York", "Asia/Kolkata", "Pacific/Kiritimati", "Europe/London"} {
		l, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		zs = append(zs, l)
	}
	return append(zs, time.UTC)
}

// maxFuzzTime bounds one Detect call on anything up to maxFuzzInput: far
// above the microseconds a real utterance takes, so only a blow-up
// (quadratic work on long input) trips it.
const (
	maxFuzzInput = 20000
	maxFuzzTime  = 2 * time.Second
)

// FuzzDetect reads arbitrary transcripts (lines are utterances) at
// arbitrary moments. Whatever was said:
//   - Detect returns promptly and gives the same answer twice;
//   - a commitment has a task that reads as a task, valid UTF-8 when the
//     input was, the words it came from, and the key of its task and time;
//   - a deadline is in the location given and not before the minute now
//     is in; an open commitment has no deadline;
//   - upper-casing the ASCII letters changes nothing but the task's
//     spelling (recognisers capitalise at will).
func FuzzDetect(f *testing.F) {
	for _, path := range []string{publicCases, ownCases} {
		file, err := os.Open(path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			var c Case
			if json.Unmarshal(sc.Bytes(), &c) != nil {
				continue
			}
			now, _ := time.Parse(time.RFC3339, c.Now)
			f.Add(strings.Join(c.Utterances, "\n"), now.Unix(), uint8(len(c.ID)))
		}
		file.Close()
	}
	f.Add("I'll send it at 2:30", time.Date(2026, 3, 8, 1, 59, 0, 0, time.UTC).Unix(), uint8(0))
	f.Add(strings.Repeat("I'll send the redline by Friday and ", 500), int64(1790000000), uint8(1))
	f.Add(strings.Repeat("if ", 3000)+"I'll file it", int64(1790000000), uint8(2))
	f.Fuzz(func(t *testing.T, text string, unix int64, zone uint8) {
		if len(text) > maxFuzzInput {
			t.Skip("longer than the bound this target checks")
		}
		zones := fuzzZones(t)
		loc := zones[int(zone)%len(zones)]
		const from, span = 946684800, 100 * 366 * 24 * 3600 // 2000 to 2100
		now := time.Unix(from+((unix%span)+span)%span, 0).In(loc)
		utterances := strings.Split(text, "\n")

		start := time.Now()
		c, ok := Detect(utterances, now, loc)
		if d := time.Since(start); d > maxFuzzTime {
			t.Fatalf("Detect took %v on %d bytes", d, len(text))
		}
		if c2, ok2 := Detect(utterances, now, loc); ok2 != ok || c2 != c {
			t.Fatalf("two answers: %+v and %+v", c, c2)
		}
		upper := strings.Split(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' {
				return r - 'a' + 'A'
			}
			return r
		}, text), "\n")
		u, uok := Detect(upper, now, loc)
		if uok != ok || u.HasTime != c.HasTime || !u.Deadline.Equal(c.Deadline) || !strings.EqualFold(u.Task, c.Task) {
			t.Fatalf("upper case changed the answer: %+v, %+v", c, u)
		}
		if !ok {
			if c != (Commitment{}) {
				t.Fatalf("no commitment but %+v", c)
			}
			return
		}
		switch {
		case strings.TrimSpace(c.Task) == "", quoted(c.Task):
			t.Fatalf("task %q does not read as a task", c.Task)
		case utf8.ValidString(text) && !utf8.ValidString(c.Task):
			t.Fatalf("task %q is not UTF-8", c.Task)
		case c.Words == "" || !strings.Contains(text, c.Words):
			t.Fatalf("words %q are not from the input", c.Words)
		case c.Key != key(c.Task, c.Deadline, c.HasTime):
			t.Fatalf("key %q is not the task's and time's", c.Key)
		case !c.HasTime && !c.Deadline.IsZero():
			t.Fatalf("open commitment with deadline %v", c.Deadline)
		case c.HasTime && c.Deadline.Location() != loc:
			t.Fatalf("deadline %v not in %v", c.Deadline, loc)
		case c.HasTime && c.Deadline.Before(now.Truncate(time.Minute)):
			t.Fatalf("deadline %v before now %v", c.Deadline, now)
		}
	})
}

// TestLongInputIsCheap: a transcript far longer than any utterance, and a
// window of many utterances, are read in bounded time (only the first
// maxUtterance bytes of an utterance and the last maxRecent utterances
// count).
func TestLongInputIsCheap(t *testing.T) {
	long := strings.Repeat("so I'll send you the revised redline by Friday if they agree and ", 20000)
	many := make([]Utterance, 5000)
	for i := range many {
		many[i] = Utterance{Text: "I'll call the lender back in an hour", End: wed}
	}
	start := time.Now()
	if _, ok := Detect([]string{long}, wed, nil); ok {
		t.Errorf("a conditional promise read as a commitment")
	}
	if got := Hear(Utterance{Text: long, End: wed}, many, nil); len(got) != 0 {
		t.Errorf("Hear offered %v", got)
	}
	if d := time.Since(start); d > maxFuzzTime {
		t.Errorf("took %v", d)
	}
}
