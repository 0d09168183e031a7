package calendar

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/redact"
)

// davClient is the client a CalDAV account talks through: the password
// is added in the transport, to requests for the account's own origin
// only, so that neither a redirect nor anything else takes it to another
// server; a redirect to another origin is refused, saying so, rather than
// followed without the password into a "wrong password" from a server
// that never had it. The scrubber knows the account's secrets: user name,
// password, and the Basic credential they make.
func davClient(hc *http.Client, base *url.URL, user, password string) (*http.Client, *redact.Scrubber) {
	// Every answer is bounded where it is read, go-webdav's discovery
	// (PROPFIND) included, which reads what it is sent whole.
	if user == "" {
		if hc == nil {
			hc = http.DefaultClient
		}
		c := *hc
		c.Transport = httpguard.LimitBody(httpguard.Transport(hc), maxDAVAnswer)
		return &c, nil
	}
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	c := httpguard.StayOnOrigin(hc, "your password")
	c.Transport = httpguard.LimitBody(httpguard.Bind(httpguard.Transport(hc), httpguard.OriginOf(base),
		http.Header{"Authorization": {"Basic " + basic}}), maxDAVAnswer)
	return c, redact.New(user, password, basic)
}

// clean is err with the account's secrets scrubbed from its text: where
// a server's words (an error body, a multistatus responsedescription, a
// status line) enter Spirit, before anything logs, stores or shows them.
func (d *CalDAV) clean(err error) error {
	if err == nil {
		return nil
	}
	return d.scrub.Error(err)
}

// subscriptionClient follows a subscription that moved, wherever it went
// (subscriptions do move, often from http to https), but sends neither
// the user name and password its URL may carry nor a Referer naming its
// private address to another origin.
func subscriptionClient(hc *http.Client) *http.Client {
	return httpguard.StripElsewhere(hc)
}

// subscriptionScrubber knows the password a subscription's URL carries.
func subscriptionScrubber(rawURL string) *redact.Scrubber {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return nil
	}
	pw, _ := u.User.Password()
	return redact.New(pw)
}

// redirectFieldError is a CalDAV server that sent Spirit elsewhere, put
// on the server's field with what the lawyer can do.
func redirectFieldError(err error) error {
	var re *httpguard.RedirectError
	if !errors.As(err, &re) {
		return nil
	}
	return &FieldError{Field: FieldServer, Err: fmt.Errorf("%w. If that is where your calendars are, add the account with that address", re)}
}
