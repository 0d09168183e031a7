package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
)

// Setting returns the value stored under key; ok is false if it was never set.
func (s *Store) Setting(ctx context.Context, key string) (value string, ok bool, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("setting %q: %w", key, classify(ctx, err))
	}
	return value, true, nil
}

// SetSetting stores value under key, replacing any earlier value.
func (s *Store) SetSetting(ctx context.Context, key, value string) error {
	if key == "" {
		return fmt.Errorf("set setting: %w: empty key", ErrInvalid)
	}
	_, ms := s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (key, value, updated) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
			key, value, ms)
		return err
	})
	if err != nil {
		return fmt.Errorf("set setting %q: %w", key, err)
	}
	return nil
}

// BoolSetting returns the boolean stored under key, or def if it was never
// set. A stored value that is not a boolean is an error, not def: a
// silently ignored setting is worse than a visible failure.
func (s *Store) BoolSetting(ctx context.Context, key string, def bool) (bool, error) {
	v, ok, err := s.Setting(ctx, key)
	if err != nil || !ok {
		return def, err
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def, fmt.Errorf("setting %q: %w", key, err)
	}
	return b, nil
}

// SetBoolSetting stores a boolean under key as "true" or "false".
func (s *Store) SetBoolSetting(ctx context.Context, key string, value bool) error {
	return s.SetSetting(ctx, key, strconv.FormatBool(value))
}
