package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// CommitmentState is where a commitment heard in a call stands.
type CommitmentState string

const (
	// CommitmentOpen waits in the Reminders window: no time was said, or
	// a reminder was not offered (quiet hours, the hourly cap).
	CommitmentOpen CommitmentState = "open"
	// CommitmentOffered has a bubble offering a reminder.
	CommitmentOffered CommitmentState = "offered"
	// CommitmentReminded has a reminder (Reminder names it).
	CommitmentReminded CommitmentState = "reminded"
	// CommitmentDone was marked done by the lawyer.
	CommitmentDone CommitmentState = "done"
	// CommitmentDismissed: the lawyer dismissed the offer.
	CommitmentDismissed CommitmentState = "dismissed"
	// CommitmentSuperseded was an open commitment said again with a time.
	CommitmentSuperseded CommitmentState = "superseded"
)

// Valid reports whether s is a known state.
func (s CommitmentState) Valid() bool {
	switch s {
	case CommitmentOpen, CommitmentOffered, CommitmentReminded, CommitmentDone, CommitmentDismissed, CommitmentSuperseded:
		return true
	}
	return false
}

// Closed reports whether a commitment in state s is settled: nothing more
// is offered or listed for it.
func (s CommitmentState) Closed() bool { return s != CommitmentOpen && s != CommitmentOffered }

// CommitmentEventSource is the world log source of what becomes of a
// commitment; the identifier is CommitmentIdentifier(id).
const CommitmentEventSource = "commitments"

// CommitmentIdentifier is the world log identifier of commitment id.
func CommitmentIdentifier(id int64) string { return "commitment-" + strconv.FormatInt(id, 10) }

// ErrCommitmentClosed means the commitment is already settled (reminded,
// done, dismissed or superseded).
var ErrCommitmentClosed = errors.New("commitment is closed")

// Commitment is something the lawyer said they would do, as stored.
type Commitment struct {
	ID    int64     `json:"id"`
	Key   string    `json:"key"`
	Task  string    `json:"task"`
	Words string    `json:"words"` // the utterance it was heard in
	Heard time.Time `json:"heard"`
	// Deadline is the time promised; nil for an open commitment.
	Deadline   *time.Time      `json:"deadline,omitempty"`
	State      CommitmentState `json:"state"`
	ReminderID int64           `json:"reminder_id,omitempty"` // the reminder set for it; 0: none
	NudgeID    int64           `json:"nudge_id,omitempty"`    // the nudge that offered it; 0: none
	Created    time.Time       `json:"created"`
	Updated    time.Time       `json:"updated"`
}

// NewCommitment is a commitment as heard.
type NewCommitment struct {
	Key, Task, Words string
	Heard            time.Time  // zero: the store's clock
	Deadline         *time.Time // nil: no time was said
}

const commitmentCols = `id, key, task, words, heard, deadline, state, reminder, nudge, created, updated`

// AddCommitment keeps a commitment as open, once per Key: when one with
// the same key is stored already, that one is returned as it is and added
// is false.
func (s *Store) AddCommitment(ctx context.Context, nc NewCommitment) (c Commitment, added bool, err error) {
	task := strings.TrimSpace(nc.Task)
	if strings.TrimSpace(nc.Key) == "" || task == "" {
		return Commitment{}, false, fmt.Errorf("add commitment: %w: key and task are required", ErrInvalid)
	}
	if nc.Deadline != nil && nc.Deadline.IsZero() {
		return Commitment{}, false, fmt.Errorf("add commitment: %w: zero deadline", ErrInvalid)
	}
	ts, ms := s.now()
	heard := nc.Heard
	if heard.IsZero() {
		heard = ts
	}
	var deadline sql.NullInt64
	if nc.Deadline != nil {
		deadline = sql.NullInt64{Int64: nc.Deadline.UnixMilli(), Valid: true}
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO commitments (key, task, words, heard, deadline, state, created, updated)
			VALUES (?, ?, ?, ?, ?, 'open', ?, ?) ON CONFLICT (key) DO NOTHING`,
			nc.Key, task, nc.Words, heard.UnixMilli(), deadline, ms, ms)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		added = n == 1
		c, err = scanCommitment(tx.QueryRowContext(ctx, `SELECT `+commitmentCols+` FROM commitments WHERE key = ?`, nc.Key))
		return err
	})
	if err != nil {
		return Commitment{}, false, fmt.Errorf("add commitment: %w", err)
	}
	return c, added, nil
}

// Commitment returns one commitment, or ErrNotFound.
func (s *Store) Commitment(ctx context.Context, id int64) (Commitment, error) {
	return s.commitmentWhere(ctx, "id = ?", id)
}

// CommitmentByKey returns the commitment with key, or ErrNotFound.
func (s *Store) CommitmentByKey(ctx context.Context, key string) (Commitment, error) {
	return s.commitmentWhere(ctx, "key = ?", key)
}

func (s *Store) commitmentWhere(ctx context.Context, where string, arg any) (Commitment, error) {
	c, err := scanCommitment(s.r.QueryRowContext(ctx, `SELECT `+commitmentCols+` FROM commitments WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Commitment{}, fmt.Errorf("commitment %v: %w", arg, ErrNotFound)
	}
	if err != nil {
		return Commitment{}, fmt.Errorf("commitment %v: %w", arg, classify(ctx, err))
	}
	return c, nil
}

// OpenCommitments returns up to limit open commitments (0: all), the
// latest heard first: what the Reminders window lists.
func (s *Store) OpenCommitments(ctx context.Context, limit int) ([]Commitment, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+commitmentCols+` FROM commitments
		WHERE state = 'open' ORDER BY heard DESC, id DESC LIMIT ?`, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("open commitments: %w", classify(ctx, err))
	}
	defer rows.Close()
	var out []Commitment
	for rows.Next() {
		c, err := scanCommitment(rows)
		if err != nil {
			return nil, fmt.Errorf("open commitments: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("open commitments: %w", classify(ctx, err))
	}
	return out, nil
}

// OfferCommitment records nudge n, which offers a reminder for open
// commitment id, and marks the commitment offered, in one transaction: a
// commitment is offered at most once. A commitment that is not open gives
// ErrCommitmentClosed (or ErrInvalid when it is offered already).
func (s *Store) OfferCommitment(ctx context.Context, id int64, n Nudge) (Nudge, error) {
	var out Nudge
	err := s.write(ctx, func(tx *sql.Tx) error {
		c, err := commitmentTx(ctx, tx, id)
		if err != nil {
			return err
		}
		switch {
		case c.State == CommitmentOffered:
			return fmt.Errorf("%w: commitment %d is offered already", ErrInvalid, id)
		case c.State != CommitmentOpen:
			return fmt.Errorf("%w: it is %s", ErrCommitmentClosed, c.State)
		}
		if out, err = s.CreateNudgeTx(ctx, tx, n); err != nil {
			return err
		}
		_, ms := s.now()
		_, err = tx.ExecContext(ctx, `UPDATE commitments SET state = 'offered', nudge = ?, updated = ? WHERE id = ?`,
			out.ID, ms, id)
		return err
	})
	if err != nil {
		return Nudge{}, fmt.Errorf("offer commitment %d: %w", id, err)
	}
	return out, nil
}

// CloseCommitment settles an open or offered commitment: reminded (with
// the reminder set for it), done, dismissed or superseded. A commitment
// already settled gives ErrCommitmentClosed, an unknown id ErrNotFound.
func (s *Store) CloseCommitment(ctx context.Context, id int64, state CommitmentState, reminderID int64) (Commitment, error) {
	if !state.Valid() || !state.Closed() || (state == CommitmentReminded) != (reminderID > 0) {
		return Commitment{}, fmt.Errorf("close commitment %d: %w: %s with reminder %d", id, ErrInvalid, state, reminderID)
	}
	var out Commitment
	err := s.write(ctx, func(tx *sql.Tx) error {
		c, err := commitmentTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if c.State.Closed() {
			return fmt.Errorf("%w: it is %s", ErrCommitmentClosed, c.State)
		}
		_, ms := s.now()
		rem := sql.NullInt64{Int64: reminderID, Valid: reminderID > 0}
		if _, err := tx.ExecContext(ctx, `UPDATE commitments SET state = ?, reminder = ?, updated = ? WHERE id = ?`,
			state, rem, ms, id); err != nil {
			return err
		}
		out, err = commitmentTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return Commitment{}, fmt.Errorf("close commitment %d: %w", id, err)
	}
	return out, nil
}

func commitmentTx(ctx context.Context, tx *sql.Tx, id int64) (Commitment, error) {
	c, err := scanCommitment(tx.QueryRowContext(ctx, `SELECT `+commitmentCols+` FROM commitments WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Commitment{}, fmt.Errorf("commitment %d: %w", id, ErrNotFound)
	}
	return c, err
}

func scanCommitment(sc scanner) (Commitment, error) {
	var (
		c                         Commitment
		heard, created, updated   int64
		deadline, reminder, nudge sql.NullInt64
	)
	if err := sc.Scan(&c.ID, &c.Key, &c.Task, &c.Words, &heard, &deadline, &c.State, &reminder, &nudge,
		&created, &updated); err != nil {
		return Commitment{}, err
	}
	c.Heard, c.Created, c.Updated = time.UnixMilli(heard), time.UnixMilli(created), time.UnixMilli(updated)
	if deadline.Valid {
		d := time.UnixMilli(deadline.Int64)
		c.Deadline = &d
	}
	c.ReminderID, c.NudgeID = reminder.Int64, nudge.Int64
	return c, nil
}
