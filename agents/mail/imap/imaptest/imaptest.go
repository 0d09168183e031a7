// Package imaptest runs a real IMAP server in-process for tests: go-imap's
// imapserver over its in-memory backend, plaintext on 127.0.0.1, with one
// user and the folders INBOX, Sent and Drafts.
package imaptest

import (
	"io"
	"log"
	"net"
	"strconv"
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
	mem := imapmemserver.New()
	mem.AddUser(u)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
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
	p, _ := strconv.Atoi(port)
	return &Server{Host: host, Port: p, User: user, Password: password, user: u}
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
