package imap

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"

	"github.com/spirit-app/spirit/agents/mail/mailtest"
)

const (
	testUser     = "nadia.petrov@callowayfinch.com"
	testPassword = "app-password-1234"
	testToken    = "ya29.good-token"
)

// testServer is a real IMAP server, go-imap's imapserver over its
// in-memory backend, listening on 127.0.0.1.
type testServer struct {
	t    *testing.T
	addr string
	host string
	port int
	user *imapmemserver.User

	mu sync.Mutex
	// saslWire keeps the last XOAUTH2/OAUTHBEARER client response the
	// server received, to check the client's bytes on the wire.
	saslWire []byte
	// poison is a UID whose body FETCH the server refuses with NO, as
	// Exchange does for a damaged message; poisonText, if set, is the NO's
	// text.
	poison     goimap.UID
	poisonText string
	// loginErr, if set, decides every LOGIN first: a server that echoes
	// the credentials in its NO.
	loginErr func(user, password string) error
}

func (ts *testServer) setPoison(uid goimap.UID) {
	ts.mu.Lock()
	ts.poison = uid
	ts.mu.Unlock()
}

func (s *testSession) Fetch(w *imapserver.FetchWriter, numSet goimap.NumSet, options *goimap.FetchOptions) error {
	s.ts.mu.Lock()
	poison, text := s.ts.poison, s.ts.poisonText
	s.ts.mu.Unlock()
	if set, ok := numSet.(goimap.UIDSet); ok && poison != 0 && set.Contains(poison) && len(options.BodySection) > 0 {
		if text == "" {
			text = "The message could not be retrieved"
		}
		return &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: text}
	}
	return s.UserSession.Fetch(w, numSet, options)
}

type serverOpts struct {
	// tls: "" plaintext, "implicit" TLS listener, "starttls".
	tls  string
	cert tls.Certificate
	// folders to create; default INBOX, Sent, Drafts.
	folders []string
}

func newTestServer(t testing.TB, o serverOpts) *testServer {
	tt, _ := t.(*testing.T)
	ts := &testServer{t: tt, user: imapmemserver.NewUser(testUser, testPassword)}
	folders := o.folders
	if folders == nil {
		folders = []string{"INBOX", "Sent", "Drafts"}
	}
	for _, f := range folders {
		if err := ts.user.Create(f, nil); err != nil {
			t.Fatalf("create %s: %v", f, err)
		}
	}
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &testSession{ts: ts}, nil, nil
		},
		Caps:         goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapIMAP4rev2: {}},
		InsecureAuth: o.tls == "",
		Logger:       log.New(io.Discard, "", 0),
	}
	if o.tls == "starttls" {
		opts.TLSConfig = &tls.Config{Certificates: []tls.Certificate{o.cert}}
	}
	srv := imapserver.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if o.tls == "implicit" {
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{o.cert}})
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	ts.addr = ln.Addr().String()
	host, port, _ := net.SplitHostPort(ts.addr)
	ts.host = host
	ts.port = mustAtoi(port)
	return ts
}

func mustAtoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// config returns a Connector config for this server's user.
func (ts *testServer) config() Config {
	return Config{
		Host:           ts.host,
		Port:           ts.port,
		TLS:            TLSNone,
		Username:       testUser,
		Password:       testPassword,
		Address:        mustAddr("Nadia Petrov", testUser),
		DialTimeout:    5 * time.Second,
		CommandTimeout: 30 * time.Second,
		Logger:         slog.New(slog.DiscardHandler),
	}
}

// appendRaw stores a message directly in the backend, as delivery would.
func (ts *testServer) appendRaw(t testing.TB, mailbox string, raw []byte, flags ...goimap.Flag) goimap.UID {
	t.Helper()
	data, err := ts.user.Append(mailbox, bytes.NewReader(raw), &goimap.AppendOptions{Flags: flags})
	if err != nil {
		t.Fatalf("append to %s: %v", mailbox, err)
	}
	return data.UID
}

// client opens a second, independent IMAP client: "another mail program"
// changing the mailbox, or an observer checking flags.
func (ts *testServer) client(t testing.TB) *imapclient.Client {
	t.Helper()
	cl, err := imapclient.DialInsecure(ts.addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Login(testUser, testPassword).Wait(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

func (ts *testServer) recordWire(b []byte) {
	ts.mu.Lock()
	ts.saslWire = append([]byte(nil), b...)
	ts.mu.Unlock()
}

func (ts *testServer) lastWire() []byte {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.saslWire
}

// testSession adds XOAUTH2 and OAUTHBEARER to the in-memory backend's
// session, through imapserver's SessionSASL hook.
type testSession struct {
	*imapmemserver.UserSession // nil until authenticated
	ts                         *testServer
}

func (s *testSession) Login(username, password string) error {
	s.ts.mu.Lock()
	loginErr := s.ts.loginErr
	s.ts.mu.Unlock()
	if loginErr != nil {
		if err := loginErr(username, password); err != nil {
			return err
		}
	}
	if err := s.ts.user.Login(username, password); err != nil {
		return err
	}
	s.UserSession = imapmemserver.NewUserSession(s.ts.user)
	return nil
}

func (s *testSession) loginToken(username, token string) bool {
	if username != testUser || token != testToken {
		return false
	}
	s.UserSession = imapmemserver.NewUserSession(s.ts.user)
	return true
}

func (s *testSession) AuthenticateMechanisms() []string {
	return []string{"PLAIN", MechXOAUTH2, MechOAuthBearer}
}

func (s *testSession) Authenticate(mech string) (sasl.Server, error) {
	switch mech {
	case "PLAIN":
		return sasl.NewPlainServer(func(identity, username, password string) error {
			return s.Login(username, password)
		}), nil
	case MechXOAUTH2:
		return &xoauth2Server{s: s}, nil
	case MechOAuthBearer:
		return &recordingServer{s: s, inner: sasl.NewOAuthBearerServer(func(o sasl.OAuthBearerOptions) *sasl.OAuthBearerError {
			if s.loginToken(o.Username, o.Token) {
				return nil
			}
			return &sasl.OAuthBearerError{Status: "invalid_token", Schemes: "bearer"}
		})}, nil
	}
	return nil, &goimap.Error{Type: goimap.StatusResponseTypeNo, Text: "unsupported mechanism"}
}

type recordingServer struct {
	s     *testSession
	inner sasl.Server
}

func (r *recordingServer) Next(resp []byte) ([]byte, bool, error) {
	if resp != nil && len(resp) > 1 {
		r.s.ts.recordWire(resp)
	}
	return r.inner.Next(resp)
}

// xoauth2Server is the server side of XOAUTH2 as Gmail and Outlook run it:
// on a bad token, a JSON error challenge, then NO after the client's
// (empty) answer.
type xoauth2Server struct {
	s      *testSession
	failed bool
}

func (x *xoauth2Server) Next(resp []byte) ([]byte, bool, error) {
	if x.failed {
		return nil, true, imapserver.ErrAuthFailed
	}
	if resp == nil {
		return []byte{}, false, nil
	}
	x.s.ts.recordWire(resp)
	var user, token string
	for _, f := range strings.Split(string(resp), "\x01") {
		if v, ok := strings.CutPrefix(f, "user="); ok {
			user = v
		}
		if v, ok := strings.CutPrefix(f, "auth=Bearer "); ok {
			token = v
		}
	}
	if x.s.loginToken(user, token) {
		return nil, true, nil
	}
	x.failed = true
	return []byte(`{"status":"401","schemes":"bearer","scope":"https://mail.google.com/"}`), false, nil
}

// selfSignedCert makes a certificate for 127.0.0.1 and a pool trusting it.
func selfSignedCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "spirit test IMAP"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// mboxMessage is one message of a test corpus mbox.
type mboxMessage struct {
	source string // case directory, for failure messages
	raw    []byte // CRLF line ends, as IMAP stores messages
}

// loadCorpus reads every /work/shared/cases/glance/*/mailbox.mbox.
func loadCorpus(t testing.TB) []mboxMessage {
	t.Helper()
	var out []mboxMessage
	for _, c := range mailtest.LoadCorpus(t) {
		for _, m := range c.Messages {
			out = append(out, mboxMessage{source: c.Name, raw: mailtest.CRLF(m.Raw)})
		}
	}
	return out
}

// collect runs a sync and returns what it delivered.
func collect(t testing.TB, c *Connector, cursor string) ([]mailMessage, string) {
	t.Helper()
	var got []mailMessage
	next, err := c.Sync(context.Background(), cursor, func(m mailMessage) error {
		got = append(got, m)
		return nil
	})
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return got, next
}
