package commit

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// publicCases is shared/cases/ambient.jsonl seen from this package's folder.
var publicCases = filepath.Join("..", "..", "..", "shared", "cases", "ambient.jsonl")

// ownCases were written for this package, none of them in publicCases.
const ownCases = "testdata/ambient.jsonl"

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
	passed, failed, err := Eval(f, &out, false)
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

// speechCases are commitments as calls really carry them (issue 29): a
// promise whose object and day come in later utterances, a day corrected
// after it was said, and promises that are not the lawyer's to keep (a
// condition said first, a radio or podcast host, an email read aloud).
// The ids start with the class's name; written before the rules for them.
const speechCases = "testdata/speech.jsonl"

func TestSpeechCases(t *testing.T) { evalFile(t, speechCases) }

// TestEvalReport: one line per case (ok or FAIL with what differs), the
// summary last; malformed cases fail without stopping the run.
func TestEvalReport(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"ok","now":"2026-01-14T09:40:00-05:00","utterances":["I'll file the motion at 5"],"expect":{"action":"remind","task_words":["File","motion"],"deadline":"2026-01-14T22:00:00Z"}}`,
		`{"id":"none-ok","now":"2026-01-14T09:40:00-05:00","utterances":["she'll file the motion at 5"],"expect":{"action":"none"}}`,
		``,
		`{"id":"wrong-words","now":"2026-01-14T09:40:00-05:00","utterances":["I'll call Ann at 5"],"expect":{"action":"remind","task_words":["call","Bob"],"deadline":"2026-01-14T18:00:00-05:00"}}`,
		`{"id":"missed","now":"2026-01-14T09:40:00-05:00","utterances":["I sent it"],"expect":{"action":"remind","task_words":["sent"],"deadline":"2026-01-15T09:00:00-05:00"}}`,
		`{"id":"bad-now","now":"yesterday","utterances":["I'll file it"],"expect":{"action":"none"}}`,
		`{"id":"bad-action","now":"2026-01-14T09:40:00-05:00","utterances":["I'll file it"],"expect":{"action":"maybe"}}`,
		`not json`,
	}, "\n")
	var out strings.Builder
	passed, failed, err := Eval(strings.NewReader(in), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	report := out.String()
	if passed != 2 || failed != 5 {
		t.Errorf("passed %d, failed %d; want 2, 5\n%s", passed, failed, report)
	}
	for _, want := range []string{
		"ok   ok: remind \"file the motion\" by 2026-01-14T17:00:00-05:00\n",
		"ok   none-ok: none\n",
		"FAIL wrong-words: remind \"call Ann\" by 2026-01-14T17:00:00-05:00\n",
		`task: "call Ann" lacks the word "Bob"`,
		"deadline: want 2026-01-14T18:00:00-05:00, got 2026-01-14T17:00:00-05:00",
		"FAIL missed: none\n    action: want remind, got none\n",
		"FAIL bad-now: none\n    line 6: bad case: now:",
		"FAIL bad-action:",
		"FAIL line-8: none\n    line 8: bad case:",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if !strings.HasSuffix(report, "\n2 passed, 5 failed\n") || strings.Count(report, "\n    ") < 5 {
		t.Errorf("report does not end with the summary line:\n%s", report)
	}
}

// TestEvalJSON: with jsonOut, one object per case with exactly the
// README's fields, then the summary.
func TestEvalJSON(t *testing.T) {
	in := `{"id":"a","now":"2026-01-14T09:40:00-05:00","utterances":["I'll file the motion at 5"],"expect":{"action":"remind","task_words":["motion"],"deadline":"2026-01-14T17:00:00-05:00"}}
{"id":"b","now":"2026-01-14T09:40:00-05:00","utterances":["I'll look into it"],"expect":{"action":"remind","task_words":["look"],"deadline":"2026-01-14T17:00:00-05:00"}}
`
	var out strings.Builder
	passed, failed, err := Eval(strings.NewReader(in), &out, true)
	if err != nil || passed != 1 || failed != 1 {
		t.Fatalf("passed %d failed %d err %v", passed, failed, err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"id":"a","action":"remind","task":"file the motion","deadline":"2026-01-14T17:00:00-05:00"}`,
		`{"id":"b","action":"none","task":"","deadline":null}`,
		`1 passed, 1 failed`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// TestOwnCasesAreSound keeps ownCases honest: new (no utterance of a
// public case), enough of them, both actions well represented, and
// consistent the way the README's validator checks (task words are words
// of the utterances, deadlines later than now and in now's offset).
func TestOwnCasesAreSound(t *testing.T) {
	public := map[string]bool{}
	if f, err := os.Open(publicCases); err == nil {
		for _, c := range readCases(t, f) {
			for _, u := range c.Utterances {
				public[strings.ToLower(u)] = true
			}
		}
		f.Close()
	}
	f, err := os.Open(ownCases)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	own := readCases(t, f)
	count := map[string]int{}
	ids := map[string]bool{}
	for _, c := range own {
		count[c.Expect.Action]++
		if ids[c.ID] {
			t.Errorf("%s: duplicate id", c.ID)
		}
		ids[c.ID] = true
		for _, u := range c.Utterances {
			if public[strings.ToLower(u)] {
				t.Errorf("%s: %q is a public case's utterance", c.ID, u)
			}
		}
		if c.Expect.Action != ActionRemind {
			continue
		}
		words := wholeWords(strings.Join(c.Utterances, " "))
		for _, w := range c.Expect.TaskWords {
			if !words[strings.ToLower(w)] {
				t.Errorf("%s: task word %q is not in the utterances", c.ID, w)
			}
		}
		now, err1 := time.Parse(time.RFC3339, c.Now)
		dl, err2 := time.Parse(time.RFC3339, c.Expect.Deadline)
		_, nowOff := now.Zone()
		_, dlOff := dl.Zone()
		if err1 != nil || err2 != nil || !dl.After(now) || nowOff != dlOff {
			t.Errorf("%s: deadline %s against now %s", c.ID, c.Expect.Deadline, c.Now)
		}
	}
	if len(own) < 40 || count[ActionRemind] < 20 || count[ActionNone] < 20 {
		t.Errorf("%d own cases (%d remind, %d none); want at least 40, 20 of each", len(own), count[ActionRemind], count[ActionNone])
	}
}

func readCases(t *testing.T, r io.Reader) []Case {
	t.Helper()
	var cs []Case
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}
