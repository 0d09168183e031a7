package intent

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// publicCases is shared/cases/intents.jsonl seen from this package's folder.
var publicCases = filepath.Join("..", "..", "..", "shared", "cases", "intents.jsonl")

// ownCases are cases written for this package, none of them in publicCases.
const ownCases = "testdata/own_intents.jsonl"

// familyCases are cases of the grammar's blind spots (issue 11): a time said
// before the command, an action named with another verb, and a wake phrase
// or polite framing around the command, each with ambient speech that must
// stay none.
const familyCases = "testdata/families.jsonl"

// heldoutCases were written for the same three families before the
// grammar was generalised for them, without looking at the grammar or at
// familyCases, to measure how the rules carry over to unseen wording; the
// ids start with the family's name.
const heldoutCases = "testdata/heldout.jsonl"

// triggerCases are reminders tied to a thread, an app or a person (issue
// 15 §4), with near misses that must stay timed, untimed or none; the ids
// start with the trigger's kind, or "near" for the near misses.
const triggerCases = "testdata/triggers.jsonl"

// speechCases are speech as it really comes (issue 29): self-repairs
// inside one utterance, a wake phrase after small talk, clock times as
// recognisers write them in other locales, other words for the short
// commands, and words that look like a command but were not said to
// Spirit (questions, quoted or denied commands, requests turned to a
// colleague). The ids start with the class's name; written before the
// rules for them.
const speechCases = "testdata/speech.jsonl"

// ambientCases is shared/cases/ambient.jsonl: speech the lawyer says to
// other people, which the command grammar must leave alone.
var ambientCases = filepath.Join("..", "..", "..", "shared", "cases", "ambient.jsonl")

func evalFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("no cases file at %s (the shared cases folder is not checked out here)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	passed, failed, err := Eval(f, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d passed, %d failed", path, passed, failed)
	if failed != 0 || passed == 0 {
		t.Errorf("Eval(%s):\n%s", path, out.String())
	}
}

func TestPublicCases(t *testing.T) { evalFile(t, publicCases) }

func TestOwnCases(t *testing.T) { evalFile(t, ownCases) }

func TestFamilyCases(t *testing.T) { evalFile(t, familyCases) }

func TestHeldoutCases(t *testing.T) { evalFile(t, heldoutCases) }

func TestTriggerCases(t *testing.T) { evalFile(t, triggerCases) }

func TestSpeechCases(t *testing.T) { evalFile(t, speechCases) }

// proposedPublicCases are the lines issue 15 §4 asks to add to the
// public intents file, which this repository cannot change; kept green
// here until they are there, then this file goes.
const proposedPublicCases = "testdata/proposed_public.jsonl"

func TestProposedPublicCases(t *testing.T) { evalFile(t, proposedPublicCases) }

// TestTriggerCasesCoverEachKind: each kind of trigger has cases of varied
// wording, and near misses that must not become triggers; every case
// whose id names a kind expects that kind.
func TestTriggerCasesCoverEachKind(t *testing.T) {
	count := map[string]int{}
	for _, c := range readCases(t, triggerCases) {
		kind, _, _ := strings.Cut(c.ID, "-")
		count[kind]++
		switch {
		case kind == "near" && c.Expect.When != nil:
			t.Errorf("%s: a near miss expects a trigger", c.ID)
		case kind != "near" && (c.Expect.When == nil || string(c.Expect.When.Kind) != kind):
			t.Errorf("%s: id names %s, expect.when is %+v", c.ID, kind, c.Expect.When)
		}
	}
	for _, kind := range []string{string(OnThread), string(OnApp), string(OnPerson)} {
		if count[kind] < 8 {
			t.Errorf("kind %s: %d cases, want at least 8", kind, count[kind])
		}
	}
	if count["near"] < 10 {
		t.Errorf("%d near misses, want at least 10", count["near"])
	}
}

// TestAmbientSpeechIsNoCommand: what the microphone overhears in a call or
// a meeting stays silent. The only commands among it are the ones the
// README names as addressed to Spirit ("remind me to…", or words after the
// wake phrase), which the ambient path leaves to the grammar (action none).
func TestAmbientSpeechIsNoCommand(t *testing.T) {
	f, err := os.Open(ambientCases)
	if os.IsNotExist(err) {
		t.Skipf("no ambient cases at %s", ambientCases)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c struct {
			ID         string   `json:"id"`
			Now        string   `json:"now"`
			Utterances []string `json:"utterances"`
			Expect     struct {
				Action string `json:"action"`
			} `json:"expect"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", ambientCases, err)
		}
		now, err := time.Parse(time.RFC3339, c.Now)
		if err != nil {
			t.Fatalf("%s: now: %v", c.ID, err)
		}
		for _, u := range c.Utterances {
			n++
			in := Parse(u, now)
			if in.Kind == None {
				continue
			}
			addressed := WakeLed(u, ParseOptions{}) || prefixLen(remindTrigger, tokenize(u)) > 0
			if c.Expect.Action != "none" || !addressed {
				t.Errorf("%s: %q read as %s; ambient speech must stay none", c.ID, u, describe(in))
			}
		}
	}
	if n == 0 {
		t.Errorf("%s: no utterances", ambientCases)
	}
}

// TestOwnCasesKeepOffset is stricter than the README's comparison (instants):
// the due time must also carry now's UTC offset, as the app shows it.
func TestOwnCasesKeepOffset(t *testing.T) {
	for _, c := range readCases(t, ownCases) {
		var want *string
		if c.Expect.Due == nil || json.Unmarshal(c.Expect.Due, &want) != nil || want == nil {
			continue
		}
		got, _, err := c.Check()
		if err != nil || got.Due == nil {
			t.Errorf("%s: %v, due %v", c.ID, err, got.Due)
			continue
		}
		w, err := time.Parse(time.RFC3339, *want)
		if err != nil {
			t.Fatal(err)
		}
		_, wantOff := w.Zone()
		_, gotOff := got.Due.Zone()
		if !w.Equal(*got.Due) || gotOff != wantOff {
			t.Errorf("%s: due %s, want %s", c.ID, got.Due.Format(time.RFC3339), *want)
		}
	}
}

// TestOwnCasesAreNew keeps the files apart: a case copied from the public
// file would prove nothing about unseen speech.
func TestOwnCasesAreNew(t *testing.T) {
	if _, err := os.Stat(publicCases); err != nil {
		t.Skipf("no public cases: %v", err)
	}
	seen := map[string]string{}
	for _, c := range readCases(t, publicCases) {
		seen[normTask(c.Text)] = publicCases
	}
	own := readCases(t, ownCases)
	if len(own) < 40 {
		t.Errorf("%d own cases, want at least 40", len(own))
	}
	for _, path := range []string{ownCases, familyCases, heldoutCases, triggerCases, speechCases} {
		for _, c := range readCases(t, path) {
			if where, ok := seen[normTask(c.Text)]; ok {
				t.Errorf("%s: %s repeats a case of %s: %q", path, c.ID, where, c.Text)
			}
			seen[normTask(c.Text)] = path
		}
	}
}

// TestFamilyCasesCoverEachFamily: each blind spot has its own cases, with
// ambient speech among them that must stay none.
func TestFamilyCasesCoverEachFamily(t *testing.T) {
	count := map[string]int{}
	none := map[string]int{}
	for _, c := range readCases(t, familyCases) {
		family, _, _ := strings.Cut(c.ID, "-")
		count[family]++
		if c.Expect.Intent == None {
			none[family]++
		}
	}
	for _, family := range []string{"time", "synonym", "polite"} {
		if count[family] < 15 || none[family] < 5 {
			t.Errorf("family %s: %d cases, %d of them none; want at least 15 and 5", family, count[family], none[family])
		}
	}
}

// TestHeldoutCasesCoverEachFamily: the held-out set has about thirty cases
// per family, with ambient speech among them that must stay none.
func TestHeldoutCasesCoverEachFamily(t *testing.T) {
	count := map[string]int{}
	none := map[string]int{}
	for _, c := range readCases(t, heldoutCases) {
		family, _, _ := strings.Cut(c.ID, "-")
		count[family]++
		if c.Expect.Intent == None {
			none[family]++
		}
	}
	for _, family := range []string{"time", "synonym", "polite"} {
		if count[family] < 30 || none[family] < 8 {
			t.Errorf("family %s: %d cases, %d of them none; want at least 30 and 8", family, count[family], none[family])
		}
	}
}

func readCases(t *testing.T, path string) []Case {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cs []Case
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		cs = append(cs, c)
	}
	return cs
}

func TestEvalReport(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"ok","now":"2026-01-14T09:40:00-05:00","text":"remind me to file the motion at 5","expect":{"intent":"remind","task":"File the motion.","due":"2026-01-14T22:00:00Z"}}`,
		`{"id":"null-due","now":"2026-01-14T09:40:00-05:00","text":"remind me to file the motion","expect":{"intent":"remind","due":null}}`,
		``,
		`{"id":"unchecked-fields","now":"2026-01-14T09:40:00-05:00","text":"snooze","expect":{"intent":"snooze"}}`,
		`{"id":"wrong","now":"2026-01-14T09:40:00-05:00","text":"remind me to call Ann at 5","expect":{"intent":"remind","task":"call Bob","due":null}}`,
		`{"id":"bad-now","now":"yesterday","text":"snooze","expect":{"intent":"snooze"}}`,
		`not json`,
	}, "\n")
	var out strings.Builder
	passed, failed, err := Eval(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if passed != 3 || failed != 3 {
		t.Errorf("passed %d, failed %d; want 3, 3\n%s", passed, failed, out.String())
	}
	report := out.String()
	for _, want := range []string{
		`FAIL wrong: "remind me to call Ann at 5"`,
		`task: want "call Bob", got "call Ann"`,
		`due: want null, got 2026-01-14T17:00:00-05:00`,
		`FAIL bad-now:`,
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if !regexp.MustCompile(`(?m)^3 passed, 3 failed\n\z`).MatchString(report) {
		t.Errorf("report does not end with the summary line:\n%s", report)
	}
}

func TestWhenDiffs(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		name string
		want ExpectWhen
		got  *Trigger
		n    int
	}{
		{"no trigger", ExpectWhen{Kind: OnApp}, nil, 1},
		{"same, case and punctuation aside", ExpectWhen{Kind: OnThread, Person: str("marcy howard")}, &Trigger{Kind: OnThread, Person: "Marcy Howard."}, 0},
		{"unlisted fields unchecked", ExpectWhen{Kind: OnPerson}, &Trigger{Kind: OnPerson, Person: "Grant"}, 0},
		{"other kind", ExpectWhen{Kind: OnPerson, Person: str("Grant")}, &Trigger{Kind: OnThread, Person: "Grant"}, 1},
		{"other name and subject", ExpectWhen{Kind: OnThread, Subject: str("SNDA"), Name: str("x")}, &Trigger{Kind: OnThread, Subject: "lease"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := whenDiffs(c.want, c.got); len(got) != c.n {
				t.Errorf("whenDiffs = %q, want %d differences", got, c.n)
			}
		})
	}
}
