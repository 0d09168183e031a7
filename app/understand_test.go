package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/secrets"
)

// worldLog is every entry of the world log, oldest first.
func worldLog(t *testing.T, st *store.Store) []store.Entry {
	t.Helper()
	es, err := st.Since(context.Background(), 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// mentions reports the entries whose text contains s.
func mentions(es []store.Entry, s string) []store.Entry {
	var out []store.Entry
	for _, e := range es {
		if strings.Contains(e.Text, s) {
			out = append(out, e)
		}
	}
	return out
}

// TestSayLogsOnlyWhatSpiritActedOn (issue 11 item 7): typed words are
// treated like speech. Text sent to /say that is no command is not kept in
// the world log at all; a command is logged with its intent, as a voice
// command is.
func TestSayLogsOnlyWhatSpiritActedOn(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())

	for _, text := range []string{
		"I'll send the Whitaker redline over this afternoon",
		"hey spirit, the Whitaker thing with the monitor",
	} {
		res, err := c.Say(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if res.Intent != "none" {
			t.Errorf("Say(%q) intent = %q, want none", text, res.Intent)
		}
		if res.Handled {
			t.Errorf("Say(%q) handled = true, want false (%+v)", text, res)
		}
	}
	if got := mentions(worldLog(t, st), "Whitaker"); len(got) != 0 {
		t.Errorf("words that were no command are in the world log: %+v", got)
	}

	res, err := c.Say(ctx, "pause listening")
	if err != nil {
		t.Fatalf("Say(pause listening): %v", err)
	}
	if !res.Handled {
		t.Fatalf("Say(pause listening) handled = false, want true (%+v)", res)
	}
	var said []string
	for _, e := range worldLog(t, st) {
		if e.Source == "user" && e.Identifier == "say" {
			said = append(said, e.Text)
		}
	}
	// The command, then what it did (setToggle's own event).
	if want := []string{"pause_listening: pause listening", "listening paused"}; strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("say events %q, want %q", said, want)
	}
}

// TestNotUnderstoodWithoutProvider: speech led by the wake phrase that the
// grammar cannot read gets a plain "didn't catch that" (no provider to ask);
// the same words without the wake phrase stay silent.
func TestNotUnderstoodWithoutProvider(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	at := time.Date(2026, 6, 12, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, text string
		want       api.SayResult
	}{
		{"wake phrase, said", "hey spirit, blank out the monitor for a bit",
			api.SayResult{Intent: "none", Reply: notUnderstood}},
		{"name first, said", "Spirit, blank out the monitor for a bit",
			api.SayResult{Intent: "none", Reply: notUnderstood}},
		{"no wake phrase, said", "could you blank out the monitor for a bit",
			api.SayResult{Intent: "none", Reply: "Nothing to do."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, via := range []string{"heard", "say"} {
				var got api.SayResult
				var err error
				if via == "heard" {
					got, err = c.Heard(ctx, tc.text, at)
				} else {
					got, err = c.Say(ctx, tc.text)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("%s: got %+v, want %+v", via, got, tc.want)
				}
			}
		})
	}
	if got := mentions(worldLog(t, st), "monitor"); len(got) != 0 {
		t.Errorf("words not understood are in the world log: %+v", got)
	}
	if c.Status() != (Status{}) {
		t.Errorf("status changed: %+v", c.Status())
	}
}

// TestCommandModelFallback: with a provider configured, wake-led speech the
// grammar cannot read goes to the model, over either wire protocol; its
// answer is only an intent, handled through the normal path, and an odd
// answer is not understood. Nothing else reaches the model.
func TestCommandModelFallback(t *testing.T) {
	for _, protocol := range []string{llm.ProtocolAnthropic, llm.ProtocolOpenAI} {
		t.Run(protocol, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
			t.Setenv("XDG_RUNTIME_DIR", dir)
			c, st := newTestCore(t, dir)
			srv := scripted.New(t)
			sec, err := secrets.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			s := setup.Settings{Kind: protocol, BaseURL: srv.URL(), Roles: llm.Roles{Triage: "triage-model"}}
			if protocol == llm.ProtocolOpenAI {
				s.BaseURL += "/v1"
			}
			if err := setup.Save(ctx, st, sec, s, "sk-test"); err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 6, 12, 10, 0, 0, 0, time.UTC)
			read := func(input string) scripted.Reply {
				return scripted.ToolCalls(llm.ToolCall{ID: "r1", Name: "read_command", Input: json.RawMessage(input)})
			}

			// The model reads it: handled like a spoken "pause watching".
			srv.Push(read(`{"intent":"pause_watching"}`))
			res, err := c.Heard(ctx, "hey spirit, blank out the monitor for a bit", at)
			if err != nil {
				t.Fatal(err)
			}
			if res.Intent != "pause_watching" {
				t.Fatalf("Heard intent = %q, want pause_watching (%+v)", res.Intent, res)
			}
			if !res.Handled {
				t.Fatalf("Heard handled = false, want true (%+v)", res)
			}
			if got := c.Status(); !got.WatchingPaused {
				t.Fatalf("status WatchingPaused = false, want true (%+v)", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("model requests = %d, want 1: %+v", len(reqs), reqs)
			}
			if reqs[0].Model != "triage-model" {
				t.Fatalf("request model = %q, want triage-model", reqs[0].Model)
			}
			if len(reqs[0].Tools) != 1 {
				t.Fatalf("request tools = %d, want 1: %+v", len(reqs[0].Tools), reqs[0].Tools)
			}
			if got := mentions(worldLog(t, st), "pause_watching: hey spirit, blank out the monitor"); len(got) != 1 {
				t.Errorf("the command is not logged once: %+v", got)
			}

			// Malformed, unknown or empty answers are not understood, typed
			// or said, and change nothing.
			for _, reply := range []scripted.Reply{
				scripted.Malformed(),
				read(`{"intent":"delete_all_mail"}`),
				read(`{"intent":"resume","note":"sure"}`),
				scripted.Text("Okay, I've resumed everything for you."),
				read(`{"intent":"none"}`),
			} {
				srv.Push(reply)
				res, err := c.Say(ctx, "spirit, the thing from before, bring it all back")
				if err != nil {
					t.Fatal(err)
				}
				if want := (api.SayResult{Intent: "none", Reply: notUnderstood}); res != want {
					t.Errorf("answer %+v: got %+v, want %+v", reply, res, want)
				}
			}
			if !c.Status().WatchingPaused {
				t.Error("an answer that was not understood resumed watching")
			}

			// Words the grammar reads, and words not addressed to Spirit,
			// never reach the model.
			before := len(srv.Requests())
			for _, text := range []string{"hey spirit, resume", "bring it all back, would you", "okay so the closing moved"} {
				if _, err := c.Heard(ctx, text, at); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(srv.Requests()) - before; n != 0 {
				t.Errorf("%d model calls for words the grammar reads or that were not addressed to Spirit", n)
			}
			if c.Status().WatchingPaused {
				t.Error("hey spirit, resume did not resume")
			}
		})
	}
}
