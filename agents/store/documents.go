package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Document is something an agent (or Spirit's code, in its place) wrote
// for the lawyer to read and keep: a meeting brief. Markdown is its text.
type Document struct {
	ID       int64     `json:"id"`
	Created  time.Time `json:"created"`
	Title    string    `json:"title"`
	Markdown string    `json:"markdown"`
	// Agent is the session of the agent that wrote it; "" when Spirit's
	// code wrote it without a model.
	Agent string `json:"agent,omitempty"`
	// Origin is what asked for it, e.g. "nudge-12".
	Origin string `json:"origin,omitempty"`
}

const documentCols = `id, created, title, markdown, agent, origin`

// AddDocument keeps d; its ID and Created are set.
func (s *Store) AddDocument(ctx context.Context, d Document) (Document, error) {
	var out Document
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = s.AddDocumentTx(ctx, tx, d)
		return err
	})
	return out, err
}

// AddDocumentTx is AddDocument inside tx, so a document is kept with what
// announces it or not at all.
func (s *Store) AddDocumentTx(ctx context.Context, tx *sql.Tx, d Document) (Document, error) {
	d.Title, d.Markdown = strings.TrimSpace(d.Title), strings.TrimSpace(d.Markdown)
	if d.Title == "" || d.Markdown == "" {
		return Document{}, fmt.Errorf("add document: %w: a title and text are required", ErrInvalid)
	}
	ts, ms := s.now()
	res, err := tx.ExecContext(ctx, `INSERT INTO documents (created, title, markdown, agent, origin) VALUES (?, ?, ?, ?, ?)`,
		ms, d.Title, d.Markdown, d.Agent, d.Origin)
	if err != nil {
		return Document{}, fmt.Errorf("add document: %w", classify(ctx, err))
	}
	if d.ID, err = res.LastInsertId(); err != nil {
		return Document{}, fmt.Errorf("add document: %w", err)
	}
	d.Created = ts
	return d, nil
}

// Document reads document id; ErrNotFound when there is none.
func (s *Store) Document(ctx context.Context, id int64) (Document, error) {
	d, err := scanDocument(s.r.QueryRowContext(ctx, `SELECT `+documentCols+` FROM documents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Document{}, fmt.Errorf("document %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Document{}, fmt.Errorf("document %d: %w", id, classify(ctx, err))
	}
	return d, nil
}

// Documents lists the documents agent wrote, oldest first; agent "" lists
// the newest limit documents of every origin, newest first.
func (s *Store) Documents(ctx context.Context, agent string, limit int) ([]Document, error) {
	q := `SELECT ` + documentCols + ` FROM documents WHERE agent = ? ORDER BY id`
	args := []any{agent}
	if agent == "" {
		q, args = `SELECT `+documentCols+` FROM documents ORDER BY id DESC LIMIT ?`, []any{limit}
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("documents: %w", classify(ctx, err))
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("documents: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("documents: %w", classify(ctx, err))
	}
	return out, nil
}

func scanDocument(sc interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var ms int64
	if err := sc.Scan(&d.ID, &ms, &d.Title, &d.Markdown, &d.Agent, &d.Origin); err != nil {
		return Document{}, err
	}
	d.Created = time.UnixMilli(ms)
	return d, nil
}
