// Package index keeps the lawyer's mail in Spirit's database: the accounts,
// every message their connectors deliver, the threads rebuilt from the
// messages' headers, and a full-text index. On it run the glance's
// read-only tools (SearchEmail, ReadEmailThread), whose results are small
// JSON-able structs a model can read.
//
// All writes go through the store's single writer (store.Tx); reads use its
// read-only pool and never wait for a sync. The schema is the store's
// migration 5 (mail_accounts, mail_messages, mail_threads, mail_refs and the
// FTS5 table mail_fts, kept in step by triggers).
//
// # Threading
//
// A thread is a connected component of messages linked by shared keys:
// every Message-ID a message names (its own, In-Reply-To, each References
// entry) and the service's conversation id. This is the union of JWZ's
// reference chains without the tree: a reply joins its parent, and
// siblings whose parent never arrived still join each other through the
// parent's id in their References. Apply re-computes the components
// each batch touches, so messages may arrive in any order, and a deletion
// that removes the only link splits a thread again.
//
// Only a message with none of those headers that says it is a reply
// ("RE:", "AW:", "SV:"…) is threaded by subject: it joins the latest
// message before it (else the earliest after it) with the same normalised
// subject, within 60 days, that shares a participant other than the user.
// Subjects repeat across unrelated threads ("Deposition scheduling" from
// two opposing counsel, a weekly "Status", "Invoice"), so a subject match
// is a guess, used only where the headers give nothing at all.
//
// Thread ids survive rebuilds (a component keeps the id most of its
// members had; a split leaves it with the larger part) and are never
// reused, so an id the analyst holds stays valid or disappears.
package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// Account kinds.
const (
	KindIMAP    = "imap"
	KindGraph   = "graph"
	KindGmail   = "gmail"
	KindMbox    = "mbox"
	KindMaildir = "maildir"
)

// Sentinel errors; test with errors.Is. Missing rows are store.ErrNotFound
// and refused arguments store.ErrInvalid, as everywhere in the store.
var (
	// ErrSyncRunning means another Sync of the same account is under way.
	ErrSyncRunning = errors.New("a sync of this account is already running")
)

// Account is one mail account the index holds mail for.
type Account struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"` // one of the Kind constants
	Name string `json:"name"`
	// Address is the user's own address at the account; Aliases are the
	// user's other addresses there. A message from any of them is "from me".
	Address string   `json:"address"`
	Aliases []string `json:"aliases,omitempty"`
	// Config holds the connector's settings (server, folder paths…), never
	// secrets: passwords and tokens belong in the OS keyring.
	Config   json.RawMessage `json:"config,omitempty"`
	Cursor   string          `json:"cursor,omitempty"`
	LastSync time.Time       `json:"last_sync,omitzero"`
	Created  time.Time       `json:"created"`
}

// Addresses returns the account's own addresses in lower case.
func (a Account) Addresses() []string {
	var out []string
	for _, s := range append([]string{a.Address}, a.Aliases...) {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Index is the mail index over Spirit's store. It is safe for concurrent use.
type Index struct {
	st *store.Store
	// now stamps accounts and syncs; tests may replace it.
	now func() time.Time

	mu      sync.Mutex
	syncing map[int64]bool // accounts with a Sync under way
}

// New returns the index kept in st.
func New(st *store.Store) *Index {
	return &Index{st: st, now: time.Now, syncing: map[int64]bool{}}
}

// secretKeys are config keys that would hold credentials; AddAccount
// refuses them so that spirit.db never holds a password.
var secretKeys = []string{"password", "passwd", "secret", "token", "access_token", "refresh_token", "client_secret", "api_key", "apikey", "app_password"}

// checkConfig validates a config object and refuses credentials in it.
func checkConfig(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return json.RawMessage(`{}`), nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: config must be a JSON object", store.ErrInvalid)
	}
	for k := range m {
		if slices.Contains(secretKeys, strings.ToLower(k)) {
			return nil, fmt.Errorf("%w: config key %q would keep a secret in the database; use the keyring", store.ErrInvalid, k)
		}
	}
	return raw, nil
}

const accountCols = `id, kind, name, address, aliases, config, cursor, last_sync, created`

func scanAccount(sc interface{ Scan(...any) error }) (Account, error) {
	var (
		a            Account
		aliases, cfg string
		lastSync     sql.NullInt64
		created      int64
	)
	if err := sc.Scan(&a.ID, &a.Kind, &a.Name, &a.Address, &aliases, &cfg, &a.Cursor, &lastSync, &created); err != nil {
		return Account{}, err
	}
	if err := json.Unmarshal([]byte(aliases), &a.Aliases); err != nil {
		return Account{}, fmt.Errorf("account %d aliases: %w", a.ID, err)
	}
	if len(a.Aliases) == 0 {
		a.Aliases = nil
	}
	a.Config = json.RawMessage(cfg)
	if lastSync.Valid {
		a.LastSync = time.UnixMilli(lastSync.Int64)
	}
	a.Created = time.UnixMilli(created)
	return a, nil
}

// Accounts lists the accounts in the order they were added.
func (x *Index) Accounts(ctx context.Context) ([]Account, error) {
	rows, err := x.st.Reader().QueryContext(ctx, `SELECT `+accountCols+` FROM mail_accounts ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("mail accounts: %w", err)
	}
	defer rows.Close()
	var out []Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("mail accounts: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("mail accounts: %w", err)
	}
	return out, nil
}

// Account returns one account; store.ErrNotFound if there is none.
func (x *Index) Account(ctx context.Context, id int64) (Account, error) {
	a, err := scanAccount(x.st.Reader().QueryRowContext(ctx, `SELECT `+accountCols+` FROM mail_accounts WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, fmt.Errorf("mail account %d: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return Account{}, fmt.Errorf("mail account %d: %w", id, err)
	}
	return a, nil
}

// RemoveAccount deletes the account with all its indexed mail, threads and
// full-text rows, in one transaction.
func (x *Index) RemoveAccount(ctx context.Context, id int64) error {
	err := x.st.Tx(ctx, func(tx *sql.Tx) error {
		// Messages first, so the threads they point at are not set NULL
		// row by row before going themselves.
		if _, err := tx.ExecContext(ctx, `DELETE FROM mail_messages WHERE account_id = ?`, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM mail_accounts WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("remove mail account %d: %w", id, err)
	}
	return nil
}

// SetCursor records the connector's cursor after a complete sync and
// stamps the account's last sync.
func (x *Index) SetCursor(ctx context.Context, id int64, cursor string) error {
	err := x.st.Tx(ctx, func(tx *sql.Tx) error { return setCursor(ctx, tx, id, cursor, x.now()) })
	if err != nil {
		return fmt.Errorf("set mail cursor of account %d: %w", id, err)
	}
	return nil
}

func setCursor(ctx context.Context, tx *sql.Tx, id int64, cursor string, now time.Time) error {
	res, err := tx.ExecContext(ctx, `UPDATE mail_accounts SET cursor = ?, last_sync = ? WHERE id = ?`, cursor, now.UnixMilli(), id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return store.ErrNotFound
	}
	return nil
}

// RemoteIDs maps the RemoteID of every message indexed for the account to
// its folder. Connectors that re-read a whole source use it to skip what
// is indexed and to report what vanished.
func (x *Index) RemoteIDs(ctx context.Context, accountID int64) (map[string]string, error) {
	rows, err := x.st.Reader().QueryContext(ctx, `SELECT remote_id, folder FROM mail_messages WHERE account_id = ?`, accountID)
	if err != nil {
		return nil, fmt.Errorf("remote ids of account %d: %w", accountID, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, folder string
		if err := rows.Scan(&id, &folder); err != nil {
			return nil, fmt.Errorf("remote ids of account %d: %w", accountID, err)
		}
		out[id] = folder
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("remote ids of account %d: %w", accountID, err)
	}
	return out, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
