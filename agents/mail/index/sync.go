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

// SyncResult is what one sync of an account did.
type SyncResult struct {
	// Applied counts the messages applied, tombstones included.
	Applied int
	// Skipped are the messages the connector left out rather than fail
	// the sync: too large to read, unreadable (see mail.Skipper).
	Skipped []mail.Skip
}

// String says what the sync did, for the lawyer: "synced 120 messages",
// "synced 120 messages; skipped 2 too large to read (over 50 MB)".
func (r SyncResult) String() string {
	s := fmt.Sprintf("synced %d messages", r.Applied)
	if sk := mail.SkipSummary(r.Skipped); sk != "" {
		s += "; " + sk
	}
	return s
}

// Sync is SyncAccount for callers that need only the number of messages
// applied.
func (x *Index) Sync(ctx context.Context, accountID int64, conn mail.Connector, progress mail.Progress) (int, error) {
	r, err := x.SyncAccount(ctx, accountID, conn, progress)
	return r.Applied, err
}

// SyncAccount brings the account's index up to date with conn: it runs
// the connector from the stored cursor, applies what it delivers in
// batches of BatchSize, and stores the new cursor only once everything is
// applied. A sync that fails or is cancelled midway keeps the batches it
// applied and its old cursor, so the next sync repeats the rest; applying
// a message twice changes nothing. It returns the number of messages
// applied (tombstones included) and those the connector skipped.
// progress, if not nil, is called after each batch. Only one sync per
// account runs at a time; another gets ErrSyncRunning.
func (x *Index) SyncAccount(ctx context.Context, accountID int64, conn mail.Connector, progress mail.Progress) (res SyncResult, err error) {
	x.mu.Lock()
	if x.syncing[accountID] {
		x.mu.Unlock()
		return res, fmt.Errorf("sync mail account %d: %w", accountID, ErrSyncRunning)
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
		return res, fmt.Errorf("sync mail account %d: %w", accountID, err)
	}
	if k, ok := conn.(knownSetter); ok {
		k.SetKnown(func(ctx context.Context) (map[string]string, error) { return x.RemoteIDs(ctx, accountID) })
	}
	n := 0
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
	res.Applied = n
	if s, ok := conn.(mail.Skipper); ok {
		// After a failed sync too: the skips so far are as real as the
		// batches applied.
		res.Skipped = s.Skipped()
	}
	if err != nil {
		slog.WarnContext(ctx, "mail index: sync stopped; the next sync repeats it from the old cursor",
			"account", accountID, "applied", n, "err", err)
		return res, fmt.Errorf("sync mail account %d: %w", accountID, err)
	}
	if err := x.st.Tx(ctx, func(tx *sql.Tx) error { return setCursor(ctx, tx, accountID, next, x.now()) }); err != nil {
		return res, fmt.Errorf("sync mail account %d: store cursor: %w", accountID, err)
	}
	if progress != nil {
		progress(n, n)
	}
	slog.InfoContext(ctx, "mail index: synced", "account", accountID, "messages", n, "skipped", len(res.Skipped))
	return res, nil
}
