package imap

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"mime"
	"net"
	"strconv"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message/charset"
	"github.com/emersion/go-sasl"
	"golang.org/x/oauth2"
)

// Errors callers can test with errors.Is to tell the user what to fix.
var (
	// ErrAuth: the server rejected the credentials.
	ErrAuth = errors.New("imap: authentication failed")
	// ErrTLS: no secure connection (certificate, wrong port for the TLS
	// mode, or STARTTLS refused).
	ErrTLS = errors.New("imap: secure connection failed")
	// ErrUnreachable: no TCP connection to the server.
	ErrUnreachable = errors.New("imap: server unreachable")
	// ErrTimeout: the server stopped answering.
	ErrTimeout = errors.New("imap: server not answering")
	// ErrNoDrafts: the account has no Drafts folder to save into.
	ErrNoDrafts = errors.New("imap: no Drafts folder")
)

// run runs f, which issues IMAP commands on cl, and closes the connection
// when ctx ends or when f goes timeout without calling kick. imapclient
// has no context support and sets no read deadline while a command
// waits, so closing the socket is the only way to unblock a command sent
// to a server that went silent. kick marks progress (a FETCH of a large
// batch may take long but keeps delivering messages).
func run(ctx context.Context, closer interface{ Close() error }, timeout time.Duration, f func(kick func()) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	kicks := make(chan struct{}, 1)
	kick := func() {
		select {
		case kicks <- struct{}{}:
		default:
		}
	}
	go func() { done <- f(kick) }()

	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-kicks:
			t.Reset(timeout)
		case <-ctx.Done():
			closeAndWait(closer, done)
			return ctx.Err()
		case <-t.C:
			closeAndWait(closer, done)
			return fmt.Errorf("%w: no answer within %v", ErrTimeout, timeout)
		}
	}
}

// run is the package's run with the server's part of f's error scrubbed of
// the account's credentials (see package redact). Servers echo them in NO
// and BAD texts, and every error from here on is logged, kept in the mail
// status and shown to the lawyer. Callers hold c.mu.
func (c *Connector) run(ctx context.Context, closer interface{ Close() error }, timeout time.Duration, f func(kick func()) error) error {
	// Read now: f runs on another goroutine, which a timeout may leave
	// behind while a later login replaces c.scrub.
	scrub := c.scrub
	return run(ctx, closer, timeout, func(kick func()) error { return scrub.Error(f(kick)) })
}

// closeClient closes cl but waits for it at most a few seconds, for the
// reason closeAndWait gives.
func closeClient(cl interface{ Close() error }) error {
	done := make(chan error, 1)
	go func() { done <- cl.Close() }()
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	select {
	case err := <-done:
		return err
	case <-limit.C:
		return fmt.Errorf("%w: the connection did not close", ErrTimeout)
	}
}

// closeAndWait closes the connection and waits for f to notice, but not
// forever: a goroutine stuck in library code must not hang the caller too.
// Close itself runs apart: imapclient's Close waits for its reader
// goroutine, and a malformed CAPABILITY in a server's greeting can keep
// that reader from ever finishing (found by FuzzIMAPSync), which would
// hang every later sync of the account behind it.
func closeAndWait(closer interface{ Close() error }, done <-chan error) {
	closed := make(chan struct{})
	go func() {
		closer.Close()
		close(closed)
	}()
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	for closed != nil || done != nil {
		select {
		case <-closed:
			closed = nil
		case <-done:
			done = nil
		case <-limit.C:
			return
		}
	}
}

// connect dials, secures and authenticates a connection.
func (c *Connector) connect(ctx context.Context) (*imapclient.Client, error) {
	cfg := &c.cfg
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	d := net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: cannot connect to %s: %w (check the server name, the port and the network)", ErrUnreachable, addr, err)
	}

	opts := &imapclient.Options{
		TLSConfig:   c.tlsConfig(),
		WordDecoder: &mime.WordDecoder{CharsetReader: charset.Reader},
	}
	var cl *imapclient.Client
	switch cfg.TLS {
	case TLSImplicit:
		tc := tls.Client(raw, opts.TLSConfig)
		hctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
		err := tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			raw.Close()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, tlsError(addr, err)
		}
		cl = imapclient.New(tc, opts)
		if err := c.run(ctx, cl, cfg.DialTimeout, func(func()) error { return cl.WaitGreeting() }); err != nil {
			closeClient(cl)
			return nil, greetingError(addr, err)
		}
	case TLSStartTLS:
		err := c.run(ctx, raw, cfg.DialTimeout, func(func()) error {
			var err error
			cl, err = imapclient.NewStartTLS(raw, opts)
			return err
		})
		if err != nil {
			raw.Close()
			if ctx.Err() != nil || errors.Is(err, ErrTimeout) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: STARTTLS with %s: %w (check that the port offers STARTTLS, usually 143, and the server certificate)", ErrTLS, addr, err)
		}
	case TLSNone:
		cl = imapclient.New(raw, opts)
		if err := c.run(ctx, cl, cfg.DialTimeout, func(func()) error { return cl.WaitGreeting() }); err != nil {
			closeClient(cl)
			return nil, greetingError(addr, err)
		}
	default:
		raw.Close()
		return nil, fmt.Errorf("imap: unknown TLS mode %d", cfg.TLS)
	}

	if err := c.login(ctx, cl); err != nil {
		closeClient(cl)
		return nil, err
	}
	return cl, nil
}

func (c *Connector) tlsConfig() *tls.Config {
	var tc *tls.Config
	if c.cfg.TLSConfig != nil {
		tc = c.cfg.TLSConfig.Clone()
	} else {
		tc = &tls.Config{}
	}
	if tc.ServerName == "" {
		tc.ServerName = c.cfg.Host
	}
	if tc.MinVersion == 0 {
		tc.MinVersion = tls.VersionTLS12
	}
	return tc
}

func tlsError(addr string, err error) error {
	var certErr *tls.CertificateVerificationError
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var recErr tls.RecordHeaderError
	switch {
	case errors.As(err, &hostErr):
		return fmt.Errorf("%w: the certificate of %s is for another server name: %w", ErrTLS, addr, err)
	case errors.As(err, &authErr), errors.As(err, &certErr):
		return fmt.Errorf("%w: the certificate of %s is not trusted: %w", ErrTLS, addr, err)
	case errors.As(err, &recErr):
		return fmt.Errorf("%w: %s does not speak TLS on this port: %w (993 is implicit TLS; for 143 choose STARTTLS)", ErrTLS, addr, err)
	}
	return fmt.Errorf("%w: TLS handshake with %s: %w (check the port and the TLS mode: 993 is implicit TLS, 143 is STARTTLS)", ErrTLS, addr, err)
}

func greetingError(addr string, err error) error {
	if errors.Is(err, ErrTimeout) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("imap: %s did not greet as an IMAP server: %w", addr, err)
}

// login authenticates with the password or an OAuth access token.
func (c *Connector) login(ctx context.Context, cl *imapclient.Client) error {
	cfg := &c.cfg
	var caps goimap.CapSet
	if err := c.run(ctx, cl, cfg.CommandTimeout, func(func()) error {
		caps = cl.Caps()
		return nil
	}); err != nil {
		return err
	}

	if cfg.TokenSource != nil {
		return c.loginOAuth(ctx, cl, caps)
	}

	err := c.run(ctx, cl, cfg.CommandTimeout, func(func()) error {
		if caps.Has(goimap.CapLoginDisabled) {
			// LOGIN is off (typically before STARTTLS); AUTHENTICATE
			// PLAIN may still be allowed.
			return cl.Authenticate(sasl.NewPlainClient("", cfg.Username, cfg.Password))
		}
		return cl.Login(cfg.Username, cfg.Password).Wait()
	})
	if err == nil {
		return nil
	}
	var imapErr *goimap.Error
	if errors.As(err, &imapErr) {
		// errors.As reaches past the scrubbed wrapper to the server's raw
		// text: scrub it again. The user name is left out of our own words
		// too, as it is of the server's: the lawyer knows which account.
		return fmt.Errorf("%w: %s rejected the login: check the user name and the password; if the account uses two-step verification (Gmail, iCloud, Yahoo, Microsoft), use an app password (server said: %s)",
			ErrAuth, cfg.Host, c.scrub.String(imapErr.Text))
	}
	return fmt.Errorf("imap: login to %s: %w", cfg.Host, err)
}

func (c *Connector) loginOAuth(ctx context.Context, cl *imapclient.Client, caps goimap.CapSet) error {
	cfg := &c.cfg
	tok, err := cfg.TokenSource.Token()
	if err != nil {
		// The token endpoint's answer may echo the refresh token; a
		// source other than package oauth's may not have scrubbed it.
		err = c.creds.Error(err)
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			// invalid_grant and friends: the refresh token was revoked
			// or expired; only a new sign-in helps.
			return fmt.Errorf("%w: the sign-in expired or was revoked; sign in again: %w", ErrAuth, err)
		}
		return fmt.Errorf("imap: getting an OAuth access token: %w", err)
	}
	// From now on the server may echo this token too.
	c.scrub = c.creds.With(tok.AccessToken)

	mech := cfg.OAuthMechanism
	if mech == "" {
		// Prefer what the server advertises. Microsoft advertises only
		// XOAUTH2, Gmail both; XOAUTH2 is the safer guess when a server
		// lists neither before login.
		mech = MechXOAUTH2
		if !caps.Has(goimap.Cap("AUTH="+MechXOAUTH2)) && caps.Has(goimap.Cap("AUTH="+MechOAuthBearer)) {
			mech = MechOAuthBearer
		}
	}
	var sc sasl.Client
	switch mech {
	case MechXOAUTH2:
		sc = &xoauth2Client{username: cfg.Username, token: tok.AccessToken}
	case MechOAuthBearer:
		sc = &oauthBearerClient{username: cfg.Username, token: tok.AccessToken, host: cfg.Host, port: cfg.Port}
	default:
		return fmt.Errorf("imap: unknown OAuth SASL mechanism %q", mech)
	}

	err = c.run(ctx, cl, cfg.CommandTimeout, func(func()) error { return cl.Authenticate(sc) })
	if err == nil {
		return nil
	}
	var imapErr *goimap.Error
	if errors.As(err, &imapErr) || serverError(sc) != nil {
		detail := ""
		if se := serverError(sc); se != nil && se.Status != "" {
			detail = " (" + c.scrub.String(se.Status) + ")"
		}
		return fmt.Errorf("%w: %s rejected the OAuth access token%s: sign in to the account again, and check that IMAP access is enabled for it: %w",
			ErrAuth, cfg.Host, detail, err)
	}
	return fmt.Errorf("imap: %s authentication to %s: %w", mech, cfg.Host, err)
}
