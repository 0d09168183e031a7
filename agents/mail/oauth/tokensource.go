package oauth

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/redact"
)

// TokenSource hands out access tokens for one account: the stored one while
// it is valid, else a new one from the refresh token. Unlike x/oauth2's own
// sources it can be told that the service refused a token that looked
// valid (Invalidate), and it reports every new token to Save, because
// Microsoft rotates refresh tokens: the stored token must follow.
//
// A TokenSource is safe for concurrent use.
type TokenSource struct {
	cfg    *oauth2.Config
	client *http.Client
	save   func(*oauth2.Token) error
	log    *slog.Logger

	mu    sync.Mutex
	tok   *oauth2.Token
	stale bool // the service refused tok: refresh before handing it out again
}

// TokenSourceOptions tune NewTokenSource; the zero value works.
type TokenSourceOptions struct {
	// HTTPClient talks to the token endpoint; nil means a client with a
	// 30-second timeout. A redirect to another origin is refused: it
	// would take the refresh token and the client secret along.
	HTTPClient *http.Client
	// Save stores each refreshed token (the keychain). A failure is logged,
	// not returned: the fresh token still works for this session.
	Save   func(*oauth2.Token) error
	Logger *slog.Logger
}

// NewTokenSource returns a source that starts from tok (as stored after
// sign-in) and refreshes it through cfg's token endpoint.
func NewTokenSource(cfg *oauth2.Config, tok *oauth2.Token, opts TokenSourceOptions) *TokenSource {
	client := opts.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	if tok == nil {
		tok = &oauth2.Token{}
	}
	return &TokenSource{cfg: cfg, client: httpguard.StayOnOrigin(client, signIn), save: opts.Save, log: logger(opts.Logger), tok: tok}
}

// Token returns a valid access token, refreshing it when it expired (or
// expires within x/oauth2's ten-second margin) or was invalidated. A
// refused refresh token yields an error that matches ErrSignInRequired.
func (s *TokenSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stale && s.tok.Valid() {
		return s.tok, nil
	}
	if s.tok.RefreshToken == "" {
		return nil, fmt.Errorf("oauth: no refresh token: %w", ErrSignInRequired)
	}
	// Token has no context (x/oauth2's interface): the client's timeout
	// bounds the refresh.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, s.client)
	tok, err := s.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: s.tok.RefreshToken}).Token()
	if err != nil {
		// The endpoint's error_description, or the raw body x/oauth2 quotes
		// when there is none, may echo what it was sent.
		err = redact.Err(err, s.tok.RefreshToken, s.tok.AccessToken, s.cfg.ClientSecret)
		return nil, fmt.Errorf("oauth: refreshing the access token: %w", describe(err))
	}
	// x/oauth2 keeps the old refresh token when the answer has none
	// (Google does not rotate them).
	s.tok, s.stale = tok, false
	s.log.Info("oauth: access token refreshed", "expires", tok.Expiry)
	if s.save != nil {
		if err := s.save(tok); err != nil {
			s.log.Error("oauth: saving the refreshed token", "err", err)
		}
	}
	return tok, nil
}

// Invalidate marks used as refused by the service (HTTP 401), so the next
// Token refreshes even though its expiry has not passed (revoked, or the
// clocks disagree). It does nothing when the source already moved on from
// used, so concurrent 401s cause a single refresh.
func (s *TokenSource) Invalidate(used *oauth2.Token) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if used == nil || used.AccessToken == s.tok.AccessToken {
		s.stale = true
	}
}

// Invalidator is implemented by token sources that can be told a token was
// refused; Client uses it on a 401.
type Invalidator interface {
	Invalidate(used *oauth2.Token)
}

var _ Invalidator = (*TokenSource)(nil)
