// Package oauth signs the lawyer in to Microsoft 365 and Google for Spirit's
// mail connectors, keeps the access tokens fresh, and sends the connectors'
// authorized REST requests.
//
// Sign-in returns an *oauth2.Token; storing it (the keychain) is the
// caller's business. Microsoft accounts use the device-code flow (RFC 8628),
// which needs no redirect URI and works the same for work, school and
// personal accounts. Google accounts use the loopback-redirect flow with
// PKCE (RFC 8252, RFC 7636): Gmail's read scopes are "restricted" and
// Google's device flow does not allow them.
//
// Client IDs are configuration: Spirit ships its own app registrations and
// tests use fakes.
package oauth

import (
	"errors"
	"strings"

	"golang.org/x/oauth2"
)

// Endpoints of the services Spirit signs in to.
const (
	// MicrosoftAuthority is the Microsoft identity platform's host.
	MicrosoftAuthority = "https://login.microsoftonline.com"
	// MicrosoftTenant "common" accepts work, school and personal accounts.
	MicrosoftTenant = "common"

	GoogleAuthURL  = "https://accounts.google.com/o/oauth2/auth"
	GoogleTokenURL = "https://oauth2.googleapis.com/token"
)

// Scopes Spirit asks for.
const (
	// Microsoft Graph: read mail and save drafts, know who signed in, and
	// get a refresh token (offline_access).
	MicrosoftScopeOfflineAccess = "offline_access"
	MicrosoftScopeMailReadWrite = "Mail.ReadWrite"
	MicrosoftScopeUserRead      = "User.Read"
	// The lawyer's calendars: read them and add the events they approve.
	MicrosoftScopeCalendarsReadWrite = "Calendars.ReadWrite"

	// Gmail: read everything, and create drafts (gmail.compose also
	// allows sending, but no narrower scope creates drafts).
	GmailScopeReadonly = "https://www.googleapis.com/auth/gmail.readonly"
	GmailScopeCompose  = "https://www.googleapis.com/auth/gmail.compose"

	// Google Calendar: read and add events, and list the calendars to
	// choose from.
	GoogleScopeCalendarEvents       = "https://www.googleapis.com/auth/calendar.events"
	GoogleScopeCalendarListReadonly = "https://www.googleapis.com/auth/calendar.calendarlist.readonly"
)

// Errors the sign-in UI tells apart.
var (
	// ErrSignInRequired: the refresh token was refused (revoked, expired,
	// password changed, consent withdrawn) or the service keeps refusing
	// fresh access tokens. Only a new sign-in helps.
	ErrSignInRequired = errors.New("sign-in required")
	// ErrAccessDenied: the lawyer declined at the consent screen.
	ErrAccessDenied = errors.New("sign-in declined")
	// ErrCodeExpired: the device code expired before the lawyer signed in.
	ErrCodeExpired = errors.New("sign-in code expired")
	// ErrStateMismatch: the redirect carried another state than the one
	// Spirit sent: not the answer to our request, possibly forged.
	ErrStateMismatch = errors.New("sign-in redirect with a wrong state")
)

// MicrosoftEndpoint returns the v2.0 endpoints of tenant at authority;
// empty values mean MicrosoftAuthority and MicrosoftTenant. Other
// authorities serve national clouds and tests.
func MicrosoftEndpoint(authority, tenant string) oauth2.Endpoint {
	if authority == "" {
		authority = MicrosoftAuthority
	}
	if tenant == "" {
		tenant = MicrosoftTenant
	}
	base := strings.TrimSuffix(authority, "/") + "/" + tenant + "/oauth2/v2.0"
	return oauth2.Endpoint{
		AuthURL:       base + "/authorize",
		DeviceAuthURL: base + "/devicecode",
		TokenURL:      base + "/token",
		// A public client has no secret: sending the client id in the form
		// avoids x/oauth2's auto-detection, which would first try Basic
		// auth and double every device-code poll.
		AuthStyle: oauth2.AuthStyleInParams,
	}
}

// MicrosoftConfig is the configuration of Spirit's Microsoft app
// registration clientID in tenant ("" for "common") with the mail and
// calendar scopes.
func MicrosoftConfig(clientID, tenant string) *oauth2.Config {
	return &oauth2.Config{
		ClientID: clientID,
		Endpoint: MicrosoftEndpoint("", tenant),
		Scopes: []string{
			MicrosoftScopeOfflineAccess,
			MicrosoftScopeMailReadWrite,
			MicrosoftScopeUserRead,
			MicrosoftScopeCalendarsReadWrite,
		},
	}
}

// GoogleConfig is the configuration of Spirit's Google "desktop app" OAuth
// client with the Gmail and Calendar scopes. Google issues desktop clients a secret that
// it documents as not confidential; the token endpoint still wants it.
func GoogleConfig(clientID, clientSecret string) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		Endpoint: oauth2.Endpoint{
			AuthURL:   GoogleAuthURL,
			TokenURL:  GoogleTokenURL,
			AuthStyle: oauth2.AuthStyleInParams,
		},
		Scopes: []string{GmailScopeReadonly, GmailScopeCompose, GoogleScopeCalendarEvents, GoogleScopeCalendarListReadonly},
	}
}

// GoogleAuthOptions are the authorization-request parameters Google needs
// for a lasting sign-in: access_type=offline yields a refresh token, and
// prompt=consent yields it again on a second sign-in (Google otherwise
// only issues one on the first consent).
func GoogleAuthOptions() []oauth2.AuthCodeOption {
	return []oauth2.AuthCodeOption{
		oauth2.AccessTypeOffline,
		oauth2.SetAuthURLParam("prompt", "consent"),
	}
}

// copyConfig returns a copy of c's public fields. oauth2.Config holds an
// internal cache that must not be copied by value.
func copyConfig(c *oauth2.Config) *oauth2.Config {
	return &oauth2.Config{
		ClientID:     c.ClientID,
		ClientSecret: c.ClientSecret,
		Endpoint:     c.Endpoint,
		RedirectURL:  c.RedirectURL,
		Scopes:       append([]string(nil), c.Scopes...),
	}
}
