package glance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestEvalDirJSON(t *testing.T) {
	var out bytes.Buffer
	passed, failed, err := EvalDir(t.Context(), "testdata", &out, true)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != passed+failed+1 {
		t.Fatalf("%d lines for %d cases:\n%s", len(lines), passed+failed, strings.Join(lines, "\n"))
	}
	for _, l := range lines[:len(lines)-1] {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		for _, k := range []string{"id", "surface", "reason", "stage", "model_calls"} {
			if _, ok := r[k]; !ok {
				t.Errorf("line %q lacks %q", l, k)
			}
		}
	}
	if want := "passed, "; !strings.Contains(lines[len(lines)-1], want) {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}
