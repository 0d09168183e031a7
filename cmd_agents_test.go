package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/agents/task/tasktest"
)

func TestAgentsCommandsOnTheStore(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	older := tasktest.Seed(t, st, "Find the Smith engagement letter")
	time.Sleep(5 * time.Millisecond) // created times order the list
	tk := tasktest.Seed(t, st, "Draft a reply to Marcy about the NDA term")
	src := newStoreAgents(st)
	now := tk.Created.Add(3 * time.Minute)

	// list: newest first, one line each.
	var out bytes.Buffer
	if err := agentsList(ctx, src, &out, now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("list printed %d lines:\n%s", len(lines), out.String())
	}
	for _, want := range []string{tk.Session, "waiting", "active", "3m", "Draft a reply to Marcy about the NDA term"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("first line %q lacks %q", lines[0], want)
		}
	}
	if !strings.Contains(lines[1], older.Session) {
		t.Errorf("second line %q is not the older agent %s", lines[1], older.Session)
	}

	// show: prompt, need, phase, plan with marks, history.
	out.Reset()
	if err := agentsShow(ctx, src, tk.Session, &out, now); err != nil {
		t.Fatal(err)
	}
	show := out.String()
	t.Logf("show:\n%s", show)
	for _, want := range []string{
		"Agent " + tk.Session + " (from voice)",
		"Prompt:  Draft a reply to Marcy about the NDA term",
		"Need:    " + tk.Need,
		"Phase:   waiting (status active)",
		"[x] 1. find Marcy's thread",
		"[>] 2. draft the reply",
		"[ ] 3. ask for approval",
		"History:",
		"[agent:start][" + tk.Session + "] Draft a reply to Marcy",
		`[event:agent][` + tk.Session + `] tool search_email {"query":"Marcy NDA"} → 1 thread`,
		"question: Should the reply accept the 3-year term?",
		"[agent:active][" + tk.Session + "] step 2: draft the reply",
	} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q", want)
		}
	}
	if strings.Contains(show, older.Session) || strings.Contains(show, "the conversation") {
		t.Errorf("show prints another agent's entries or the conversation:\n%s", show)
	}

	// Unknown ids are named plainly.
	if err := agentsShow(ctx, src, "task-nope", &out, now); err == nil || !strings.Contains(err.Error(), `no agent "task-nope"`) {
		t.Errorf("show unknown: %v", err)
	}
	if err := agentsCancel(ctx, src, "task-nope", &out); err == nil || !strings.Contains(err.Error(), `no agent "task-nope"`) {
		t.Errorf("cancel unknown: %v", err)
	}

	// cancel: the task is cancelled and the log says who did it.
	out.Reset()
	if err := agentsCancel(ctx, src, tk.Session, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Cancelled "+tk.Session) {
		t.Errorf("cancel printed %q", out.String())
	}
	got, err := task.Get(ctx, st, tk.Session)
	if err != nil || got.Phase != task.PhaseCancelled || got.Status != store.StatusFailed {
		t.Fatalf("after cancel: phase %s status %s, %v", got.Phase, got.Status, err)
	}
	out.Reset()
	if err := agentsShow(ctx, src, tk.Session, &out, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Phase:   cancelled (status failed)", "[ ] 2. draft the reply", "cancelled by " + cliCanceller} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show after cancel lacks %q:\n%s", want, out.String())
		}
	}

	// Cancelling again says it has ended.
	err = agentsCancel(ctx, src, tk.Session, &out)
	if err == nil || !strings.Contains(err.Error(), "already ended (cancelled)") {
		t.Errorf("second cancel: %v", err)
	}
	if errors.Is(err, errNoAgent) {
		t.Errorf("second cancel reports an unknown agent: %v", err)
	}
}

// TestAgentsCommandLine runs the commands as the lawyer types them, with
// no Spirit running: exit codes and messages.
func TestAgentsCommandLine(t *testing.T) {
	dir := t.TempDir()
	st, err := store.OpenDir(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	tk := tasktest.Seed(t, st, "Summarise the Jones deposition")
	st.Close()

	spirit := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append(args, "--data-dir", dir), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, out, errOut := spirit("agents", "list"); code != 0 || !strings.Contains(out, tk.Session) {
		t.Errorf("list: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := spirit("agents", "show", tk.Session); code != 0 || !strings.Contains(out, "[>] 2. draft the reply") {
		t.Errorf("show: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := spirit("agents", "show", "task-nope"); code != 1 || !strings.Contains(errOut, `no agent "task-nope"`) {
		t.Errorf("show unknown: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := spirit("agents", "show"); code != 2 || !strings.Contains(errOut, "needs an agent id") {
		t.Errorf("show without id: exit %d, stderr %q", code, errOut)
	}
	if code, out, errOut := spirit("agents", "cancel", tk.Session); code != 0 || !strings.Contains(out, "Cancelled") {
		t.Errorf("cancel: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := spirit("agents", "cancel", tk.Session); code != 1 || !strings.Contains(errOut, "already ended") {
		t.Errorf("cancel again: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := spirit("agents", "frobnicate"); code != 2 {
		t.Errorf("unknown subcommand: exit %d, want 2", code)
	}
}
