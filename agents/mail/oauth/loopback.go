package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/redact"
)

// DefaultLoopbackTimeout bounds how long LoopbackFlow waits for the
// browser's redirect.
const DefaultLoopbackTimeout = 5 * time.Minute

// LoopbackFlow is the authorization-code flow for native apps (RFC 8252)
// with PKCE (RFC 7636), used for Google accounts: Spirit listens on an
// ephemeral port of 127.0.0.1, opens the consent page in the lawyer's
// browser, and receives the code on http://127.0.0.1:PORT.
type LoopbackFlow struct {
	// Config names the client, the endpoint and the scopes; see
	// GoogleConfig. Its RedirectURL is ignored: the flow sets its own.
	Config *oauth2.Config
	// AuthOptions are extra authorization-request parameters, e.g.
	// GoogleAuthOptions().
	AuthOptions []oauth2.AuthCodeOption
	// OpenBrowser opens url in the lawyer's browser (the UI supplies it).
	OpenBrowser func(url string) error
	// Timeout bounds the wait for the redirect; 0 means
	// DefaultLoopbackTimeout.
	Timeout time.Duration
	Logger  *slog.Logger
}

type callbackResult struct {
	tok *oauth2.Token
	err error
}

// SignIn runs the flow and returns the token. It fails with
// ErrStateMismatch when the redirect's state is not ours, with
// ErrAccessDenied when the lawyer declined, and with
// context.DeadlineExceeded after the timeout. The HTTP client for the
// token exchange comes from ctx (oauth2.HTTPClient).
func (f LoopbackFlow) SignIn(ctx context.Context) (*oauth2.Token, error) {
	if f.Config == nil || f.OpenBrowser == nil {
		return nil, errors.New("oauth: loopback flow needs a Config and OpenBrowser")
	}
	log := logger(f.Logger)
	ctx = stayOnOrigin(ctx)
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultLoopbackTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// 127.0.0.1 rather than "localhost" (RFC 8252 section 8.3): no name
	// resolution, and never another interface.
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("oauth: listening for the sign-in redirect: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	cfg := copyConfig(f.Config)
	cfg.RedirectURL = "http://127.0.0.1:" + strconv.Itoa(port)

	state, err := randomState()
	if err != nil {
		ln.Close()
		return nil, err
	}
	verifier := oauth2.GenerateVerifier()
	opts := append([]oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}, f.AuthOptions...)
	authURL := cfg.AuthCodeURL(state, opts...)

	// Room for both a callback and a listener failure: neither sender blocks.
	results := make(chan callbackResult, 2)
	var once sync.Once
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			// Browsers also ask for /favicon.ico.
			http.NotFound(w, r)
			return
		}
		res := f.callback(ctx, cfg, r, state, verifier)
		writePage(w, res.err)
		once.Do(func() { results <- res })
	})
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			results <- callbackResult{err: fmt.Errorf("oauth: sign-in redirect listener: %w", err)}
		}
	}()
	defer func() {
		// Let the page reach the browser before closing.
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
	}()

	log.Info("oauth: opening the browser for sign-in", "redirect_uri", cfg.RedirectURL)
	if err := f.OpenBrowser(authURL); err != nil {
		return nil, fmt.Errorf("oauth: opening the browser: %w", err)
	}
	select {
	case res := <-results:
		if res.err != nil {
			return nil, res.err
		}
		log.Info("oauth: loopback sign-in complete")
		return res.tok, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("oauth: waiting for the sign-in redirect: %w", ctx.Err())
	}
}

// callback checks one redirect and exchanges its code.
func (f LoopbackFlow) callback(ctx context.Context, cfg *oauth2.Config, r *http.Request, state, verifier string) callbackResult {
	q := r.URL.Query()
	// The state comes first: an error or code on a redirect we did not
	// ask for means nothing.
	if q.Get("state") != state {
		return callbackResult{err: fmt.Errorf("oauth: %w", ErrStateMismatch)}
	}
	if e := q.Get("error"); e != "" {
		err := fmt.Errorf("oauth: the sign-in page answered %q: %s", e, redact.String(q.Get("error_description"), cfg.ClientSecret))
		if e == "access_denied" {
			err = fmt.Errorf("%w: %w", ErrAccessDenied, err)
		}
		return callbackResult{err: err}
	}
	code := q.Get("code")
	if code == "" {
		return callbackResult{err: errors.New("oauth: sign-in redirect without a code")}
	}
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		// The token endpoint may echo the code, the verifier or the secret.
		err = redact.Err(err, code, verifier, cfg.ClientSecret)
		return callbackResult{err: fmt.Errorf("oauth: exchanging the authorization code: %w", describe(err))}
	}
	return callbackResult{tok: tok}
}

func randomState() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("oauth: generating the state: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// writePage answers the browser; the lawyer sees it after consenting.
func writePage(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	title, text := "Signed in", "Spirit is now connected. You can close this window."
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		title = "Sign-in failed"
		text = "Spirit could not complete the sign-in: " + err.Error() +
			". You can close this window and try again from Spirit."
	}
	fmt.Fprintf(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Spirit: %[1]s</title>
<style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;color:#222}</style>
</head><body><h1>%[1]s</h1><p>%[2]s</p></body></html>
`, html.EscapeString(title), html.EscapeString(text))
}
