package main

import (
	"bytes"
	"database/sql"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/agents/task/tasktest"
)

// seedWaiting seeds an agent that failed (or asks for an approval) and
// waits on a nudge of kind, as the runner leaves it.
func seedWaiting(t *testing.T, st *store.Store, prompt string, kind nudge.Kind) (task.Task, store.Nudge) {
	t.Helper()
	ctx := t.Context()
	tk := tasktest.Seed(t, st, prompt)
	n, err := st.CreateNudge(ctx, store.Nudge{Kind: string(kind), Message: "I couldn't finish: captcha required",
		ActionPrompt: prompt, Subject: nudge.TaskSubject(tk.Session)})
	if err != nil {
		t.Fatal(err)
	}
	phase, status := task.PhaseFailed, store.StatusFailed
	if kind == nudge.KindApproval {
		phase, status = task.PhaseWaiting, store.StatusActive
	}
	err = st.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE tasks SET phase = ?, waiting = ? WHERE session = ?`, phase, n.ID, tk.Session)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AppendAgent(ctx, store.AgentRecord{Status: status, Session: tk.Session, Text: "captcha required", Need: "solve captcha"}); err != nil {
		t.Fatal(err)
	}
	return tk, n
}

func TestWorldCommands(t *testing.T) {
	for _, running := range []bool{false, true} {
		name := "database"
		if running {
			name = "running Spirit"
		}
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			st, err := store.OpenDir(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			active := tasktest.Seed(t, st, "Summarise the Jones deposition")
			failed, help := seedWaiting(t, st, "Book the Tokyo flight", nudge.KindHelp)
			approving, approval := seedWaiting(t, st, "Send the redline to Dana", nudge.KindApproval)
			st.Close()
			if running {
				startSpirit(t, dir)
			}
			spirit := func(args ...string) (int, string, string) {
				var stdout, stderr bytes.Buffer
				code := run(append(args, "--data-dir", dir), &stdout, &stderr)
				return code, stdout.String(), stderr.String()
			}
			w, closeW, err := openWorld(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, isAPI := w.(apiWorld); isAPI != running {
				t.Errorf("openWorld = %T with Spirit running %v", w, running)
			}
			closeW()

			steps := []struct {
				name     string
				args     []string
				code     int
				out, err string // substrings of stdout and stderr
				notOut   string
				dbOnly   bool // a running Spirit (with no provider) may fail the agent again at once
			}{
				{"event", []string{"world", "event", "bash", "backup.sh", "nightly backup done"}, 0, "[event:bash][backup.sh] nightly backup done", "", "", false},
				{"check sees it", []string{"world", "check", "supervisor"}, 0, "nightly backup done", "", "", false},
				{"check again: nothing new", []string{"world", "check", "supervisor"}, 0, "Nothing new for supervisor.", "", "backup", false},
				{"another consumer starts at the beginning", []string{"world", "check", "keeper", "-n", "2"}, 0, "", "", "backup", false},
				{"query active", []string{"world", "query", "active"}, 0, active.Session, "", failed.Session, false},
				{"query failed", []string{"world", "query", "failed"}, 0, failed.Session + "  failed", "", active.Session, false},
				{"query pending: none", []string{"world", "query", "pending"}, 0, "No pending agents.", "", "", false},
				{"query recent 1", []string{"world", "query", "recent", "1"}, 0, "nightly backup done", "", "captcha", false},
				{"respond to an approval is refused", []string{"world", "respond", approving.Session, "yes send it"}, 1, "", "waits for your approval", "", false},
				{"respond to an agent not waiting", []string{"world", "respond", active.Session, "hello"}, 1, "", "not waiting for you", "", false},
				{"respond to an unknown agent", []string{"world", "respond", "task-nope", "hello"}, 1, "", `no agent "task-nope"`, "", false},
				{"respond to help", []string{"world", "respond", failed.Session, "captcha text: XKCD42"}, 0, "Sent to " + failed.Session, "", "", false},
				{"respond twice", []string{"world", "respond", failed.Session, "again"}, 1, "", "not waiting for you", "", true},
				{"bad source", []string{"world", "event", "My Script", "x", "y"}, 1, "", "source must be", "", false},
				{"empty text", []string{"world", "event", "bash", "x", " "}, 1, "", "text is required", "", false},
				{"query what", []string{"world", "query", "everything"}, 2, "", "use active, pending, failed or recent", "", false},
				{"query recent zero", []string{"world", "query", "recent", "0"}, 2, "", "positive number", "", false},
				{"respond without text", []string{"world", "respond", failed.Session}, 2, "", "needs an agent's session and your words", "", false},
				{"unknown verb", []string{"world", "frobnicate"}, 2, "", "unknown world command", "", false},
				{"no verb", []string{"world"}, 2, "", "usage:\n  spirit world tail", "", false},
			}
			for _, s := range steps {
				if s.dbOnly && running {
					continue
				}
				code, out, errOut := spirit(s.args...)
				if code != s.code || !strings.Contains(out, s.out) || !strings.Contains(errOut, s.err) ||
					(s.notOut != "" && strings.Contains(out, s.notOut)) {
					t.Errorf("%s: exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout with %q (without %q), stderr with %q",
						s.name, code, out, errOut, s.code, s.out, s.notOut, s.err)
				}
			}

			// The help was recorded and handed to the agent: the nudge is
			// answered, the agent retries with the words, the approval is
			// untouched.
			st, err = store.OpenDirReadOnly(ctx, dir, store.ReadOnlyOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			n, err := st.Nudge(ctx, help.ID)
			if err != nil || n.State != store.NudgeAccepted || n.Answer != "captcha text: XKCD42" {
				t.Errorf("help nudge = %+v, %v", n, err)
			}
			if n, err := st.Nudge(ctx, approval.ID); err != nil || n.State != store.NudgeShown {
				t.Errorf("approval nudge = %+v, %v; want still shown", n, err)
			}
			es, err := st.SessionEntries(ctx, failed.Session, 0)
			if err != nil {
				t.Fatal(err)
			}
			var retried bool
			for _, e := range es {
				if e.Status == store.StatusRetry && strings.Contains(e.Text, "captcha text: XKCD42") {
					retried = true
				}
			}
			if !retried {
				t.Errorf("no retry with the lawyer's words in %s's log: %v", failed.Session, es)
			}
			if cur, err := st.Cursor(ctx, "supervisor"); err != nil || cur == 0 {
				t.Errorf("supervisor cursor = %d, %v", cur, err)
			}
		})
	}
}
