package commit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// Case is one labelled stretch of speech from a cases file (format:
// shared/cases/README.md, section ambient.jsonl).
type Case struct {
	ID         string   `json:"id"`
	Now        string   `json:"now"`
	Utterances []string `json:"utterances"`
	Expect     Expect   `json:"expect"`
}

// Expect is what a case wants.
type Expect struct {
	Action    string   `json:"action"` // "remind" or "none"
	TaskWords []string `json:"task_words,omitempty"`
	Deadline  string   `json:"deadline,omitempty"`
}

// Result is what the detector made of a case: the JSON line `spirit eval
// ambient --json` prints for it. An open commitment is action "none": it
// offers nothing.
type Result struct {
	ID       string  `json:"id"`
	Action   string  `json:"action"`
	Task     string  `json:"task"`
	Deadline *string `json:"deadline"`
}

// Actions a case may expect.
const (
	ActionRemind = "remind"
	ActionNone   = "none"
)

// Check runs Detect on the case and returns what it gave and how that
// differs from the expectation (nil when it passes). err reports a
// malformed case.
func (c Case) Check() (got Result, diffs []string, err error) {
	got = Result{ID: c.ID, Action: ActionNone}
	now, err := time.Parse(time.RFC3339, c.Now)
	switch {
	case c.ID == "":
		return got, nil, errors.New("no id")
	case err != nil:
		return got, nil, fmt.Errorf("now: %w", err)
	case len(c.Utterances) == 0:
		return got, nil, errors.New("no utterances")
	case c.Expect.Action != ActionRemind && c.Expect.Action != ActionNone:
		return got, nil, fmt.Errorf("expect.action %q is neither remind nor none", c.Expect.Action)
	}
	var want time.Time
	if c.Expect.Action == ActionRemind {
		if want, err = time.Parse(time.RFC3339, c.Expect.Deadline); err != nil {
			return got, nil, fmt.Errorf("expect.deadline: %w", err)
		}
		if len(c.Expect.TaskWords) == 0 {
			return got, nil, errors.New("expect.task_words is empty")
		}
	}
	if cm, ok := Detect(c.Utterances, now, nil); ok && cm.HasTime {
		d := cm.Deadline.Format(time.RFC3339)
		got.Action, got.Task, got.Deadline = ActionRemind, cm.Task, &d
	}
	if got.Action != c.Expect.Action {
		diffs = append(diffs, fmt.Sprintf("action: want %s, got %s", c.Expect.Action, got.Action))
		return got, diffs, nil
	}
	if got.Action == ActionNone {
		return got, nil, nil
	}
	have := wholeWords(got.Task)
	for _, w := range c.Expect.TaskWords {
		if !have[strings.ToLower(w)] {
			diffs = append(diffs, fmt.Sprintf("task: %q lacks the word %q", got.Task, w))
		}
	}
	if quoted(got.Task) {
		diffs = append(diffs, fmt.Sprintf("task: %q reads as a quote, not as a task", got.Task))
	}
	if gotTime, _ := time.Parse(time.RFC3339, *got.Deadline); !gotTime.Equal(want) {
		diffs = append(diffs, fmt.Sprintf("deadline: want %s, got %s", c.Expect.Deadline, *got.Deadline))
	}
	return got, diffs, nil
}

// wordPattern is the README validator's idea of a whole word.
var wordPattern = regexp.MustCompile(`[\p{L}\p{N}_'’-]+`)

func wholeWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range wordPattern.FindAllString(strings.ToLower(s), -1) {
		m[w] = true
		m[strings.Trim(w, "'’-")] = true
	}
	return m
}

// quoted reports whether a task starts as the lawyer said it ("I'll send
// …") instead of as something to do.
func quoted(task string) bool {
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(task)), " ")
	switch strings.ReplaceAll(first, "’", "'") {
	case "i", "i'll", "i'm", "we", "we'll", "we're", "you'll", "let", "let's", "okay", "ok", "so":
		return true
	}
	return false
}

// Eval reads cases, one JSON object a line, runs Detect on each and writes
// one line per case to w: with jsonOut the Result as JSON, else "ok" or
// "FAIL" with the case's id and, for a failure, how it differs. The last
// line is "N passed, N failed". A malformed case counts as failed; err is
// for reading or writing trouble only.
func Eval(r io.Reader, w io.Writer, jsonOut bool) (passed, failed int, err error) {
	out := &stickyWriter{w: w}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var c Case
		var got Result
		var diffs []string
		if err := json.Unmarshal([]byte(text), &c); err != nil {
			diffs = []string{fmt.Sprintf("line %d: bad case: %v", line, err)}
		} else if g, d, err := c.Check(); err != nil {
			got, diffs = g, []string{fmt.Sprintf("line %d: bad case: %v", line, err)}
		} else {
			got, diffs = g, d
		}
		if got.ID == "" {
			got.ID = fmt.Sprintf("line-%d", line)
		}
		if len(diffs) == 0 {
			passed++
		} else {
			failed++
		}
		if jsonOut {
			b, err := json.Marshal(got)
			if err != nil {
				return passed, failed, fmt.Errorf("eval ambient cases: %w", err)
			}
			out.printf("%s\n", b)
			continue
		}
		summary := ActionNone
		if got.Action == ActionRemind {
			summary = fmt.Sprintf("remind %q by %s", got.Task, *got.Deadline)
		}
		if len(diffs) == 0 {
			out.printf("ok   %s: %s\n", got.ID, summary)
			continue
		}
		out.printf("FAIL %s: %s\n", got.ID, summary)
		for _, d := range diffs {
			out.printf("    %s\n", d)
		}
	}
	if err := sc.Err(); err != nil {
		return passed, failed, fmt.Errorf("read cases: %w", err)
	}
	out.printf("%d passed, %d failed\n", passed, failed)
	return passed, failed, out.err
}

// stickyWriter keeps the first write error so Eval can report it once.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}
