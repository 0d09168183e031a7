package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail/imap"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/platform/secrets"
)

// Credentials are what an account signs in with; only the fields of its
// kind are used.
type Credentials struct {
	Password     string        // IMAP
	Token        *oauth2.Token // Microsoft 365, Gmail (from the sign-in flows)
	ClientSecret string        // Gmail's installed-app secret, when it has one
}

// Add checks account a with its credentials — the addresses are email
// addresses, an IMAP password works, a folder is mail, a sign-in gave a
// token — and only then stores it, saving the credentials in the keychain
// in the same transaction. On any failure nothing is left behind and no
// account id is used up.
func Add(ctx context.Context, ix *index.Index, sec secrets.Store, a index.Account, cr Credentials) (index.Account, error) {
	a, err := normalize(a)
	if err != nil {
		return index.Account{}, err
	}
	// The check runs before the account has an id, on credentials held
	// in memory under the keys of id 0, which no stored account has.
	a.ID = 0
	staged := memSecrets{}
	if err := save(ctx, staged, a, cr); err != nil {
		return index.Account{}, err
	}
	if err := check(ctx, staged, a); err != nil {
		return index.Account{}, err
	}
	var saved []string
	a, err = ix.AddAccountThen(ctx, a, func(a index.Account) error {
		if a.Kind == index.KindMbox || a.Kind == index.KindMaildir {
			return nil // no credentials: the keychain is not even opened
		}
		saved = credentialKeys(a.ID)
		return save(ctx, sec, a, cr)
	})
	if err != nil {
		// The id went back with the transaction: whatever save wrote
		// under it would be the next account's.
		for _, k := range saved {
			_ = sec.Delete(context.WithoutCancel(ctx), k)
		}
		return index.Account{}, err
	}
	return a, nil
}

// normalize validates the account's addresses and, for IMAP, reads a
// server given as host:port.
func normalize(a index.Account) (index.Account, error) {
	a, err := SetAddresses(a)
	if err != nil {
		return a, err
	}
	if a.Kind != index.KindIMAP {
		return a, nil
	}
	var c IMAPConfig
	if err := json.Unmarshal(a.Config, &c); err != nil {
		return a, fmt.Errorf("IMAP settings: %w", err)
	}
	if c.Host, c.Port, err = HostPort(c.Host, c.Port); err != nil {
		return a, err
	}
	a.Config, err = json.Marshal(c)
	return a, err
}

// save puts a's credentials into sec under a's id.
func save(ctx context.Context, sec secrets.Store, a index.Account, cr Credentials) error {
	switch a.Kind {
	case index.KindIMAP:
		if cr.Password == "" {
			return errors.New("the IMAP account needs a password (or an app password)")
		}
		return sec.Set(ctx, PasswordKey(a.ID), cr.Password)
	case index.KindGraph, index.KindGmail:
		if cr.Token == nil || !cr.Token.Valid() {
			return fmt.Errorf("%w: sign-in returned no usable token", ErrSignIn)
		}
		if cr.ClientSecret != "" {
			if err := sec.Set(ctx, ClientSecretKey(a.ID), cr.ClientSecret); err != nil {
				return err
			}
		}
		return SaveToken(ctx, sec, a.ID, cr.Token)
	}
	return nil
}

// check proves a works with the credentials in sec.
func check(ctx context.Context, sec secrets.Store, a index.Account) error {
	switch a.Kind {
	case index.KindIMAP:
		conn, err := Connect(ctx, a, sec, nil)
		if err != nil {
			return err
		}
		defer conn.Close()
		if v, ok := conn.(*imap.Connector); ok {
			vctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			return v.Verify(vctx)
		}
	case index.KindMbox, index.KindMaildir:
		// Settings and `spirit mail add` both come here: refuse what a
		// sync could not read, or would read forever (a device, a named
		// pipe), before it is stored and synced every five minutes.
		var c FileConfig
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return fmt.Errorf("account settings: %w", err)
		}
		check := mbox.CheckMbox
		if a.Kind == index.KindMaildir {
			check = mbox.CheckMaildir
		}
		if err := check(c.Path); err != nil {
			return err
		}
		conn, err := Connect(ctx, a, sec, nil)
		if err != nil {
			return err
		}
		return conn.Close()
	}
	return nil
}

// credentialKeys are every key an account's credentials may live under.
func credentialKeys(id int64) []string {
	return []string{PasswordKey(id), TokenKey(id), ClientSecretKey(id), ScopeKey(id)}
}

// memSecrets holds credentials being checked, before they may be saved;
// one goroutine uses it.
type memSecrets map[string]string

// Backend says the credentials are in memory only.
func (memSecrets) Backend() string { return "memory" }

func (m memSecrets) Get(_ context.Context, key string) (string, error) {
	v, ok := m[key]
	if !ok {
		return "", secrets.ErrNotFound
	}
	return v, nil
}

func (m memSecrets) Set(_ context.Context, key, value string) error {
	m[key] = value
	return nil
}

func (m memSecrets) Delete(_ context.Context, key string) error {
	delete(m, key)
	return nil
}

// Remove deletes an account, its indexed mail and its saved credentials.
func Remove(ctx context.Context, ix *index.Index, sec secrets.Store, id int64) error {
	err := ix.RemoveAccount(ctx, id)
	for _, k := range credentialKeys(id) {
		if derr := sec.Delete(ctx, k); derr != nil && !errors.Is(derr, secrets.ErrNotFound) && err == nil {
			err = fmt.Errorf("delete saved credential: %w", derr)
		}
	}
	return err
}

// SignIn runs the service's sign-in flow: Microsoft's device code (tell
// shows the code and the address), Google's browser redirect with PKCE
// (tell shows the address; the caller may open it).
func SignIn(ctx context.Context, kind string, c OAuthConfig, clientSecret string, tell func(msg, url string)) (*oauth2.Token, error) {
	cfg, err := oauthConfig(kind, c, clientSecret)
	if err != nil {
		return nil, err
	}
	if kind == index.KindGraph {
		return oauth.DeviceFlow{Config: cfg, Show: func(d oauth.DeviceCode) error {
			tell(fmt.Sprintf("To sign in, open %s and enter the code %s", d.VerificationURI, d.UserCode), "")
			return nil
		}}.SignIn(ctx)
	}
	return oauth.LoopbackFlow{Config: cfg, AuthOptions: oauth.GoogleAuthOptions(), OpenBrowser: func(url string) error {
		tell("To sign in, open this address in your browser:\n"+url, url)
		return nil
	}}.SignIn(ctx)
}

// SignInAgain runs a stored Microsoft 365 or Gmail account's sign-in
// again, asking for every scope this Spirit needs (an account signed in
// before calendars were read lacks theirs), and keeps the new token. The
// account and its mail stay as they are; tell is SignIn's.
func SignInAgain(ctx context.Context, ix *index.Index, sec secrets.Store, id int64, tell func(msg, url string)) (index.Account, error) {
	a, err := ix.Account(ctx, id)
	if err != nil {
		return index.Account{}, err
	}
	if a.Kind != index.KindGraph && a.Kind != index.KindGmail {
		return index.Account{}, fmt.Errorf("%s is not a Microsoft 365 or Gmail account: it has no sign-in", a.Name)
	}
	var c OAuthConfig
	if err := json.Unmarshal(a.Config, &c); err != nil {
		return index.Account{}, fmt.Errorf("account %d settings: %w", a.ID, err)
	}
	secret := ""
	if a.Kind == index.KindGmail {
		if secret, err = sec.Get(ctx, ClientSecretKey(id)); err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return index.Account{}, err
		}
	}
	tok, err := SignIn(ctx, a.Kind, c, secret, tell)
	if err != nil {
		return index.Account{}, err
	}
	if tok == nil || !tok.Valid() {
		return index.Account{}, fmt.Errorf("%w: sign-in returned no usable token", ErrSignIn)
	}
	// The old grant's scopes go: the new token's are saved only when the
	// service names them.
	if err := sec.Delete(ctx, ScopeKey(id)); err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return index.Account{}, err
	}
	return a, SaveToken(ctx, sec, id, tok)
}
