package calendar

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/httpguard/guardtest"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/platform/xtest"
)

// A CalDAV account's credentials in these tests.
const (
	guardUser     = "dana.whitfield"
	guardPassword = "correct-Horse-battery-9"
)

var guardBasic = base64.StdEncoding.EncodeToString([]byte(guardUser + ":" + guardPassword))

// TestCalDAVPasswordStaysOnOrigin: a CalDAV server that sends Spirit to
// another origin (the same host on another port; plain http from https)
// gets the password sent nowhere: adding the account and syncing a
// calendar fail, saying where the server pointed, and the other server
// never sees the password or the Basic credential. Both of Spirit's ways
// to the server are covered: go-webdav's requests (discovery, the query)
// and its own (the sync token).
func TestCalDAVPasswordStaysOnOrigin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tls    bool
		status int
		add    bool
	}{
		{"add, 308 to another port", false, http.StatusPermanentRedirect, true},
		{"add, 301 to another port", false, http.StatusMovedPermanently, true},
		{"add, https to http", true, http.StatusTemporaryRedirect, true},
		{"sync, 308 to another port", false, http.StatusPermanentRedirect, false},
		{"sync, https to http", true, http.StatusPermanentRedirect, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			other := guardtest.NewWitness(t, nil)
			h := guardtest.RedirectTo(other.URL+"/dana/", tc.status)
			srv := httptest.NewUnstartedServer(h)
			if tc.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			t.Cleanup(srv.Close)
			hc := srv.Client() // trusts the TLS server's certificate
			st := openStore(t)
			var err error
			if tc.add {
				_, err = Add(ctx, st, memKeys{}, hc, NewCalendar{Kind: store.CalendarCalDAV, Source: srv.URL + "/", User: guardUser, Password: guardPassword})
			} else {
				c, aerr := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: srv.URL + "/dana/work/", Name: "Work", Username: guardUser})
				if aerr != nil {
					t.Fatal(aerr)
				}
				_, err = Sync(ctx, st, c, SyncOptions{HTTP: hc, Secrets: calendartest.Secrets{PasswordKey(c.ID): guardPassword}})
			}
			for _, l := range other.Leaked(guardPassword, guardBasic) {
				t.Errorf("the other server got the password: %s", l)
			}
			want := "another address (" + other.URL + ")"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want one saying %q", err, want)
			}
		})
	}
}

// TestCalDAVRedirectWithinOrigin: a redirect on the same server (a path
// that moved) is still followed with the password, so that guarding the
// password does not break servers that move their paths.
func TestCalDAVRedirectWithinOrigin(t *testing.T) {
	ctx := t.Context()
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	base, err := url.Parse(r.Base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(base)
	var mu sync.Mutex
	var moved []string // the Authorization of each request past the redirect
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if p, ok := strings.CutPrefix(req.URL.Path, "/old"); ok {
			http.Redirect(w, req, p, http.StatusPermanentRedirect)
			return
		}
		mu.Lock()
		moved = append(moved, req.Header.Get("Authorization"))
		mu.Unlock()
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(front.Close)
	st := openStore(t)
	added, err := Add(ctx, st, memKeys{}, nil, NewCalendar{Kind: store.CalendarCalDAV, Source: front.URL + "/old/dana/work/",
		User: calendartest.User, Password: calendartest.Password})
	if err != nil || len(added) != 1 || added[0].Name != "Work" {
		t.Fatalf("Add through a redirect within the server: %v, %+v", err, added)
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(calendartest.User+":"+calendartest.Password))
	mu.Lock()
	defer mu.Unlock()
	if len(moved) == 0 || moved[0] != basic {
		t.Errorf("requests past the redirect carried %q, want the first with %q", moved, basic)
	}
}

// TestSubscriptionSecretsStayOnOrigin: a subscription that moved to
// another origin is followed (subscriptions do move), but without the user
// name and password its URL carried and without a Referer naming its
// private address.
func TestSubscriptionSecretsStayOnOrigin(t *testing.T) {
	const password, token, key = "feed-Pass-77", "private-5f1c0ffee", "k9q7x2"
	body := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:moved@x\r\nDTSTAMP:20260101T000000Z\r\n" +
		"DTSTART:20260615T130000Z\r\nDTEND:20260615T140000Z\r\nSUMMARY:Closing\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
	other := guardtest.NewWitness(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/calendar")
		io.WriteString(w, body)
	}))
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var sawAuth string
			feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sawAuth = r.Header.Get("Authorization")
				http.Redirect(w, r, other.URL+"/moved.ics", status)
			}))
			t.Cleanup(feed.Close)
			src := "http://dana:" + password + "@" + strings.TrimPrefix(feed.URL, "http://") + "/" + token + "/basic.ics?key=" + key
			f, err := FetchURL(t.Context(), nil, src, Validators{})
			if err != nil || len(f.Events) == 0 {
				t.Fatalf("FetchURL through the move: %+v, %v", f, err)
			}
			if want := "Basic " + base64.StdEncoding.EncodeToString([]byte("dana:"+password)); sawAuth != want {
				t.Errorf("the subscription's own server got Authorization %q, want %q", sawAuth, want)
			}
			for _, l := range other.Leaked(password, token, key) {
				t.Errorf("the other server got the subscription's secret: %s", l)
			}
		})
	}
}

// TestSubscriptionErrorScrubbed: a subscription's server whose refusal
// echoes the password its URL carried, in the status line, reaches the
// lawyer without it.
func TestSubscriptionErrorScrubbed(t *testing.T) {
	const password = "feed-Pass-78"
	feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		u, p, _ := r.BasicAuth()
		fmt.Fprintf(buf, "HTTP/1.1 403 Forbidden for %s with %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", u, p)
		buf.Flush()
	}))
	t.Cleanup(feed.Close)
	_, err := FetchURL(t.Context(), nil, "http://dana:"+password+"@"+strings.TrimPrefix(feed.URL, "http://")+"/cal.ics", Validators{})
	if err == nil || !strings.Contains(err.Error(), "403 Forbidden") || strings.Contains(err.Error(), password) {
		t.Errorf("FetchURL = %v, want the 403 without the password", err)
	}
}

// echoingCalDAV is a CalDAV server that refuses the sign-in and echoes
// what it was sent, user name, password and Basic credential, in each of
// the places a server's text reaches Spirit: a DAV:error body (go-webdav
// quotes it), a multistatus response's responsedescription, and the
// status line's reason (Spirit's own requests quote it). status is the
// refusal's (403: the sign-in).
func echoingCalDAV(t *testing.T, mode string, status int) *httptest.Server {
	echo := fmt.Sprintf("user %s may not read this with %s (you sent %s, that is Basic %s)", guardUser, guardPassword, guardBasic, guardBasic)
	davError := fmt.Sprintf(`<?xml version="1.0"?><d:error xmlns:d="DAV:"><d:responsedescription>%s</d:responsedescription></d:error>`, echo)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		switch {
		case r.Method == "PROPFIND" && r.Header.Get("Depth") == "0" && mode == "multistatus":
			w.Header().Set("Content-Type", "application/xml; charset=utf-8")
			w.WriteHeader(http.StatusMultiStatus)
			fmt.Fprintf(w, `<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>%s</d:href>`+
				`<d:status>HTTP/1.1 %d %s</d:status><d:responsedescription>%s</d:responsedescription></d:response></d:multistatus>`,
				r.URL.Path, status, http.StatusText(status), echo)
		case mode == "status line":
			// The reason phrase echoes, and the DAV:error body.
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(buf, "HTTP/1.1 %d %s %s\r\nContent-Type: application/xml; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
				status, http.StatusText(status), echo, len(davError), davError)
			buf.Flush()
		default:
			w.Header().Set("Content-Type", "application/xml; charset=utf-8")
			w.WriteHeader(status)
			io.WriteString(w, davError)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// guardLog sends slog's default logger to a buffer for the test.
func guardLog(t *testing.T) *xtest.LockedBuffer {
	var buf xtest.LockedBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// TestCalDAVErrorsScrubbed: a CalDAV server whose refusals echo the user
// name, the password and the Basic credential reaches the lawyer without
// them: not in the error Add or Sync returns, not in the calendar's stored
// error, not in the log. Add is asked with a 400, which Plain passes on as
// the server said it (a 403 it replaces with its own words); a sync's 403
// is still read as the sign-in refused.
func TestCalDAVErrorsScrubbed(t *testing.T) {
	secrets := []string{guardUser, guardPassword, guardBasic}
	leaks := func(where, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds %q:\n%s", where, s, text)
			}
		}
	}
	for _, tc := range []struct{ name, mode string }{
		{"add, 400 with a DAV error", "dav error"},
		{"add, 207 with a refused response", "multistatus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := guardLog(t)
			srv := echoingCalDAV(t, tc.mode, http.StatusBadRequest)
			st := openStore(t)
			_, err := Add(t.Context(), st, memKeys{}, nil, NewCalendar{Kind: store.CalendarCalDAV, Source: srv.URL + "/", User: guardUser, Password: guardPassword})
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Add = %v, want a field error", err)
			}
			leaks("Add's error", err.Error())
			leaks("the log", log.String())
		})
	}
	t.Run("sync, status line and DAV error", func(t *testing.T) {
		log := guardLog(t)
		srv := echoingCalDAV(t, "status line", http.StatusForbidden)
		st := openStore(t)
		ctx := t.Context()
		c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: srv.URL + "/dana/work/", Name: "Work", Username: guardUser})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Sync(ctx, st, c, SyncOptions{Secrets: calendartest.Secrets{PasswordKey(c.ID): guardPassword}})
		if err == nil {
			t.Fatal("Sync against a refusing server succeeded")
		}
		leaks("Sync's error", err.Error())
		if Plain(err.Error()) != Plain("403 Forbidden") {
			t.Errorf("Plain(%q) = %q, want the sign-in refusal", err, Plain(err.Error()))
		}
		got, err := st.Calendar(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.LastError == "" {
			t.Error("no error stored on the calendar")
		}
		leaks("the stored error", got.LastError)
		if !strings.Contains(log.String(), "sync token") {
			t.Errorf("the log does not have the sync-token failure (so the test proves nothing of it):\n%s", log)
		}
		leaks("the log", log.String())
	})
}

// frontAccount adds a cloud mail account of kind whose API root is base
// (a server in front of a fake) and whose sign-in is tok.
func frontAccount(t *testing.T, ix *index.Index, sec secrets.Store, kind, base, tokenURL string, tok *oauth2.Token) index.Account {
	t.Helper()
	cfg := accounts.OAuthConfig{ClientID: calendartest.ClientID, TokenURL: tokenURL}
	if kind == index.KindGraph {
		cfg.BaseURL = base
	} else {
		cfg.CalendarURL = base
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ix.AddAccount(context.Background(), index.Account{Kind: kind, Name: "dana@firm.com", Address: "dana@firm.com", Config: raw})
	if err != nil {
		t.Fatal(err)
	}
	if err := accounts.SaveToken(context.Background(), sec, a.ID, tok); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCloudSignInStaysOnOrigin: the bearer token of a Microsoft or Google
// calendar goes to the service's address only: not along a redirect to
// another origin (Google's events answered with 307), and not to a next
// link in an answer that leads elsewhere (Graph's delta pages).
func TestCloudSignInStaysOnOrigin(t *testing.T) {
	t.Run("google, 307 to another port", func(t *testing.T) {
		st, ix, sec := cloudWorld(t)
		g := calendartest.StartGoogle(t)
		other := guardtest.NewWitness(t, nil)
		target, _ := url.Parse(g.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/events") {
				http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
				return
			}
			proxy.ServeHTTP(w, r)
		}))
		t.Cleanup(front.Close)
		tok := g.SignIn(false, calendartest.GoogleScopes...)
		a := frontAccount(t, ix, sec, index.KindGmail, front.URL+"/calendar/v3", g.URL+"/token", tok)
		_, _, err := AddCloudCalendar(t.Context(), st, MailAccounts{Index: ix, Secrets: sec}, a.ID, "", SyncOptions{Now: cloudNow})
		for _, l := range other.Leaked(tok.AccessToken, tok.RefreshToken) {
			t.Errorf("the other server got the sign-in: %s", l)
		}
		if want := "another address (" + other.URL + ")"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddCloudCalendar = %v, want an error saying %q", err, want)
		}
	})
	t.Run("graph, a next link to another port", func(t *testing.T) {
		st, ix, sec := cloudWorld(t)
		g := calendartest.StartGraph(t)
		g.PageSize = 1
		for i := range 3 {
			g.Put(calendartest.GraphEvent{ID: fmt.Sprintf("ev-%d", i), Subject: "Closing", Start: cloudNow.AddDate(0, 0, i+1),
				End: cloudNow.AddDate(0, 0, i+1).Add(60 * 60e9)})
		}
		other := guardtest.NewWitness(t, nil)
		target, _ := url.Parse(g.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.ModifyResponse = func(resp *http.Response) error {
			// The page's links lead to the other server.
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			b = bytes.ReplaceAll(b, []byte(g.URL), []byte(other.URL))
			resp.Body = io.NopCloser(bytes.NewReader(b))
			resp.ContentLength = int64(len(b))
			resp.Header.Del("Content-Length")
			return nil
		}
		front := httptest.NewServer(proxy)
		t.Cleanup(front.Close)
		tok := g.SignIn(false, calendartest.GraphScopes...)
		a := frontAccount(t, ix, sec, index.KindGraph, front.URL+"/v1.0", g.URL+"/token", tok)
		_, _, err := AddCloudCalendar(t.Context(), st, MailAccounts{Index: ix, Secrets: sec}, a.ID, "", SyncOptions{Now: cloudNow})
		for _, l := range other.Leaked(tok.AccessToken, tok.RefreshToken) {
			t.Errorf("the other server got the sign-in: %s", l)
		}
		if len(other.Requests()) > 0 {
			t.Errorf("Spirit followed the link to the other server: %d requests", len(other.Requests()))
		}
		if want := other.URL; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddCloudCalendar = %v, want an error naming %q", err, want)
		}
	})
}
