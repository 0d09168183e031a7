package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform/secrets"
)

// workDir is a data folder with a scripted provider of protocol and the
// heartbeat off (so that only what a test asks for reaches the model).
func workDir(t *testing.T, protocol string) (string, *scripted.Server) {
	t.Helper()
	dir := t.TempDir()
	noKeychain(t, dir)
	st, err := store.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := settings.Defaults()
	s.WorkHeartbeat = false
	if _, err := settings.Save(t.Context(), st, s); err != nil {
		t.Fatal(err)
	}
	srv := scripted.New(t)
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ps := setup.Settings{Kind: protocol, BaseURL: srv.URL(), Roles: llm.Roles{Agent: "agent-model"}}
	if protocol == setup.OpenAI {
		ps.BaseURL += "/v1"
	}
	if err := setup.Save(t.Context(), st, sec, ps, "sk-test"); err != nil {
		t.Fatal(err)
	}
	return dir, srv
}

func notifyStep(msg string) scripted.Reply {
	in, _ := json.Marshal(map[string]string{"message": msg})
	return scripted.ToolCalls(llm.ToolCall{ID: "n1", Name: work.NotifyUserName, Input: in})
}

// startSpirit runs Spirit headless on dir until the test ends and waits
// for its API.
func startSpirit(t *testing.T, dir string) {
	t.Helper()
	t.Setenv("DISPLAY", "") // no watcher on the tester's screen
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- app.Run(runCtx, app.Config{DataDir: dir, Version: "test",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Desktop: func(*app.Core, *events.Bus, *slog.Logger) (app.UI, error) {
				return headless{}, nil
			}})
	}()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("app.Run: %v", err)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		info, err := api.ReadInfo(dir)
		if err == nil {
			if _, err = api.NewClient(info).Health(t.Context()); err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the running Spirit's API never answered: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWorkCommands: spirit work add, list, run and remove, on the database
// when Spirit is not running and through the API when it is; the same
// words either way.
func TestWorkCommands(t *testing.T) {
	for _, tc := range []struct {
		name, protocol string
		running        bool
	}{
		{"on the database", setup.Anthropic, false},
		{"through the running Spirit", setup.OpenAI, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, srv := workDir(t, tc.protocol)
			if tc.running {
				startSpirit(t, dir)
			}
			sp := func(args ...string) (int, string, string) {
				return spirit(append(args, "--data-dir", dir)...)
			}
			if code, out, errOut := sp("work", "list"); code != 0 || !strings.Contains(out, "No routines") {
				t.Fatalf("empty list: %d %q %q", code, out, errOut)
			}
			code, out, errOut := sp("work", "add", "--cron", "30 8 * * 1-5", "--prompt", "What is waiting on me today?")
			if code != 0 || !strings.Contains(out, "Added routine 1: weekdays at 8:30 (30 8 * * 1-5), next ") {
				t.Fatalf("add: %d %q %q", code, out, errOut)
			}
			code, out, errOut = sp("work", "list")
			if code != 0 || !strings.Contains(out, "1  weekdays at 8:30") || !strings.Contains(out, "never run") ||
				!strings.Contains(out, "What is waiting on me today?") {
				t.Fatalf("list: %d %q %q", code, out, errOut)
			}

			srv.Push(notifyStep("Two drafts wait for your approval."))
			code, out, errOut = sp("work", "run", "1")
			if code != 0 || !strings.Contains(out, "Spirit told you: Two drafts wait for your approval.") {
				t.Fatalf("run: %d %q %q", code, out, errOut)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("provider requests = %d, want 1", n)
			}
			if !strings.Contains(srv.Requests()[0].Messages[0].Text, "What is waiting on me today?") {
				t.Errorf("the model was not given the routine's prompt: %q", srv.Requests()[0].Messages[0].Text)
			}
			// The same news again is held back.
			srv.Push(notifyStep("Two drafts wait for your approval."))
			if code, out, errOut = sp("work", "run", "1"); code != 0 || !strings.Contains(out, "Not run: Spirit said the same lately") {
				t.Errorf("run again: %d %q %q", code, out, errOut)
			}
			if code, out, errOut = sp("work", "run", "7"); code != 1 || !strings.Contains(errOut, "no such routine: 7") {
				t.Errorf("run unknown: %d %q %q", code, out, errOut)
			}
			if code, out, errOut = sp("work", "remove", "1"); code != 0 || !strings.Contains(out, "Removed routine 1.") {
				t.Errorf("remove: %d %q %q", code, out, errOut)
			}
			if code, out, errOut = sp("work", "remove", "1"); code != 1 || !strings.Contains(errOut, "no such routine: 1") {
				t.Errorf("remove again: %d %q %q", code, out, errOut)
			}

			st, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ns, err := st.Nudges(t.Context())
			if err != nil || len(ns) != 1 || ns[0].Message != "Two drafts wait for your approval." {
				t.Errorf("nudges = %+v, %v; want the one delivery", ns, err)
			}
		})
	}
}

// TestWorkCommandErrors: what a lawyer mistypes is said plainly, before
// anything is stored.
func TestWorkCommandErrors(t *testing.T) {
	dir := t.TempDir()
	noKeychain(t, dir)
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string
	}{
		{"minute 70", []string{"add", "--cron", "70 8 * * *", "--prompt", "x"}, 1,
			[]string{`"70 8 * * *" is not a schedule Spirit can read: the minute must be 0 to 59.`, "e.g. \"30 8 * * 1-5\" for weekdays at 8:30"}},
		{"four fields", []string{"add", "--cron", "30 8 * *", "--prompt", "x"}, 1,
			[]string{"is not a schedule Spirit can read", "it has 4 fields, not 5", "day of the week"}},
		{"words", []string{"add", "--cron", "every morning", "--prompt", "x"}, 1, []string{"is not a schedule Spirit can read"}},
		{"own time zone", []string{"add", "--cron", "CRON_TZ=Europe/Paris 30 8 * * *", "--prompt", "x"}, 1, []string{"your own time zone"}},
		{"30 February", []string{"add", "--cron", "0 9 30 2 *", "--prompt", "x"}, 1, []string{"never comes"}},
		{"no prompt", []string{"add", "--cron", "30 8 * * 1-5"}, 2, []string{"needs --cron and --prompt"}},
		{"no id", []string{"run"}, 2, []string{"needs a routine id"}},
		{"id not a number", []string{"remove", "first"}, 2, []string{`"first" is not a routine id`}},
		{"unknown", []string{"frobnicate"}, 2, []string{"usage:"}},
		{"nothing", nil, 2, []string{"spirit work add --cron"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := spirit(append(append([]string{"work"}, tc.args...), "--data-dir", dir)...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.wantCode, errOut)
			}
			for _, want := range tc.wantErr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q lacks %q", errOut, want)
				}
			}
		})
	}
	// Nothing was stored by the refusals.
	st, err := store.OpenDirReadOnly(t.Context(), dir, store.ReadOnlyOptions{})
	if err == nil {
		defer st.Close()
		if rs, _ := st.Routines(t.Context()); len(rs) != 0 {
			t.Errorf("routines = %+v, want none", rs)
		}
	}
}
