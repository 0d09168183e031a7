package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// AddAccount stores a new account and returns it with its id.
func (x *Index) AddAccount(ctx context.Context, a Account) (Account, error) {
	return x.AddAccountThen(ctx, a, nil)
}

// AddAccountThen stores a new account and, in the same transaction, runs
// then with it (id set), e.g. to save its credentials under keys named by
// the id. When then fails the account is not added and, account ids being
// AUTOINCREMENT, its id is not used up either: the next account gets it.
// then must be quick; it holds the store's writer.
func (x *Index) AddAccountThen(ctx context.Context, a Account, then func(Account) error) (Account, error) {
	switch a.Kind {
	case KindIMAP, KindGraph, KindGmail, KindMbox, KindMaildir:
	default:
		return Account{}, fmt.Errorf("add mail account: %w: kind %q", store.ErrInvalid, a.Kind)
	}
	cfg, err := checkConfig(a.Config)
	if err != nil {
		return Account{}, fmt.Errorf("add mail account: %w", err)
	}
	addrs := a.Addresses()
	a.Address, a.Aliases = "", nil
	if len(addrs) > 0 {
		a.Address, a.Aliases = addrs[0], addrs[1:]
	}
	aliases, err := json.Marshal(nonNil(a.Aliases))
	if err != nil {
		return Account{}, fmt.Errorf("add mail account: %w", err)
	}
	if len(a.Aliases) == 0 {
		a.Aliases = nil
	}
	created := time.UnixMilli(x.now().UnixMilli())
	a.Config, a.Cursor, a.LastSync, a.Created = cfg, "", time.Time{}, created
	err = x.st.Tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO mail_accounts (kind, name, address, aliases, config, created)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			a.Kind, a.Name, a.Address, string(aliases), string(cfg), created.UnixMilli()).Scan(&a.ID); err != nil {
			return err
		}
		if then != nil {
			return then(a)
		}
		return nil
	})
	if err != nil {
		return Account{}, fmt.Errorf("add mail account: %w", err)
	}
	return a, nil
}
