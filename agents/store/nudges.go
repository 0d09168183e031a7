package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

const nudgeCols = `id, created, kind, message, action_prompt, state, answer, updated, subject, detail`

// CreateNudge records a nudge as shown and returns it as stored. ID, State,
// Answer and the times of n are ignored.
func (s *Store) CreateNudge(ctx context.Context, n Nudge) (Nudge, error) {
	var out Nudge
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.CreateNudgeTx(ctx, tx, n)
		return err
	})
	if err != nil {
		return Nudge{}, fmt.Errorf("create nudge: %w", err)
	}
	return out, nil
}

// CreateNudgeTx is CreateNudge inside tx (see Tx), for a nudge that must
// appear together with the state change it asks about.
func (s *Store) CreateNudgeTx(ctx context.Context, tx *sql.Tx, n Nudge) (Nudge, error) {
	if strings.TrimSpace(n.Kind) == "" || strings.TrimSpace(n.Message) == "" {
		return Nudge{}, fmt.Errorf("%w: kind and message are required", ErrInvalid)
	}
	ts, ms := s.now()
	out := Nudge{Created: ts, Kind: n.Kind, Message: n.Message, ActionPrompt: n.ActionPrompt, Subject: n.Subject,
		Detail: n.Detail, State: NudgeShown, Updated: ts}
	res, err := tx.ExecContext(ctx, `INSERT INTO nudges (created, kind, message, action_prompt, state, answer, updated, subject, detail)
		VALUES (?, ?, ?, ?, 'shown', '', ?, ?, ?)`, ms, n.Kind, n.Message, n.ActionPrompt, ms, n.Subject, n.Detail)
	if err != nil {
		return Nudge{}, err
	}
	out.ID, err = res.LastInsertId()
	return out, err
}

// CloseNudgeTx closes a shown or snoozed nudge inside tx, e.g. when what
// it asked about ended; a nudge already closed is left as it is.
func (s *Store) CloseNudgeTx(ctx context.Context, tx *sql.Tx, id int64, state NudgeState) error {
	if !state.Valid() || state == NudgeShown || state == NudgeSnoozed {
		return fmt.Errorf("%w: close nudge %d as %q", ErrInvalid, id, state)
	}
	_, ms := s.now()
	_, err := tx.ExecContext(ctx, `UPDATE nudges SET state = ?, updated = ? WHERE id = ? AND state IN ('shown', 'snoozed')`,
		state, ms, id)
	return err
}

// Nudge returns one nudge, or ErrNotFound.
func (s *Store) Nudge(ctx context.Context, id int64) (Nudge, error) {
	n, err := scanNudge(s.r.QueryRowContext(ctx, `SELECT `+nudgeCols+` FROM nudges WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Nudge{}, fmt.Errorf("nudge %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Nudge{}, fmt.Errorf("nudge %d: %w", id, classify(ctx, err))
	}
	return n, nil
}

// Nudges returns the nudges in any of states, newest first; all nudges
// when no state is given.
func (s *Store) Nudges(ctx context.Context, states ...NudgeState) ([]Nudge, error) {
	q := `SELECT ` + nudgeCols + ` FROM nudges`
	args := make([]any, 0, len(states))
	if len(states) > 0 {
		for _, st := range states {
			if !st.Valid() {
				return nil, fmt.Errorf("nudges: %w: state %q", ErrInvalid, st)
			}
			args = append(args, st)
		}
		q += ` WHERE state IN (` + placeholders(len(states)) + `)`
	}
	q += ` ORDER BY id DESC`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("nudges: %w", classify(ctx, err))
	}
	defer rows.Close()
	var ns []Nudge
	for rows.Next() {
		n, err := scanNudge(rows)
		if err != nil {
			return nil, fmt.Errorf("nudges: %w", err)
		}
		ns = append(ns, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("nudges: %w", classify(ctx, err))
	}
	return ns, nil
}

// RespondNudge records what became of a nudge: accepted, dismissed,
// snoozed or expired, with the lawyer's answer if any. Only a shown or
// snoozed nudge can change; a closed one gives ErrNudgeClosed, an unknown
// id ErrNotFound.
func (s *Store) RespondNudge(ctx context.Context, id int64, state NudgeState, answer string) (Nudge, error) {
	if !state.Valid() || state == NudgeShown {
		return Nudge{}, fmt.Errorf("respond to nudge %d: %w: state %q", id, ErrInvalid, state)
	}
	_, ms := s.now()
	var out Nudge
	err := s.write(ctx, func(tx *sql.Tx) error {
		n, err := scanNudge(tx.QueryRowContext(ctx, `SELECT `+nudgeCols+` FROM nudges WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if n.State != NudgeShown && n.State != NudgeSnoozed {
			return fmt.Errorf("%w: it is %s", ErrNudgeClosed, n.State)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE nudges SET state = ?, answer = ?, updated = ? WHERE id = ?`,
			state, answer, ms, id); err != nil {
			return err
		}
		n.State, n.Answer, n.Updated = state, answer, time.UnixMilli(ms)
		out = n
		return nil
	})
	if err != nil {
		return Nudge{}, fmt.Errorf("respond to nudge %d: %w", id, err)
	}
	return out, nil
}

func scanNudge(sc scanner) (Nudge, error) {
	var (
		n                Nudge
		created, updated int64
	)
	err := sc.Scan(&n.ID, &created, &n.Kind, &n.Message, &n.ActionPrompt, &n.State, &n.Answer, &updated, &n.Subject, &n.Detail)
	if err != nil {
		return Nudge{}, err
	}
	n.Created, n.Updated = time.UnixMilli(created), time.UnixMilli(updated)
	return n, nil
}
