package app

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
)

// mailSyncEvery is how often mail is fetched in the background.
const mailSyncEvery = 5 * time.Minute

// mailSyncer keeps the local mail index current in the background.
type mailSyncer struct {
	ix     *index.Index
	keys   *providers // the keychain holds each account's sign-in
	bus    events.Logger
	record func(ctx context.Context, source, id, text string)
	log    *slog.Logger
	now    chan struct{} // "sync now" from Settings

	mu       sync.Mutex
	progress string // "Syncing mail 120/500", "" when idle
	lastErr  map[int64]string
	// skipped is, per account, what the last sync that left messages out
	// said about them. A sync reports a message it skips once, when it
	// meets it (later ones go on from their cursor), so the note stays
	// until a newer one replaces it: the lawyer must not miss that some
	// mail is not searchable.
	skipped map[int64]skipNote
}

// skipNote is what a sync left out, in words ("skipped 2 too large to
// read (over 50 MB)"), and when.
type skipNote struct {
	summary string
	at      time.Time
}

func newMailSyncer(ix *index.Index, keys *providers, bus events.Logger,
	record func(context.Context, string, string, string), log *slog.Logger) *mailSyncer {
	return &mailSyncer{ix: ix, keys: keys, bus: bus, record: record, log: log,
		now: make(chan struct{}, 1), lastErr: map[int64]string{}, skipped: map[int64]skipNote{}}
}

// SyncNow asks for a sync at once.
func (m *mailSyncer) SyncNow() {
	select {
	case m.now <- struct{}{}:
	default:
	}
}

// Progress is the tray's mail note and each account's last error.
func (m *mailSyncer) Progress() (string, map[int64]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	errs := make(map[int64]string, len(m.lastErr))
	for k, v := range m.lastErr {
		errs[k] = v
	}
	return m.progress, errs
}

func (m *mailSyncer) set(p string) {
	m.mu.Lock()
	changed := m.progress != p
	m.progress = p
	m.mu.Unlock()
	if changed {
		m.bus.Log(events.StatusChanged, nil) // the status line shows the progress
	}
}

// Run syncs every account now and then every mailSyncEvery until ctx ends.
func (m *mailSyncer) Run(ctx context.Context) error {
	t := time.NewTicker(mailSyncEvery)
	defer t.Stop()
	for {
		m.syncAll(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-m.now:
		}
	}
}

func (m *mailSyncer) syncAll(ctx context.Context) {
	as, err := m.ix.Accounts(ctx)
	if err != nil || len(as) == 0 {
		return
	}
	sec, err := m.keys.secrets()
	if err != nil {
		m.log.Error("mail sync: keychain", "err", err)
		return
	}
	defer m.set("")
	m.mu.Lock()
	for id := range m.skipped {
		if !slices.ContainsFunc(as, func(a index.Account) bool { return a.ID == id }) {
			delete(m.skipped, id) // the account was removed
		}
	}
	m.mu.Unlock()
	for _, a := range as {
		if ctx.Err() != nil {
			return
		}
		conn, err := accounts.Connect(ctx, a, sec, m.log)
		var res index.SyncResult
		if err == nil {
			res, err = m.ix.SyncAccount(ctx, a.ID, conn, func(done, total int) {
				if total > 0 {
					m.set(fmt.Sprintf("Syncing mail %d/%d", done, total))
				} else {
					m.set(fmt.Sprintf("Syncing mail %d", done))
				}
			})
			conn.Close()
		}
		skipped := mail.SkipSummary(res.Skipped)
		m.mu.Lock()
		// A changed mbox file is read again whole and skips the same
		// messages again: that alone is no news for the world log.
		newSkips := err == nil && skipped != "" && skipped != m.skipped[a.ID].summary
		if err == nil && skipped != "" {
			m.skipped[a.ID] = skipNote{skipped, time.Now()}
		}
		m.mu.Unlock()
		if err == nil && (res.Applied > 0 || newSkips) {
			m.record(ctx, "mail", fmt.Sprintf("account-%d", a.ID), res.String())
		}
		if err == nil {
			m.bus.Log(events.MailSynced, events.MailSync{Account: a.ID, Applied: res.Applied, Skipped: len(res.Skipped)})
		}
		m.mu.Lock()
		if err != nil && ctx.Err() == nil {
			m.lastErr[a.ID] = err.Error()
			m.log.Warn("mail sync failed; nothing lost, it runs again later", "account", a.Name, "err", err)
		} else {
			delete(m.lastErr, a.ID)
		}
		m.mu.Unlock()
	}
}

// health reports the mail subsystem for /health and adds its counters.
func (m *mailSyncer) health(ctx context.Context, counters map[string]int64) api.Subsystem {
	st, err := m.ix.Stats(ctx)
	if err != nil {
		return api.Subsystem{State: "error", Detail: err.Error()}
	}
	counters["mail_accounts"] = int64(len(st.Accounts))
	counters["mail_messages"] = int64(st.Messages)
	counters["mail_threads"] = int64(st.Threads)
	progress, errs := m.Progress()
	m.mu.Lock()
	var skips []string
	for id, sk := range m.skipped {
		skips = append(skips, fmt.Sprintf("; account %d %s on %s", id, sk.summary, sk.at.Format("Jan 2 15:04")))
	}
	m.mu.Unlock()
	sort.Strings(skips)
	switch {
	case len(st.Accounts) == 0:
		return api.Subsystem{State: "no accounts", Detail: "add one in Settings or with `spirit mail add`"}
	case progress != "":
		return api.Subsystem{State: "syncing", Detail: progress}
	case len(errs) > 0:
		var parts []string
		for id, e := range errs {
			parts = append(parts, fmt.Sprintf("account %d: %s", id, e))
		}
		sort.Strings(parts)
		return api.Subsystem{State: "error", Detail: strings.Join(parts, "; ")}
	}
	return api.Subsystem{State: "ok", Detail: fmt.Sprintf("%d messages in %d threads", st.Messages, st.Threads) + strings.Join(skips, "")}
}
