package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"golang.org/x/oauth2"
)

// SaveToken stores tok as JSON under key, e.g. at the end of a sign-in.
func SaveToken(ctx context.Context, st Store, key string, tok *oauth2.Token) error {
	b, err := json.Marshal(tok)
	if err != nil {
		return fmt.Errorf("secrets: encoding token: %w", err)
	}
	return st.Set(ctx, key, string(b))
}

// LoadToken reads a token SaveToken stored; the error wraps ErrNotFound
// when there is none (the account was never signed in).
func LoadToken(ctx context.Context, st Store, key string) (*oauth2.Token, error) {
	s, err := st.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	var tok oauth2.Token
	if err := json.Unmarshal([]byte(s), &tok); err != nil {
		return nil, fmt.Errorf("%w: the token under %q is not token JSON", ErrCorrupt, key)
	}
	return &tok, nil
}

// TokenSource returns a token source for the token stored under key: it
// hands out the stored access token while valid, refreshes it through cfg
// when it expires, and saves the refreshed token back. Saving matters
// because providers rotate refresh tokens (Microsoft does on every use):
// losing the new one means the lawyer has to sign in again.
//
// ctx carries the HTTP client for refreshes (oauth2.HTTPClient) and bounds
// store access; it should live as long as the token source.
func TokenSource(ctx context.Context, st Store, key string, cfg *oauth2.Config) oauth2.TokenSource {
	return &storedTokenSource{ctx: ctx, st: st, key: key, cfg: cfg, log: slog.Default().With("component", "secrets", "key", key)}
}

type storedTokenSource struct {
	ctx context.Context
	st  Store
	key string
	cfg *oauth2.Config
	log *slog.Logger

	mu  sync.Mutex
	tok *oauth2.Token
}

func (s *storedTokenSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tok != nil && s.tok.Valid() {
		return copyToken(s.tok), nil
	}

	// Re-read the store before refreshing: another token source in this
	// process (the IMAP sync and the draft writer, say) may have refreshed
	// already, and refreshing again with a rotated-out refresh token
	// would fail.
	stored, err := LoadToken(s.ctx, s.st, s.key)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("secrets: no sign-in stored under %q; sign in first: %w", s.key, err)
		}
		return nil, err
	}
	if stored.Valid() {
		s.tok = stored
		return copyToken(stored), nil
	}
	if s.cfg == nil {
		return nil, fmt.Errorf("secrets: the token under %q expired and no OAuth config was given to refresh it", s.key)
	}
	if stored.RefreshToken == "" {
		return nil, fmt.Errorf("secrets: the token under %q expired and has no refresh token; sign in again", s.key)
	}

	// cfg.TokenSource refreshes an expired token and carries the old
	// refresh token over when the server sends no new one.
	fresh, err := s.cfg.TokenSource(s.ctx, stored).Token()
	if err != nil {
		return nil, fmt.Errorf("secrets: refreshing the token under %q: %w", s.key, err)
	}
	if err := SaveToken(s.ctx, s.st, s.key, fresh); err != nil {
		// The fresh token works now; fail only the persistence, loudly.
		// Returning an error would stop a sync that could succeed.
		s.log.Error("refreshed OAuth token not saved; the next start may need a new sign-in", "err", err)
	}
	s.tok = fresh
	return copyToken(fresh), nil
}

func copyToken(t *oauth2.Token) *oauth2.Token {
	c := *t
	return &c
}
