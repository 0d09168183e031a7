package llmask

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/voice/intent"
)

func call(name, input string) llm.ToolCall {
	return llm.ToolCall{ID: "c1", Name: name, Input: json.RawMessage(input)}
}

// TestReadWithModelOverBothProtocols runs the fallback against the scripted
// provider speaking each real wire protocol: the tool offered, the answer
// read back, and every odd answer ending as not understood or an error,
// never as a command.
func TestReadWithModelOverBothProtocols(t *testing.T) {
	now := time.Date(2026, 6, 12, 8, 0, 0, 0, time.FixedZone("", -4*3600))
	const said = "hey spirit, blank out the monitor for a bit"
	for _, protocol := range []string{llm.ProtocolAnthropic, llm.ProtocolOpenAI} {
		for _, c := range []struct {
			name  string
			reply scripted.Reply
			want  string // the intent kind, or "not understood" / "error"
		}{
			{"tool call", scripted.ToolCalls(call(intent.ReadTool.Name, `{"intent":"pause_watching"}`)), "pause_watching"},
			{"JSON as text", scripted.Text(`{"intent":"snooze","minutes":15}`), "snooze"},
			{"JSON in a code fence", scripted.Text("```json\n{\"intent\":\"cancel\"}\n```"), "cancel"},
			{"model says none", scripted.ToolCalls(call(intent.ReadTool.Name, `{"intent":"none"}`)), "not understood"},
			{"unknown intent", scripted.ToolCalls(call(intent.ReadTool.Name, `{"intent":"send_email","task":"send it"}`)), "not understood"},
			{"extra field", scripted.ToolCalls(call(intent.ReadTool.Name, `{"intent":"resume","why":"asked"}`)), "not understood"},
			{"prose", scripted.Text("Sure! I'll pause watching your screen."), "error"},
			{"another tool", scripted.ToolCalls(call("create_draft", `{"to":"marcy@example.com"}`)), "error"},
			{"two calls", scripted.ToolCalls(call(intent.ReadTool.Name, `{"intent":"resume"}`), call(intent.ReadTool.Name, `{"intent":"cancel"}`)), "error"},
			{"malformed body", scripted.Malformed(), "error"},
			{"server error", scripted.HTTPError(http.StatusInternalServerError, ""), "error"},
		} {
			t.Run(protocol+"/"+c.name, func(t *testing.T) {
				srv := scripted.New(t, c.reply)
				a := Asker{Provider: srv.Provider(t, protocol), Model: "triage-model"}
				in, err := intent.ReadWithModel(context.Background(), a, said, now)
				got := string(in.Kind)
				switch {
				case errors.Is(err, intent.ErrNotUnderstood):
					got = "not understood"
				case err != nil:
					got = "error"
				}
				if got != c.want {
					t.Fatalf("got %s (%+v, %v), want %s", got, in, err, c.want)
				}
				reqs := srv.Requests()
				if len(reqs) != 1 {
					t.Fatalf("%d requests, want 1", len(reqs))
				}
				r := reqs[0]
				if r.Protocol != protocol || r.Model != "triage-model" || r.MaxTokens != maxTokens {
					t.Errorf("request protocol %s model %q max tokens %d", r.Protocol, r.Model, r.MaxTokens)
				}
				if len(r.Tools) != 1 || r.Tools[0].Name != intent.ReadTool.Name {
					t.Errorf("tools offered %+v, want only %s", r.Tools, intent.ReadTool.Name)
				}
				if len(r.Messages) != 1 || !strings.Contains(r.Messages[0].Text, said) || !strings.Contains(r.System, "never instructions") {
					t.Errorf("messages %+v, system %q", r.Messages, r.System)
				}
			})
		}
	}
}

// TestAskTimesOut: a model slower than the timeout gives an error, not a
// wait the lawyer notices.
func TestAskTimesOut(t *testing.T) {
	srv := scripted.New(t, scripted.ToolCalls(call(intent.ReadTool.Name, `{"intent":"cancel"}`)).After(time.Minute))
	a := Asker{Provider: srv.Provider(t, llm.ProtocolAnthropic), Timeout: 50 * time.Millisecond}
	start := time.Now()
	if _, err := a.Ask(context.Background(), intent.Question{User: "hey spirit, undo", Tool: intent.ReadTool}); err == nil {
		t.Fatal("no error from a model that never answered in time")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Ask took %v", d)
	}
}

func TestJSONObject(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"bare", ` {"intent": "cancel"} `, `{"intent":"cancel"}`},
		{"fenced", "```json\n{\"intent\":\"cancel\"}\n```", `{"intent":"cancel"}`},
		{"plain fence", "```\n{\"intent\":\"cancel\"}\n```", `{"intent":"cancel"}`},
		{"unclosed fence", "```json\n{\"intent\":\"cancel\"}", ``},
		{"prose around", `Here you go: {"intent":"cancel"}`, ``},
		{"array", `[{"intent":"cancel"}]`, ``},
		{"broken", `{"intent":`, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := jsonObject(c.text)
			if string(got) != c.want || ok != (c.want != "") {
				t.Errorf("jsonObject(%q) = %s, %v; want %s", c.text, got, ok, c.want)
			}
		})
	}
}
