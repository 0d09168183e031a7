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
// stay valid. Nothing else may delete from the world log: the trigger
// refuses any delete outside this transaction.
func (s *Store) CompactWorld(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO world_compacting (only) VALUES (1)`); err != nil {
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
		_, err = tx.ExecContext(ctx, `DELETE FROM world_compacting`)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("compact world log: %w", classify(ctx, err))
	}
	return n, nil
}
