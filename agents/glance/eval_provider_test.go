package glance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/llm/scripted"
)

// evalResults runs EvalDirWith on the package's own cases and returns the
// JSON results by case id, and the summary line.
func evalResults(t *testing.T, opts EvalOptions) (map[string]caseResult, []string, string) {
	t.Helper()
	var out bytes.Buffer
	opts.JSON = true
	passed, failed, err := EvalDirWith(t.Context(), "testdata", &out, opts)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]caseResult{}
	var ids []string
	var last string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "{") {
			last = line
			continue
		}
		var r caseResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		res[r.ID] = r
		ids = append(ids, r.ID)
	}
	if len(ids) != passed+failed {
		t.Fatalf("%d JSON lines for %d cases", len(ids), passed+failed)
	}
	if want := fmt.Sprintf("%d passed, %d failed", passed, failed); last != want {
		t.Errorf("summary %q, want %q", last, want)
	}
	return res, ids, last
}

// TestEvalDirWithProvider: with a provider whose every answer is "do not
// surface", the cases the code surfaced are silenced at the analyst_model
// stage after one model call each, every other case keeps the code's
// verdict without a model call, and the text report names the stage.
func TestEvalDirWithProvider(t *testing.T) {
	code, ids, _ := evalResults(t, EvalOptions{})
	var surfaced []string
	for _, id := range ids {
		if code[id].ModelCalls != 0 {
			t.Errorf("code-only case %s made %d model calls", id, code[id].ModelCalls)
		}
		if code[id].Surface {
			surfaced = append(surfaced, id)
		}
	}
	if len(surfaced) == 0 {
		t.Fatal("no case surfaced in code: nothing reaches the analyst model")
	}
	no := func() scripted.Reply {
		return scripted.ToolCalls(call("f1", toolFinalize, map[string]any{"surface": false}))
	}
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			// One step per case that can reach the analyst, twice over (the
			// JSON run and the text run); more requests than that fail the
			// test in the scripted server.
			var steps []scripted.Reply
			for range 2 * len(surfaced) {
				steps = append(steps, no())
			}
			srv := scripted.New(t, steps...)
			base := srv.URL()
			if proto == "openai" {
				base += "/v1"
			}
			p, err := EvalProvider(proto, base, "eval-model", "sk-test")
			if err != nil {
				t.Fatal(err)
			}
			opts := EvalOptions{Models: Models{Triage: p, Analyst: p}}
			got, gotIDs, _ := evalResults(t, opts)
			if strings.Join(gotIDs, ",") != strings.Join(ids, ",") {
				t.Fatalf("cases %v, want %v", gotIDs, ids)
			}
			calls := 0
			for _, id := range ids {
				r, c := got[id], code[id]
				calls += r.ModelCalls
				if c.Surface {
					if r.Surface || r.Stage != StageAnalystModel || r.Reason != ReasonModelSilent || r.ModelCalls != 1 || r.Error != "" {
						t.Errorf("%s: got %+v, want silenced at %s after 1 model call", id, r, StageAnalystModel)
					}
					continue
				}
				if r != c {
					t.Errorf("%s: with the provider %+v, code alone %+v", id, r, c)
				}
			}
			reqs := srv.Requests()
			if calls != len(surfaced) || len(reqs) != len(surfaced) {
				t.Errorf("model_calls total %d, server saw %d requests; want %d (one per surfaced case)", calls, len(reqs), len(surfaced))
			}
			for i, r := range reqs {
				if r.Protocol != proto || r.Model != "eval-model" {
					t.Errorf("request %d: protocol %s model %q", i, r.Protocol, r.Model)
				}
			}
			// The text report: each silenced case fails, naming the stage.
			var out bytes.Buffer
			_, failed, err := EvalDirWith(t.Context(), "testdata", &out, opts)
			if err != nil {
				t.Fatal(err)
			}
			if failed < len(surfaced) {
				t.Errorf("%d failed, want at least %d", failed, len(surfaced))
			}
			for _, id := range surfaced {
				want := "FAIL " + id + ": got surface=false reason=" + ReasonModelSilent
				line := ""
				for l := range strings.SplitSeq(out.String(), "\n") {
					if strings.HasPrefix(l, "FAIL "+id+":") {
						line = l
					}
				}
				if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, "(decided at stage "+StageAnalystModel+")") {
					t.Errorf("report line for %s: %q", id, line)
				}
			}
			if strings.Contains(out.String(), "sk-test") {
				t.Error("the report shows the API key")
			}
		})
	}
}

// TestEvalDirProviderError: a provider that fails fails the case it was
// asked about, with the error and the stage in the report.
func TestEvalDirProviderError(t *testing.T) {
	srv := scripted.New(t)
	for range 20 {
		srv.Push(scripted.HTTPError(401, ""))
	}
	p, err := EvalProvider("openai", srv.URL()+"/v1", "eval-model", "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, failed, err := EvalDirWith(t.Context(), "testdata", &out, EvalOptions{Models: Models{Analyst: p}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(srv.Requests())
	if n == 0 || failed < n {
		t.Fatalf("%d requests, %d failed:\n%s", n, failed, out.String())
	}
	if got := strings.Count(out.String(), "(stage "+StageAnalystModel+")"); got != n {
		t.Errorf("%d failures at %s for %d failed calls:\n%s", got, StageAnalystModel, n, out.String())
	}
	for _, r := range srv.Requests() {
		if len(r.AuthHeaders) != 0 {
			t.Errorf("empty key sent credentials in %v", r.AuthHeaders)
		}
	}
}

func TestEvalProviderProtocol(t *testing.T) {
	if _, err := EvalProvider("gemini", "http://127.0.0.1:1", "m", ""); err == nil {
		t.Error("unknown protocol accepted")
	}
	if _, err := EvalProvider("anthropic", "http://127.0.0.1:1", "m", ""); err == nil {
		t.Error("anthropic without a key accepted")
	}
}
