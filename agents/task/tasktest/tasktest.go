// Package tasktest seeds task agents for tests of what shows them (the
// Activity window, the command line, the local API).
package tasktest

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// Seed records an agent the way the runner does (Start), then moves
// it to waiting on its second plan step with a few events in the log, as
// a run that asked the lawyer a question leaves it.
func Seed(t testing.TB, st *store.Store, prompt string) task.Task {
	t.Helper()
	ctx := t.Context()
	r := task.NewRunner(task.Options{Store: st, Provider: func(context.Context) (llm.Provider, string, error) {
		return nil, "test-model", nil // Start only checks that a provider is configured
	}})
	tk, err := r.Start(ctx, task.NewTask{Prompt: prompt, Origin: "voice"})
	if err != nil {
		t.Fatal(err)
	}
	state, err := json.Marshal(task.State{Plan: []string{"find Marcy's thread", "draft the reply", "ask for approval"}, Step: 1,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "the conversation"}}})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE tasks SET phase = 'waiting', state = ?, runs = 1 WHERE session = ?`, string(state), tk.Session)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
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
