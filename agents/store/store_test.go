package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openTest(t *testing.T) (*Store, *clock) {
	t.Helper()
	s, err := OpenDir(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	c := newClock()
	s.Now = c.Now
	return s, c
}

// rawDB opens the file with the plain driver, as another program would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustAppendEvent(t *testing.T, s *Store, ev Event) Entry {
	t.Helper()
	e, err := s.AppendEvent(t.Context(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustAppendAgent(t *testing.T, s *Store, rec AgentRecord) Entry {
	t.Helper()
	e, err := s.AppendAgent(t.Context(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ids(es []Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func sessions(as []Agent) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Session
	}
	return out
}

func sameEntry(a, b Entry) bool {
	return a.ID == b.ID && a.TS.Equal(b.TS) && a.Kind == b.Kind && a.Source == b.Source &&
		a.Identifier == b.Identifier && a.Status == b.Status && a.Session == b.Session &&
		a.Text == b.Text && a.Need == b.Need
}

func TestSchemaVersionsEmbedded(t *testing.T) {
	vs := SchemaVersions()
	if len(vs) < 2 {
		t.Fatalf("want at least two migrations, have %v", vs)
	}
	for i, v := range vs {
		if v != int64(i+1) {
			t.Fatalf("migration versions must be 1..n without gaps, have %v", vs)
		}
	}
	if LatestSchemaVersion() != vs[len(vs)-1] {
		t.Fatalf("LatestSchemaVersion = %d, versions %v", LatestSchemaVersion(), vs)
	}
}

func TestOpenFromEmpty(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "data", "spirit")
	s, err := OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	v, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != LatestSchemaVersion() {
		t.Fatalf("schema version %d, want %d", v, LatestSchemaVersion())
	}
	for _, tc := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
		{"application_id", "1397772884"},
	} {
		var got string
		if err := s.w.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %s, want %s", tc.pragma, got, tc.want)
		}
	}
	for _, table := range []string{"world", "agents", "cursors", "settings", "nudges"} {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("table %s missing", table)
		}
	}
	// The read pool really is read-only.
	if _, err := s.r.ExecContext(ctx, `INSERT INTO settings (key, value, updated) VALUES ('x', 'y', 0)`); err == nil {
		t.Error("write through the read-only pool succeeded")
	}
}

func TestFileModes(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "new")
	s, err := OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AppendEvent(ctx, Event{Source: "test", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o700 {
		t.Errorf("data dir mode %o, want 700", got)
	}
	for _, name := range []string{FileName, FileName + "-wal", FileName + "-shm"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err) // while the store is open in WAL mode all three exist
		}
		if got := st.Mode().Perm(); got != 0o600 {
			t.Errorf("%s mode %o, want 600", name, got)
		}
	}
}

func TestOpenTightensExistingFileMode(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Errorf("mode %o after reopen, want 600", got)
	}
}

func TestFTS5Available(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	if _, err := s.w.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.fts_probe USING fts5(body)`); err != nil {
		t.Fatalf("FTS5 unavailable (build with -tags sqlite_fts5): %v", err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO temp.fts_probe (body) VALUES ('the tenancy agreement'), ('a court hearing')`); err != nil {
		t.Fatal(err)
	}
	var body string
	if err := s.w.QueryRowContext(ctx, `SELECT body FROM temp.fts_probe WHERE fts_probe MATCH 'hearing'`).Scan(&body); err != nil {
		t.Fatal(err)
	}
	if body != "a court hearing" {
		t.Fatalf("MATCH found %q", body)
	}
}

// seed writes what each schema version can hold, through plain SQL so it
// works before the store's code knew about later tables.
func seed(t *testing.T, db *sql.DB, version int64) {
	t.Helper()
	ctx := t.Context()
	stmts := []string{
		`INSERT INTO world (ts, kind, source, identifier, text) VALUES (1000, 'event', 'voice', 'call-1', 'old event')`,
		`INSERT INTO world (ts, kind, status, session, text, need) VALUES (2000, 'agent', 'start', 'sess-1', 'drafting', 'a draft')`,
		`INSERT INTO agents (session, status, text, need, started, updated, last_entry) VALUES ('sess-1', 'start', 'drafting', 'a draft', 2000, 2000, 2)`,
		`INSERT INTO cursors (consumer, last_id) VALUES ('brain', 1)`,
	}
	if version >= 2 {
		stmts = append(stmts,
			`INSERT INTO settings (key, value, updated) VALUES ('listen', 'true', 3000)`,
			`INSERT INTO nudges (created, kind, message, state, updated) VALUES (4000, 'reminder', 'old nudge', 'snoozed', 4000)`,
		)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("seed v%d: %s: %v", version, q, err)
		}
	}
}

func TestMigrateFromEveryEarlierVersion(t *testing.T) {
	vs := SchemaVersions()
	for _, from := range vs[:len(vs)-1] {
		t.Run(fmt.Sprintf("from v%d", from), func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), FileName)
			db := rawDB(t, path)
			if err := MigrateTo(ctx, db, from); err != nil {
				t.Fatal(err)
			}
			seed(t, db, from)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}

			s, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if v, err := s.SchemaVersion(ctx); err != nil || v != LatestSchemaVersion() {
				t.Fatalf("after open: version %d, %v; want %d", v, err, LatestSchemaVersion())
			}
			es, err := s.Since(ctx, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != 2 || es[0].Text != "old event" || es[1].Session != "sess-1" || es[1].Need != "a draft" {
				t.Fatalf("log after migration: %+v", es)
			}
			a, err := s.AgentBySession(ctx, "sess-1")
			if err != nil || a.Status != StatusStart || a.LastEntry != 2 {
				t.Fatalf("agent after migration: %+v, %v", a, err)
			}
			if c, err := s.Cursor(ctx, "brain"); err != nil || c != 1 {
				t.Fatalf("cursor after migration: %d, %v", c, err)
			}
			got, err := s.Check(ctx, "brain", 0)
			if err != nil || !slices.Equal(ids(got), []int64{2}) {
				t.Fatalf("check after migration: %v, %v", ids(got), err)
			}
			if from >= 2 {
				if v, ok, err := s.Setting(ctx, "listen"); err != nil || !ok || v != "true" {
					t.Fatalf("setting after migration: %q %v %v", v, ok, err)
				}
			}
			// Everything works on the migrated file.
			if _, err := s.AppendEvent(ctx, Event{Source: "test", Text: "new"}); err != nil {
				t.Fatal(err)
			}
			if err := s.SetSetting(ctx, "k", "v"); err != nil {
				t.Fatal(err)
			}
			n, err := s.CreateNudge(ctx, Nudge{Kind: "info", Message: "hi"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.RespondNudge(ctx, n.ID, NudgeAccepted, ""); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestMigrationsDownAndUp keeps the Down sections honest: down to zero
// leaves nothing of ours behind, and up again works.
func TestMigrationsDownAndUp(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	db := rawDB(t, path)
	p, err := newProvider(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema
		WHERE name NOT IN ('goose_db_version', 'sqlite_sequence') AND name NOT LIKE 'sqlite_autoindex_goose%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d schema objects left after migrating down", n)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != LatestSchemaVersion() {
		t.Fatalf("version %d, %v", v, err)
	}
}

func TestOpenRejectsNonSpiritFiles(t *testing.T) {
	garbage := make([]byte, 8192)
	rand.Read(garbage)
	headerThenGarbage := append([]byte("SQLite format 3\x00"), garbage[:4080]...)

	foreign := func(t *testing.T) []byte {
		path := filepath.Join(t.TempDir(), "other.db")
		db := rawDB(t, path)
		if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, amount INTEGER); INSERT INTO invoices (amount) VALUES (42)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	for _, tc := range []struct {
		name  string
		bytes func(t *testing.T) []byte
	}{
		{"text", func(*testing.T) []byte { return []byte("these are my notes, not a database\n") }},
		{"random", func(*testing.T) []byte { return garbage }},
		{"short", func(*testing.T) []byte { return []byte("SQLite") }},
		{"sqlite header then garbage", func(*testing.T) []byte { return headerThenGarbage }},
		{"another program's SQLite file", foreign},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			want := tc.bytes(t)
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(t.Context(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !errors.Is(err, ErrNotSpirit) {
				t.Fatalf("error %v is not ErrNotSpirit", err)
			}
			if msg := err.Error(); !strings.Contains(msg, "not a Spirit database") || !strings.Contains(msg, path) {
				t.Errorf("error %q should name the file and say it is not a Spirit database", msg)
			}
			t.Log(err)
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatal("file was modified")
			}
			if des, _ := os.ReadDir(filepath.Dir(path)); len(des) != 1 {
				var names []string
				for _, de := range des {
					names = append(names, de.Name())
				}
				t.Errorf("Open left files behind: %v", names)
			}

			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o644 {
				t.Errorf("mode of a foreign file changed to %o", st.Mode().Perm())
			}
		})
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (99, 1)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("error %v is not ErrSchemaTooNew", err)
	}
}

func TestAppendAndRead(t *testing.T) {
	s, clk := openTest(t)
	ctx := t.Context()

	e1 := mustAppendEvent(t, s, Event{Source: "voice", Identifier: "call-7", Text: "Client asks  about\nthe lease"})
	if e1.ID != 1 || e1.Kind != KindEvent || !e1.TS.Equal(clk.Now()) {
		t.Fatalf("first entry %+v", e1)
	}
	clk.Advance(time.Second)
	e2 := mustAppendAgent(t, s, AgentRecord{Status: StatusStart, Session: "s1", Text: "drafting reply", Need: "a reply the lawyer approves"})
	clk.Advance(time.Second)
	e3 := mustAppendEvent(t, s, Event{Source: "screen", Identifier: "Word", Text: "Lease.docx"})
	if e2.ID != 2 || e3.ID != 3 {
		t.Fatalf("ids %d %d", e2.ID, e3.ID)
	}

	wantLine := "[" + e2.TS.Local().Format(time.RFC3339) + "][agent:start][s1] drafting reply | need: a reply the lawyer approves"
	if got := e2.String(); got != wantLine {
		t.Errorf("String() = %q, want %q", got, wantLine)
	}

	all, err := s.Since(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []Entry{e1, e2, e3} {
		if !sameEntry(all[i], want) {
			t.Errorf("read back %+v, appended %+v", all[i], want)
		}
	}
	if got, _ := s.Since(ctx, 1, 1); !slices.Equal(ids(got), []int64{2}) {
		t.Errorf("Since(1, 1) = %v", ids(got))
	}
	if got, _ := s.Since(ctx, 3, 10); len(got) != 0 {
		t.Errorf("Since(3) = %v", ids(got))
	}
	if got, _ := s.Recent(ctx, 2); !slices.Equal(ids(got), []int64{2, 3}) {
		t.Errorf("Recent(2) = %v", ids(got))
	}
	if got, _ := s.Recent(ctx, 10); !slices.Equal(ids(got), []int64{1, 2, 3}) {
		t.Errorf("Recent(10) = %v", ids(got))
	}
	if got, _ := s.RecentEvents(ctx, 10); !slices.Equal(ids(got), []int64{1, 3}) {
		t.Errorf("RecentEvents(10) = %v", ids(got))
	}
	if got, _ := s.RecentEvents(ctx, 1); !slices.Equal(ids(got), []int64{3}) {
		t.Errorf("RecentEvents(1) = %v", ids(got))
	}
	if last, err := s.LastID(ctx); err != nil || last != 3 {
		t.Errorf("LastID = %d, %v", last, err)
	}
	c, err := s.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c != (Counts{Entries: 3, Events: 2, Sessions: 1, LastID: 3}) {
		t.Errorf("Counts = %+v", c)
	}
}

func TestAppendValidates(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	for name, err := range map[string]error{
		"empty source":   second(s.AppendEvent(ctx, Event{Source: " ", Text: "x"})),
		"bad status":     second(s.AppendAgent(ctx, AgentRecord{Status: "done", Session: "s"})),
		"empty status":   second(s.AppendAgent(ctx, AgentRecord{Session: "s"})),
		"empty session":  second(s.AppendAgent(ctx, AgentRecord{Status: StatusStart})),
		"empty consumer": second(s.Check(ctx, "", 1)),
	} {
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", name, err)
		}
	}
	if last, _ := s.LastID(ctx); last != 0 {
		t.Errorf("invalid appends wrote %d entries", last)
	}
}

func second[T any](_ T, err error) error { return err }

func TestCheckConsumersHaveIndependentCursors(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	for range 5 {
		mustAppendEvent(t, s, Event{Source: "test", Text: "x"})
	}
	check := func(consumer string, limit int, want ...int64) {
		t.Helper()
		got, err := s.Check(ctx, consumer, limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("Check(%s, %d) = %v, want %v", consumer, limit, ids(got), want)
		}
	}
	check("brain", 2, 1, 2)
	check("brain", 2, 3, 4)
	check("ui", 0, 1, 2, 3, 4, 5) // never checked: everything
	check("brain", 10, 5)
	check("brain", 10)
	check("ui", 10)
	mustAppendEvent(t, s, Event{Source: "test", Text: "y"})
	check("ui", 10, 6)
	check("brain", 10, 6)
	if c, err := s.Cursor(ctx, "brain"); err != nil || c != 6 {
		t.Fatalf("Cursor(brain) = %d, %v", c, err)
	}
	if c, err := s.Cursor(ctx, "nobody"); err != nil || c != 0 {
		t.Fatalf("Cursor(nobody) = %d, %v", c, err)
	}
	if err := s.SetCursor(ctx, "brain", 3); err != nil {
		t.Fatal(err)
	}
	check("brain", 0, 4, 5, 6)
}

func TestAgentLifecycle(t *testing.T) {
	s, clk := openTest(t)
	ctx := t.Context()
	lists := func() (active, pending, failed []string) {
		t.Helper()
		a, err := s.ActiveAgents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.PendingAgents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.FailedAgents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sessions(a), sessions(p), sessions(f)
	}
	expect := func(active, pending, failed []string) {
		t.Helper()
		a, p, f := lists()
		if !slices.Equal(a, active) || !slices.Equal(p, pending) || !slices.Equal(f, failed) {
			t.Fatalf("active %v pending %v failed %v; want %v %v %v", a, p, f, active, pending, failed)
		}
	}

	start := mustAppendAgent(t, s, AgentRecord{Status: StatusStart, Session: "A", Text: "research", Need: "three precedents"})
	expect([]string{"A"}, nil, nil)
	clk.Advance(time.Minute)
	act := mustAppendAgent(t, s, AgentRecord{Status: StatusActive, Session: "A", Text: "found one"})
	expect([]string{"A"}, nil, nil)
	a, err := s.AgentBySession(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != StatusActive || a.Text != "found one" || a.Need != "three precedents" ||
		!a.Started.Equal(start.TS) || !a.Updated.Equal(act.TS) || a.LastEntry != act.ID {
		t.Fatalf("agent A %+v", a)
	}

	clk.Advance(time.Minute)
	mustAppendAgent(t, s, AgentRecord{Status: StatusStart, Session: "B", Text: "summarise hearing"})
	clk.Advance(time.Minute)
	expect([]string{"B", "A"}, nil, nil) // most recently updated first
	mustAppendAgent(t, s, AgentRecord{Status: StatusFinish, Session: "A", Text: "three found"})
	expect([]string{"B"}, []string{"A"}, nil)
	clk.Advance(time.Minute)
	mustAppendAgent(t, s, AgentRecord{Status: StatusRetry, Session: "B", Text: "transcript missing"})
	expect([]string{"B"}, []string{"A"}, nil)
	clk.Advance(time.Minute)
	mustAppendAgent(t, s, AgentRecord{Status: StatusFailed, Session: "B", Text: "gave up"})
	expect(nil, []string{"A"}, []string{"B"})
	clk.Advance(time.Minute)
	ver := mustAppendAgent(t, s, AgentRecord{Status: StatusVerified, Session: "A", Text: "checked"})
	expect(nil, nil, []string{"B"})
	clk.Advance(time.Minute)
	mustAppendAgent(t, s, AgentRecord{Status: StatusRetry, Session: "B", Text: "lawyer uploaded transcript", Need: "a one-page summary"})
	expect([]string{"B"}, nil, nil)

	a, err = s.AgentBySession(ctx, "A")
	if err != nil || a.Status != StatusVerified || a.LastEntry != ver.ID {
		t.Fatalf("agent A %+v, %v", a, err)
	}
	b, err := s.AgentBySession(ctx, "B")
	if err != nil || b.Need != "a one-page summary" {
		t.Fatalf("agent B %+v, %v", b, err)
	}
	if _, err := s.AgentBySession(ctx, "C"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	all, err := s.AgentsByStatus(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("all agents %v, %v", sessions(all), err)
	}
	if _, err := s.AgentsByStatus(ctx, "bogus"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bogus status: %v", err)
	}
	// The log has every step, the agents table only the latest.
	if c, _ := s.Counts(ctx); c.Entries != 8 || c.Events != 0 || c.Sessions != 2 {
		t.Fatalf("counts %+v", c)
	}
}

func TestWorldIsAppendOnly(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	e := mustAppendEvent(t, s, Event{Source: "voice", Text: "original"})
	other := rawDB(t, s.Path()) // not even another connection may rewrite history
	for _, db := range []*sql.DB{s.w, other} {
		for _, q := range []string{
			`UPDATE world SET text = 'rewritten' WHERE id = 1`,
			`DELETE FROM world WHERE id = 1`,
			`DELETE FROM world`,
		} {
			_, err := db.ExecContext(ctx, q)
			if err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: %v", q, err)
			}
		}
	}
	got, err := s.Since(ctx, 0, 0)
	if err != nil || len(got) != 1 || !sameEntry(got[0], e) {
		t.Fatalf("log after attempts: %+v, %v", got, err)
	}
}

func TestSettings(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	if _, ok, err := s.Setting(ctx, "listen"); ok || err != nil {
		t.Fatalf("unset setting: ok %v, %v", ok, err)
	}
	if b, err := s.BoolSetting(ctx, "listen", true); !b || err != nil {
		t.Fatalf("default: %v, %v", b, err)
	}
	if err := s.SetBoolSetting(ctx, "listen", false); err != nil {
		t.Fatal(err)
	}
	if b, err := s.BoolSetting(ctx, "listen", true); b || err != nil {
		t.Fatalf("after set false: %v, %v", b, err)
	}
	if err := s.SetSetting(ctx, "model", "small"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSetting(ctx, "model", "large"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := s.Setting(ctx, "model"); v != "large" || !ok || err != nil {
		t.Fatalf("model = %q %v %v", v, ok, err)
	}
	if _, err := s.BoolSetting(ctx, "model", false); err == nil {
		t.Fatal("non-boolean value read as boolean")
	}
	if err := s.SetSetting(ctx, "", "x"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty key: %v", err)
	}
}

func TestNudgeStateMachine(t *testing.T) {
	s, clk := openTest(t)
	ctx := t.Context()
	n1, err := s.CreateNudge(ctx, Nudge{Kind: "reminder", Message: "Hearing at 14:00", ActionPrompt: "prepare the bundle", State: NudgeAccepted})
	if err != nil {
		t.Fatal(err)
	}
	if n1.ID != 1 || n1.State != NudgeShown || !n1.Created.Equal(clk.Now()) {
		t.Fatalf("created %+v", n1)
	}
	clk.Advance(time.Minute)
	n2, _ := s.CreateNudge(ctx, Nudge{Kind: "question", Message: "Bill this call?"})
	clk.Advance(time.Minute)
	n3, _ := s.CreateNudge(ctx, Nudge{Kind: "info", Message: "Transcript ready"})

	got, err := s.Nudge(ctx, n1.ID)
	if err != nil || got != n1 {
		t.Fatalf("Nudge(1) = %+v, %v; want %+v", got, err, n1)
	}

	clk.Advance(time.Minute)
	sn, err := s.RespondNudge(ctx, n1.ID, NudgeSnoozed, "")
	if err != nil || sn.State != NudgeSnoozed || !sn.Updated.Equal(clk.Now()) || !sn.Created.Equal(n1.Created) {
		t.Fatalf("snooze: %+v, %v", sn, err)
	}
	acc, err := s.RespondNudge(ctx, n1.ID, NudgeAccepted, "done, thanks")
	if err != nil || acc.State != NudgeAccepted || acc.Answer != "done, thanks" {
		t.Fatalf("accept after snooze: %+v, %v", acc, err)
	}
	if _, err := s.RespondNudge(ctx, n2.ID, NudgeDismissed, "no"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{n1.ID, n2.ID} {
		for _, st := range []NudgeState{NudgeAccepted, NudgeSnoozed, NudgeExpired} {
			if _, err := s.RespondNudge(ctx, id, st, ""); !errors.Is(err, ErrNudgeClosed) {
				t.Errorf("respond %s to closed nudge %d: %v", st, id, err)
			}
		}
	}
	if _, err := s.RespondNudge(ctx, 99, NudgeAccepted, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown nudge: %v", err)
	}
	if _, err := s.Nudge(ctx, 99); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown nudge: %v", err)
	}
	for _, st := range []NudgeState{NudgeShown, "bogus"} {
		if _, err := s.RespondNudge(ctx, n3.ID, st, ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("respond %q: %v", st, err)
		}
	}
	if _, err := s.CreateNudge(ctx, Nudge{Kind: "info"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("nudge without message: %v", err)
	}

	list := func(states ...NudgeState) []int64 {
		t.Helper()
		ns, err := s.Nudges(ctx, states...)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	if got := list(); !slices.Equal(got, []int64{3, 2, 1}) {
		t.Errorf("all nudges %v", got)
	}
	if got := list(NudgeShown, NudgeSnoozed); !slices.Equal(got, []int64{3}) {
		t.Errorf("open nudges %v", got)
	}
	if got := list(NudgeAccepted, NudgeDismissed); !slices.Equal(got, []int64{2, 1}) {
		t.Errorf("closed nudges %v", got)
	}
	if _, err := s.RespondNudge(ctx, n3.ID, NudgeExpired, ""); err != nil {
		t.Fatal(err)
	}
	if got := list(NudgeShown); len(got) != 0 {
		t.Errorf("shown after expiry %v", got)
	}
	if _, err := s.Nudges(ctx, "bogus"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bogus state: %v", err)
	}
	// The trigger guards closed nudges against writers that bypass the store.
	if _, err := s.w.ExecContext(ctx, `UPDATE nudges SET state = 'shown' WHERE id = 1`); err == nil ||
		!strings.Contains(err.Error(), "nudge is closed") {
		t.Errorf("direct reopen of a closed nudge: %v", err)
	}
}

// holdWriteLock takes the database's write lock from another connection, as
// a second process would, and returns the function that releases it.
func holdWriteLock(t *testing.T, path string) (release func()) {
	t.Helper()
	db := rawDB(t, path)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	return func() {
		if _, err := conn.ExecContext(context.Background(), `COMMIT`); err != nil {
			t.Fatal(err)
		}
		conn.Close()
	}
}

func TestLockedDatabaseHonoursDeadline(t *testing.T) {
	s, _ := openTest(t)
	release := holdWriteLock(t, s.Path())

	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := s.AppendEvent(ctx, Event{Source: "test", Text: "while locked"})
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("append succeeded while another connection held the write lock")
	}
	if !errors.Is(err, ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v should be both ErrBusy and the deadline", err)
	}
	if elapsed > 2*time.Second {
		t.Fatalf("append took %v: the deadline did not bound the wait for the lock", elapsed)
	}
	t.Logf("locked append failed after %v: %v", elapsed, err)

	// Reads are not blocked by the writer.
	if _, err := s.Recent(t.Context(), 10); err != nil {
		t.Fatalf("read while locked: %v", err)
	}

	release()
	e, err := s.AppendEvent(t.Context(), Event{Source: "test", Text: "after release"})
	if err != nil {
		t.Fatalf("append after release: %v", err)
	}
	if e.ID != 1 {
		t.Fatalf("failed append consumed an id: got %d", e.ID)
	}
	// The shortened wait did not stick to the writer connection.
	var timeout int
	if err := s.w.QueryRowContext(t.Context(), `PRAGMA busy_timeout`).Scan(&timeout); err != nil {
		t.Fatal(err)
	}
	if timeout != int(busyTimeout.Milliseconds()) {
		t.Fatalf("busy_timeout left at %d", timeout)
	}
}

func TestLockedDatabaseWaitsForBusyTimeout(t *testing.T) {
	ctx := t.Context()
	opt := defaultOptions()
	opt.busyTimeout = 300 * time.Millisecond
	s, err := open(ctx, filepath.Join(t.TempDir(), FileName), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	release := holdWriteLock(t, s.Path())

	start := time.Now()
	_, err = s.AppendEvent(ctx, Event{Source: "test", Text: "while locked"})
	elapsed := time.Since(start)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("error %v, want ErrBusy", err)
	}
	if !strings.Contains(err.Error(), "locked") {
		t.Errorf("error %q does not say the database is locked", err)
	}
	if elapsed < opt.busyTimeout {
		t.Fatalf("gave up after %v, before the busy timeout", elapsed)
	}
	release()
	if _, err := s.AppendEvent(ctx, Event{Source: "test", Text: "after release"}); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentAppendsAndChecks(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	const writers, each = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				var err error
				if i%2 == 0 {
					_, err = s.AppendEvent(ctx, Event{Source: "w", Identifier: string(rune('a' + w)), Text: "x"})
				} else {
					_, err = s.AppendAgent(ctx, AgentRecord{Status: StatusActive, Session: string(rune('a' + w)), Text: "x"})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	// A consumer checking while writers write must see every id exactly once.
	seen := make(map[int64]bool)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for len(seen) < writers*each {
			es, err := s.Check(ctx, "reader", 7)
			if err != nil {
				errs <- err
				return
			}
			for _, e := range es {
				if seen[e.ID] {
					errs <- errors.New("entry returned twice")
					return
				}
				seen[e.ID] = true
			}
			if _, err := s.Recent(ctx, 5); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	<-done
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for id := int64(1); id <= writers*each; id++ {
		if !seen[id] {
			t.Fatalf("id %d never checked", id)
		}
	}
	if as, _ := s.ActiveAgents(ctx); len(as) != writers {
		t.Fatalf("%d active agents", len(as))
	}
}

func TestBenchHelpers(t *testing.T) {
	ctx := t.Context()
	rate, err := BenchAppend(ctx, t.TempDir(), 20)
	if err != nil || rate <= 0 {
		t.Fatalf("BenchAppend: %v, %v", rate, err)
	}
	if _, err := BenchAppendSynchronous(ctx, t.TempDir(), 20, "NORMAL"); err != nil {
		t.Fatal(err)
	}
	if _, err := BenchAppendSynchronous(ctx, t.TempDir(), 20, "WHATEVER"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
	dir := t.TempDir()
	ms, err := BenchCheckAt(ctx, dir, 250_000)
	if err != nil || ms <= 0 {
		t.Fatalf("BenchCheckAt: %v, %v", ms, err)
	}
	s, err := OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, err := s.Counts(ctx); err != nil || c.Entries != 250_000 {
		t.Fatalf("bulk fill: %+v, %v", c, err)
	}
}

// A second process writing must not stop Spirit from starting on an
// up-to-date file: Open only needs to write when it has to migrate.
func TestOpenWhileAnotherWriterHoldsLock(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	mustAppendEvent(t, s, Event{Source: "test", Text: "before"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	release := holdWriteLock(t, path)
	defer release()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open while locked: %v", err)
	}
	defer s.Close()
	if es, err := s.Recent(ctx, 1); err != nil || len(es) != 1 || es[0].Text != "before" {
		t.Fatalf("read while locked: %v, %v", es, err)
	}
}

func TestIntegrityCheck(t *testing.T) {
	s, _ := openTest(t)
	mustAppendEvent(t, s, Event{Source: "test", Text: "x"})
	if err := s.IntegrityCheck(t.Context()); err != nil {
		t.Fatal(err)
	}
}
