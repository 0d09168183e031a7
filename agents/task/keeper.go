package task

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// Keeper (L1) time limits, from the design: an agent that started but
// never got going, one that is active but never finishes, and a failure
// nobody answered.
const (
	StartTimeout   = time.Hour
	ActiveTimeout  = 2 * time.Hour
	WaitTimeout    = 24 * time.Hour // a question or approval left unanswered
	EscalateAfter  = 24 * time.Hour // a failure with no response
	KeeperInterval = time.Minute
)

// KeepReport says what one keeper pass did.
type KeepReport struct {
	Failed    []string `json:"failed,omitempty"`
	Resumed   []string `json:"resumed,omitempty"`
	Escalated []string `json:"escalated,omitempty"`
}

// Keep is the keeper's pass, pure code: it resumes agents whose run
// vanished (a crash or restart) or fails them when their runs are spent,
// fails agents stuck past the time limits, and escalates a failure nobody
// answered, once. now is injected so tests can move the clock.
func (r *Runner) Keep(ctx context.Context, now time.Time) (KeepReport, error) {
	var rep KeepReport
	open, err := List(ctx, r.opt.Store, 1000, PhaseQueued, PhaseRunning, PhaseWaiting, PhaseFailed)
	if err != nil {
		return rep, fmt.Errorf("keeper: %w", err)
	}
	for _, t := range open {
		r.mu.Lock()
		_, live := r.running[t.Session]
		r.mu.Unlock()
		since := now.Sub(t.StatusAt)
		switch {
		case t.Phase == PhaseRunning && !live:
			// Its run belonged to a process that is gone.
			if t.Runs >= r.opt.Budget.MaxRuns {
				r.fail(ctx, t.Session, "its run was interrupted and no runs are left")
				rep.Failed = append(rep.Failed, t.Session)
				continue
			}
			err := r.transition(ctx, t.Session, []Phase{PhaseRunning}, func(tx *sql.Tx, cur *Task) error {
				cur.Phase = PhaseQueued
				cur.State.NotBefore = time.Time{}
				_, err := r.appendAgent(ctx, tx, store.AgentRecord{Status: store.StatusActive, Session: t.Session,
					Text: "resumed from saved state after its run was interrupted"})
				return err
			})
			if err != nil {
				return rep, fmt.Errorf("keeper: resume %s: %w", t.Session, err)
			}
			rep.Resumed = append(rep.Resumed, t.Session)
			r.poke()
		case t.Status == store.StatusStart && since > StartTimeout && t.Phase != PhaseFailed:
			r.stop(ctx, t.Session, "no progress within 1 hour of its start")
			rep.Failed = append(rep.Failed, t.Session)
		case t.Phase == PhaseWaiting && t.Status != store.StatusFailed && since > WaitTimeout:
			r.stop(ctx, t.Session, "no answer from the lawyer for 24 hours")
			rep.Failed = append(rep.Failed, t.Session)
		case t.Phase != PhaseWaiting && t.Phase != PhaseFailed && t.Status != store.StatusStart &&
			t.Status != store.StatusFailed && since > ActiveTimeout:
			r.stop(ctx, t.Session, "active for 2 hours without finishing")
			rep.Failed = append(rep.Failed, t.Session)
		case t.Status == store.StatusFailed && !t.Escalated && since > EscalateAfter:
			if err := r.escalate(ctx, t.Session); err != nil {
				return rep, fmt.Errorf("keeper: escalate %s: %w", t.Session, err)
			}
			rep.Escalated = append(rep.Escalated, t.Session)
		}
	}
	return rep, nil
}

// stop ends a stuck agent's run, if it has one here, and fails it.
func (r *Runner) stop(ctx context.Context, session, why string) {
	r.stopRun(session)
	r.fail(ctx, session, why)
}

// escalate asks the lawyer once more about a failure they never answered.
func (r *Runner) escalate(ctx context.Context, session string) error {
	var n store.Nudge
	var closed int64
	err := r.transition(ctx, session, []Phase{PhaseFailed, PhaseWaiting}, func(tx *sql.Tx, t *Task) error {
		var err error
		if closed, err = r.withdrawTx(ctx, tx, t); err != nil {
			return err
		}
		t.Escalated = true
		t.Phase = PhaseFailed
		if err := r.event(ctx, tx, session, "escalated: failed a day ago and nobody answered"); err != nil {
			return err
		}
		n, err = r.helpNudgeTx(ctx, tx, t, "it failed a day ago and still needs you")
		return err
	})
	if err != nil {
		return err
	}
	if r.opt.Listener != nil {
		if closed > 0 {
			r.opt.Listener.NudgeClosed(closed)
		}
		r.opt.Listener.NudgeCreated(n)
	}
	return nil
}

// KeepEvery runs Keep on a timer until ctx ends.
func (r *Runner) KeepEvery(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if rep, err := r.Keep(ctx, r.opt.Now()); err != nil {
				r.opt.Log.Error("agents: keeper", "err", err)
			} else if len(rep.Failed)+len(rep.Resumed)+len(rep.Escalated) > 0 {
				r.opt.Log.Info("agents: keeper acted", "failed", rep.Failed, "resumed", rep.Resumed, "escalated", rep.Escalated)
			}
		}
	}
}
