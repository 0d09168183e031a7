package store

import (
	"context"
	"fmt"
	"strings"
)

// IntegrityCheck runs SQLite's quick_check and reports any damage it
// finds as an error matching ErrCorrupt.
func (s *Store) IntegrityCheck(ctx context.Context) error {
	rows, err := s.r.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return fmt.Errorf("integrity check: %w", classifyOpen(ctx, err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("integrity check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", classifyOpen(ctx, err))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrCorrupt, strings.Join(problems, "; "))
	}
	return nil
}
