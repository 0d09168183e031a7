// Package store keeps everything Spirit remembers in one SQLite file: the
// append-only world log, the latest state of each agent, the consumers'
// cursors into the log, settings and nudges.
//
// The file is opened in WAL mode with synchronous=FULL: a write that
// returned without error has been fsynced and survives a crash or a power
// cut. All writes go through a single connection, so the log's ids are
// handed out and become visible strictly in order; reads use a separate
// read-only pool and never wait for a writer.
//
// Build with -tags sqlite_fts5.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
	"github.com/pressly/goose/v3"
)

// FileName is the database's name inside Spirit's data directory.
const FileName = "spirit.db"

// applicationID is written to the SQLite header by the first migration
// ('SPRT'), so Open can tell a Spirit database from any other SQLite file.
const applicationID = 0x53505254

// busyTimeout is how long a write waits for another connection's lock.
const busyTimeout = 5 * time.Second

// readConns bounds the read-only pool; readers never block the writer in
// WAL mode, so a few are enough for a desktop app.
const readConns = 4

// Sentinel errors; test with errors.Is.
var (
	// ErrNotSpirit means the file exists but is not a Spirit database:
	// not SQLite at all, corrupt, or another program's SQLite file.
	ErrNotSpirit = errors.New("file is not a Spirit database")
	// ErrSchemaTooNew means the file was migrated by a newer Spirit.
	ErrSchemaTooNew = errors.New("database schema is newer than this version of Spirit")
	// ErrBusy means another connection held the write lock for longer than
	// the busy timeout or the caller's deadline allowed, or than a context
	// made with WaitOnce allowed once it had waited.
	ErrBusy = errors.New("database is locked by another writer")
	// ErrCorrupt means SQLite found the file damaged. It comes wrapped
	// together with ErrNotSpirit from Open, which cannot use such a file.
	ErrCorrupt = errors.New("database is damaged")
	// ErrNoData means there is no database to read yet (OpenReadOnly).
	ErrNoData = errors.New("Spirit has no data yet")
	// ErrSchemaOld means the file needs migrating, which only a writable
	// Open does (OpenReadOnly).
	ErrSchemaOld = errors.New("database was written by an older Spirit; start Spirit once to upgrade it")
	// ErrReadOnly means a write was tried on a Store opened with OpenReadOnly.
	ErrReadOnly = errors.New("database is open read-only")
	// ErrInvalid means the caller passed something the store refuses to keep.
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound means no row has the given key.
	ErrNotFound = errors.New("not found")
	// ErrNudgeClosed means the nudge was already accepted, dismissed or expired.
	ErrNudgeClosed = errors.New("nudge is closed")
)

//go:embed migrations/*.sql
var embedded embed.FS

// Store is Spirit's database. It is safe for concurrent use.
type Store struct {
	// Now stamps appended entries, settings and nudges. Open sets it to
	// time.Now; tests may replace it before using the Store.
	Now func() time.Time

	path        string
	busyTimeout time.Duration
	w           *sql.DB // exactly one connection: the only writer; nil when read-only
	r           *sql.DB // read-only pool
	mig         *goose.Provider

	// life ends at Close; it drives the retry of pending events.
	life   context.Context
	cancel context.CancelFunc
	pend   pending
	// retry timing for pending events; see pending.go.
	retryMin, retryMax, retryWait time.Duration

	busyWaits atomic.Int64 // writes that gave up after waiting for a lock
}

// options are the knobs tests and benchmarks turn; Open uses the defaults.
type options struct {
	synchronous string        // FULL in production
	busyTimeout time.Duration // how long a write waits for a lock
	// How pending world-log events are retried while the database is
	// locked: first after retryMin, doubling up to retryMax, each attempt
	// waiting at most retryWait for the lock.
	retryMin, retryMax, retryWait time.Duration
}

func defaultOptions() options {
	return options{synchronous: "FULL", busyTimeout: busyTimeout,
		retryMin: 250 * time.Millisecond, retryMax: 10 * time.Second, retryWait: 250 * time.Millisecond}
}

// Open opens the Spirit database at path, creating it and its directory if
// needed, and migrates it to the latest schema. A file that is not a Spirit
// database is reported with ErrNotSpirit and left untouched.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, defaultOptions())
}

// OpenDir opens FileName inside Spirit's data directory.
func OpenDir(ctx context.Context, dataDir string) (*Store, error) {
	return Open(ctx, filepath.Join(dataDir, FileName))
}

func open(ctx context.Context, path string, opt options) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("open store: %w: empty path", ErrInvalid)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s, err := openAbs(ctx, abs, opt)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", abs, err)
	}
	return s, nil
}

func openAbs(ctx context.Context, path string, opt options) (*Store, error) {
	// The database holds a lawyer's working notes: only the user may read it.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	size, existed, err := checkHeader(path, true)
	if err != nil {
		return nil, err
	}
	if size > 0 {
		// Looking before SQLite opens it read-write: the WAL pragma alone
		// would rewrite the header of somebody else's database.
		if err := probe(ctx, path, url.Values{"mode": {"ro"}}); err != nil {
			return nil, err
		}
	} else if existed {
		// An empty file where the lawyer's history should be may be data
		// lost to a sync tool or a full disk: say so rather than quietly
		// starting afresh in it.
		slog.WarnContext(ctx, "store: the database file is empty (0 bytes); starting a new database in it — if it held your history, restore it from a backup", "path", path)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, err
	}

	s := newStore(path, opt)
	s.w = sql.OpenDB(newConnector(writeDSN(path, opt)))
	// One connection is the whole write path: SQLite allows one writer at a
	// time anyway, and this way ids are assigned and committed in order.
	s.w.SetMaxOpenConns(1)
	s.w.SetMaxIdleConns(1)
	s.w.SetConnMaxLifetime(0)
	s.w.SetConnMaxIdleTime(0)
	if err := s.w.PingContext(ctx); err != nil {
		s.w.Close()
		return nil, classifyOpen(ctx, err)
	}

	if err := s.migrate(ctx); err != nil {
		s.w.Close()
		return nil, err
	}
	// SQLite creates -wal and -shm with the database's mode; chmod anyway
	// in case they were left behind by something less careful. Not on
	// Windows: there a mode only sets the read-only attribute (the folder's
	// ACL keeps the files the user's), and changing it on a file SQLite
	// holds open fails with a sharing violation.
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if runtime.GOOS == "windows" {
			break
		}
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.w.Close()
			return nil, err
		}
	}

	s.r = sql.OpenDB(newConnector(readDSN(path, opt)))
	s.r.SetMaxOpenConns(readConns)
	s.r.SetMaxIdleConns(readConns)
	if err := s.r.PingContext(ctx); err != nil {
		s.r.Close()
		s.w.Close()
		return nil, classify(ctx, err)
	}
	return s, nil
}

func newStore(path string, opt options) *Store {
	s := &Store{Now: time.Now, path: path, busyTimeout: opt.busyTimeout,
		retryMin: opt.retryMin, retryMax: opt.retryMax, retryWait: opt.retryWait}
	s.life, s.cancel = context.WithCancel(context.Background())
	return s
}

// Close closes the database. World-log events still pending get one last
// wait for the lock. The writer closes last so that SQLite can checkpoint
// the WAL into the main file.
func (s *Store) Close() error {
	s.stopRetry()
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// sqliteMagic opens every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// checkHeader checks the SQLite magic without writing a byte and returns
// the file's size and whether it existed. With create, a missing file is
// created empty with mode 0600 (SQLite gives -wal and -shm the same mode).
func checkHeader(path string, create bool) (size int64, existed bool, err error) {
	flags := os.O_RDONLY
	if create {
		if _, err := os.Lstat(path); err == nil {
			existed = true
		}
		flags |= os.O_CREATE
	} else {
		existed = true // or the open fails
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, existed, err
	}
	if !st.Mode().IsRegular() {
		return 0, existed, fmt.Errorf("%w: not a regular file", ErrNotSpirit)
	}
	if st.Size() == 0 {
		return 0, existed, nil
	}
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, existed, err
	}
	if string(head) != sqliteMagic {
		return 0, existed, fmt.Errorf("%w: no SQLite header", ErrNotSpirit)
	}
	return st.Size(), existed, nil
}

// probe opens an existing file read-only with the URI parameters q and
// checks that it is Spirit's: either it carries Spirit's application id, or
// it is an empty database that a first Open created and did not get to
// migrate.
func probe(ctx context.Context, path string, q url.Values) error {
	q = maps.Clone(q)
	q.Set("_busy_timeout", strconv.Itoa(int(busyTimeout.Milliseconds())))
	db := sql.OpenDB(newConnector(fileURI(path, q)))
	defer db.Close()
	var appID int64
	if err := db.QueryRowContext(ctx, `PRAGMA application_id`).Scan(&appID); err != nil {
		return classifyOpen(ctx, err)
	}
	if appID == applicationID {
		return nil
	}
	var tables int64
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema
		WHERE type = 'table' AND name NOT IN ('goose_db_version', 'sqlite_sequence')`).Scan(&tables)
	if err != nil {
		return classifyOpen(ctx, err)
	}
	if appID != 0 || tables > 0 {
		return fmt.Errorf("%w: application id %#x, %d tables", ErrNotSpirit, appID, tables)
	}
	return nil
}

// writeDSN is the writer's DSN. _txlock=immediate takes the write lock at
// BEGIN, where the busy timeout applies, instead of failing mid-transaction
// on a lock upgrade.
func writeDSN(path string, opt options) string {
	return fileURI(path, url.Values{
		"_journal_mode": {"WAL"},
		"_busy_timeout": {strconv.Itoa(int(opt.busyTimeout.Milliseconds()))},
		"_foreign_keys": {"on"},
		"_synchronous":  {opt.synchronous},
		"_txlock":       {"immediate"},
	})
}

// readDSN is for the read-only pool; the journal mode is persistent in the
// file, so readers need not (and, read-only, could not) set it.
func readDSN(path string, opt options) string {
	return fileURI(path, url.Values{
		"mode":          {"ro"},
		"_busy_timeout": {strconv.Itoa(int(opt.busyTimeout.Milliseconds()))},
		"_foreign_keys": {"on"},
	})
}

// fileURI builds a SQLite URI so that paths with '?', '#' or '%' survive.
func fileURI(path string, q url.Values) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String()
}

// connector opens mattn/go-sqlite3 connections without registering a driver
// name, and turns on F_FULLFSYNC where the OS has it (macOS): plain fsync
// there may leave a commit in the drive's cache, and an acknowledged append
// could be lost in a power cut.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func newConnector(dsn string) connector {
	return connector{dsn: dsn, drv: &sqlite3.SQLiteDriver{
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec(`PRAGMA fullfsync = ON; PRAGMA checkpoint_fullfsync = ON`, nil)
			return err
		},
	}}
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.drv }

// classify turns SQLite's error codes into the package's sentinels, keeping
// the original error in the chain.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if isBusy(err) {
		if ctx.Err() != nil {
			return fmt.Errorf("%w (waited until the deadline): %w (%w)", ErrBusy, err, ctx.Err())
		}
		return fmt.Errorf("%w (waited the full busy timeout): %w", ErrBusy, err)
	}
	var se sqlite3.Error
	if errors.As(err, &se) && se.Code == sqlite3.ErrInterrupt && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// classifyOpen is classify for the first reads of a file: there, SQLite
// finding no database or a malformed one means the file is not ours to use.
// Both are damage, since the file passed the SQLite header check first.
func classifyOpen(ctx context.Context, err error) error {
	var se sqlite3.Error
	if errors.As(err, &se) && (se.Code == sqlite3.ErrNotADB || se.Code == sqlite3.ErrCorrupt) {
		return fmt.Errorf("%w: %w: %w", ErrNotSpirit, ErrCorrupt, err)
	}
	return classify(ctx, err)
}

// isBusy reports whether err is SQLite giving up on another connection's lock.
func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// migrationsFS is the embedded migrations directory as goose expects it.
func migrationsFS() fs.FS {
	sub, err := fs.Sub(embedded, "migrations")
	if err != nil {
		panic(err) // the directory is compiled in; this cannot fail
	}
	return sub
}

func newProvider(db *sql.DB) (*goose.Provider, error) {
	return goose.NewProvider(goose.DialectSQLite3, db, migrationsFS(),
		goose.WithDisableGlobalRegistry(true)) // other packages' Go migrations are not ours
}

// migrate brings the schema to the latest embedded version.
func (s *Store) migrate(ctx context.Context) error {
	p, err := newProvider(s.w)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	s.mig = p
	current, target, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("schema version: %w", classify(ctx, err))
	}
	if current > target {
		return fmt.Errorf("%w: file has version %d, this build knows up to %d", ErrSchemaTooNew, current, target)
	}
	if current == target {
		return nil
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate from version %d to %d: %w", current, target, classify(ctx, err))
	}
	slog.InfoContext(ctx, "store: migrated schema", "path", s.path, "from", current, "to", target)
	return nil
}

// SchemaVersion is the highest migration applied to the file.
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	if s.mig == nil { // read-only: goose would want to create its table
		return schemaVersion(ctx, s.r)
	}
	v, err := s.mig.GetDBVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("schema version: %w", classify(ctx, err))
	}
	return v, nil
}

// LatestSchemaVersion is the newest migration compiled into this build.
func LatestSchemaVersion() int64 {
	vs := SchemaVersions()
	return vs[len(vs)-1]
}

// SchemaVersions lists the embedded migrations' versions in ascending order.
func SchemaVersions() []int64 {
	names, err := fs.Glob(migrationsFS(), "*.sql")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	vs := make([]int64, 0, len(names))
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		if err != nil {
			panic(fmt.Sprintf("migration %s: %v", n, err)) // caught by the tests
		}
		vs = append(vs, v)
	}
	return vs // fs.Glob sorts, and the names are zero-padded
}

// MigrateTo applies the embedded migrations to db up to and including
// version. Open always migrates to the latest version; this exists for
// tests and tools that need an older schema. db must be a go-sqlite3
// database.
func MigrateTo(ctx context.Context, db *sql.DB, version int64) error {
	if version < 1 || version > LatestSchemaVersion() {
		return fmt.Errorf("migrate to version %d: %w: known versions are 1..%d", version, ErrInvalid, LatestSchemaVersion())
	}
	p, err := newProvider(db)
	if err != nil {
		return fmt.Errorf("migrate to version %d: %w", version, err)
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("migrate to version %d: %w", version, classify(ctx, err))
	}
	return nil
}

// write runs fn in one IMMEDIATE transaction on the single writer
// connection and commits. World-log events still pending from a time the
// database was locked go first, in the same transaction. Nothing fn did is
// acknowledged unless write returns nil.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.w == nil {
		return ErrReadOnly
	}
	// Waiting for our own writer connection happens in database/sql and
	// honours ctx; waiting for another process's lock happens inside SQLite.
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return classify(ctx, err)
	}
	defer conn.Close()
	once, _ := ctx.Value(waitOnceKey{}).(*waitOnce)
	wait, why := s.lockWait(ctx, once)
	if wait < s.busyTimeout {
		restore, err := s.setLockWait(ctx, conn, wait)
		if err != nil {
			return classify(ctx, err)
		}
		defer restore()
	}
	fail := func(err error) error {
		if !isBusy(err) {
			return classify(ctx, err)
		}
		if wait > 0 {
			s.busyWaits.Add(1)
		}
		if once != nil {
			once.gaveUp.Store(true)
		}
		switch {
		case why == waitDeadline && !errors.Is(err, context.DeadlineExceeded):
			// SQLite gives up a moment before ctx notices its deadline;
			// say why it gave up early.
			return fmt.Errorf("%w (waited until the deadline): %w (%w)", ErrBusy, err, context.DeadlineExceeded)
		case why == waitedOnce:
			return fmt.Errorf("%w (not waiting again, having waited once already): %w", ErrBusy, err)
		}
		return classify(ctx, err)
	}

	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	flushed, err := s.writePendingTx(ctx, tx)
	if err == nil {
		err = fn(tx)
	}
	if err != nil {
		if rbErr := tx.Rollback(); rbErr != nil && !errors.Is(rbErr, sql.ErrTxDone) {
			err = errors.Join(err, rbErr)
		}
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	s.pendingWritten(flushed)
	return nil
}

// Why a write waits less than the busy timeout for another connection's lock.
const (
	waitFull     = iota
	waitDeadline // ctx's deadline comes first
	waitedOnce   // a WaitOnce context has already waited once
)

// lockWait is how long a write in ctx may wait for another connection's
// write lock, and why.
func (s *Store) lockWait(ctx context.Context, once *waitOnce) (time.Duration, int) {
	if once != nil && once.gaveUp.Load() {
		return 0, waitedOnce
	}
	if deadline, ok := ctx.Deadline(); ok {
		if wait := time.Until(deadline); wait < s.busyTimeout {
			return max(wait, 0), waitDeadline
		}
	}
	return s.busyTimeout, waitFull
}

// setLockWait shortens the connection's busy timeout to wait. SQLite's busy
// handler sleeps in C and does not notice sqlite3_interrupt, so without
// this a locked database would hold a caller with a 200ms deadline for the
// full busy timeout. It returns a func that restores the timeout.
func (s *Store) setLockWait(ctx context.Context, conn *sql.Conn, wait time.Duration) (restore func(), err error) {
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", wait.Milliseconds())); err != nil {
		return nil, err
	}
	return func() {
		q := fmt.Sprintf("PRAGMA busy_timeout = %d", s.busyTimeout.Milliseconds())
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), q); err != nil {
			// A writer stuck with a short timeout would fail later callers
			// early: have database/sql discard the connection instead.
			slog.WarnContext(ctx, "store: restoring busy timeout failed; dropping connection", "err", err)
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}, nil
}

// waitOnceKey keys a *waitOnce in a context made by WaitOnce.
type waitOnceKey struct{}

type waitOnce struct{ gaveUp atomic.Bool }

// WaitOnce returns a context under which writes wait for another program's
// write lock at most once: after one write in it gave up on the lock, the
// later ones try the lock without waiting. A request that makes several
// writes (a command, then its world-log entries) thus answers "busy" after
// one busy timeout rather than after one per write.
func WaitOnce(ctx context.Context) context.Context {
	if _, ok := ctx.Value(waitOnceKey{}).(*waitOnce); ok {
		return ctx
	}
	return context.WithValue(ctx, waitOnceKey{}, &waitOnce{})
}

// BusyWaits counts the writes that waited for another program's write lock
// and gave up: how often Spirit was kept waiting, for health reports.
func (s *Store) BusyWaits() int64 { return s.busyWaits.Load() }

// now is the store's clock truncated to what the database keeps, so that
// an entry returned by an append equals the same entry read back.
func (s *Store) now() (time.Time, int64) {
	clock := s.Now
	if clock == nil {
		clock = time.Now
	}
	ms := clock().UnixMilli()
	return time.UnixMilli(ms), ms
}
