package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// CompactWorld deletes from the world log the events older than before,
// and returns how many it deleted. It keeps what the log is read back for
// long after: every agent record (an agent's whole lifecycle stays), and
// every event about a reminder (identifier "reminder-N": when it was set,
// fired, snoozed, done). Ids are never reused, so the consumers' cursors
// stay valid.
//
// The log's append-only trigger refuses every delete. CompactWorld lifts
// it inside its own write transaction and puts it back, exactly as the
// schema defines it (its text is read from the schema, not repeated here),
// before the transaction commits: no other writer, and no reader, ever
// sees the log without it, and a failure anywhere rolls all of it back.
func (s *Store) CompactWorld(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var trigger string
		if err := tx.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'world_no_delete'`).
			Scan(&trigger); err != nil {
			return fmt.Errorf("read the append-only trigger: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER world_no_delete`); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM world WHERE kind = 'event' AND ts < ?
			AND identifier NOT LIKE 'reminder-%'`, before.UnixMilli())
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, trigger)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("compact world log: %w", classify(ctx, err))
	}
	return n, nil
}
