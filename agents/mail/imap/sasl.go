package imap

import (
	"encoding/json"
	"strconv"

	"github.com/emersion/go-sasl"
)

// SASL mechanism names for OAuth 2.0 access tokens.
const (
	// MechXOAUTH2 is Google's and Microsoft's pre-standard mechanism; it is
	// the one Outlook.com/Microsoft 365 accept over IMAP.
	MechXOAUTH2 = "XOAUTH2"
	// MechOAuthBearer is the standard one (RFC 7628).
	MechOAuthBearer = "OAUTHBEARER"
)

// xoauth2Client implements the XOAUTH2 SASL client mechanism, which
// go-sasl lacks:
// https://developers.google.com/gmail/imap/xoauth2-protocol and
// https://learn.microsoft.com/exchange/client-developer/legacy-protocols/how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth
type xoauth2Client struct {
	username, token string
	// serverErr keeps the JSON error the server sends as a challenge when
	// it rejects the token, so the final error can say why.
	serverErr *oauthError
}

func (c *xoauth2Client) Start() (mech string, ir []byte, err error) {
	return MechXOAUTH2, []byte("user=" + c.username + "\x01auth=Bearer " + c.token + "\x01\x01"), nil
}

// Next handles the only challenge XOAUTH2 has: a base64 JSON error after
// a rejected token. The protocol wants an empty client response, after
// which the server sends the tagged NO.
func (c *xoauth2Client) Next(challenge []byte) ([]byte, error) {
	c.serverErr = parseOAuthError(challenge)
	return []byte{}, nil
}

// oauthBearerClient implements OAUTHBEARER (RFC 7628). go-sasl has one, but
// it answers the server's error challenge by aborting locally, which leaves
// the AUTHENTICATE command hanging on the server; RFC 7628 §3.2.3 wants a
// %x01 reply so the server can finish with NO.
type oauthBearerClient struct {
	username, token, host string
	port                  int
	serverErr             *oauthError
}

func (c *oauthBearerClient) Start() (mech string, ir []byte, err error) {
	s := "n,a=" + saslname(c.username) + ","
	if c.host != "" {
		s += "\x01host=" + c.host
	}
	if c.port != 0 {
		s += "\x01port=" + strconv.Itoa(c.port)
	}
	s += "\x01auth=Bearer " + c.token + "\x01\x01"
	return MechOAuthBearer, []byte(s), nil
}

func (c *oauthBearerClient) Next(challenge []byte) ([]byte, error) {
	c.serverErr = parseOAuthError(challenge)
	return []byte{0x01}, nil
}

// saslname escapes ',' and '=' as RFC 5801 requires in the GS2 header.
func saslname(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',':
			out = append(out, "=2C"...)
		case '=':
			out = append(out, "=3D"...)
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}

// oauthError is the JSON the server sends back on a rejected token.
type oauthError struct {
	Status string `json:"status"`
	Scope  string `json:"scope"`
}

func parseOAuthError(b []byte) *oauthError {
	var e oauthError
	if json.Unmarshal(b, &e) != nil {
		return &oauthError{}
	}
	return &e
}

// serverError reports the JSON error a rejected OAuth client received.
func serverError(c sasl.Client) *oauthError {
	switch c := c.(type) {
	case *xoauth2Client:
		return c.serverErr
	case *oauthBearerClient:
		return c.serverErr
	}
	return nil
}
