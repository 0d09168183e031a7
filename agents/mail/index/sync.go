package index

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"github.com/spirit-app/spirit/agents/mail"
)

// BatchSize is how many messages Sync applies per transaction: large
// enough to amortise the commit's fsync, small enough that the glance's
// reads and other writers never wait long for the single writer.
const BatchSize = 200

// knownSetter is implemented by connectors that re-read a whole source
// (the mbox and Maildir connectors): given the RemoteIDs the index holds,
// with their folders, they skip what is indexed and report what vanished
// as Deleted tombstones.
type knownSetter interface {
	SetKnown(func(ctx context.Context) (map[string]string, error))
}

// Sync brings the account's index up to date with conn: it runs the
// connector from the stored cursor, applies what it delivers in batches
// of BatchSize, and stores the new cursor only once everything is
// applied. A sync that fails or is cancelled midway keeps the batches it
// applied and its old cursor, so the next Sync repeats the rest; applying
// a message twice changes nothing. It returns the number of messages
// applied (tombstones included). progress, if not nil, is called after
// each batch. Only one Sync per account runs at a time; another gets
// ErrSyncRunning.
func (x *Index) Sync(ctx context.Context, accountID int64, conn mail.Connector, progress mail.Progress) (n int, err error) {
	x.mu.Lock()
	if x.syncing[accountID] {
		x.mu.Unlock()
		return 0, fmt.Errorf("sync mail account %d: %w", accountID, ErrSyncRunning)
	}
	x.syncing[accountID] = true
	x.mu.Unlock()
	defer func() {
		x.mu.Lock()
		delete(x.syncing, accountID)
		x.mu.Unlock()
	}()

	acc, err := x.Account(ctx, accountID)
	if err != nil {
		return 0, fmt.Errorf("sync mail account %d: %w", accountID, err)
	}
	if k, ok := conn.(knownSetter); ok {
		k.SetKnown(func(ctx context.Context) (map[string]string, error) { return x.RemoteIDs(ctx, accountID) })
	}
	batch := make([]mail.Message, 0, BatchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := x.Apply(ctx, accountID, batch); err != nil {
			return err
		}
		n += len(batch)
		batch = batch[:0]
		if progress != nil {
			progress(n, 0)
		}
		return nil
	}
	next, err := conn.Sync(ctx, acc.Cursor, func(m mail.Message) error {
		batch = append(batch, m)
		if len(batch) >= BatchSize {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		slog.WarnContext(ctx, "mail index: sync stopped; the next sync repeats it from the old cursor",
			"account", accountID, "applied", n, "err", err)
		return n, fmt.Errorf("sync mail account %d: %w", accountID, err)
	}
	if err := x.st.Tx(ctx, func(tx *sql.Tx) error { return setCursor(ctx, tx, accountID, next, x.now()) }); err != nil {
		return n, fmt.Errorf("sync mail account %d: store cursor: %w", accountID, err)
	}
	if progress != nil {
		progress(n, n)
	}
	slog.InfoContext(ctx, "mail index: synced", "account", accountID, "messages", n)
	return n, nil
}
