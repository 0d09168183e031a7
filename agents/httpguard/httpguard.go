// Package httpguard keeps what Spirit sends over HTTP with the server it
// was meant for, and bounds what comes back.
//
// A credential (a CalDAV password, a bearer token, an API key) and a
// request's body (a prompt, a refresh token) belong to one origin: the
// scheme, host and port they were entered for (RFC 6454). net/http does
// not see it so: on a redirect it drops Authorization and Cookie only
// when the host name changes (not the port, not https to http), and it
// copies every other header (x-api-key, api-key) and, for 307 and 308,
// the body, wherever the redirect leads. So:
//
//   - Bind adds a credential in the transport, to requests for its origin
//     only, so that no redirect and no link in an answer can carry it
//     elsewhere;
//   - StayOnOrigin refuses a redirect to another origin with a
//     *RedirectError, for requests whose headers or body must not go
//     anywhere else (a CalDAV account, a REST API with a bearer token, a
//     token endpoint, a model provider);
//   - StripElsewhere follows a redirect anywhere but sends no credential
//     and no Referer off the origin, for downloads that move (calendar
//     subscriptions, speech models);
//   - CheckOrigin refuses a URL off the origin before it is asked (a next
//     link, a stored cursor).
//
// LimitBody and StallTimeout bound an answer's size and its silences.
package httpguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Origin is a URL's scheme, host and port, compared as RFC 6454 does:
// scheme and host case-insensitively, a missing port as the scheme's
// default.
type Origin struct {
	Scheme, Host, Port string
}

// OriginOf is u's origin.
func OriginOf(u *url.URL) Origin {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = defaultPort[scheme]
	}
	return Origin{Scheme: scheme, Host: strings.ToLower(u.Hostname()), Port: port}
}

// ParseOrigin is the origin of an absolute URL.
func ParseOrigin(raw string) (Origin, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Origin{}, err
	}
	if u.Scheme == "" || u.Host == "" {
		return Origin{}, fmt.Errorf("%q is not an absolute URL", raw)
	}
	return OriginOf(u), nil
}

var defaultPort = map[string]string{"http": "80", "https": "443"}

// String is the origin as a URL: scheme://host[:port], the port left out
// when it is the scheme's default.
func (o Origin) String() string {
	host := o.Host
	if o.Port != "" && o.Port != defaultPort[o.Scheme] {
		host = net.JoinHostPort(host, o.Port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return o.Scheme + "://" + host
}

// Bind returns a RoundTripper that sends the requests for origin o with
// header's fields set (a credential), and every other request as it is.
// next nil is http.DefaultTransport.
func Bind(next http.RoundTripper, o Origin, header http.Header) http.RoundTripper {
	return bound{next: transport(next), origin: o, header: header.Clone()}
}

type bound struct {
	next   http.RoundTripper
	origin Origin
	header http.Header
}

func (b bound) RoundTrip(req *http.Request) (*http.Response, error) {
	if OriginOf(req.URL) != b.origin {
		return b.next.RoundTrip(req)
	}
	// A RoundTripper must not change the caller's request.
	r := req.Clone(req.Context())
	for k, vs := range b.header {
		r.Header[k] = append([]string(nil), vs...)
	}
	return b.next.RoundTrip(r)
}

// RedirectError is a redirect to another origin that a client refused.
type RedirectError struct {
	From, To Origin
	// Carrying says what the request would have taken there: "your
	// password", "your sign-in", "your API key and your request".
	Carrying string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server sent Spirit to another address (%s); Spirit did not follow it with %s", e.To, e.Carrying)
}

// StayOnOrigin returns a copy of hc (nil: http.DefaultClient) that follows
// a redirect only within the first request's origin; one to another
// origin fails the request with a *RedirectError (wrapped in a
// *url.Error, as net/http does), before anything is sent there. carrying
// says what the request holds, for the error. hc's own CheckRedirect, if
// any, still decides within the origin.
func StayOnOrigin(hc *http.Client, carrying string) *http.Client {
	c := client(hc)
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from, to := OriginOf(via[0].URL), OriginOf(req.URL); from != to {
			return &RedirectError{From: from, To: to, Carrying: carrying}
		}
		return checkNext(next, req, via)
	}
	return c
}

// credentialHeaders are what StripElsewhere never sends off the origin.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2", "X-Api-Key", "Api-Key"}

// StripElsewhere returns a copy of hc (nil: http.DefaultClient) that
// follows redirects anywhere, but sends a request off the first request's
// origin without Authorization, Cookie, API key headers and the headers
// named, and sends no Referer at all: the address a redirect came from may
// hold a token (a calendar's private address). A URL's user name and
// password are net/http's to keep: it adds them only to their own URL.
func StripElsewhere(hc *http.Client, headers ...string) *http.Client {
	c := client(hc)
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		req.Header.Del("Referer")
		if OriginOf(via[0].URL) != OriginOf(req.URL) {
			for _, h := range slices.Concat(credentialHeaders, headers) {
				req.Header.Del(h)
			}
		}
		return checkNext(next, req, via)
	}
	return c
}

// OriginError is a URL a client would not send to: not on its origin.
type OriginError struct {
	Want Origin
	URL  string // the address asked for, as given
	// Carrying is what the request would have taken there.
	Carrying string
}

func (e *OriginError) Error() string {
	got := e.URL
	if u, err := url.Parse(e.URL); err == nil && u.Host != "" {
		got = OriginOf(u).String()
	}
	return fmt.Sprintf("the server pointed Spirit to another address (%s, not %s); Spirit did not send %s there", got, e.Want, e.Carrying)
}

// CheckOrigin is nil when raw is on origin want, else an *OriginError.
func CheckOrigin(raw string, want Origin, carrying string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || OriginOf(u) != want {
		return &OriginError{Want: want, URL: raw, Carrying: carrying}
	}
	return nil
}

// client is a copy of hc, http.DefaultClient when nil.
func client(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	return &c
}

// checkNext is a client's own redirect policy, net/http's default (ten
// redirects) when it has none.
func checkNext(next func(*http.Request, []*http.Request) error, req *http.Request, via []*http.Request) error {
	if next != nil {
		return next(req, via)
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

func transport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		return http.DefaultTransport
	}
	return rt
}

// Transport is hc's transport, http.DefaultTransport when it has none:
// what a guard wraps.
func Transport(hc *http.Client) http.RoundTripper {
	if hc == nil {
		return http.DefaultTransport
	}
	return transport(hc.Transport)
}
