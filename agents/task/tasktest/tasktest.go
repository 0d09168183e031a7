// Package tasktest seeds task agents for tests of what shows them (the
// Activity window, the command line, the local API).
package tasktest

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// Seed records an agent as the runner's Start does, already moved
// to waiting on its second plan step with a few events in the log, as
// a run that asked the lawyer a question leaves it.
func Seed(t testing.TB, st *store.Store, prompt string) task.Task {
	t.Helper()
	ctx := t.Context()
	state, err := json.Marshal(task.State{Plan: []string{"find Marcy's thread", "draft the reply", "ask for approval"}, Step: 1,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "the conversation"}}})
	if err != nil {
		t.Fatal(err)
	}
	var id [6]byte
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	session := "task-" + hex.EncodeToString(id[:])
	need := "the task is done as asked: " + prompt
	now := time.Now().UnixMilli()
	// One transaction, straight to waiting. Written as queued first (as
	// Runner.Start does) and moved to waiting after, it could be taken in
	// between by the running Spirit's own runner, which failed it for want
	// of a provider (TestActivityShowsAndCancelsAnAgent, once under -race).
	err = st.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (session, prompt, need, origin, context, phase, state, runs, created, updated)
			VALUES (?, ?, ?, 'voice', '{}', 'waiting', ?, 1, ?, ?)`, session, prompt, need, string(state), now, now); err != nil {
			return err
		}
		_, err := st.AppendAgentTx(ctx, tx, store.AgentRecord{Status: store.StatusStart, Session: session,
			Text: prompt + " (from voice)", Need: need})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tk := task.Task{Session: session}
	for _, text := range []string{
		`tool search_email {"query":"Marcy NDA"} → 1 thread`,
		"question: Should the reply accept the 3-year term?",
	} {
		if _, err := st.AppendEvent(ctx, store.Event{Source: "agent", Identifier: tk.Session, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.AppendAgent(ctx, store.AgentRecord{Status: store.StatusActive, Session: tk.Session, Text: "step 2: draft the reply"}); err != nil {
		t.Fatal(err)
	}
	tk, err = task.Get(ctx, st, tk.Session)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}
