// Package imaptest runs a real IMAP server in-process for tests: go-imap's
// imapserver over its in-memory backend, plaintext on 127.0.0.1, with one
// user and the folders INBOX, Sent and Drafts.
package imaptest

import (
	"io"
	"log"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// Server is a running IMAP server, closed when the test ends.
type Server struct {
	Host           string
	Port           int
	User, Password string
	user           *imapmemserver.User

	mu      sync.Mutex
	reject  func(user, password string) error
	onFetch func(uids goimap.NumSet, options *goimap.FetchOptions)
}

// RejectLogins makes every later LOGIN (and AUTHENTICATE PLAIN) fail with
// the error reject returns for the credentials received, e.g. a server
// that echoes them:
//
//	&imap.Error{Type: imap.StatusResponseTypeNo, Text: fmt.Sprintf("invalid credentials: %q %q", user, pass)}
//
// A nil error from reject lets the login proceed as usual.
func (s *Server) RejectLogins(reject func(user, password string) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject = reject
}

// OnFetch calls f with every FETCH the server is about to answer, to see
// what a client asks for or to change the options the answer follows:
// clearing options.RFC822Size makes a server that leaves sizes out.
func (s *Server) OnFetch(f func(uids goimap.NumSet, options *goimap.FetchOptions)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onFetch = f
}

func (s *session) Fetch(w *imapserver.FetchWriter, numSet goimap.NumSet, options *goimap.FetchOptions) error {
	s.srv.mu.Lock()
	onFetch := s.srv.onFetch
	s.srv.mu.Unlock()
	if onFetch != nil {
		opts := *options
		onFetch(numSet, &opts)
		options = &opts
	}
	return s.UserSession.Fetch(w, numSet, options)
}

// session is the in-memory backend's session with RejectLogins' and
// OnFetch's hooks.
type session struct {
	*imapmemserver.UserSession // nil until logged in
	srv                        *Server
}

func (s *session) Login(user, password string) error {
	s.srv.mu.Lock()
	reject := s.srv.reject
	s.srv.mu.Unlock()
	if reject != nil {
		if err := reject(user, password); err != nil {
			return err
		}
	}
	if err := s.srv.user.Login(user, password); err != nil {
		return err
	}
	s.UserSession = imapmemserver.NewUserSession(s.srv.user)
	return nil
}

// New starts a server for user with password.
func New(t testing.TB, user, password string) *Server {
	t.Helper()
	u := imapmemserver.NewUser(user, password)
	for _, f := range []string{"INBOX", "Sent", "Drafts"} {
		if err := u.Create(f, nil); err != nil {
			t.Fatalf("imaptest: create %s: %v", f, err)
		}
	}
	s := &Server{User: user, Password: password, user: u}
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &session{srv: s}, nil, nil
		},
		Caps:         goimap.CapSet{goimap.CapIMAP4rev1: {}, goimap.CapIMAP4rev2: {}},
		InsecureAuth: true,
		Logger:       log.New(io.Discard, "", 0),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	s.Host = host
	s.Port, _ = strconv.Atoi(port)
	return s
}

// Append stores a raw RFC 5322 message in folder.
func (s *Server) Append(t testing.TB, folder string, raw []byte, date time.Time) {
	t.Helper()
	c := s.client(t)
	cmd := c.Append(folder, int64(len(raw)), &goimap.AppendOptions{Time: date})
	if _, err := cmd.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Wait(); err != nil {
		t.Fatalf("imaptest: append to %s: %v", folder, err)
	}
}

// Messages returns the raw messages in folder, oldest first, without
// marking them seen.
func (s *Server) Messages(t testing.TB, folder string) [][]byte {
	t.Helper()
	c := s.client(t)
	data, err := c.Select(folder, &goimap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		t.Fatalf("imaptest: select %s: %v", folder, err)
	}
	if data.NumMessages == 0 {
		return nil
	}
	msgs, err := c.Fetch(goimap.SeqSet{{Start: 1, Stop: 0}}, &goimap.FetchOptions{
		BodySection: []*goimap.FetchItemBodySection{{Peek: true}},
	}).Collect()
	if err != nil {
		t.Fatalf("imaptest: fetch %s: %v", folder, err)
	}
	var out [][]byte
	for _, m := range msgs {
		for _, b := range m.BodySection {
			out = append(out, b.Bytes)
		}
	}
	return out
}

func (s *Server) client(t testing.TB) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Login(s.User, s.Password).Wait(); err != nil {
		t.Fatalf("imaptest: login: %v", err)
	}
	return c
}
