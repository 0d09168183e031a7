package task

import (
	"testing"

	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/nudge"
)

// TestVerifiedResultKeptAsDocument: a task that asks for a document (a
// meeting brief) keeps its verified result as one, linked to the agent,
// and the result nudge brings it whole; a task that asks for none keeps
// nothing.
func TestVerifiedResultKeptAsDocument(t *testing.T) {
	const brief = "# Brief: SNDA call\n\n## Open threads\n\n- “SNDA” — Marcy Howard: “Can you take a first pass?”"
	for _, tc := range []struct {
		name, document string
		wantKept       bool
	}{
		{"a brief", "Brief: SNDA call", true},
		{"no document asked", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "anthropic")
			e.srv.Push(plan("Write the brief"),
				scripted.ToolCalls(call("c1", toolFinish, map[string]any{"summary": "Your brief for the SNDA call", "result": brief})),
				scripted.ToolCalls(call("v", toolVerdict, map[string]any{"verdict": "verified"})))
			tk, err := e.r.Start(t.Context(), NewTask{Prompt: "Write a short brief for the SNDA call", Origin: "nudge-7",
				Context: Context{Document: tc.document}})
			if err != nil {
				t.Fatal(err)
			}
			waitPhase(t, e.st, tk.Session, PhaseFinished)
			res := e.l.next(t, nudge.KindResult)
			docs, err := e.st.Documents(t.Context(), tk.Session, 0)
			if err != nil {
				t.Fatal(err)
			}
			var ref nudge.DocumentRef
			if err := nudge.ReadDetail(res.Detail, &ref); err != nil {
				t.Fatal(err)
			}
			if !tc.wantKept {
				if len(docs) != 0 || ref.Document != 0 {
					t.Fatalf("kept %+v, nudge brought %+v; want nothing", docs, ref)
				}
				return
			}
			if len(docs) != 1 || docs[0].Title != tc.document || docs[0].Markdown != brief || docs[0].Origin != "nudge-7" {
				t.Fatalf("documents %+v", docs)
			}
			if ref.Document != docs[0].ID || ref.Markdown != brief || res.Message != "Your brief for the SNDA call" {
				t.Errorf("result nudge %q brought %+v", res.Message, ref)
			}
		})
	}
}
