package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

const entryCols = `id, ts, kind, source, identifier, status, session, text, need`

// querier is what *sql.DB and *sql.Tx have in common for reads.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// AppendEvent appends a fact to the world log and returns it as stored,
// once it is durably committed.
func (s *Store) AppendEvent(ctx context.Context, ev Event) (Entry, error) {
	var e Entry
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		e, err = s.AppendEventTx(ctx, tx, ev)
		return err
	})
	if err != nil {
		return Entry{}, fmt.Errorf("append event: %w", err)
	}
	return e, nil
}

// AppendEventTx appends ev inside tx (see Tx), so a fact is logged in the
// same transaction as the change it records.
func (s *Store) AppendEventTx(ctx context.Context, tx *sql.Tx, ev Event) (Entry, error) {
	if strings.TrimSpace(ev.Source) == "" {
		return Entry{}, fmt.Errorf("%w: empty source", ErrInvalid)
	}
	ts, ms := s.now()
	e := Entry{TS: ts, Kind: KindEvent, Source: ev.Source, Identifier: ev.Identifier, Text: ev.Text}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO world (ts, kind, source, identifier, text) VALUES (?, 'event', ?, ?, ?)`,
		ms, ev.Source, ev.Identifier, ev.Text)
	if err != nil {
		return Entry{}, err
	}
	e.ID, err = res.LastInsertId()
	return e, err
}

// AppendAgent appends one lifecycle step of an agent session and updates
// the session's latest state in the same transaction. A record without Need
// keeps the need given earlier (usually with start). The store does not
// police the order of steps: the log records what agents reported.
func (s *Store) AppendAgent(ctx context.Context, rec AgentRecord) (Entry, error) {
	var e Entry
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		e, err = s.AppendAgentTx(ctx, tx, rec)
		return err
	})
	if err != nil {
		return Entry{}, fmt.Errorf("append agent: %w", err)
	}
	return e, nil
}

// AppendAgentTx is AppendAgent inside tx (see Tx).
func (s *Store) AppendAgentTx(ctx context.Context, tx *sql.Tx, rec AgentRecord) (Entry, error) {
	if !rec.Status.Valid() {
		return Entry{}, fmt.Errorf("%w: status %q", ErrInvalid, rec.Status)
	}
	if strings.TrimSpace(rec.Session) == "" {
		return Entry{}, fmt.Errorf("%w: empty session", ErrInvalid)
	}
	ts, ms := s.now()
	e := Entry{TS: ts, Kind: KindAgent, Status: rec.Status, Session: rec.Session, Text: rec.Text, Need: rec.Need}
	res, err := tx.ExecContext(ctx,
		`INSERT INTO world (ts, kind, status, session, text, need) VALUES (?, 'agent', ?, ?, ?, ?)`,
		ms, rec.Status, rec.Session, rec.Text, rec.Need)
	if err != nil {
		return Entry{}, err
	}
	if e.ID, err = res.LastInsertId(); err != nil {
		return Entry{}, err
	}
	_, err = tx.ExecContext(ctx, `
		INSERT INTO agents (session, status, text, need, started, updated, last_entry)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session) DO UPDATE SET
			status     = excluded.status,
			text       = excluded.text,
			need       = CASE WHEN excluded.need <> '' THEN excluded.need ELSE agents.need END,
			updated    = excluded.updated,
			last_entry = excluded.last_entry`,
		rec.Session, rec.Status, rec.Text, rec.Need, ms, ms, e.ID)
	if err != nil {
		return Entry{}, err
	}
	return e, nil
}

// SessionEntries returns up to limit world-log entries about one agent
// session, oldest first: its lifecycle records and the events it logged
// itself (AgentEventSource, identified by the session: steps, tool calls,
// questions, answers). Another source's event under the session's name is
// not the agent's. limit <= 0 means no limit.
func (s *Store) SessionEntries(ctx context.Context, session string, limit int) ([]Entry, error) {
	es, err := queryEntries(ctx, s.r, `SELECT `+entryCols+` FROM (
		SELECT `+entryCols+` FROM world WHERE session = ? OR (identifier = ? AND source = ?) ORDER BY id DESC LIMIT ?
		) ORDER BY id`, session, session, AgentEventSource, sqlLimit(limit))
	if err != nil {
		return nil, fmt.Errorf("session %s entries: %w", session, classify(ctx, err))
	}
	return es, nil
}

// Since returns up to limit entries with id > afterID, oldest first.
// limit <= 0 means no limit.
func (s *Store) Since(ctx context.Context, afterID int64, limit int) ([]Entry, error) {
	es, err := since(ctx, s.r, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("since %d: %w", afterID, classify(ctx, err))
	}
	return es, nil
}

func since(ctx context.Context, q querier, afterID int64, limit int) ([]Entry, error) {
	return queryEntries(ctx, q,
		`SELECT `+entryCols+` FROM world WHERE id > ? ORDER BY id LIMIT ?`, afterID, sqlLimit(limit))
}

// Check returns up to limit entries the consumer has not seen yet, oldest
// first, and moves its cursor past them in the same transaction, so each
// entry is returned to a consumer once. A consumer that never checked
// starts at the beginning of the log. limit <= 0 means no limit.
func (s *Store) Check(ctx context.Context, consumer string, limit int) ([]Entry, error) {
	if consumer == "" {
		return nil, fmt.Errorf("check: %w: empty consumer", ErrInvalid)
	}
	var es []Entry
	err := s.write(ctx, func(tx *sql.Tx) error {
		var last int64
		err := tx.QueryRowContext(ctx, `SELECT last_id FROM cursors WHERE consumer = ?`, consumer).Scan(&last)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if es, err = since(ctx, tx, last, limit); err != nil || len(es) == 0 {
			return err
		}
		return setCursor(ctx, tx, consumer, es[len(es)-1].ID)
	})
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", consumer, err)
	}
	return es, nil
}

// Cursor is the id of the last entry the consumer was given; 0 if it never
// checked.
func (s *Store) Cursor(ctx context.Context, consumer string) (int64, error) {
	var last int64
	err := s.r.QueryRowContext(ctx, `SELECT last_id FROM cursors WHERE consumer = ?`, consumer).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("cursor %s: %w", consumer, classify(ctx, err))
	}
	return last, nil
}

// SetCursor moves the consumer's cursor, e.g. to LastID to skip a backlog
// or to 0 to replay the log.
func (s *Store) SetCursor(ctx context.Context, consumer string, lastID int64) error {
	if consumer == "" || lastID < 0 {
		return fmt.Errorf("set cursor: %w: consumer %q, id %d", ErrInvalid, consumer, lastID)
	}
	err := s.write(ctx, func(tx *sql.Tx) error { return setCursor(ctx, tx, consumer, lastID) })
	if err != nil {
		return fmt.Errorf("set cursor %s: %w", consumer, err)
	}
	return nil
}

func setCursor(ctx context.Context, tx *sql.Tx, consumer string, lastID int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO cursors (consumer, last_id) VALUES (?, ?)
		ON CONFLICT (consumer) DO UPDATE SET last_id = excluded.last_id`, consumer, lastID)
	return err
}

// Recent returns the last n entries, oldest first.
func (s *Store) Recent(ctx context.Context, n int) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	es, err := queryEntries(ctx, s.r, `SELECT `+entryCols+` FROM world ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("recent: %w", classify(ctx, err))
	}
	slices.Reverse(es)
	return es, nil
}

// RecentEvents returns the last n events (no agent records), oldest first.
func (s *Store) RecentEvents(ctx context.Context, n int) ([]Entry, error) {
	if n <= 0 {
		return nil, nil
	}
	es, err := queryEntries(ctx, s.r,
		`SELECT `+entryCols+` FROM world WHERE kind = 'event' ORDER BY id DESC LIMIT ?`, n)
	if err != nil {
		return nil, fmt.Errorf("recent events: %w", classify(ctx, err))
	}
	slices.Reverse(es)
	return es, nil
}

// LastID is the id of the newest entry, 0 for an empty log.
func (s *Store) LastID(ctx context.Context) (int64, error) {
	var id int64
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM world`).Scan(&id); err != nil {
		return 0, fmt.Errorf("last id: %w", classify(ctx, err))
	}
	return id, nil
}

// Counts are small statistics for health checks.
type Counts struct {
	Entries  int64 `json:"entries"`  // world log lines
	Events   int64 `json:"events"`   // of which events
	Sessions int64 `json:"sessions"` // agent sessions ever seen
	LastID   int64 `json:"last_id"`
}

// Counts counts the log's entries, events and agent sessions, read in one
// snapshot so the numbers agree with each other.
func (s *Store) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	err := s.r.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM world),
			(SELECT count(*) FROM world WHERE kind = 'event'),
			(SELECT count(*) FROM agents),
			(SELECT coalesce(max(id), 0) FROM world)`).
		Scan(&c.Entries, &c.Events, &c.Sessions, &c.LastID)
	if err != nil {
		return Counts{}, fmt.Errorf("counts: %w", classify(ctx, err))
	}
	return c, nil
}

// ActiveAgents are sessions whose latest status is start, active or retry.
func (s *Store) ActiveAgents(ctx context.Context) ([]Agent, error) {
	return s.AgentsByStatus(ctx, StatusStart, StatusActive, StatusRetry)
}

// PendingAgents are sessions that reported finish and await verification.
func (s *Store) PendingAgents(ctx context.Context) ([]Agent, error) {
	return s.AgentsByStatus(ctx, StatusFinish)
}

// FailedAgents are sessions whose latest status is failed.
func (s *Store) FailedAgents(ctx context.Context) ([]Agent, error) {
	return s.AgentsByStatus(ctx, StatusFailed)
}

// AgentsByStatus returns the sessions whose latest status is one of
// statuses, most recently updated first; all sessions when none is given.
func (s *Store) AgentsByStatus(ctx context.Context, statuses ...AgentStatus) ([]Agent, error) {
	q := `SELECT session, status, text, need, started, updated, last_entry FROM agents`
	args := make([]any, 0, len(statuses))
	if len(statuses) > 0 {
		for _, st := range statuses {
			if !st.Valid() {
				return nil, fmt.Errorf("agents: %w: status %q", ErrInvalid, st)
			}
			args = append(args, st)
		}
		q += ` WHERE status IN (` + placeholders(len(statuses)) + `)`
	}
	q += ` ORDER BY updated DESC, last_entry DESC`
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("agents: %w", classify(ctx, err))
	}
	defer rows.Close()
	var as []Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, fmt.Errorf("agents: %w", err)
		}
		as = append(as, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("agents: %w", classify(ctx, err))
	}
	return as, nil
}

// AgentBySession returns the latest state of one session, or ErrNotFound.
func (s *Store) AgentBySession(ctx context.Context, session string) (Agent, error) {
	row := s.r.QueryRowContext(ctx, `SELECT session, status, text, need, started, updated, last_entry
		FROM agents WHERE session = ?`, session)
	a, err := scanAgent(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, fmt.Errorf("agent %s: %w", session, ErrNotFound)
	}
	if err != nil {
		return Agent{}, fmt.Errorf("agent %s: %w", session, classify(ctx, err))
	}
	return a, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanAgent(sc scanner) (Agent, error) {
	var (
		a                         Agent
		started, updated, lastRow int64
	)
	if err := sc.Scan(&a.Session, &a.Status, &a.Text, &a.Need, &started, &updated, &lastRow); err != nil {
		return Agent{}, err
	}
	a.Started, a.Updated, a.LastEntry = time.UnixMilli(started), time.UnixMilli(updated), lastRow
	return a, nil
}

func queryEntries(ctx context.Context, q querier, query string, args ...any) ([]Entry, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var es []Entry
	for rows.Next() {
		var (
			e                                    Entry
			ts                                   int64
			source, identifier, status, sess, nd sql.NullString
		)
		if err := rows.Scan(&e.ID, &ts, &e.Kind, &source, &identifier, &status, &sess, &e.Text, &nd); err != nil {
			return nil, err
		}
		e.TS = time.UnixMilli(ts)
		e.Source, e.Identifier, e.Session, e.Need = source.String, identifier.String, sess.String, nd.String
		e.Status = AgentStatus(status.String)
		es = append(es, e)
	}
	return es, rows.Err()
}

// sqlLimit maps "no limit" to SQLite's LIMIT -1.
func sqlLimit(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
