package store

import (
	"database/sql"
	"testing"
)

// TestMailSchemaKeepsFullTextInStep checks migration 5's triggers and
// cascades with plain SQL: the full-text rows follow inserts, updates and
// deletes of messages, and removing an account leaves nothing of its mail.
func TestMailSchemaKeepsFullTextInStep(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	exec := func(q string, args ...any) {
		t.Helper()
		if err := s.Tx(ctx, func(tx *sql.Tx) error { _, err := tx.ExecContext(ctx, q, args...); return err }); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	match := func(q string) int {
		t.Helper()
		var n int
		if err := s.Reader().QueryRowContext(ctx, `SELECT count(*) FROM mail_fts WHERE mail_fts MATCH ?`, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := s.Reader().QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	exec(`INSERT INTO mail_accounts (id, kind, address, created) VALUES (1, 'mbox', 'dana@firm.com', 0), (2, 'imap', 'd@home.org', 0)`)
	exec(`INSERT INTO mail_threads (id, account_id) VALUES (10, 1), (20, 2)`)
	exec(`INSERT INTO mail_messages (id, account_id, remote_id, thread_id, subject, from_name, from_email, to_json, cc_json, body)
		VALUES (100, 1, 'a', 10, 'Estoppel Certificate', 'Grant Ellison', 'gellison@ellisonmarsh.com',
			'[{"name":"Dana Whitfield","email":"dana@firm.com"}]', '[{"email":"hana.lee@corvid.com"}]', 'The lender requires it.'),
		(200, 2, 'b', 20, 'Lunch', 'Café Zoë', 'zoe@cafe.com', '[]', '[]', 'Friday?')`)
	exec(`INSERT INTO mail_refs (key, message) VALUES (1, 100), (2, 200)`)
	for q, want := range map[string]int{
		"estoppel": 1, "{sender}: grant": 1, "{recipients}: whitfield": 1, "{recipients}: hana": 1,
		"{body}: lender": 1, "{subject}: lender": 0, "zoe": 1, "cafe": 1, // diacritics removed
	} {
		if n := match(q); n != want {
			t.Errorf("MATCH %q: %d rows, want %d", q, n, want)
		}
	}
	exec(`UPDATE mail_messages SET body = 'The bank requires it.' WHERE id = 100`)
	if match("lender") != 0 || match("bank") != 1 {
		t.Error("update not reflected in the full-text index")
	}
	// Moving a message to another thread does not touch its text.
	exec(`UPDATE mail_messages SET thread_id = NULL WHERE id = 100`)
	if match("bank") != 1 {
		t.Error("thread change lost the full-text row")
	}
	exec(`DELETE FROM mail_accounts WHERE id = 1`)
	for table, want := range map[string]int{"mail_messages": 1, "mail_threads": 1, "mail_refs": 1, "mail_fts_docsize": 1, "mail_accounts": 1} {
		if n := count(table); n != want {
			t.Errorf("%s: %d rows after removing the account, want %d", table, n, want)
		}
	}
	if match("bank") != 0 || match("friday") != 1 {
		t.Error("full-text rows of the removed account remain, or the other's went")
	}
}
