package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// Transcript is one utterance Spirit heard.
type Transcript struct {
	ID     int64     `json:"id"`
	TS     time.Time `json:"ts"`
	Text   string    `json:"text"`
	Intent string    `json:"intent,omitempty"`
	Source string    `json:"source"`
}

// AddTranscript keeps what was heard until PurgeTranscripts removes it.
func (s *Store) AddTranscript(ctx context.Context, t Transcript) (Transcript, error) {
	if strings.TrimSpace(t.Text) == "" {
		return Transcript{}, fmt.Errorf("add transcript: %w: empty text", ErrInvalid)
	}
	if t.Source == "" {
		t.Source = "voice"
	}
	if t.TS.IsZero() {
		t.TS, _ = s.now()
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO transcripts (ts, text, intent, source) VALUES (?, ?, ?, ?)`,
			t.TS.UnixMilli(), t.Text, t.Intent, t.Source)
		if err != nil {
			return err
		}
		t.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Transcript{}, fmt.Errorf("add transcript: %w", err)
	}
	return t, nil
}

// Transcripts returns the latest n transcripts, oldest first.
func (s *Store) Transcripts(ctx context.Context, n int) ([]Transcript, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, ts, text, intent, source FROM
		(SELECT * FROM transcripts ORDER BY id DESC LIMIT ?) ORDER BY id`, sqlLimit(n))
	if err != nil {
		return nil, fmt.Errorf("transcripts: %w", classify(ctx, err))
	}
	defer rows.Close()
	var out []Transcript
	for rows.Next() {
		var t Transcript
		var ms int64
		if err := rows.Scan(&t.ID, &ms, &t.Text, &t.Intent, &t.Source); err != nil {
			return nil, fmt.Errorf("transcripts: %w", err)
		}
		t.TS = time.UnixMilli(ms)
		out = append(out, t)
	}
	return out, rows.Err()
}

// PurgeTranscripts deletes transcripts older than before and reports how many.
func (s *Store) PurgeTranscripts(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM transcripts WHERE ts < ?`, before.UnixMilli())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge transcripts: %w", err)
	}
	return n, nil
}
