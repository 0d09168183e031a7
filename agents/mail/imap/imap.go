// Package imap connects Spirit to a mail account over IMAP (RFC 3501 and
// RFC 9051): it syncs INBOX, Sent and Drafts into the mail index and saves
// drafts the lawyer approved.
//
// Sync only reads, with BODY.PEEK so that no message is ever marked \Seen,
// on mailboxes opened with EXAMINE (read-only). CreateDraft is the one write.
//
// A Connector holds one IMAP connection, opened on first use and reopened
// after any error; its methods are serialised, since an IMAP connection is
// stateful (the selected mailbox).
package imap

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/redact"
)

// TLSMode says how the connection is secured.
type TLSMode int

const (
	// TLSImplicit: TLS from the first byte, port 993 (RFC 8314 prefers it).
	TLSImplicit TLSMode = iota
	// TLSStartTLS: plaintext on port 143, upgraded with STARTTLS before
	// any credential is sent.
	TLSStartTLS
	// TLSNone: no encryption. Refused unless the host is a loopback
	// address: it exists for in-process test servers and local bridges
	// (e.g. Proton Mail Bridge, which serves 127.0.0.1).
	TLSNone
)

// Config describes one IMAP account.
type Config struct {
	Host string
	// Port defaults to 993 for TLSImplicit and 143 otherwise.
	Port int
	TLS  TLSMode
	// TLSConfig, when set, overrides certificate checks (a corporate CA, a
	// test server's certificate). ServerName defaults to Host.
	TLSConfig *tls.Config

	Username string
	// Password is the account's password or, usually, an app password.
	// Ignored when TokenSource is set.
	Password string
	// TokenSource, when set, supplies OAuth 2.0 access tokens
	// (Microsoft 365, Gmail) and the connector logs in with XOAUTH2 or
	// OAUTHBEARER instead of a password.
	TokenSource oauth2.TokenSource
	// OAuthMechanism forces MechXOAUTH2 or MechOAuthBearer; "" picks
	// from the server's capabilities.
	OAuthMechanism string

	// Address is the account's own mailbox, the From of drafts. Its Email
	// defaults to Username when that looks like an address.
	Address mail.Address

	// DialTimeout bounds connecting, TLS and the greeting (default 30 s).
	DialTimeout time.Duration
	// CommandTimeout is how long a command may go without progress before
	// the connection is dropped (default 2 min).
	CommandTimeout time.Duration
	// BatchSize is how many messages one UID FETCH asks for (default 100):
	// large enough to amortise round trips, small enough that an
	// interrupted batch costs little.
	BatchSize int
	// MaxMessageBytes caps one message (default mail.MaxMessageBytes): a
	// sync skips a larger one without downloading it, by its RFC822.SIZE,
	// and Skipped lists it.
	MaxMessageBytes int64

	// Progress, if set, is told how far a sync has come.
	Progress mail.Progress
	// Logger receives operational logs (never message contents or
	// credentials: server texts are scrubbed, see Connector.run). Default
	// slog.Default().
	Logger *slog.Logger
}

// Connector is an IMAP mail.Connector.
type Connector struct {
	cfg Config
	log *slog.Logger
	now func() time.Time

	// creds scrubs the account's user name and password out of server
	// texts; scrub adds the OAuth access token of the current connection.
	creds *redact.Scrubber

	mu    sync.Mutex // serialises commands; guards cl and scrub
	cl    *imapclient.Client
	scrub *redact.Scrubber

	// skips are the messages the last Sync left out. Not under mu,
	// which a sync holds throughout.
	skips mail.Skips
}

var (
	_ mail.Connector = (*Connector)(nil)
	_ mail.Skipper   = (*Connector)(nil)
)

// New checks cfg and returns a Connector. It does no I/O: the connection
// opens on first use (or call Verify to test the settings).
func New(cfg Config) (*Connector, error) {
	if cfg.Host == "" {
		return nil, errors.New("imap: no server name")
	}
	if cfg.Username == "" {
		return nil, errors.New("imap: no user name")
	}
	if cfg.TokenSource == nil && cfg.Password == "" {
		return nil, errors.New("imap: no password or OAuth token source")
	}
	if cfg.TLS == TLSNone && !isLoopback(cfg.Host) {
		return nil, fmt.Errorf("imap: refusing an unencrypted connection to %s: plaintext is allowed only to this computer (127.0.0.1, ::1, localhost); use TLS or STARTTLS", cfg.Host)
	}
	if cfg.Port == 0 {
		cfg.Port = 993
		if cfg.TLS != TLSImplicit {
			cfg.Port = 143
		}
	}
	if cfg.Address.Email == "" && strings.Contains(cfg.Username, "@") {
		cfg.Address.Email = cfg.Username
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 30 * time.Second
	}
	if cfg.CommandTimeout <= 0 {
		cfg.CommandTimeout = 2 * time.Minute
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 100
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = mail.MaxMessageBytes
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	creds := redact.New(cfg.Username, cfg.Password)
	return &Connector{
		cfg:   cfg,
		log:   log.With("component", "mail/imap", "host", cfg.Host, "user", cfg.Username),
		now:   time.Now,
		creds: creds,
		scrub: creds,
	}, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Verify connects and logs in, for account settings' "Test connection".
func (c *Connector) Verify(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.client(ctx)
	return err
}

// Close logs out and closes the connection.
func (c *Connector) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl == nil {
		return nil
	}
	cl := c.cl
	c.cl = nil
	// LOGOUT is a courtesy; don't let a dead server hold Close up.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = run(ctx, cl, 5*time.Second, func(func()) error { return cl.Logout().Wait() })
	return closeClient(cl)
}

// client returns the open connection or opens one. Callers hold c.mu.
func (c *Connector) client(ctx context.Context) (*imapclient.Client, error) {
	if c.cl != nil {
		// Servers drop idle connections (often after 30 min) without
		// telling us: probe with NOOP before reusing one. One round trip
		// per Sync is cheap next to a failed sync.
		cl := c.cl
		err := c.run(ctx, cl, min(c.cfg.CommandTimeout, 15*time.Second), func(func()) error { return cl.Noop().Wait() })
		if err == nil {
			return cl, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.log.Debug("reconnecting", "reason", err)
		c.drop()
	}
	cl, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.cl = cl
	return cl, nil
}

// drop discards the connection after an error: its state (selected
// mailbox, half-read responses) can't be trusted any more, and the next
// call reconnects.
func (c *Connector) drop() {
	if c.cl != nil {
		closeClient(c.cl)
		c.cl = nil
	}
}

// do runs f on the connection with the command timeout.
func (c *Connector) do(ctx context.Context, cl *imapclient.Client, f func(kick func()) error) error {
	return c.run(ctx, cl, c.cfg.CommandTimeout, f)
}

// listFolders asks the server for its mailboxes and picks the ones to sync.
func (c *Connector) listFolders(ctx context.Context, cl *imapclient.Client) ([]folder, error) {
	var list []*goimap.ListData
	err := c.do(ctx, cl, func(func()) error {
		var opts *goimap.ListOptions
		caps := cl.Caps()
		// RETURN (SPECIAL-USE) needs LIST-EXTENDED; servers with plain
		// SPECIAL-USE send the attributes in every LIST answer anyway.
		if caps.Has(goimap.CapSpecialUse) && (caps.Has(goimap.CapListExtended) || caps.Has(goimap.CapIMAP4rev2)) {
			opts = &goimap.ListOptions{ReturnSpecialUse: true}
		}
		var err error
		list, err = cl.List("", "*", opts).Collect()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("imap: listing folders: %w", err)
	}
	return pickFolders(list), nil
}

// examine opens a mailbox read-only (EXAMINE): a sync must never change
// flags, and a read-only mailbox makes that the server's guarantee too.
func (c *Connector) examine(ctx context.Context, cl *imapclient.Client, name string) (*goimap.SelectData, error) {
	var sel *goimap.SelectData
	err := c.do(ctx, cl, func(func()) error {
		var err error
		sel, err = cl.Select(name, &goimap.SelectOptions{ReadOnly: true}).Wait()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("imap: opening %q: %w", name, err)
	}
	return sel, nil
}

// remoteID is folder + "/" + UIDVALIDITY + "/" + UID: UIDs are only unique
// within one mailbox and one UIDVALIDITY epoch. Folder names may contain
// "/", so read it from the right.
func remoteID(mailbox string, uidValidity, uid uint32) string {
	return fmt.Sprintf("%s/%d/%d", mailbox, uidValidity, uid)
}

// CreateDraft appends d to the Drafts folder, flagged \Draft. The lawyer's
// approval is the caller's to check.
func (c *Connector) CreateDraft(ctx context.Context, d mail.Draft) (mail.DraftRef, error) {
	if c.cfg.Address.Email == "" {
		return mail.DraftRef{}, errors.New("imap: the account's own address is unknown (set Config.Address)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()

	ref, err := c.createDraft(ctx, d)
	if err != nil {
		c.drop()
	}
	return ref, err
}

func (c *Connector) createDraft(ctx context.Context, d mail.Draft) (mail.DraftRef, error) {
	cl, err := c.client(ctx)
	if err != nil {
		return mail.DraftRef{}, err
	}
	folders, err := c.listFolders(ctx, cl)
	if err != nil {
		return mail.DraftRef{}, err
	}
	var drafts string
	for _, f := range folders {
		if f.Role == RoleDrafts {
			drafts = f.Name
		}
	}
	if drafts == "" {
		return mail.DraftRef{}, fmt.Errorf("%w: %s has no folder marked \\Drafts and none named Drafts", ErrNoDrafts, c.cfg.Host)
	}

	now := c.now()
	raw, msgID, err := buildDraft(c.cfg.Address, d, now)
	if err != nil {
		return mail.DraftRef{}, err
	}

	var ad *goimap.AppendData
	err = c.do(ctx, cl, func(func()) error {
		// \Seen too, as mail clients save their own drafts: a draft is
		// not unread mail, and an "unread" badge on Drafts would be odd.
		cmd := cl.Append(drafts, int64(len(raw)), &goimap.AppendOptions{
			Flags: []goimap.Flag{goimap.FlagDraft, goimap.FlagSeen},
			Time:  now,
		})
		if _, err := cmd.Write(raw); err != nil {
			cmd.Close()
			return err
		}
		if err := cmd.Close(); err != nil {
			return err
		}
		var err error
		ad, err = cmd.Wait()
		return err
	})
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("imap: saving the draft in %q: %w", drafts, err)
	}
	ref := mail.DraftRef{MessageID: msgID, Folder: RoleDrafts}
	if ad != nil && ad.UID != 0 && ad.UIDValidity != 0 {
		ref.RemoteID = remoteID(drafts, ad.UIDValidity, uint32(ad.UID))
		return ref, nil
	}

	// No UIDPLUS (RFC 4315): find the draft by its Message-ID. Failing
	// that is not an error; the draft is saved and the next sync will
	// deliver it with its RemoteID.
	sel, err := c.examine(ctx, cl, drafts)
	if err != nil {
		c.log.Warn("draft saved, but its UID is unknown", "err", err)
		return ref, nil
	}
	var uids []goimap.UID
	err = c.do(ctx, cl, func(func()) error {
		data, err := cl.UIDSearch(&goimap.SearchCriteria{
			Header: []goimap.SearchCriteriaHeaderField{{Key: "Message-Id", Value: msgID}},
		}, nil).Wait()
		if err == nil {
			uids, err = searchUIDs(data)
		}
		return err
	})
	if err != nil || len(uids) == 0 {
		c.log.Warn("draft saved, but its UID is unknown", "err", err)
		return ref, nil
	}
	ref.RemoteID = remoteID(drafts, sel.UIDValidity, uint32(uids[len(uids)-1]))
	return ref, nil
}
