package store

import (
	"context"
	"database/sql"
)

// Tx runs fn in one write transaction on Spirit's single writer connection,
// for packages that keep their own tables in spirit.db (their schema lives
// in this package's migrations). fn must not keep tx.
func (s *Store) Tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.write(ctx, fn)
}

// Reader is the read-only connection pool, for the same packages' queries.
func (s *Store) Reader() *sql.DB { return s.r }
