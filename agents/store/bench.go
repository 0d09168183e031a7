package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// BenchAppend opens (creating if needed) the store in dir and appends n
// events one at a time, each its own durable transaction as in production.
// It returns acknowledged appends per second.
func BenchAppend(ctx context.Context, dir string, n int) (perSecond float64, err error) {
	return benchAppend(ctx, dir, n, defaultOptions())
}

// BenchAppendSynchronous is BenchAppend with another SQLite synchronous
// mode (OFF, NORMAL, FULL, EXTRA), to show what durability costs. Spirit
// itself always runs with FULL.
func BenchAppendSynchronous(ctx context.Context, dir string, n int, synchronous string) (perSecond float64, err error) {
	switch synchronous {
	case "OFF", "NORMAL", "FULL", "EXTRA":
	default:
		return 0, fmt.Errorf("bench append: %w: synchronous %q", ErrInvalid, synchronous)
	}
	opt := defaultOptions()
	opt.synchronous = synchronous
	return benchAppend(ctx, dir, n, opt)
}

func benchAppend(ctx context.Context, dir string, n int, opt options) (float64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("bench append: %w: n = %d", ErrInvalid, n)
	}
	s, err := open(ctx, filepath.Join(dir, FileName), opt)
	if err != nil {
		return 0, fmt.Errorf("bench append: %w", err)
	}
	defer s.Close()
	start := time.Now()
	for i := range n {
		ev := Event{Source: "bench", Identifier: fmt.Sprintf("bench-%d", i), Text: benchText}
		if _, err := s.AppendEvent(ctx, ev); err != nil {
			return 0, fmt.Errorf("bench append: %w", err)
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// benchText is about the length of a transcribed sentence.
const benchText = "Client called about the Henderson lease; wants the draft by Friday and a call with opposing counsel."

// BenchCheckAt makes sure the store in dir holds at least events entries,
// bulk-inserting the missing ones in large transactions, then points a
// consumer 100 entries before the end and times one Check returning those
// 100. It returns the median of a few runs in milliseconds.
func BenchCheckAt(ctx context.Context, dir string, events int) (checkMillis float64, err error) {
	s, err := OpenDir(ctx, dir)
	if err != nil {
		return 0, fmt.Errorf("bench check: %w", err)
	}
	defer s.Close()
	if err := s.bulkFill(ctx, int64(events)); err != nil {
		return 0, fmt.Errorf("bench check: %w", err)
	}
	last, err := s.LastID(ctx)
	if err != nil {
		return 0, fmt.Errorf("bench check: %w", err)
	}
	const consumer, tail, runs = "bench", 100, 7
	var ms []float64
	for range runs {
		if err := s.SetCursor(ctx, consumer, max(last-tail, 0)); err != nil {
			return 0, fmt.Errorf("bench check: %w", err)
		}
		start := time.Now()
		es, err := s.Check(ctx, consumer, 1000)
		d := time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("bench check: %w", err)
		}
		if want := min(last, tail); int64(len(es)) != want {
			return 0, fmt.Errorf("bench check: got %d entries, want %d", len(es), want)
		}
		ms = append(ms, float64(d.Microseconds())/1000)
	}
	slices.Sort(ms)
	return ms[len(ms)/2], nil
}

// bulkFill appends synthetic events until the log holds at least total
// entries. It bypasses AppendEvent and commits 100,000 rows at a time: the
// point is a big log quickly, not per-entry durability.
func (s *Store) bulkFill(ctx context.Context, total int64) error {
	const chunk = 100_000
	_, ms := s.now()
	for {
		var have int64
		if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM world`).Scan(&have); err != nil {
			return fmt.Errorf("bulk fill: %w", classify(ctx, err))
		}
		if have >= total {
			return nil
		}
		n := min(total-have, chunk)
		err := s.write(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `
				WITH RECURSIVE seq(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM seq WHERE x < ?)
				INSERT INTO world (ts, kind, source, identifier, text)
				SELECT ?, 'event', 'bench', 'bulk-' || (? + x), ? FROM seq`,
				n, ms, have, benchText)
			return err
		})
		if err != nil {
			return fmt.Errorf("bulk fill: %w", err)
		}
	}
}
