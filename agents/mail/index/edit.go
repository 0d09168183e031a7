package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"

	"github.com/spirit-app/spirit/agents/store"
)

// UpdateAccount edits account id's name and aliases in one transaction:
// change gets the account as stored and may set Name and Aliases, and
// Address only while the account has none. Everything else (kind,
// settings, cursor) is left as stored whatever change does, and so is an
// account's own address: connectors send and sign in as it, and mail
// already indexed names it. Aliases are normalised as AddAccount does
// (lower case, no repeats, the address itself dropped).
//
// It returns the account as now stored. An error from change, an alias
// that is not a bare email address or an empty name (store.ErrInvalid),
// or no such account (store.ErrNotFound) changes nothing.
//
// Indexed mail is not touched: whether a message is the user's is decided
// when it is read (SearchEmail, ReadEmailThread) from the addresses stored
// then, so an added alias counts for past mail at once, without a sync.
func (x *Index) UpdateAccount(ctx context.Context, id int64, change func(*Account) error) (Account, error) {
	var out Account
	err := x.st.Tx(ctx, func(tx *sql.Tx) error {
		old, err := scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountCols+` FROM mail_accounts WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return store.ErrNotFound
		}
		if err != nil {
			return err
		}
		a := old
		a.Aliases = append([]string(nil), old.Aliases...) // change must not alias the stored slice
		if err := change(&a); err != nil {
			return err
		}
		if a, err = checkEdit(old, a); err != nil {
			return err
		}
		aliases, err := json.Marshal(nonNil(a.Aliases))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE mail_accounts SET name = ?, address = ?, aliases = ? WHERE id = ?`,
			a.Name, a.Address, string(aliases), id); err != nil {
			return err
		}
		out = a
		return nil
	})
	if err != nil {
		return Account{}, fmt.Errorf("mail account %d: %w", id, err)
	}
	return out, nil
}

// checkEdit validates the edit of old into a and returns old with a's
// name and addresses, normalised.
func checkEdit(old, a Account) (Account, error) {
	name := strings.TrimSpace(a.Name)
	if name == "" {
		return Account{}, fmt.Errorf("%w: an account needs a name", store.ErrInvalid)
	}
	addr := strings.ToLower(strings.TrimSpace(a.Address))
	if old.Address != "" && addr != strings.ToLower(old.Address) {
		return Account{}, fmt.Errorf("%w: the account's own address %s stays; add other addresses as aliases", store.ErrInvalid, old.Address)
	}
	for _, s := range append([]string{addr}, a.Aliases...) {
		if s = strings.TrimSpace(s); s != "" && !bareAddress(s) {
			return Account{}, fmt.Errorf("%w: %q is not an email address: write it like name@firm.com", store.ErrInvalid, s)
		}
	}
	a.Address = addr
	addrs := a.Addresses()
	out := old
	out.Name, out.Address, out.Aliases = name, "", nil
	if len(addrs) > 0 {
		out.Address, out.Aliases = addrs[0], addrs[1:]
	}
	if len(out.Aliases) == 0 {
		out.Aliases = nil
	}
	return out, nil
}

// bareAddress reports whether s is one email address and nothing else: no
// display name, no angle brackets, no list. Anything more stored as an
// alias would never equal a sender's address.
func bareAddress(s string) bool {
	p, err := netmail.ParseAddress(s)
	return err == nil && p.Name == "" && strings.EqualFold(p.Address, s)
}
