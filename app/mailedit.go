package app

import (
	"context"
	"fmt"

	"github.com/spirit-app/spirit/agents/mail/index"
)

// EditMailAccount changes account id's name and aliases (index.Index's
// UpdateAccount: change gets the stored account; its own address stays)
// and records the change in the world log. Nothing is synced again: the
// glance and the agents read the account's addresses afresh each time, so
// a reply already indexed from a new alias counts as the lawyer's at once.
func (c *Core) EditMailAccount(ctx context.Context, id int64, change func(*index.Account) error) (index.Account, error) {
	a, err := index.New(c.store).UpdateAccount(ctx, id, change)
	if err != nil {
		return index.Account{}, err
	}
	c.event(ctx, "user", fmt.Sprintf("account-%d", a.ID), "changed the name or addresses of mail account "+a.Name)
	return a, nil
}
