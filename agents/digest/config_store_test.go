package digest

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// TestConfigSavedInOneTransaction (issue 27): POST /agent/config saves the
// whole configuration or none of it. The store refuses the second digest
// setting written in a transaction (a trigger on the real file stands in
// for Spirit killed between two writes); before, each setting was its own
// transaction, and the first stayed changed while the rest did not: the
// next start read a mix of the old configuration and the new.
func TestConfigSavedInOneTransaction(t *testing.T) {
	ctx := t.Context()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	l := New(Options{Settings: st})
	d, w, m := 10*time.Second, 5*time.Minute, "claude-haiku-4-5"
	if _, err := l.SetConfig(ctx, ConfigUpdate{Interval: &d, Window: &w, Model: &m}); err != nil {
		t.Fatal(err)
	}
	saved, err := st.AllSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// From now on, a transaction may write one digest setting, not two.
	// (An upsert fires BEFORE INSERT once, whether or not the key exists.)
	err = st.Tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			CREATE TEMP TABLE digest_writes (n INTEGER);
			CREATE TEMP TRIGGER one_digest_write BEFORE INSERT ON main.settings WHEN NEW.key LIKE 'digest.%'
			BEGIN
				SELECT RAISE(ABORT, 'killed') WHERE (SELECT count(*) FROM digest_writes) > 0;
				INSERT INTO digest_writes VALUES (1);
			END;`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	off, d2, w2, m2 := false, time.Minute, 10*time.Minute, "gpt-5-mini"
	if _, err := l.SetConfig(ctx, ConfigUpdate{Enabled: &off, Interval: &d2, Window: &w2, Model: &m2}); err == nil {
		t.Fatal("SetConfig succeeded though the store refused it")
	}
	after, err := st.AllSettings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{keyEnabled, keyInterval, keyWindow, keyModel} {
		if after[k] != saved[k] {
			t.Errorf("%s = %q after the failed save, want %q still: a mixed configuration", k, after[k], saved[k])
		}
	}
	// What runs is what is saved.
	if got := l.Config(); got.Enabled != true || got.Interval != d || got.Window != w || got.Model != m {
		t.Errorf("config in force after the failed save = %+v, want the saved one", got)
	}
}
