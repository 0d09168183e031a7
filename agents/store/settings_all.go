package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// AllSettings returns every stored setting, key → value, in one read: a
// consistent snapshot, never a mix of before and after a concurrent write.
// A key never set is absent from the map. It works on a read-only Store.
func (s *Store) AllSettings(ctx context.Context) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT key, value FROM settings`)
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", classify(ctx, err))
	}
	all, err := scanSettings(rows)
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", classify(ctx, err))
	}
	return all, nil
}

// UpdateSettings reads every stored setting and writes the values fn
// returns, all in one write transaction: no other write comes between the
// read and the write. fn gets the stored settings (key → value; a key never
// set is absent) and returns the keys to store with their new values; nil
// or empty writes nothing. An error from fn, or an empty key in what it
// returns (ErrInvalid), rolls everything back and is returned.
//
// fn runs on the only writer connection: it must be quick, must not call
// the Store (that would wait for itself) and must not keep the map.
func (s *Store) UpdateSettings(ctx context.Context, fn func(stored map[string]string) (map[string]string, error)) error {
	_, ms := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT key, value FROM settings`)
		if err != nil {
			return err
		}
		stored, err := scanSettings(rows)
		if err != nil {
			return err
		}
		values, err := fn(stored)
		if err != nil {
			return err
		}
		// Sorted, so that a failure names the same key every time.
		keys := make([]string, 0, len(values))
		for k := range values {
			if k == "" {
				return fmt.Errorf("%w: empty key", ErrInvalid)
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated) VALUES (?, ?, ?)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
				k, values[k], ms); err != nil {
				return fmt.Errorf("setting %q: %w", k, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update settings: %w", err)
	}
	return nil
}

// scanSettings reads key, value rows into a map and closes rows.
func scanSettings(rows *sql.Rows) (map[string]string, error) {
	defer rows.Close()
	all := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		all[k] = v
	}
	return all, rows.Err()
}
