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

// Add stores account a with its credentials in the keychain and, for
// IMAP, proves the password works. On any failure nothing is left behind.
func Add(ctx context.Context, ix *index.Index, sec secrets.Store, a index.Account, cr Credentials) (index.Account, error) {
	a, err := ix.AddAccount(ctx, a)
	if err != nil {
		return index.Account{}, err
	}
	if err := saveAndCheck(ctx, sec, a, cr); err != nil {
		Remove(context.WithoutCancel(ctx), ix, sec, a.ID)
		return index.Account{}, err
	}
	return a, nil
}

func saveAndCheck(ctx context.Context, sec secrets.Store, a index.Account, cr Credentials) error {
	switch a.Kind {
	case index.KindIMAP:
		if cr.Password == "" {
			return errors.New("the IMAP account needs a password (or an app password)")
		}
		if err := sec.Set(ctx, PasswordKey(a.ID), cr.Password); err != nil {
			return err
		}
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
	case index.KindGraph, index.KindGmail:
		if cr.ClientSecret != "" {
			if err := sec.Set(ctx, ClientSecretKey(a.ID), cr.ClientSecret); err != nil {
				return err
			}
		}
		if cr.Token == nil || !cr.Token.Valid() {
			return fmt.Errorf("%w: sign-in returned no usable token", ErrSignIn)
		}
		return secrets.SaveToken(ctx, sec, TokenKey(a.ID), cr.Token)
	case index.KindMbox, index.KindMaildir:
		// Settings and `spirit mail add` both come here: refuse what a
		// sync could not read, or would read forever (a device, a named
		// pipe), before it is stored and synced every five minutes.
		var c FileConfig
		if err := json.Unmarshal(a.Config, &c); err != nil {
			return fmt.Errorf("account %d settings: %w", a.ID, err)
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

// Remove deletes an account, its indexed mail and its saved credentials.
func Remove(ctx context.Context, ix *index.Index, sec secrets.Store, id int64) error {
	err := ix.RemoveAccount(ctx, id)
	for _, k := range []string{PasswordKey(id), TokenKey(id), ClientSecretKey(id)} {
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
