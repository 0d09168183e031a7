package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/redact"
)

// DeviceCode is what the lawyer needs to sign in from a browser: open
// VerificationURI and type UserCode.
type DeviceCode struct {
	UserCode        string
	VerificationURI string
	// VerificationURIComplete, when the service sends one, already holds
	// the code (for a QR code or a one-click link).
	VerificationURIComplete string
	Expires                 time.Time
}

// DeviceFlow is the device authorization grant (RFC 8628), used for
// Microsoft accounts.
type DeviceFlow struct {
	// Config names the client, the endpoint (DeviceAuthURL and TokenURL)
	// and the scopes; see MicrosoftConfig.
	Config *oauth2.Config
	// Show displays the code to the lawyer. It must not block: the flow
	// polls the token endpoint after it returns. An error aborts sign-in.
	Show   func(DeviceCode) error
	Logger *slog.Logger
}

// SignIn asks for a device code, shows it, and polls until the lawyer has
// signed in, declined (ErrAccessDenied) or let the code expire
// (ErrCodeExpired). Cancel ctx when the lawyer closes the dialog. The HTTP
// client comes from ctx (oauth2.HTTPClient), as everywhere in x/oauth2.
func (f DeviceFlow) SignIn(ctx context.Context) (*oauth2.Token, error) {
	if f.Config == nil || f.Show == nil {
		return nil, errors.New("oauth: device flow needs a Config and Show")
	}
	log := logger(f.Logger)
	ctx = stayOnOrigin(ctx)
	da, err := f.Config.DeviceAuth(ctx)
	if err != nil {
		err = redact.Err(err, f.Config.ClientSecret)
		return nil, fmt.Errorf("oauth: requesting a device code: %w", describe(err))
	}
	code := DeviceCode{
		UserCode:                da.UserCode,
		VerificationURI:         da.VerificationURI,
		VerificationURIComplete: da.VerificationURIComplete,
		Expires:                 da.Expiry,
	}
	if err := f.Show(code); err != nil {
		return nil, fmt.Errorf("oauth: showing the device code: %w", err)
	}
	log.Info("oauth: waiting for device sign-in", "verification_uri", da.VerificationURI, "expires", da.Expiry)

	// DeviceAccessToken follows RFC 8628: it waits the server's interval
	// between polls, keeps polling on authorization_pending, adds five
	// seconds on slow_down, and stops at the code's expiry.
	tok, err := f.Config.DeviceAccessToken(ctx, da)
	switch {
	case err == nil:
		log.Info("oauth: device sign-in complete")
		return tok, nil
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		// The deadline was the code's expiry, not the caller's.
		return nil, fmt.Errorf("oauth: %w", ErrCodeExpired)
	}
	// The device code is a credential until it expires.
	err = redact.Err(err, da.DeviceCode, f.Config.ClientSecret)
	return nil, fmt.Errorf("oauth: device sign-in: %w", describe(err))
}

// describe turns the token endpoint's OAuth error codes into this
// package's errors, keeping the endpoint's own description.
func describe(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return err
	}
	switch re.ErrorCode {
	case "access_denied", "authorization_declined":
		return fmt.Errorf("%w: %w", ErrAccessDenied, err)
	case "expired_token":
		return fmt.Errorf("%w: %w", ErrCodeExpired, err)
	case "invalid_grant", "interaction_required", "consent_required", "login_required":
		return fmt.Errorf("%w: %w", ErrSignInRequired, err)
	}
	return err
}

// stayOnOrigin is ctx with its x/oauth2 HTTP client (http.DefaultClient
// when it has none) made to refuse a redirect to another origin: a token
// request's body holds the code, the verifier, the device code or the
// client secret, and 307 and 308 would send it along.
func stayOnOrigin(ctx context.Context) context.Context {
	hc, _ := ctx.Value(oauth2.HTTPClient).(*http.Client)
	return context.WithValue(ctx, oauth2.HTTPClient, httpguard.StayOnOrigin(hc, signIn))
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}
