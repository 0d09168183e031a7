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

// WorkState is where a request to package work stands: queued, running,
// then exactly one outcome (done, skip or error).
type WorkState string

const (
	WorkQueued  WorkState = "queued"
	WorkRunning WorkState = "running"
	WorkDone    WorkState = "done"  // the work ran; delivered or not
	WorkSkip    WorkState = "skip"  // a gate said no; Reason says which
	WorkError   WorkState = "error" // the work failed; Reason says how
)

// Valid reports whether s is a known state.
func (s WorkState) Valid() bool {
	switch s {
	case WorkQueued, WorkRunning, WorkDone, WorkSkip, WorkError:
		return true
	}
	return false
}

// Final reports whether s is an outcome.
func (s WorkState) Final() bool { return s == WorkDone || s == WorkSkip || s == WorkError }

// WorkEventSource is the world log source of every work outcome; the
// identifier is WorkIdentifier(id).
const WorkEventSource = "work"

// WorkIdentifier is the world log identifier of work run id, and the
// subject of the nudge its delivery becomes.
func WorkIdentifier(id int64) string { return "work-" + strconv.FormatInt(id, 10) }

// RoutineEventSource is the world log source of changes to routines; the
// identifier is RoutineIdentifier(id).
const RoutineEventSource = "routines"

// RoutineIdentifier is the world log identifier of routine id.
func RoutineIdentifier(id int64) string { return "routine:" + strconv.FormatInt(id, 10) }

// ErrWorkFinished means the work run already has its outcome.
var ErrWorkFinished = errors.New("work run already has its outcome")

// WorkRun is one request to package work as stored.
type WorkRun struct {
	ID       int64     `json:"id"`
	Source   string    `json:"source"`
	Prompt   string    `json:"prompt"`
	DedupKey string    `json:"dedup_key,omitempty"`
	State    WorkState `json:"state"`
	Reason   string    `json:"reason,omitempty"`
	Message  string    `json:"message,omitempty"`
	Action   string    `json:"action,omitempty"`
	// Delivered is when the output gate let Message through; nil if it
	// did not (yet).
	Delivered  *time.Time `json:"delivered,omitempty"`
	NudgeID    int64      `json:"nudge_id,omitempty"`
	Created    time.Time  `json:"created"`
	Started    *time.Time `json:"started,omitempty"`
	Finished   *time.Time `json:"finished,omitempty"`
	DurationMS int64      `json:"duration_ms"`
	TokensIn   int        `json:"tokens_in"`
	TokensOut  int        `json:"tokens_out"`
	CostUSD    float64    `json:"cost_usd"`
}

// NewWorkRun is a request as accepted.
type NewWorkRun struct {
	Source, Prompt, DedupKey string
}

// WorkOutcome is how a run ended. Text is its line in the world log.
type WorkOutcome struct {
	State           WorkState // done, skip or error
	Reason          string
	Message, Action string // what notify_user asked for, kept whether delivered or not
	NudgeID         int64
	// Undeliver takes back the delivery claim (ClaimWorkDelivery): the
	// delivery was tried and failed, so a later run may say it again.
	// Without it, a claim stays, even when the run ends in an error.
	Undeliver  bool
	DurationMS int64
	TokensIn   int
	TokensOut  int
	CostUSD    float64
	Text       string
}

// DeliveryClaim asks to deliver a run's message. Decide sees the runs
// delivered since RunsSince and the nudges created since NudgesSince, and
// returns "" to let the message through or the reason not to. It runs
// inside the write transaction, so two runs cannot both pass a check that
// only one of them should: keep it quick and pure.
type DeliveryClaim struct {
	Message, Action string
	RunsSince       time.Time
	NudgesSince     time.Time
	Decide          func(delivered []WorkRun, nudges []Nudge) string
}

const workCols = `id, source, prompt, dedup_key, state, reason, message, action, delivered, nudge,
	created, started, finished, duration_ms, tokens_in, tokens_out, cost_usd`

// CreateWorkRun records an accepted request as queued.
func (s *Store) CreateWorkRun(ctx context.Context, nr NewWorkRun) (WorkRun, error) {
	if strings.TrimSpace(nr.Source) == "" {
		return WorkRun{}, fmt.Errorf("create work run: %w: empty source", ErrInvalid)
	}
	_, ms := s.now()
	var out WorkRun
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO work_runs (source, prompt, dedup_key, state, created)
			VALUES (?, ?, ?, 'queued', ?)`, nr.Source, nr.Prompt, nr.DedupKey, ms)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		out, err = workRunTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return WorkRun{}, fmt.Errorf("create work run: %w", err)
	}
	return out, nil
}

// StartWorkRun moves a queued run to running. A run that is not queued
// gives ErrWorkFinished if it has its outcome, ErrInvalid if it runs.
func (s *Store) StartWorkRun(ctx context.Context, id int64) (WorkRun, error) {
	_, ms := s.now()
	var out WorkRun
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := workRunTx(ctx, tx, id)
		if err != nil {
			return err
		}
		switch {
		case r.State.Final():
			return ErrWorkFinished
		case r.State != WorkQueued:
			return fmt.Errorf("%w: run is %s", ErrInvalid, r.State)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE work_runs SET state = 'running', started = ? WHERE id = ?`, ms, id); err != nil {
			return err
		}
		out, err = workRunTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return WorkRun{}, fmt.Errorf("start work run %d: %w", id, err)
	}
	return out, nil
}

// ClaimWorkDelivery decides, in one write transaction, whether run id may
// deliver c.Message (see DeliveryClaim). When it may, the run is marked
// delivered with the message before this returns, so that a run that
// stops before the delivery is done still blocks a duplicate. The reason
// is "" when the message may go out.
func (s *Store) ClaimWorkDelivery(ctx context.Context, id int64, c DeliveryClaim) (string, error) {
	if strings.TrimSpace(c.Message) == "" || c.Decide == nil {
		return "", fmt.Errorf("claim delivery %d: %w: message and decide are required", id, ErrInvalid)
	}
	_, ms := s.now()
	var reason string
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := workRunTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if r.State.Final() {
			return ErrWorkFinished
		}
		if r.Delivered != nil {
			return fmt.Errorf("%w: run already delivered", ErrInvalid)
		}
		runs, err := queryWorkRuns(ctx, tx, `SELECT `+workCols+` FROM work_runs
			WHERE delivered IS NOT NULL AND delivered >= ? AND id <> ? ORDER BY delivered`, c.RunsSince.UnixMilli(), id)
		if err != nil {
			return err
		}
		nudges, err := nudgesSince(ctx, tx, c.NudgesSince)
		if err != nil {
			return err
		}
		if reason = c.Decide(runs, nudges); reason != "" {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE work_runs SET delivered = ?, message = ?, action = ? WHERE id = ?`,
			ms, c.Message, c.Action, id)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("claim delivery %d: %w", id, err)
	}
	return reason, nil
}

// FinishWorkRun records run id's outcome and its line in the world log, in
// one transaction. A run has one outcome: a second gives ErrWorkFinished.
func (s *Store) FinishWorkRun(ctx context.Context, id int64, o WorkOutcome) (WorkRun, Entry, error) {
	if !o.State.Final() {
		return WorkRun{}, Entry{}, fmt.Errorf("finish work run %d: %w: state %q", id, ErrInvalid, o.State)
	}
	if strings.TrimSpace(o.Text) == "" {
		return WorkRun{}, Entry{}, fmt.Errorf("finish work run %d: %w: empty text", id, ErrInvalid)
	}
	_, ms := s.now()
	var (
		out WorkRun
		e   Entry
	)
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := workRunTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if r.State.Final() {
			return ErrWorkFinished
		}
		msg, action := o.Message, o.Action
		if r.Delivered != nil { // the claimed message is the one that went out
			msg, action = r.Message, r.Action
		}
		var nudge sql.NullInt64
		if o.NudgeID > 0 {
			nudge = sql.NullInt64{Int64: o.NudgeID, Valid: true}
		}
		_, err = tx.ExecContext(ctx, `UPDATE work_runs SET state = ?, reason = ?, message = ?, action = ?, nudge = ?,
			delivered = CASE WHEN ? THEN NULL ELSE delivered END,
			started = coalesce(started, ?), finished = ?, duration_ms = ?, tokens_in = ?, tokens_out = ?, cost_usd = ?
			WHERE id = ?`,
			o.State, o.Reason, msg, action, nudge, o.Undeliver, ms, ms, max(o.DurationMS, 0), max(o.TokensIn, 0), max(o.TokensOut, 0), o.CostUSD, id)
		if err != nil {
			return err
		}
		if e, err = s.AppendEventTx(ctx, tx, Event{Source: WorkEventSource, Identifier: WorkIdentifier(id), Text: o.Text}); err != nil {
			return err
		}
		out, err = workRunTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return WorkRun{}, Entry{}, fmt.Errorf("finish work run %d: %w", id, err)
	}
	return out, e, nil
}

// WorkRun returns one run, or ErrNotFound.
func (s *Store) WorkRun(ctx context.Context, id int64) (WorkRun, error) {
	rs, err := queryWorkRuns(ctx, s.r, `SELECT `+workCols+` FROM work_runs WHERE id = ?`, id)
	if err != nil {
		return WorkRun{}, fmt.Errorf("work run %d: %w", id, classify(ctx, err))
	}
	if len(rs) == 0 {
		return WorkRun{}, fmt.Errorf("work run %d: %w", id, ErrNotFound)
	}
	return rs[0], nil
}

// WorkRuns returns up to limit runs, newest first; limit <= 0 means all.
func (s *Store) WorkRuns(ctx context.Context, limit int) ([]WorkRun, error) {
	rs, err := queryWorkRuns(ctx, s.r, `SELECT `+workCols+` FROM work_runs ORDER BY id DESC LIMIT ?`, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("work runs: %w", classify(ctx, err))
	}
	return rs, nil
}

// OpenWorkRuns returns the runs without an outcome, oldest first: after a
// restart, the ones a stopped Spirit left.
func (s *Store) OpenWorkRuns(ctx context.Context) ([]WorkRun, error) {
	rs, err := queryWorkRuns(ctx, s.r, `SELECT `+workCols+` FROM work_runs
		WHERE state IN ('queued', 'running') ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("open work runs: %w", classify(ctx, err))
	}
	return rs, nil
}

func workRunTx(ctx context.Context, q querier, id int64) (WorkRun, error) {
	rs, err := queryWorkRuns(ctx, q, `SELECT `+workCols+` FROM work_runs WHERE id = ?`, id)
	if err != nil {
		return WorkRun{}, err
	}
	if len(rs) == 0 {
		return WorkRun{}, ErrNotFound
	}
	return rs[0], nil
}

func queryWorkRuns(ctx context.Context, q querier, query string, args ...any) ([]WorkRun, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var rs []WorkRun
	for rows.Next() {
		var (
			r                                   WorkRun
			created                             int64
			delivered, nudge, started, finished sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &r.Source, &r.Prompt, &r.DedupKey, &r.State, &r.Reason, &r.Message, &r.Action,
			&delivered, &nudge, &created, &started, &finished, &r.DurationMS, &r.TokensIn, &r.TokensOut, &r.CostUSD); err != nil {
			return nil, err
		}
		r.Created = time.UnixMilli(created)
		r.Delivered, r.Started, r.Finished = msTime(delivered), msTime(started), msTime(finished)
		r.NudgeID = nudge.Int64
		rs = append(rs, r)
	}
	return rs, rows.Err()
}

func msTime(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := time.UnixMilli(v.Int64)
	return &t
}

// nudgesSince returns the nudges created at or after since, oldest first.
func nudgesSince(ctx context.Context, q querier, since time.Time) ([]Nudge, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+nudgeCols+` FROM nudges WHERE created >= ? ORDER BY id`, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ns []Nudge
	for rows.Next() {
		n, err := scanNudge(rows)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	return ns, rows.Err()
}

// Routine is a job the lawyer scheduled: a 5-field cron spec, read in the
// lawyer's time zone by package work, and the prompt to run then.
type Routine struct {
	ID      int64     `json:"id"`
	Cron    string    `json:"cron"`
	Prompt  string    `json:"prompt"`
	Enabled bool      `json:"enabled"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// LastRun is the latest scheduled time handled (run, skipped, or passed
	// over when the routine was changed or enabled); nil if none yet.
	LastRun *time.Time `json:"last_run,omitempty"`
}

// NewRoutine is what CreateRoutine needs. The store does not read the
// cron spec: package work checks it first.
type NewRoutine struct {
	Cron, Prompt string
	Disabled     bool
}

// RoutineUpdate is an edit; nil fields stay.
type RoutineUpdate struct {
	Cron    *string
	Prompt  *string
	Enabled *bool
}

const routineCols = `id, cron, prompt, enabled, created, updated, last_run`

// CreateRoutine stores a new routine, enabled unless nr.Disabled.
func (s *Store) CreateRoutine(ctx context.Context, nr NewRoutine) (Routine, error) {
	spec, prompt := strings.TrimSpace(nr.Cron), strings.TrimSpace(nr.Prompt)
	if spec == "" || prompt == "" {
		return Routine{}, fmt.Errorf("create routine: %w: cron and prompt are required", ErrInvalid)
	}
	_, ms := s.now()
	var out Routine
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO routines (cron, prompt, enabled, created, updated)
			VALUES (?, ?, ?, ?, ?)`, spec, prompt, !nr.Disabled, ms, ms)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if out, err = routineTx(ctx, tx, id); err != nil {
			return err
		}
		return s.logRoutine(ctx, tx, id, fmt.Sprintf("created: %q %s%s", spec, prompt, offNote(out.Enabled)))
	})
	if err != nil {
		return Routine{}, fmt.Errorf("create routine: %w", err)
	}
	return out, nil
}

func offNote(enabled bool) string {
	if enabled {
		return ""
	}
	return " (disabled)"
}

// Routine returns one routine, or ErrNotFound.
func (s *Store) Routine(ctx context.Context, id int64) (Routine, error) {
	r, err := routineTx(ctx, s.r, id)
	if errors.Is(err, ErrNotFound) {
		return Routine{}, fmt.Errorf("routine %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Routine{}, fmt.Errorf("routine %d: %w", id, classify(ctx, err))
	}
	return r, nil
}

// Routines returns every routine, oldest first.
func (s *Store) Routines(ctx context.Context) ([]Routine, error) {
	rs, err := queryRoutines(ctx, s.r, `SELECT `+routineCols+` FROM routines ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("routines: %w", classify(ctx, err))
	}
	return rs, nil
}

// UpdateRoutine edits a routine. A new schedule, or enabling a disabled
// routine, starts it afresh from now: the times it would have had before
// are not caught up.
func (s *Store) UpdateRoutine(ctx context.Context, id int64, u RoutineUpdate) (Routine, error) {
	_, ms := s.now()
	var out Routine
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := routineTx(ctx, tx, id)
		if err != nil {
			return err
		}
		spec, prompt, enabled := r.Cron, r.Prompt, r.Enabled
		var changes []string
		if u.Cron != nil {
			if spec = strings.TrimSpace(*u.Cron); spec == "" {
				return fmt.Errorf("%w: empty cron", ErrInvalid)
			}
			if spec != r.Cron {
				changes = append(changes, fmt.Sprintf("schedule %q", spec))
			}
		}
		if u.Prompt != nil {
			if prompt = strings.TrimSpace(*u.Prompt); prompt == "" {
				return fmt.Errorf("%w: empty prompt", ErrInvalid)
			}
			if prompt != r.Prompt {
				changes = append(changes, "prompt "+prompt)
			}
		}
		if u.Enabled != nil && *u.Enabled != r.Enabled {
			enabled = *u.Enabled
			changes = append(changes, map[bool]string{true: "enabled", false: "disabled"}[enabled])
		}
		if len(changes) == 0 {
			out = r
			return nil
		}
		afresh := spec != r.Cron || (enabled && !r.Enabled)
		_, err = tx.ExecContext(ctx, `UPDATE routines SET cron = ?, prompt = ?, enabled = ?, updated = ?,
			last_run = CASE WHEN ? THEN max(coalesce(last_run, 0), ?) ELSE last_run END WHERE id = ?`,
			spec, prompt, enabled, ms, afresh, ms, id)
		if err != nil {
			return err
		}
		if out, err = routineTx(ctx, tx, id); err != nil {
			return err
		}
		return s.logRoutine(ctx, tx, id, "changed: "+strings.Join(changes, ", "))
	})
	if err != nil {
		return Routine{}, fmt.Errorf("update routine %d: %w", id, err)
	}
	return out, nil
}

// DeleteRoutine removes a routine; its past runs stay in work_runs and the
// world log.
func (s *Store) DeleteRoutine(ctx context.Context, id int64) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		r, err := routineTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM routines WHERE id = ?`, id); err != nil {
			return err
		}
		return s.logRoutine(ctx, tx, id, fmt.Sprintf("removed: %q %s", r.Cron, r.Prompt))
	})
	if err != nil {
		return fmt.Errorf("delete routine %d: %w", id, err)
	}
	return nil
}

// MarkRoutineRun records that the routine's scheduled time slot was
// handled. LastRun only moves forward: a slow run that ends after a later
// slot was skipped as busy does not bring that slot back.
func (s *Store) MarkRoutineRun(ctx context.Context, id int64, slot time.Time) (Routine, error) {
	var out Routine
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE routines SET last_run = max(coalesce(last_run, 0), ?) WHERE id = ?`,
			slot.UnixMilli(), id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return ErrNotFound
		}
		out, err = routineTx(ctx, tx, id)
		return err
	})
	if err != nil {
		return Routine{}, fmt.Errorf("mark routine %d run: %w", id, err)
	}
	return out, nil
}

func (s *Store) logRoutine(ctx context.Context, tx *sql.Tx, id int64, text string) error {
	_, err := s.AppendEventTx(ctx, tx, Event{Source: RoutineEventSource, Identifier: RoutineIdentifier(id), Text: text})
	return err
}

func routineTx(ctx context.Context, q querier, id int64) (Routine, error) {
	rs, err := queryRoutines(ctx, q, `SELECT `+routineCols+` FROM routines WHERE id = ?`, id)
	if err != nil {
		return Routine{}, err
	}
	if len(rs) == 0 {
		return Routine{}, ErrNotFound
	}
	return rs[0], nil
}

func queryRoutines(ctx context.Context, q querier, query string, args ...any) ([]Routine, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var rs []Routine
	for rows.Next() {
		var (
			r                Routine
			created, updated int64
			last             sql.NullInt64
		)
		if err := rows.Scan(&r.ID, &r.Cron, &r.Prompt, &r.Enabled, &created, &updated, &last); err != nil {
			return nil, err
		}
		r.Created, r.Updated, r.LastRun = time.UnixMilli(created), time.UnixMilli(updated), msTime(last)
		rs = append(rs, r)
	}
	return rs, rows.Err()
}

// DeliveredWorkRuns returns the runs whose message the output gate let
// through at or after since, oldest delivery first.
func (s *Store) DeliveredWorkRuns(ctx context.Context, since time.Time) ([]WorkRun, error) {
	rs, err := queryWorkRuns(ctx, s.r, `SELECT `+workCols+` FROM work_runs
		WHERE delivered IS NOT NULL AND delivered >= ? ORDER BY delivered`, since.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("delivered work runs: %w", classify(ctx, err))
	}
	return rs, nil
}

// NudgesSince returns the nudges created at or after since, oldest first.
func (s *Store) NudgesSince(ctx context.Context, since time.Time) ([]Nudge, error) {
	ns, err := nudgesSince(ctx, s.r, since)
	if err != nil {
		return nil, fmt.Errorf("nudges since %s: %w", since.Format(time.RFC3339), classify(ctx, err))
	}
	return ns, nil
}

// WorkPrune says what PruneWorkRuns deletes: finished runs that ended
// before RunsBefore, and the prompts of Source's finished runs that ended
// before PromptsBefore (a heartbeat's prompt is written by code, up to
// about 18 KB, and says nothing a day later that the world log does not).
type WorkPrune struct {
	RunsBefore    time.Time
	Source        string
	PromptsBefore time.Time
}

// PruneWorkRuns applies p in one transaction and says how many runs it
// deleted and how many prompts it cleared. Runs still queued or running
// are never touched: a restart must find them.
func (s *Store) PruneWorkRuns(ctx context.Context, p WorkPrune) (deleted, cleared int64, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM work_runs WHERE finished IS NOT NULL AND finished < ?`, p.RunsBefore.UnixMilli())
		if err != nil {
			return err
		}
		if deleted, err = res.RowsAffected(); err != nil {
			return err
		}
		if p.Source == "" {
			return nil
		}
		res, err = tx.ExecContext(ctx, `UPDATE work_runs SET prompt = ''
			WHERE source = ? AND prompt <> '' AND finished IS NOT NULL AND finished < ?`, p.Source, p.PromptsBefore.UnixMilli())
		if err != nil {
			return err
		}
		cleared, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("prune work runs: %w", err)
	}
	return deleted, cleared, nil
}
