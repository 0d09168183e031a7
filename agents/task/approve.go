package task

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	netmail "net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mailtools"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// draftArgs is create_draft's input as the model writes it.
type draftArgs struct {
	ConversationID json.RawMessage `json:"conversation_id,omitempty"`
	To             []string        `json:"to,omitempty"`
	Cc             []string        `json:"cc,omitempty"`
	Subject        string          `json:"subject,omitempty"`
	Body           string          `json:"body"`
}

// draftAction is a draft resolved against the mail index: exactly what
// will be saved. Its JSON is what an approval is for.
type draftAction struct {
	AccountID int64    `json:"account_id"`
	ThreadID  int64    `json:"conversation_id,omitempty"`
	InReplyTo string   `json:"in_reply_to,omitempty"`
	To        []string `json:"to"`
	Cc        []string `json:"cc,omitempty"`
	Subject   string   `json:"subject"`
	Body      string   `json:"body"`

	// Not part of the approval's identity: derived from the thread.
	draft mail.Draft
}

func (a draftAction) canonical() string {
	b, _ := json.Marshal(a)
	return string(b)
}

// resolveDraft turns create_draft arguments into the action: the account,
// the message answered and its threading headers come from the index, not
// from the model. A task that drafts a proposed reply (tc.To) may draft
// only that reply, to those people.
func (r *Runner) resolveDraft(ctx context.Context, tc Context, raw json.RawMessage) (draftAction, error) {
	act, err := r.draftOf(ctx, raw)
	if err != nil {
		return draftAction{}, err
	}
	if err := proposedOnly(tc, act); err != nil {
		return draftAction{}, err
	}
	return act, nil
}

// proposedOnly refuses a draft outside what the lawyer accepted: for a
// task with tc.To set, a reply on tc.ThreadID whose every recipient is
// one of tc.To. The refusal tells the agent what it may do.
func proposedOnly(tc Context, act draftAction) error {
	if len(tc.To) == 0 {
		return nil
	}
	allowed := func(a mail.Address) bool {
		return slices.ContainsFunc(tc.To, func(e string) bool { return strings.EqualFold(strings.TrimSpace(e), a.Email) })
	}
	if tc.ThreadID > 0 && act.ThreadID != tc.ThreadID {
		return fmt.Errorf("this task drafts the reply the lawyer accepted, on conversation_id %d only", tc.ThreadID)
	}
	for _, a := range append(append([]mail.Address{}, act.draft.To...), act.draft.Cc...) {
		if !allowed(a) {
			return fmt.Errorf("recipient %s is not one the lawyer accepted: this reply may go to %s only", a.Email, strings.Join(tc.To, ", "))
		}
	}
	return nil
}

// draftOf resolves create_draft arguments against the index.
func (r *Runner) draftOf(ctx context.Context, raw json.RawMessage) (draftAction, error) {
	var a draftArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return draftAction{}, fmt.Errorf("bad create_draft arguments: %w", err)
	}
	a.Body = strings.TrimSpace(a.Body)
	if a.Body == "" {
		return draftAction{}, errors.New("create_draft needs a body")
	}
	act := draftAction{Body: a.Body, Subject: strings.TrimSpace(a.Subject)}
	var err error
	if act.draft.To, err = addresses(a.To); err != nil {
		return draftAction{}, err
	}
	if act.draft.Cc, err = addresses(a.Cc); err != nil {
		return draftAction{}, err
	}
	if len(a.ConversationID) > 0 && string(a.ConversationID) != `""` && string(a.ConversationID) != "null" {
		id, err := mailtools.ConversationID(a.ConversationID)
		if err != nil {
			return draftAction{}, err
		}
		th, err := r.opt.Index.ReadEmailThread(ctx, id)
		if err != nil {
			return draftAction{}, fmt.Errorf("no such thread %d", id)
		}
		m, ok := answered(th)
		if !ok {
			return draftAction{}, fmt.Errorf("thread %d has no message to reply to", id)
		}
		act.AccountID, act.ThreadID, act.InReplyTo = th.AccountID, th.ID, m.MessageID
		if len(act.draft.To) == 0 {
			act.draft.To = []mail.Address{m.From}
		}
		if act.Subject == "" {
			act.Subject = replySubject(m.Subject)
		}
		refs := append(append([]string{}, m.References...), m.MessageID)
		act.draft.InReplyTo, act.draft.References = m.MessageID, dedupe(refs)
		act.draft.ConversationID, act.draft.ReplyToRemoteID = m.ConversationID, m.RemoteID
	} else {
		accts, err := r.opt.Index.Accounts(ctx)
		if err != nil || len(accts) == 0 {
			return draftAction{}, errors.New("no mail account to save a draft in")
		}
		act.AccountID = accts[0].ID
		if len(act.draft.To) == 0 || act.Subject == "" {
			return draftAction{}, errors.New("a new email needs to and subject")
		}
	}
	act.To, act.Cc = formatAddresses(act.draft.To), formatAddresses(act.draft.Cc)
	act.draft.Subject, act.draft.Body = act.Subject, act.Body
	return act, nil
}

// answered picks the message a reply answers: the newest one not written
// by the lawyer, else the newest one; drafts never.
func answered(th index.Thread) (index.ThreadMessage, bool) {
	var last index.ThreadMessage
	found := false
	for i := len(th.Messages) - 1; i >= 0; i-- {
		m := th.Messages[i]
		if m.Draft {
			continue
		}
		if !found {
			last, found = m, true
		}
		if !m.FromMe {
			return m, true
		}
	}
	return last, found
}

func replySubject(s string) string {
	s = strings.TrimSpace(s)
	if l := strings.ToLower(s); strings.HasPrefix(l, "re:") || strings.HasPrefix(l, "re ") {
		return s
	}
	return "Re: " + s
}

func addresses(in []string) ([]mail.Address, error) {
	var out []mail.Address
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		a, err := netmail.ParseAddress(s)
		if err != nil {
			return nil, fmt.Errorf("recipient %q is not an email address", s)
		}
		out = append(out, mail.Address{Name: a.Name, Email: a.Address})
	}
	return out, nil
}

// formatAddresses renders addresses as the lawyer reads them and as the
// approval records them: "Name <address>".
func formatAddresses(as []mail.Address) []string {
	var out []string
	for _, a := range as {
		if a.Name == "" {
			out = append(out, a.Email)
		} else {
			out = append(out, a.Name+" <"+a.Email+">")
		}
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// pause handles ask_user and request_approval: it raises the nudge and
// makes the agent wait, in one transaction. Bad input is refused with a
// result instead (paused false).
func (r *Runner) pause(ctx context.Context, t *Task, c llm.ToolCall, done []llm.ToolResult) (llm.ToolResult, bool, error) {
	var (
		n        store.Nudge
		approval int64
		logLine  string
		tool     string // the write an approval is for
		args     string // its canonical action
	)
	switch c.Name {
	case toolAskUser:
		var a struct {
			Question string   `json:"question"`
			Options  []string `json:"options"`
		}
		if err := json.Unmarshal(c.Input, &a); err != nil || strings.TrimSpace(a.Question) == "" {
			return errResult(c, "ask_user needs a question"), false, nil
		}
		var opts []string
		for _, o := range a.Options {
			if o = trim(o, 60); o != "" && len(opts) < 4 {
				opts = append(opts, o)
			}
		}
		detail, _ := nudge.Detail(nudge.Question{Options: opts})
		n = store.Nudge{Kind: nudge.KindQuestion, Message: trim(a.Question, 240), ActionPrompt: t.Prompt,
			Subject: nudge.TaskSubject(t.Session), Detail: detail}
		logLine = "question: " + a.Question
		if len(opts) > 0 {
			logLine += " [" + strings.Join(opts, " | ") + "]"
		}
	case toolRequestApproval:
		var a struct {
			Action string          `json:"action"`
			Args   json.RawMessage `json:"args"`
			Reason string          `json:"reason"`
		}
		if err := json.Unmarshal(c.Input, &a); err != nil {
			return errResult(c, "bad request_approval input: "+err.Error()), false, nil
		}
		tool = a.Action
		if w, ok := r.write(a.Action); ok {
			act, err := w.Resolve(ctx, a.Args)
			if err != nil {
				return errResult(c, err.Error()), false, nil
			}
			act.Approval.Tool = w.Name()
			detail, _ := nudge.Detail(act.Approval)
			n = store.Nudge{Kind: nudge.KindApproval, Message: act.Message, ActionPrompt: t.Prompt, Subject: nudge.TaskSubject(t.Session), Detail: detail}
			args, logLine = act.Canonical, "approval requested: "+act.Log
			break
		}
		if a.Action != toolCreateDraft {
			return errResult(c, fmt.Sprintf("%q cannot be approved: the actions that need approval are %s", a.Action, strings.Join(r.writeNames(), ", "))), false, nil
		}
		act, err := r.resolveDraft(ctx, t.Context, a.Args)
		if err != nil {
			return errResult(c, err.Error()), false, nil
		}
		n = approvalNudge(t, act)
		args = act.canonical()
		logLine = fmt.Sprintf("approval requested: create_draft to %s, subject %q, %d characters", strings.Join(act.To, ", "), act.Subject, len([]rune(act.Body)))
	}
	err := r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
		var err error
		if n, err = r.opt.Store.CreateNudgeTx(ctx, tx, n); err != nil {
			return err
		}
		if c.Name == toolRequestApproval {
			res, err := tx.ExecContext(ctx, `INSERT INTO approvals (session, tool, args, nudge, state, created) VALUES (?, ?, ?, ?, 'pending', ?)`,
				t.Session, tool, args, n.ID, r.opt.Now().UnixMilli())
			if err != nil {
				return err
			}
			if approval, err = res.LastInsertId(); err != nil {
				return err
			}
		}
		t.State.Pending, t.State.Done, t.State.Approval = &c, done, approval
		cur.State, cur.Result = t.State, t.Result
		cur.Phase, cur.Waiting = PhaseWaiting, n.ID
		return r.event(ctx, tx, t.Session, logLine)
	})
	if err != nil {
		return llm.ToolResult{}, false, err
	}
	t.Phase, t.Waiting = PhaseWaiting, n.ID
	if r.opt.Listener != nil {
		r.opt.Listener.NudgeCreated(n)
	}
	return llm.ToolResult{}, true, nil
}

func approvalNudge(t *Task, act draftAction) store.Nudge {
	title, msg := "New email draft", "Save this email in Drafts?"
	if act.InReplyTo != "" {
		title, msg = "Draft reply", "Save this reply in Drafts?"
	}
	d := nudge.Approval{Tool: toolCreateDraft, Title: title, Body: act.Body, Fields: []nudge.Field{
		{Label: "To", Value: strings.Join(act.To, ", ")},
		{Label: "Cc", Value: strings.Join(act.Cc, ", ")},
		{Label: "Subject", Value: act.Subject},
	}}
	detail, _ := nudge.Detail(d)
	return store.Nudge{Kind: nudge.KindApproval, Message: msg, ActionPrompt: t.Prompt, Subject: nudge.TaskSubject(t.Session), Detail: detail}
}

// answerApproval records the lawyer's decision on the pending approval
// and tells the agent.
func (r *Runner) answerApproval(ctx context.Context, tx *sql.Tx, t *Task, choice, text string) error {
	id := t.State.Approval
	var tool, args string
	if err := tx.QueryRowContext(ctx, `SELECT tool, args FROM approvals WHERE id = ? AND session = ? AND state = 'pending'`, id, t.Session).Scan(&tool, &args); err != nil {
		return fmt.Errorf("approval %d: %w", id, err)
	}
	now := r.opt.Now().UnixMilli()
	decide := func(state, newArgs string) error {
		_, err := tx.ExecContext(ctx, `UPDATE approvals SET state = ?, args = ?, decided = ? WHERE id = ?`, state, newArgs, now, id)
		return err
	}
	var result, line string
	switch {
	case choice == nudge.Accept && text == "":
		if err := decide("approved", args); err != nil {
			return err
		}
		t.State.Declined = false
		result = "Approved. Now call " + tool + " with exactly these arguments: " + approvedArgs(tool, args)
		line = "approved by the lawyer"
	case choice == nudge.Edit && text != "" && tool == toolCreateDraft:
		var act draftAction
		if err := json.Unmarshal([]byte(args), &act); err != nil {
			return fmt.Errorf("approval %d: %w", id, err)
		}
		act.Body = text
		if err := decide("approved", act.canonical()); err != nil {
			return err
		}
		t.State.Declined = false
		result = "Approved with the lawyer's edits to the body. Now call create_draft with exactly these arguments: " + approvedArgs(tool, act.canonical())
		line = "approved by the lawyer with an edited body"
	case choice == nudge.Accept || choice == nudge.Edit:
		// Typed words are a change request, not a yes.
		if err := decide("denied", args); err != nil {
			return err
		}
		result = "Not approved yet: the lawyer asked for changes: " + text + ". Revise and call request_approval again."
		line = "changes requested: " + text
	default:
		if err := decide("denied", args); err != nil {
			return err
		}
		t.State.Declined = true
		result = "The lawyer denied this. Do not do it and do not ask again: call finish_task and say plainly what was not done."
		line = "denied by the lawyer"
	}
	if err := r.event(ctx, tx, t.Session, line); err != nil {
		return err
	}
	return r.resume(t, result)
}

// approvedArgs renders an approved action as the tool's arguments: a
// write's canonical action is its own input already.
func approvedArgs(tool, canonical string) string {
	if tool != toolCreateDraft {
		return canonical
	}
	var act draftAction
	if err := json.Unmarshal([]byte(canonical), &act); err != nil {
		return canonical
	}
	a := map[string]any{"to": act.To, "subject": act.Subject, "body": act.Body}
	if act.ThreadID > 0 {
		a["conversation_id"] = strconv.FormatInt(act.ThreadID, 10)
	}
	if len(act.Cc) > 0 {
		a["cc"] = act.Cc
	}
	s, _ := mailtools.JSON(a)
	return s
}

// createDraft saves the draft, but only against an approved, unused
// approval for exactly this action; the approval is used up in the same
// breath, so one approval saves one draft.
func (r *Runner) createDraft(ctx context.Context, t *Task, raw json.RawMessage) (string, error) {
	act, err := r.resolveDraft(ctx, t.Context, raw)
	if err != nil {
		return "", err
	}
	id, err := r.useApproval(ctx, t, toolCreateDraft, act.canonical())
	if errors.Is(err, errRefused) {
		return "", fmt.Errorf("%w: create_draft changes the mailbox and needs the lawyer's approval for exactly this draft; call request_approval first", errRefused)
	}
	if err != nil {
		return "", err
	}
	if r.opt.Drafts == nil {
		r.giveBack(ctx, id)
		return "", errors.New("saving drafts is not available")
	}
	ref, err := r.opt.Drafts.CreateDraft(ctx, act.AccountID, act.draft)
	if err != nil {
		r.giveBack(ctx, id)
		return "", fmt.Errorf("the mail server did not save it: %w", err)
	}
	t.State.Drafts = append(t.State.Drafts, SavedDraft{AccountID: act.AccountID, RemoteID: ref.RemoteID, MessageID: ref.MessageID,
		Folder: ref.Folder, InReplyTo: act.InReplyTo, Subject: act.Subject})
	where := ref.Folder
	if where == "" {
		where = "Drafts"
	}
	return fmt.Sprintf("draft saved in %s (not sent)", where), nil
}

// runWrite runs one of Options.Writes, but only against an approved,
// unused approval for exactly the action its arguments resolve to.
func (r *Runner) runWrite(ctx context.Context, t *Task, w Write, raw json.RawMessage) (string, error) {
	act, err := w.Resolve(ctx, raw)
	if err != nil {
		return "", err
	}
	id, err := r.useApproval(ctx, t, w.Name(), act.Canonical)
	if errors.Is(err, errRefused) {
		return "", fmt.Errorf("%w: %s changes something outside Spirit and needs the lawyer's approval for exactly these arguments; call request_approval first", errRefused, w.Name())
	}
	if err != nil {
		return "", err
	}
	out, err := w.Do(ctx, act.Canonical)
	if err != nil {
		r.giveBack(ctx, id)
		return "", err
	}
	return out, nil
}

// useApproval finds an approved, unused approval of this session for
// exactly tool and its canonical action and uses it up in the same
// transaction, so one approval does one write. errRefused when none.
func (r *Runner) useApproval(ctx context.Context, t *Task, tool, canonical string) (int64, error) {
	var id int64
	err := r.opt.Store.Tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id FROM approvals WHERE session = ? AND tool = ? AND args = ? AND state = 'approved' ORDER BY id LIMIT 1`,
			t.Session, tool, canonical).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return errRefused
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE approvals SET state = 'used' WHERE id = ?`, id)
		return err
	})
	if err != nil && !errors.Is(err, errRefused) {
		return 0, fmt.Errorf("could not check approval: %w", err)
	}
	return id, err
}

// giveBack returns a used approval whose write did not happen, so that a
// retry can use it.
func (r *Runner) giveBack(ctx context.Context, id int64) {
	ctx = context.WithoutCancel(ctx)
	err := r.opt.Store.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE approvals SET state = 'approved' WHERE id = ? AND state = 'used'`, id)
		return err
	})
	if err != nil {
		r.opt.Log.Warn("agents: approval not given back", "approval", id, "err", err)
	}
}

// writeNames names every write tool.
func (r *Runner) writeNames() []string {
	out := []string{toolCreateDraft}
	for _, w := range r.opt.Writes {
		out = append(out, w.Name())
	}
	return out
}

// denyPendingTx withdraws the pending approvals of a session.
func denyPendingTx(ctx context.Context, tx *sql.Tx, session string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE approvals SET state = 'denied', decided = ? WHERE session = ? AND state IN ('pending', 'approved')`,
		now.UnixMilli(), session)
	return err
}
