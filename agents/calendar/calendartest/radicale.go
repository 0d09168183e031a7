// Package calendartest runs a real CalDAV server for tests: Debian's
// radicale on a loopback port, with its storage in a temporary folder.
package calendartest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// User and Password log in to every Radicale: it runs without
// authentication, so any pair is accepted, and User owns /User/.
const (
	User     = "dana"
	Password = "pw"
)

// Radicale is a running server.
type Radicale struct {
	// Base is its root URL, "http://127.0.0.1:PORT".
	Base string
	HTTP *http.Client
}

// StartRadicale starts radicale and stops it when the test ends. Without
// radicale on PATH the test is skipped, or fails under
// SPIRIT_REQUIRE_DESKTOP=1.
func StartRadicale(t testing.TB) *Radicale {
	t.Helper()
	bin, err := exec.LookPath("radicale")
	if err != nil {
		if os.Getenv("SPIRIT_REQUIRE_DESKTOP") == "1" {
			t.Fatalf("radicale is not installed (apt-get install radicale): %v", err)
		}
		t.Skipf("radicale is not installed: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--config", "", "--server-hosts", addr, "--auth-type", "none",
		"--rights-type", "owner_only", "--storage-filesystem-folder", filepath.Join(t.TempDir(), "collections"),
		"--logging-level", "warning")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	r := &Radicale{Base: "http://" + addr, HTTP: &http.Client{Timeout: 10 * time.Second}}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := r.HTTP.Get(r.Base + "/")
		if err == nil {
			resp.Body.Close()
			return r
		}
		select {
		case <-done:
			t.Fatalf("radicale exited: %v", cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("radicale did not answer on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond) // polling the port with a deadline
	}
}

// Do sends a request as User and fails the test on an error status.
func (r *Radicale) Do(t testing.TB, method, path, ctype, body string) {
	t.Helper()
	req, err := http.NewRequest(method, r.Base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(User, Password)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := r.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %s %s", method, path, resp.Status, b)
	}
}

// MkCalendar makes a calendar collection at path ("/dana/work/").
func (r *Radicale) MkCalendar(t testing.TB, path, name string) {
	t.Helper()
	r.Do(t, "MKCALENDAR", path, "application/xml", `<?xml version="1.0" encoding="utf-8"?>
<C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
  <D:set><D:prop><D:displayname>`+name+`</D:displayname></D:prop></D:set>
</C:mkcalendar>`)
}

// Put stores an iCalendar object at path.
func (r *Radicale) Put(t testing.TB, path, ics string) {
	t.Helper()
	r.Do(t, http.MethodPut, path, "text/calendar; charset=utf-8", ics)
}

// Secrets is a keychain in memory for a CalDAV sync or write: key →
// secret (calendar.PasswordKey(id) → Password).
type Secrets map[string]string

// Get returns key's secret, or an error when there is none.
func (s Secrets) Get(_ context.Context, key string) (string, error) {
	v, ok := s[key]
	if !ok {
		return "", fmt.Errorf("no secret %s", key)
	}
	return v, nil
}
