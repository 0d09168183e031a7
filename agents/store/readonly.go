package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mattn/go-sqlite3"
)

// ReadOnlyOptions tune OpenReadOnly; the zero value suits a one-shot read.
type ReadOnlyOptions struct {
	// Follow is for a reader that keeps reading what a writer appends,
	// even one that starts later (`spirit world tail -f`): it reads
	// through the WAL like any SQLite reader, which creates the -wal and
	// -shm files beside the database when they are missing (and can be).
	Follow bool
	// AnySchema accepts a file an older Spirit wrote, which Open would
	// migrate, for callers that only look at it as a whole (the doctor).
	AnySchema bool
}

// OpenReadOnly opens an existing Spirit database only to read it: no
// migrations, no file created, nothing written — not even a WAL checkpoint
// — so it works on a read-only data folder and alongside a running Spirit.
// When no connection has the file open (no -wal file beside it) and
// o.Follow is false, the file is read as an immutable snapshot, so not even
// the WAL index a SQLite reader otherwise creates appears beside it.
//
// A missing or empty file is an error matching ErrNoData that names the
// folder; an older schema is ErrSchemaOld unless o.AnySchema. Writes
// through the Store fail with ErrReadOnly.
func OpenReadOnly(ctx context.Context, path string, o ReadOnlyOptions) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("open store: %w: empty path", ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s, err := openReadOnly(ctx, abs, o)
	if errors.Is(err, ErrNoData) {
		return nil, err // already says where; the path adds nothing
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s read-only: %w", abs, err)
	}
	return s, nil
}

// OpenDirReadOnly opens FileName inside Spirit's data directory read-only.
func OpenDirReadOnly(ctx context.Context, dataDir string, o ReadOnlyOptions) (*Store, error) {
	return OpenReadOnly(ctx, filepath.Join(dataDir, FileName), o)
}

func openReadOnly(ctx context.Context, path string, o ReadOnlyOptions) (*Store, error) {
	dir := filepath.Dir(path)
	size, _, err := checkHeader(path, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w in %s", ErrNoData, dir)
	case err != nil:
		return nil, err
	case size == 0:
		return nil, fmt.Errorf("%w in %s (%s is empty)", ErrNoData, dir, FileName)
	}
	q := url.Values{
		"mode":          {"ro"},
		"_busy_timeout": {strconv.Itoa(int(busyTimeout.Milliseconds()))},
		"_foreign_keys": {"on"},
	}
	if !o.Follow && !InUse(path) {
		q.Set("immutable", "1")
	}
	err = probe(ctx, path, q)
	if o.Follow && isCantOpen(err) {
		// A read-only folder without -wal and -shm: nobody can be
		// writing there, so a snapshot is all there is to follow.
		q.Set("immutable", "1")
		err = probe(ctx, path, q)
	}
	if err != nil {
		return nil, err
	}

	s := newStore(path, defaultOptions())
	s.r = sql.OpenDB(newConnector(fileURI(path, q)))
	s.r.SetMaxOpenConns(readConns)
	s.r.SetMaxIdleConns(readConns)
	v, err := schemaVersion(ctx, s.r)
	if err != nil {
		s.Close()
		return nil, classifyOpen(ctx, err)
	}
	switch latest := LatestSchemaVersion(); {
	case v == 0:
		s.Close()
		return nil, fmt.Errorf("%w in %s (%s has no tables yet)", ErrNoData, dir, FileName)
	case v > latest:
		s.Close()
		return nil, fmt.Errorf("%w: file has version %d, this build knows up to %d", ErrSchemaTooNew, v, latest)
	case v < latest && !o.AnySchema:
		s.Close()
		return nil, fmt.Errorf("%w (version %d of %d)", ErrSchemaOld, v, latest)
	}
	return s, nil
}

// InUse reports whether some connection may have the database at path
// open: in WAL mode a -wal file exists beside it from the first open until
// the last close.
func InUse(path string) bool {
	_, err := os.Stat(path + "-wal")
	return err == nil
}

func isCantOpen(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrCantOpen
}

// schemaVersion reads the applied schema version from goose's table
// without goose, which would create the table if it were missing: for each
// version the latest row says whether it is applied. A database without the
// table has version 0.
func schemaVersion(ctx context.Context, db *sql.DB) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema
		WHERE type = 'table' AND name = 'goose_db_version'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	var v int64
	err := db.QueryRowContext(ctx, `SELECT coalesce(max(g.version_id), 0) FROM goose_db_version g
		WHERE g.is_applied AND g.id = (SELECT max(id) FROM goose_db_version WHERE version_id = g.version_id)`).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// CheckWriteLock reports, with an error matching ErrBusy, whether another
// connection holds the write lock on the database at path, waiting at most
// wait for it to be released. It takes the lock and rolls back at once,
// writing nothing; and when no -wal file exists nobody has the file open,
// so there is nothing to check and it does not open the file at all.
//
// Keep a Store on the file open meanwhile (OpenReadOnly), so that closing
// this connection is never the last close, which would checkpoint the WAL.
func CheckWriteLock(ctx context.Context, path string, wait time.Duration) error {
	if !InUse(path) {
		return nil
	}
	db := sql.OpenDB(newConnector(fileURI(path, url.Values{
		"mode":          {"rw"},
		"_busy_timeout": {strconv.Itoa(int(wait.Milliseconds()))},
	})))
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("check write lock: %w", classify(ctx, err))
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return fmt.Errorf("check write lock: %w", classify(ctx, err))
	}
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), `ROLLBACK`); err != nil {
		return fmt.Errorf("check write lock: %w", err)
	}
	return nil
}
