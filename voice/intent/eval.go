package intent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
)

// Case is one labelled transcript from a cases file (format:
// shared/cases/README.md, section intents.jsonl).
type Case struct {
	ID     string `json:"id"`
	Now    string `json:"now"`
	Text   string `json:"text"`
	Expect Expect `json:"expect"`
}

// Expect is what a case wants. Fields the case does not list are nil and
// not checked, as the README says.
type Expect struct {
	Intent  Kind            `json:"intent"`
	Task    *string         `json:"task,omitempty"`
	Due     json.RawMessage `json:"due,omitempty"` // nil: not listed; "null": no time given
	Every   *string         `json:"every,omitempty"`
	Minutes *int            `json:"minutes,omitempty"`
	// When is a reminder's trigger instead of a time: kind "thread" (with
	// person and/or subject), "app" (with name) or "person" (with person).
	When *ExpectWhen `json:"when,omitempty"`
}

// ExpectWhen is a trigger a case wants; fields it does not list are not
// checked, and words are compared as tasks are.
type ExpectWhen struct {
	Kind    TriggerKind `json:"kind"`
	Person  *string     `json:"person,omitempty"`
	Subject *string     `json:"subject,omitempty"`
	Name    *string     `json:"name,omitempty"`
}

// Check runs Parse on the case and returns what it gave and how it differs
// from the expectation (nil when it passes). err reports a malformed case.
func (c Case) Check() (got Intent, diffs []string, err error) {
	now, err := time.Parse(time.RFC3339, c.Now)
	if err != nil {
		return Intent{}, nil, fmt.Errorf("now: %w", err)
	}
	got = Parse(c.Text, now)
	e := c.Expect
	if got.Kind != e.Intent {
		diffs = append(diffs, fmt.Sprintf("intent: want %s, got %s", e.Intent, got.Kind))
	}
	if e.Task != nil && normTask(*e.Task) != normTask(got.Task) {
		diffs = append(diffs, fmt.Sprintf("task: want %q, got %q", *e.Task, got.Task))
	}
	if e.Due != nil {
		d, err := dueDiff(e.Due, got.Due)
		if err != nil {
			return got, nil, err
		}
		if d != "" {
			diffs = append(diffs, d)
		}
	}
	if e.Every != nil && *e.Every != got.Every {
		diffs = append(diffs, fmt.Sprintf("every: want %q, got %q", *e.Every, got.Every))
	}
	if e.Minutes != nil && *e.Minutes != got.Minutes {
		diffs = append(diffs, fmt.Sprintf("minutes: want %d, got %d", *e.Minutes, got.Minutes))
	}
	if e.When != nil {
		diffs = append(diffs, whenDiffs(*e.When, got.When)...)
	}
	return got, diffs, nil
}

// whenDiffs compares a wanted trigger with the one Parse gave.
func whenDiffs(want ExpectWhen, got *Trigger) []string {
	if got == nil {
		return []string{fmt.Sprintf("when: want %s, got none", want.Kind)}
	}
	var diffs []string
	if want.Kind != got.Kind {
		diffs = append(diffs, fmt.Sprintf("when.kind: want %s, got %s", want.Kind, got.Kind))
	}
	for _, f := range []struct {
		name string
		want *string
		got  string
	}{{"person", want.Person, got.Person}, {"subject", want.Subject, got.Subject}, {"name", want.Name, got.Name}} {
		if f.want != nil && normTask(*f.want) != normTask(f.got) {
			diffs = append(diffs, fmt.Sprintf("when.%s: want %q, got %q", f.name, *f.want, f.got))
		}
	}
	return diffs
}

// normTask is the README's task comparison: case-insensitive, surrounding
// punctuation and whitespace trimmed.
func normTask(s string) string {
	return strings.ToLower(strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r)
	}))
}

// dueDiff compares due times as instants; null wants no time at all.
func dueDiff(raw json.RawMessage, got *time.Time) (string, error) {
	var want *string
	if err := json.Unmarshal(raw, &want); err != nil {
		return "", fmt.Errorf("expect.due: %w", err)
	}
	switch {
	case want == nil && got == nil:
		return "", nil
	case want == nil:
		return fmt.Sprintf("due: want null, got %s", got.Format(time.RFC3339)), nil
	}
	w, err := time.Parse(time.RFC3339, *want)
	if err != nil {
		return "", fmt.Errorf("expect.due: %w", err)
	}
	switch {
	case got == nil:
		return fmt.Sprintf("due: want %s, got null", *want), nil
	case !w.Equal(*got):
		return fmt.Sprintf("due: want %s, got %s", *want, got.Format(time.RFC3339)), nil
	}
	return "", nil
}

// Eval reads cases, one JSON object a line, runs Parse on each and writes
// each failure (id, text, want against got) to w, then the line
// "N passed, N failed". A malformed case counts as failed; err is for
// reading or writing trouble only.
func Eval(r io.Reader, w io.Writer) (passed, failed int, err error) {
	out := &stickyWriter{w: w}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var c Case
		var diffs []string
		if err := json.Unmarshal([]byte(text), &c); err != nil {
			diffs = []string{fmt.Sprintf("line %d: bad case: %v", line, err)}
		} else if _, d, err := c.Check(); err != nil {
			diffs = []string{fmt.Sprintf("line %d: bad case: %v", line, err)}
		} else {
			diffs = d
		}
		if len(diffs) == 0 {
			passed++
			continue
		}
		failed++
		out.printf("FAIL %s: %q\n", c.ID, c.Text)
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
