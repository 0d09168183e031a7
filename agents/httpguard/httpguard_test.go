package httpguard_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/httpguard/guardtest"
)

func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		same       bool
	}{
		{"identical", "https://cal.example.com/dav/", "https://cal.example.com/other", true},
		{"default port written", "https://cal.example.com/", "https://cal.example.com:443/x", true},
		{"http default port written", "http://cal.example.com/", "http://cal.example.com:80/", true},
		{"case of scheme and host", "HTTPS://Cal.Example.COM/", "https://cal.example.com/", true},
		{"user info is not the origin", "https://dana:pw@cal.example.com/", "https://cal.example.com/", true},
		{"another port", "http://127.0.0.1:8080/", "http://127.0.0.1:8081/", false},
		{"https to http", "https://cal.example.com/", "http://cal.example.com/", false},
		{"https to http on the same port", "https://cal.example.com:8443/", "http://cal.example.com:8443/", false},
		{"a subdomain", "https://example.com/", "https://cal.example.com/", false},
		{"another host", "https://cal.example.com/", "https://cal.example.org/", false},
		{"IPv6 and its port", "http://[::1]:80/", "http://[::1]/", true},
		{"IPv6 another port", "http://[::1]:8080/", "http://[::1]:8081/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := httpguard.ParseOrigin(tc.a)
			if err != nil {
				t.Fatal(err)
			}
			b, err := httpguard.ParseOrigin(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if got := a == b; got != tc.same {
				t.Errorf("%s and %s: same = %v, want %v", a, b, got, tc.same)
			}
		})
	}
}

func TestOriginString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://Cal.Example.com:443/dav/?x=1", "https://cal.example.com"},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080"},
		{"http://[::1]/", "http://[::1]"},
		{"http://[::1]:8080/", "http://[::1]:8080"},
	} {
		o, err := httpguard.ParseOrigin(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.String(); got != tc.want {
			t.Errorf("ParseOrigin(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
	}
	if _, err := httpguard.ParseOrigin("/relative"); err == nil {
		t.Error("a relative URL has an origin")
	}
}

// recorder is a server that keeps the Authorization of each request.
func recorder(t *testing.T) (*httptest.Server, func() []string) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { return got }
}

// TestBind: the credential goes to its origin, redirected within it or
// not, and to no other server: neither along a redirect (whichever
// policy follows it) nor to a URL asked for directly.
func TestBind(t *testing.T) {
	own, ownSaw := recorder(t)
	other := guardtest.NewWitness(t, nil)
	o, err := httpguard.ParseOrigin(own.URL)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/away", guardtest.RedirectTo(other.URL+"/x", http.StatusTemporaryRedirect))
	redirector := httptest.NewServer(mux)
	t.Cleanup(redirector.Close)
	ro, _ := httpguard.ParseOrigin(redirector.URL)

	hc := &http.Client{Transport: httpguard.Bind(nil, ro, http.Header{"Authorization": {"Basic c2VjcmV0"}})}
	resp, err := hc.Get(redirector.URL + "/away")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = hc.Get(other.URL + "/direct")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, l := range other.Leaked("c2VjcmV0", "secret") {
		t.Errorf("the other server got the credential: %s", l)
	}
	if len(other.Requests()) != 2 {
		t.Errorf("the other server got %d requests, want the redirected one and the direct one", len(other.Requests()))
	}

	ownClient := &http.Client{Transport: httpguard.Bind(nil, o, http.Header{"Authorization": {"Basic c2VjcmV0"}})}
	req, _ := http.NewRequest(http.MethodGet, own.URL+"/", nil)
	resp, err = ownClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := ownSaw(); len(got) != 1 || got[0] != "Basic c2VjcmV0" {
		t.Errorf("its own server got %q", got)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("Bind changed the caller's request")
	}
}

// TestStayOnOrigin: redirects within the origin are followed with what
// the request carries; one to another origin (the same host on another
// port) fails with a *RedirectError before anything reaches it, 307 and
// 308 keeping their body, 302 not.
func TestStayOnOrigin(t *testing.T) {
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			other := guardtest.NewWitness(t, nil)
			var seenWithin []string
			mux := http.NewServeMux()
			mux.Handle("/away", guardtest.RedirectTo(other.URL+"/x", status))
			mux.Handle("/moved", guardtest.RedirectTo("/here", status))
			mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) {
				seenWithin = append(seenWithin, r.Header.Get("X-Api-Key"))
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			hc := httpguard.StayOnOrigin(nil, "your API key")

			post := func(path string) (*http.Response, error) {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader("privileged prompt"))
				req.Header.Set("X-Api-Key", "key-123")
				req.Header.Set("Authorization", "Bearer tok-456")
				return hc.Do(req)
			}
			resp, err := post("/moved")
			if err != nil {
				t.Fatalf("a redirect within the origin: %v", err)
			}
			resp.Body.Close()
			if len(seenWithin) != 1 || seenWithin[0] != "key-123" {
				t.Errorf("within the origin the key arrived as %q", seenWithin)
			}
			_, err = post("/away")
			var re *httpguard.RedirectError
			if !errors.As(err, &re) || re.To.String() != other.URL {
				t.Fatalf("a redirect elsewhere: %v, want a *RedirectError to %s", err, other.URL)
			}
			if want := "the server sent Spirit to another address (" + other.URL + "); Spirit did not follow it with your API key"; re.Error() != want {
				t.Errorf("error = %q, want %q", re, want)
			}
			if n := len(other.Requests()); n != 0 {
				t.Errorf("the other server got %d requests", n)
			}
		})
	}
}

// TestStripElsewhere: a redirect to another origin is followed, without
// the credentials and without a Referer naming the private address it
// came from; one within the origin keeps them.
func TestStripElsewhere(t *testing.T) {
	other := guardtest.NewWitness(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "moved here") }))
	var within []string
	mux := http.NewServeMux()
	mux.Handle("/private-t0k3n/away", guardtest.RedirectTo(other.URL+"/file", http.StatusFound))
	mux.Handle("/private-t0k3n/moved", guardtest.RedirectTo("/here", http.StatusFound))
	mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) { within = append(within, r.Header.Get("Authorization")) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	hc := httpguard.StripElsewhere(nil, "X-Custom-Auth")
	get := func(path string) string {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer tok-1")
		req.Header.Set("X-Custom-Auth", "custom-2")
		req.Header.Set("X-Api-Key", "key-3")
		req.Header.Set("Cookie", "session=cookie-4")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := get("/private-t0k3n/away"); got != "moved here" {
		t.Errorf("the redirect elsewhere was not followed: %q", got)
	}
	for _, l := range other.Leaked("tok-1", "custom-2", "key-3", "cookie-4", "t0k3n") {
		t.Errorf("the other server got it: %s", l)
	}
	get("/private-t0k3n/moved")
	if len(within) != 1 || within[0] != "Bearer tok-1" {
		t.Errorf("within the origin Authorization arrived as %q", within)
	}
}

func TestCheckOrigin(t *testing.T) {
	o, _ := httpguard.ParseOrigin("https://graph.microsoft.com/v1.0")
	for _, tc := range []struct {
		link string
		ok   bool
	}{
		{"https://graph.microsoft.com/v1.0/me/events?$skiptoken=x", true},
		{"https://graph.microsoft.com:443/v1.0/me", true},
		{"http://graph.microsoft.com/v1.0/me", false},
		{"https://graph.microsoft.com:8443/v1.0/me", false},
		{"https://graph.microsoft.com.evil.test/v1.0/me", false},
		{"/v1.0/me", false},
		{"::not a url", false},
	} {
		err := httpguard.CheckOrigin(tc.link, o, "your sign-in")
		var oe *httpguard.OriginError
		if (err == nil) != tc.ok || (err != nil && !errors.As(err, &oe)) {
			t.Errorf("CheckOrigin(%q) = %v, want ok %v", tc.link, err, tc.ok)
		}
	}
}

// TestLimitBody: an answer of the limit is read whole; one byte more
// fails the read, whether the length was said up front or not.
func TestLimitBody(t *testing.T) {
	const limit = 64 << 10
	for _, tc := range []struct {
		name      string
		size      int
		chunked   bool
		wantError bool
	}{
		{"at the limit", limit, false, false},
		{"at the limit, chunked", limit, true, false},
		{"one byte over, said up front", limit + 1, false, true},
		{"one byte over, chunked", limit + 1, true, true},
		{"far over, chunked", 16 * limit, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("x"), tc.size)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tc.chunked {
					w.Write(body[:1])
					w.(http.Flusher).Flush() // no Content-Length from here
					w.Write(body[1:])
					return
				}
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
				w.Write(body)
			}))
			t.Cleanup(srv.Close)
			hc := &http.Client{Transport: httpguard.LimitBody(nil, limit)}
			var got []byte
			resp, err := hc.Get(srv.URL)
			if err == nil {
				got, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if tc.wantError {
				if !errors.Is(err, httpguard.ErrTooLarge) || len(got) > limit {
					t.Errorf("read %d bytes, err %v; want at most %d and ErrTooLarge", len(got), err, limit)
				}
				return
			}
			if err != nil || len(got) != tc.size {
				t.Errorf("read %d bytes, err %v; want %d", len(got), err, tc.size)
			}
		})
	}
}

// TestStallTimeout: a body that keeps coming, however slowly, is read to
// the end even when it takes longer than the stall; one that stops fails
// with a *StallError once it has been silent that long; so does a server
// that never answers.
func TestStallTimeout(t *testing.T) {
	const stall = 500 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/silent":
			<-r.Context().Done()
			return
		}
		w.WriteHeader(http.StatusOK)
		for range 8 {
			w.Write([]byte("drop "))
			w.(http.Flusher).Flush()
			time.Sleep(stall / 5) // the drip's pace: the server's behaviour, not synchronisation
		}
		if r.URL.Path == "/stops" {
			<-r.Context().Done()
		}
	}))
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: httpguard.StallTimeout(nil, stall)}
	read := func(path string) (string, error) {
		resp, err := hc.Get(srv.URL + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if got, err := read("/slow"); err != nil || got != strings.Repeat("drop ", 8) {
		t.Errorf("a slow, steady body: %q, %v", got, err)
	}
	var se *httpguard.StallError
	if got, err := read("/stops"); !errors.As(err, &se) || got != strings.Repeat("drop ", 8) {
		t.Errorf("a body that stops: %q, %v; want what came and a *StallError", got, err)
	}
	if _, err := read("/silent"); !errors.As(err, &se) || !strings.Contains(err.Error(), "sent nothing for 500ms") {
		t.Errorf("a server that never answers: %v, want a *StallError", err)
	}
}
