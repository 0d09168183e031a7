package app

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/app/api"
)

// mailSyncEvery is how often mail is fetched in the background.
const mailSyncEvery = 5 * time.Minute

// mailSyncer keeps the local mail index current in the background.
type mailSyncer struct {
	core    *Core
	ix      *index.Index
	dataDir string
	now     chan struct{} // "sync now" from Settings

	mu       sync.Mutex
	progress string // "Syncing mail 120/500", "" when idle
	lastErr  map[int64]string
}

func newMailSyncer(c *Core, dataDir string) *mailSyncer {
	return &mailSyncer{core: c, ix: index.New(c.store), dataDir: dataDir,
		now: make(chan struct{}, 1), lastErr: map[int64]string{}}
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
		m.core.voiceChanged() // refreshes the status line
	}
}

// run syncs every account now and then every mailSyncEvery until ctx ends.
func (m *mailSyncer) run(ctx context.Context) {
	t := time.NewTicker(mailSyncEvery)
	defer t.Stop()
	for {
		m.syncAll(ctx)
		select {
		case <-ctx.Done():
			return
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
	sec, err := m.core.secrets()
	if err != nil {
		m.core.log.Error("mail sync: keychain", "err", err)
		return
	}
	defer m.set("")
	for _, a := range as {
		if ctx.Err() != nil {
			return
		}
		conn, err := accounts.Connect(ctx, a, sec, m.core.log)
		if err == nil {
			var n int
			n, err = m.ix.Sync(ctx, a.ID, conn, func(done, total int) {
				if total > 0 {
					m.set(fmt.Sprintf("Syncing mail %d/%d", done, total))
				} else {
					m.set(fmt.Sprintf("Syncing mail %d", done))
				}
			})
			conn.Close()
			if err == nil && n > 0 {
				m.core.event(ctx, "mail", fmt.Sprintf("account-%d", a.ID), fmt.Sprintf("synced %d messages", n))
			}
		}
		m.mu.Lock()
		if err != nil && ctx.Err() == nil {
			m.lastErr[a.ID] = err.Error()
			m.core.log.Warn("mail sync failed; nothing lost, it runs again later", "account", a.Name, "err", err)
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
	return api.Subsystem{State: "ok", Detail: fmt.Sprintf("%d messages in %d threads", st.Messages, st.Threads)}
}

// mailSync returns the background syncer, or nil before it starts.
func (c *Core) mailSync() *mailSyncer {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mail
}
