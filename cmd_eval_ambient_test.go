package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// publicAmbientCases is shared/cases/ambient.jsonl seen from the repository root.
var publicAmbientCases = filepath.Join("..", "shared", "cases", "ambient.jsonl")

// TestEvalAmbient runs `spirit eval ambient` as the lawyer (or CI) types
// it: every case of a file passing, the JSON form, a failing case, and
// the usage errors.
func TestEvalAmbient(t *testing.T) {
	own := filepath.Join("voice", "commit", "testdata", "ambient.jsonl")
	files := []string{own}
	if _, err := os.Stat(publicAmbientCases); err == nil {
		files = append(files, publicAmbientCases)
	}
	for _, file := range files {
		code, out, errOut := spirit("eval", "ambient", file)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		last := lines[len(lines)-1]
		if code != 0 || !strings.HasSuffix(last, " passed, 0 failed") || errOut != "" {
			t.Errorf("%s: exit %d, last line %q, stderr %q\n%s", file, code, last, errOut, out)
		}
		cases := countLines(t, file)
		if len(lines) != cases+1 || !strings.HasPrefix(last, strconv.Itoa(cases)+" passed") {
			t.Errorf("%s: %d lines for %d cases, summary %q", file, len(lines), cases, last)
		}
	}

	code, out, _ := spirit("eval", "ambient", "--json", own)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != countLines(t, own)+1 {
		t.Fatalf("--json: exit %d, %d lines", code, len(lines))
	}
	reminds := 0
	for _, l := range lines[:len(lines)-1] {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("--json line %q: %v", l, err)
		}
		if len(r) != 4 || r["id"] == nil || r["action"] == nil {
			t.Errorf("--json line %q: want exactly id, action, task, deadline", l)
		}
		if r["action"] == "remind" {
			reminds++
			if r["task"] == "" || r["deadline"] == nil {
				t.Errorf("--json line %q: a reminder without task or deadline", l)
			}
		}
	}
	if reminds == 0 {
		t.Errorf("--json: no reminders among\n%s", out)
	}

	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	wrong := `{"id":"wrong-deadline","now":"2026-06-16T11:05:00-04:00","utterances":["I'll send you the estoppel by Thursday"],"expect":{"action":"remind","task_words":["estoppel"],"deadline":"2026-06-19T09:00:00-04:00"}}` + "\n"
	if err := os.WriteFile(bad, []byte(wrong), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = spirit("eval", "ambient", bad)
	if code != 1 || !strings.Contains(out, "FAIL wrong-deadline") || !strings.Contains(out, "deadline: want 2026-06-19T09:00:00-04:00, got 2026-06-18T09:00:00-04:00") ||
		!strings.HasSuffix(out, "0 passed, 1 failed\n") {
		t.Errorf("failing case: exit %d\n%s", code, out)
	}

	for _, args := range [][]string{{"eval", "ambient"}, {"eval", "ambient", own, own}} {
		if code, _, errOut := spirit(args...); code != 2 || !strings.Contains(errOut, "usage") && !strings.Contains(errOut, "unexpected argument") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
	if code, _, errOut := spirit("eval"); code != 2 || !strings.Contains(errOut, "spirit eval ambient FILE [--json]") {
		t.Errorf("eval: exit %d, usage %q does not name eval ambient", code, errOut)
	}
	if code, _, errOut := spirit("eval", "ambient", filepath.Join(t.TempDir(), "missing.jsonl")); code != 1 || !strings.Contains(errOut, "missing.jsonl") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(strings.TrimSpace(string(b)), "\n") + 1
}
