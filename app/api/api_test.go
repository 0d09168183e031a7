package api

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/platform/xtest"
)

// fakeBackend records what reaches it. Each hook, when set, replaces the
// default behaviour of its method.
type fakeBackend struct {
	onSay     func(ctx context.Context, text string) (SayResult, error)
	onRespond func(id int64, action, text string) (Nudge, error)
	onHealth  func() Health

	mu          sync.Mutex
	calls       int
	sayText     string
	worldSince  int64
	worldLimit  int
	respondArgs [3]string // id, action, text
	shows       int
	mailSyncs   int
	calSyncs    int
	notified    NewNudge
	// agents by session; nil means fakeAgents() on first use.
	agents map[string]AgentDetail
}

var (
	t0          = time.Date(2026, 3, 4, 9, 30, 0, 0, time.UTC)
	fakeEntries = []Entry{
		{ID: 5, TS: t0, Kind: store.KindEvent, Source: "voice", Identifier: "s1", Text: "call Smith"},
		{ID: 6, TS: t0.Add(time.Second), Kind: store.KindAgent, Status: store.StatusStart, Session: "a1", Text: "draft", Need: "letter sent"},
	}
	fakeNudges = []Nudge{
		{ID: 7, Created: t0, Kind: "reminder", Message: "File the motion", State: store.NudgeShown, Updated: t0},
	}
	fakeHealth = Health{
		Status: "ok", Version: "1.2.3", UptimeSeconds: 12.5,
		Subsystems: map[string]Subsystem{"voice": {State: "running"}, "screen": {State: "off", Detail: "no permission"}},
		Counters:   map[string]int64{"nudges_shown": 3},
	}
)

func (f *fakeBackend) called() {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
}

func (f *fakeBackend) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// seen is what the backend recorded, copied under the lock.
type seen struct {
	sayText     string
	worldSince  int64
	worldLimit  int
	respondArgs [3]string
	shows       int
	mailSyncs   int
	calSyncs    int
}

func (f *fakeBackend) seen() seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return seen{f.sayText, f.worldSince, f.worldLimit, f.respondArgs, f.shows, f.mailSyncs, f.calSyncs}
}

func (f *fakeBackend) Health(ctx context.Context) Health {
	f.called()
	if f.onHealth != nil {
		return f.onHealth()
	}
	return fakeHealth
}

func (f *fakeBackend) World(ctx context.Context, since int64, limit int) ([]Entry, error) {
	f.called()
	f.mu.Lock()
	f.worldSince, f.worldLimit = since, limit
	f.mu.Unlock()
	if since >= 100 {
		return nil, nil // exercises the nil → [] normalisation
	}
	return fakeEntries, nil
}

func (f *fakeBackend) Say(ctx context.Context, text string) (SayResult, error) {
	f.called()
	f.mu.Lock()
	f.sayText = text
	f.mu.Unlock()
	if f.onSay != nil {
		return f.onSay(ctx, text)
	}
	return SayResult{Intent: "note", Reply: "Noted: " + text, Handled: true}, nil
}

func (f *fakeBackend) Nudges(ctx context.Context) ([]Nudge, error) {
	f.called()
	return fakeNudges, nil
}

func (f *fakeBackend) RespondNudge(ctx context.Context, id int64, action, text string) (Nudge, error) {
	f.called()
	f.mu.Lock()
	f.respondArgs = [3]string{fmt.Sprint(id), action, text}
	f.mu.Unlock()
	if f.onRespond != nil {
		return f.onRespond(id, action, text)
	}
	n := fakeNudges[0]
	n.ID, n.State, n.Answer = id, store.NudgeAccepted, text
	return n, nil
}

func (f *fakeBackend) Notify(ctx context.Context, n NewNudge) (Nudge, error) {
	f.called()
	f.mu.Lock()
	f.notified = n
	f.mu.Unlock()
	return Nudge{ID: 9, Created: t0, Kind: n.Kind, Message: n.Message, ActionPrompt: n.ActionPrompt,
		State: store.NudgeShown, Updated: t0}, nil
}

func (f *fakeBackend) Show(ctx context.Context) error {
	f.called()
	f.mu.Lock()
	f.shows++
	f.mu.Unlock()
	return nil
}

func (f *fakeBackend) SyncMail(ctx context.Context) error {
	f.called()
	f.mu.Lock()
	f.mailSyncs++
	f.mu.Unlock()
	return nil
}

func (f *fakeBackend) SyncCalendars(ctx context.Context) error {
	f.called()
	f.mu.Lock()
	f.calSyncs++
	f.mu.Unlock()
	return nil
}

type testServer struct {
	srv  *Server
	addr string
	dir  string
	info Info
	logs *xtest.LockedBuffer
}

// start runs a Server for b on a fresh data dir, shut down when t ends.
func start(t *testing.T, b Backend) *testServer {
	t.Helper()
	logs := &xtest.LockedBuffer{}
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	logger := slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(t.Output(), opts),
		slog.NewTextHandler(logs, opts),
	))
	dir := t.TempDir()
	srv := New(b, WithLogger(logger))
	addr, err := srv.Start(t.Context(), dir)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	ran := make(chan error, 1)
	go func() { ran <- srv.Run(context.Background()) }()
	t.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	info, err := ReadInfo(dir)
	if err != nil {
		t.Fatalf("ReadInfo: %v", err)
	}
	return &testServer{srv: srv, addr: addr, dir: dir, info: info, logs: logs}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// errorText returns the "error" field of a JSON error body, failing the
// test if the body is not one.
func (r response) errorText(t *testing.T) string {
	t.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var e struct {
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == nil || *e.Error == "" {
		t.Fatalf("body %q is not a JSON error (err %v)", r.body, err)
	}
	return *e.Error
}

type request struct {
	method, path string
	auth         string // the Authorization header; "-" for none
	contentType  string // "-" for none
	body         string
	host         string // overrides the Host header
}

// do sends req with the server's token unless req.auth says otherwise.
func (ts *testServer) do(t *testing.T, req request) response {
	t.Helper()
	var body io.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	hr, err := http.NewRequestWithContext(t.Context(), req.method, "http://"+ts.addr+req.path, body)
	if err != nil {
		t.Fatal(err)
	}
	switch req.auth {
	case "":
		hr.Header.Set("Authorization", "Bearer "+ts.info.Token)
	case "-":
	default:
		hr.Header.Set("Authorization", req.auth)
	}
	switch {
	case req.contentType == "-":
	case req.contentType != "":
		hr.Header.Set("Content-Type", req.contentType)
	case req.body != "":
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.host != "" {
		hr.Host = req.host
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.method, req.path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.method, req.path, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

func TestStartWritesInfo(t *testing.T) {
	ts := start(t, &fakeBackend{})

	if !strings.HasPrefix(ts.addr, "127.0.0.1:") {
		t.Errorf("addr = %q, want 127.0.0.1:PORT", ts.addr)
	}
	if ts.info.Addr != ts.addr {
		t.Errorf("api.json addr = %q, want %q", ts.info.Addr, ts.addr)
	}
	if tok, err := hex.DecodeString(ts.info.Token); err != nil || len(tok) != 32 {
		t.Errorf("token %q is not 32 hex-encoded bytes", ts.info.Token)
	}

	fi, err := os.Stat(filepath.Join(ts.dir, InfoFile))
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("api.json mode = %v, want 0600", fi.Mode().Perm())
	}
	// The atomic write must not leave its temp file behind.
	des, err := os.ReadDir(ts.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(des) != 1 || des[0].Name() != InfoFile {
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		t.Errorf("data dir holds %v, want only %s", names, InfoFile)
	}

	if _, err := ts.srv.Start(t.Context(), ts.dir); err == nil {
		t.Error("second Start succeeded, want error")
	}
}

func TestTokensDifferPerStart(t *testing.T) {
	a, b := start(t, &fakeBackend{}), start(t, &fakeBackend{})
	if a.info.Token == b.info.Token {
		t.Error("two servers got the same token")
	}
}

// routes lists every route with a request body that would be valid.
var routes = []request{
	{method: "GET", path: "/health"},
	{method: "GET", path: "/world?since=1&limit=2"},
	{method: "POST", path: "/say", body: `{"text":"hello"}`},
	{method: "GET", path: "/nudges"},
	{method: "POST", path: "/nudges/7/respond", body: `{"action":"accept"}`},
	{method: "POST", path: "/nudges", body: `{"kind":"info","message":"hello"}`},
	{method: "POST", path: "/show"},
	{method: "GET", path: "/agents"},
	{method: "GET", path: "/agents/task-open"},
	{method: "POST", path: "/agents/task-open/cancel"},
	{method: "POST", path: "/mail/sync"},
}

func TestEveryRouteRequiresToken(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	tok := ts.info.Token
	auths := map[string]string{
		"missing":         "-",
		"wrong token":     "Bearer " + strings.Repeat("0", len(tok)),
		"truncated token": "Bearer " + tok[:len(tok)-1],
		"longer token":    "Bearer " + tok + "0",
		"empty token":     "Bearer ",
		"no scheme":       tok,
		"basic scheme":    "Basic " + tok,
	}
	for _, rt := range routes {
		for name, auth := range auths {
			t.Run(rt.method+" "+rt.path+"/"+name, func(t *testing.T) {
				req := rt
				req.auth = auth
				resp := ts.do(t, req)
				if resp.status != http.StatusUnauthorized {
					t.Fatalf("status = %d, want 401; body %s", resp.status, resp.body)
				}
				if got := resp.header.Get("WWW-Authenticate"); got != "Bearer" {
					t.Errorf("WWW-Authenticate = %q, want Bearer", got)
				}
				resp.errorText(t)
			})
		}
	}
	if n := fb.Calls(); n != 0 {
		t.Errorf("backend called %d times without a valid token", n)
	}

	// With the token, each route goes through; lower-case scheme is fine.
	for _, rt := range routes {
		req := rt
		req.auth = "bearer " + tok
		if resp := ts.do(t, req); resp.status/100 != 2 {
			t.Errorf("%s %s with token: status %d, body %s", rt.method, rt.path, resp.status, resp.body)
		}
	}
}

func TestHostHeader(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	_, port, _ := net.SplitHostPort(ts.addr)
	tests := []struct {
		host string
		want int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LocalHost:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusForbidden},
		{"evil.example", http.StatusForbidden},
		{"127.0.0.1", http.StatusForbidden},
		{"localhost:1", http.StatusForbidden},
	}
	for _, tt := range tests {
		resp := ts.do(t, request{method: "GET", path: "/health", host: tt.host})
		if resp.status != tt.want {
			t.Errorf("Host %q: status %d, want %d", tt.host, resp.status, tt.want)
		}
		if tt.want == http.StatusForbidden {
			resp.errorText(t)
		}
	}
	if n := fb.Calls(); n != 3 {
		t.Errorf("backend called %d times, want 3 (only for allowed hosts)", n)
	}
}

func TestBadRequests(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	say := func(body string) request { return request{method: "POST", path: "/say", body: body} }
	respond := func(id, body string) request {
		return request{method: "POST", path: "/nudges/" + id + "/respond", body: body}
	}
	world := func(query string) request { return request{method: "GET", path: "/world?" + query} }
	notify := func(body string) request { return request{method: "POST", path: "/nudges", body: body} }
	tests := []struct {
		name       string
		req        request
		wantStatus int
		wantErr    string // substring of the JSON error
	}{
		{"empty body", request{method: "POST", path: "/say", contentType: "application/json"}, 400, "body is empty"},
		{"truncated JSON", say(`{"text":`), 400, "malformed JSON"},
		{"syntax error", say(`{"text" "hi"}`), 400, "malformed JSON at byte"},
		{"unknown field", say(`{"text":"hi","urgent":true}`), 400, `unknown field "urgent"`},
		{"trailing data", say(`{"text":"hi"} {"text":"again"}`), 400, "single JSON object"},
		{"trailing garbage", say(`{"text":"hi"}x`), 400, "single JSON object"},
		{"wrong type", say(`{"text":5}`), 400, `field "text" must be of type string`},
		{"not an object", say(`["hi"]`), 400, "must be a JSON object"},
		{"empty text", say(`{"text":""}`), 400, "text is required"},
		{"blank text", say(`{"text":" \t\n "}`), 400, "text is required"},
		{"null body", say(`null`), 400, "text is required"},
		{"text too long", say(`{"text":"` + strings.Repeat("é", maxTextRunes+1) + `"}`), 400, "too long"},
		{"body too large", say(`{"text":"` + strings.Repeat("a", 70<<10) + `"}`), 400, "too large"},
		{"large trailing data", say(`{"text":"hi"}` + strings.Repeat(" ", 70<<10)), 400, "too large"},
		{"no content type", request{method: "POST", path: "/say", body: `{"text":"hi"}`, contentType: "-"}, 415, "application/json"},
		{"text content type", request{method: "POST", path: "/say", body: `{"text":"hi"}`, contentType: "text/plain"}, 415, "application/json"},
		{"form content type", request{method: "POST", path: "/say", body: `text=hi`, contentType: "application/x-www-form-urlencoded"}, 415, "application/json"},

		{"id not a number", respond("abc", `{"action":"accept"}`), 400, "positive integer"},
		{"id zero", respond("0", `{"action":"accept"}`), 400, "positive integer"},
		{"id negative", respond("-3", `{"action":"accept"}`), 400, "positive integer"},
		{"id overflow", respond("99999999999999999999", `{"action":"accept"}`), 400, "positive integer"},
		{"id fraction", respond("1.5", `{"action":"accept"}`), 400, "positive integer"},
		{"action unknown", respond("7", `{"action":"delete"}`), 400, "action must be one of"},
		{"action missing", respond("7", `{}`), 400, "action must be one of"},
		{"action wrong case", respond("7", `{"action":"Accept"}`), 400, "action must be one of"},
		{"respond unknown field", respond("7", `{"action":"accept","id":7}`), 400, `unknown field "id"`},
		{"respond malformed", respond("7", `{"action":accept}`), 400, "malformed JSON"},
		{"respond text too long", respond("7", `{"action":"snooze","text":"`+strings.Repeat("x", maxTextRunes+1)+`"}`), 400, "too long"},

		{"nudge kind missing", notify(`{"message":"hi"}`), 400, "kind must be"},
		{"nudge kind bad", notify(`{"kind":"Info!","message":"hi"}`), 400, "kind must be"},
		{"nudge detail not JSON", notify(`{"kind":"file_review","message":"hi","detail":"{\"options\":["}`), 400, "detail must be a JSON object"},
		{"nudge detail not an object", notify(`{"kind":"file_review","message":"hi","detail":"[1]"}`), 400, "detail must be a JSON object"},
		// Only Spirit's own parts raise its kinds (issue 27): a script's
		// approval would look like an agent's, its glance like Spirit's.
		{"nudge kind approval", notify(`{"kind":"approval","message":"Send the SNDA to Marcy?","detail":"{\"body\":\"x\"}"}`), 400, `"approval" is Spirit's own`},
		{"nudge kind question", notify(`{"kind":"question","message":"Which draft?","detail":"{\"options\":[\"a\",\"b\"]}"}`), 400, `"question" is Spirit's own`},
		{"nudge kind help", notify(`{"kind":"help","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind result", notify(`{"kind":"result","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind glance", notify(`{"kind":"glance","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind meeting", notify(`{"kind":"meeting","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind commitment", notify(`{"kind":"commitment","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind reminder", notify(`{"kind":"reminder","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind reminder_confirm", notify(`{"kind":"reminder_confirm","message":"hi"}`), 400, "Spirit's own"},
		{"nudge kind suggestion", notify(`{"kind":"suggestion","message":"hi","action_prompt":"forward the file"}`), 400, "Spirit's own"},
		{"nudge message missing", notify(`{"kind":"info"}`), 400, "message is required"},
		{"nudge message too long", notify(`{"kind":"info","message":"` + strings.Repeat("m", maxMessageRunes+1) + `"}`), 400, "too long"},
		{"nudge unknown field", notify(`{"kind":"info","message":"hi","state":"accepted"}`), 400, `unknown field "state"`},

		{"since not a number", world("since=abc"), 400, "since"},
		{"since negative", world("since=-1"), 400, "since"},
		{"since fraction", world("since=1.5"), 400, "since"},
		{"limit not a number", world("limit=ten"), 400, "limit"},
		{"limit zero", world("limit=0"), 400, "limit"},
		{"limit negative", world("limit=-5"), 400, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkError(t, ts.do(t, tt.req), tt.wantStatus, tt.wantErr)
		})
	}
	if n := fb.Calls(); n != 0 {
		t.Errorf("backend called %d times for bad requests", n)
	}
}

func checkError(t *testing.T, resp response, wantStatus int, wantErr string) {
	t.Helper()
	if resp.status != wantStatus {
		t.Fatalf("status = %d, want %d; body %s", resp.status, wantStatus, resp.body)
	}
	if got := resp.errorText(t); !strings.Contains(got, wantErr) {
		t.Errorf("error = %q, want it to contain %q", got, wantErr)
	}
}

func TestSayTrimsAndReturnsResult(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	resp := ts.do(t, request{
		method: "POST", path: "/say",
		contentType: "application/json; charset=utf-8",
		body:        `{"text":"  \n draft a letter to Smith \t "}`,
	})
	if resp.status != http.StatusOK {
		t.Fatalf("status %d, body %s", resp.status, resp.body)
	}
	if fb.seen().sayText != "draft a letter to Smith" {
		t.Errorf("backend got %q, want trimmed text", fb.seen().sayText)
	}
	var got SayResult
	if err := json.Unmarshal(resp.body, &got); err != nil {
		t.Fatal(err)
	}
	want := SayResult{Intent: "note", Reply: "Noted: draft a letter to Smith", Handled: true}
	if got != want {
		t.Errorf("result = %+v, want %+v", got, want)
	}

	// The limit counts characters, not bytes, and applies after trimming.
	long := "  " + strings.Repeat("é", maxTextRunes) + "  "
	body, _ := json.Marshal(sayRequest{Text: long})
	if resp := ts.do(t, request{method: "POST", path: "/say", body: string(body)}); resp.status != http.StatusOK {
		t.Errorf("%d-character text: status %d, body %s", maxTextRunes, resp.status, resp.body)
	}
}

func TestWorldParams(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	tests := []struct {
		query     string
		wantSince int64
		wantLimit int
	}{
		{"", 0, defaultWorldLimit},
		{"since=&limit=", 0, defaultWorldLimit},
		{"since=42&limit=10", 42, 10},
		{"limit=1000", 0, 1000},
		{"limit=5000", 0, maxWorldLimit},
	}
	for _, tt := range tests {
		resp := ts.do(t, request{method: "GET", path: "/world?" + tt.query})
		if resp.status != http.StatusOK {
			t.Fatalf("?%s: status %d, body %s", tt.query, resp.status, resp.body)
		}
		if fb.seen().worldSince != tt.wantSince || fb.seen().worldLimit != tt.wantLimit {
			t.Errorf("?%s: backend got since=%d limit=%d, want %d, %d",
				tt.query, fb.seen().worldSince, fb.seen().worldLimit, tt.wantSince, tt.wantLimit)
		}
		var got worldResponse
		if err := json.Unmarshal(resp.body, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Entries, fakeEntries) {
			t.Errorf("?%s: entries = %+v", tt.query, got.Entries)
		}
	}

	// No entries is an empty list, not null.
	resp := ts.do(t, request{method: "GET", path: "/world?since=100"})
	if got := strings.TrimSpace(string(resp.body)); got != `{"entries":[]}` {
		t.Errorf("empty world body = %s", got)
	}
}

func TestRespondErrorMapping(t *testing.T) {
	// The nudge id picks the error, so the handler reads no shared state.
	errs := map[int64]error{
		1: fmt.Errorf("nudge 1: %w", ErrNotFound),
		2: fmt.Errorf("nudge 2 already dismissed: %w", ErrConflict),
		3: fmt.Errorf("snooze needs a time: %w", ErrBadRequest),
		4: errors.New("sqlite: disk I/O error on /home/lawyer/spirit.db"),
		5: fmt.Errorf("respond: %w", context.DeadlineExceeded),
		6: fmt.Errorf("respond: save: %w (waited the full busy timeout): database is locked /home/lawyer/spirit.db", store.ErrBusy),
	}
	fb := &fakeBackend{onRespond: func(id int64, action, text string) (Nudge, error) {
		return Nudge{}, errs[id]
	}}
	ts := start(t, fb)
	tests := []struct {
		id         int64
		wantStatus int
		wantErr    string
	}{
		{1, 404, "nudge 1: not found"},
		{2, 409, "nudge 2 already dismissed"},
		{3, 400, "snooze needs a time"},
		{4, 500, "internal error"},
		// A backend timeout not caused by this request's context is a fault.
		{5, 500, "internal error"},
		// Another program holds the database locked: try again later.
		{6, 503, BusyMessage},
	}
	for _, tt := range tests {
		path := fmt.Sprintf("/nudges/%d/respond", tt.id)
		resp := ts.do(t, request{method: "POST", path: path, body: `{"action":"dismiss"}`})
		checkError(t, resp, tt.wantStatus, tt.wantErr)
		if tt.wantStatus >= 500 && resp.errorText(t) != tt.wantErr {
			t.Errorf("%d body leaks internals: %s", tt.wantStatus, resp.body)
		}
		if tt.wantStatus == 503 && resp.header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}
	if !strings.Contains(ts.logs.String(), "disk I/O error") {
		t.Error("internal error was not logged")
	}
}

func TestRespondPassesArguments(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	resp := ts.do(t, request{method: "POST", path: "/nudges/42/respond", body: `{"action":"snooze","text":"  after lunch "}`})
	if resp.status != http.StatusOK {
		t.Fatalf("status %d, body %s", resp.status, resp.body)
	}
	if want := [3]string{"42", "snooze", "after lunch"}; fb.seen().respondArgs != want {
		t.Errorf("backend got %q, want %q", fb.seen().respondArgs, want)
	}
	var n Nudge
	if err := json.Unmarshal(resp.body, &n); err != nil {
		t.Fatal(err)
	}
	if n.ID != 42 || n.Answer != "after lunch" {
		t.Errorf("nudge = %+v", n)
	}
}

func TestPanicIsRecovered(t *testing.T) {
	fb := &fakeBackend{
		onSay: func(ctx context.Context, text string) (SayResult, error) {
			if text == "boom" {
				panic("secret internal state")
			}
			return SayResult{Intent: "ok", Handled: true}, nil
		},
	}
	ts := start(t, fb)
	for range 3 {
		resp := ts.do(t, request{method: "POST", path: "/say", body: `{"text":"boom"}`})
		checkError(t, resp, http.StatusInternalServerError, "internal error")
		if strings.Contains(string(resp.body), "secret") {
			t.Errorf("500 body leaks the panic: %s", resp.body)
		}
	}
	if !strings.Contains(ts.logs.String(), "secret internal state") {
		t.Error("panic was not logged")
	}
	// Still serving.
	if resp := ts.do(t, request{method: "GET", path: "/health"}); resp.status != http.StatusOK {
		t.Errorf("health after panic: status %d", resp.status)
	}
	if resp := ts.do(t, request{method: "POST", path: "/say", body: `{"text":"fine"}`}); resp.status != http.StatusOK {
		t.Errorf("say after panic: status %d", resp.status)
	}
}

func TestUnknownRouteAndWrongMethod(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)

	resp := ts.do(t, request{method: "GET", path: "/nope"})
	checkError(t, resp, http.StatusNotFound, "not found")
	resp = ts.do(t, request{method: "GET", path: "/nudges/7"})
	checkError(t, resp, http.StatusNotFound, "not found")

	resp = ts.do(t, request{method: "GET", path: "/say"})
	checkError(t, resp, http.StatusMethodNotAllowed, "method not allowed")
	if allow := resp.header.Get("Allow"); allow != "POST" {
		t.Errorf("Allow = %q, want POST", allow)
	}
	resp = ts.do(t, request{method: "DELETE", path: "/health"})
	checkError(t, resp, http.StatusMethodNotAllowed, "method not allowed")
	if allow := resp.header.Get("Allow"); !strings.Contains(allow, "GET") {
		t.Errorf("Allow = %q, want GET", allow)
	}
	if n := fb.Calls(); n != 0 {
		t.Errorf("backend called %d times", n)
	}
}

func TestHealthNormalisesNilMaps(t *testing.T) {
	ts := start(t, &fakeBackend{onHealth: func() Health { return Health{Status: "starting"} }})
	resp := ts.do(t, request{method: "GET", path: "/health"})
	var got map[string]any
	if err := json.Unmarshal(resp.body, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"status", "version", "uptime_seconds", "subsystems", "counters"} {
		if _, ok := got[k]; !ok {
			t.Errorf("health JSON lacks %q: %s", k, resp.body)
		}
	}
	if got["subsystems"] == nil || got["counters"] == nil {
		t.Errorf("nil maps encoded as null: %s", resp.body)
	}
}

func TestShutdownRemovesInfo(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	if err := ts.srv.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := ReadInfo(ts.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadInfo after Shutdown: err = %v, want fs.ErrNotExist", err)
	}
	if _, err := NewClient(ts.info).Health(t.Context()); err == nil {
		t.Error("request after Shutdown succeeded")
	}
	if err := ts.srv.Shutdown(t.Context()); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
	if _, err := ts.srv.Start(t.Context(), ts.dir); err == nil {
		t.Error("Start after Shutdown succeeded, want error")
	}
}

func TestShutdownLeavesForeignInfo(t *testing.T) {
	ts := start(t, &fakeBackend{})
	// Another instance has since taken over the data dir.
	other := Info{Addr: "127.0.0.1:1", Token: "someone-else"}
	if err := writeInfo(filepath.Join(ts.dir, InfoFile), other); err != nil {
		t.Fatal(err)
	}
	if err := ts.srv.Shutdown(t.Context()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	got, err := ReadInfo(ts.dir)
	if err != nil || got != other {
		t.Errorf("api.json after Shutdown = %+v, %v; want the other instance's", got, err)
	}
}

func TestShutdownWaitsForInFlightRequest(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	fb := &fakeBackend{onSay: func(ctx context.Context, text string) (SayResult, error) {
		close(entered)
		<-release
		return SayResult{Intent: "slow", Handled: true}, nil
	}}
	ts := start(t, fb)
	c := NewClient(ts.info)

	sayErr := make(chan error, 1)
	go func() {
		_, err := c.Say(t.Context(), "take your time")
		sayErr <- err
	}()
	<-entered

	shutdownErr := make(chan error, 1)
	go func() { shutdownErr <- ts.srv.Shutdown(t.Context()) }()

	// Shutdown closes the listener before waiting for requests: once new
	// connections are refused, it is under way.
	// The timeout only bounds a failure; it does not order anything.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", ts.addr)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("listener still open 10s after Shutdown began")
			}
			break
		}
		conn.Close()
	}
	select {
	case err := <-shutdownErr:
		t.Fatalf("Shutdown returned (%v) while a request was in flight", err)
	default:
	}

	close(release)
	if err := <-sayErr; err != nil {
		t.Errorf("in-flight Say: %v", err)
	}
	if err := <-shutdownErr; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

func TestClientRoundTrip(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	info, err := ReadInfo(ts.dir)
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(info)
	ctx := t.Context()

	h, err := c.Health(ctx)
	if err != nil || !reflect.DeepEqual(h, fakeHealth) {
		t.Errorf("Health = %+v, %v; want %+v", h, err, fakeHealth)
	}

	entries, err := c.World(ctx, 4, 50)
	if err != nil || !reflect.DeepEqual(entries, fakeEntries) {
		t.Errorf("World = %+v, %v", entries, err)
	}
	if fb.seen().worldSince != 4 || fb.seen().worldLimit != 50 {
		t.Errorf("World sent since=%d limit=%d, want 4, 50", fb.seen().worldSince, fb.seen().worldLimit)
	}
	if _, err := c.World(ctx, 0, 0); err != nil || fb.seen().worldLimit != defaultWorldLimit {
		t.Errorf("World with limit 0: err %v, server used limit %d", err, fb.seen().worldLimit)
	}
	if entries, err := c.World(ctx, 100, 0); err != nil || entries == nil || len(entries) != 0 {
		t.Errorf("empty World = %#v, %v; want empty non-nil", entries, err)
	}

	res, err := c.Say(ctx, " remind me at 3 ")
	if want := (SayResult{Intent: "note", Reply: "Noted: remind me at 3", Handled: true}); err != nil || res != want {
		t.Errorf("Say = %+v, %v; want %+v", res, err, want)
	}

	nudges, err := c.Nudges(ctx)
	if err != nil || !reflect.DeepEqual(nudges, fakeNudges) {
		t.Errorf("Nudges = %+v, %v", nudges, err)
	}

	n, err := c.Respond(ctx, 7, ActionAccept, "yes")
	if err != nil || n.ID != 7 || n.State != store.NudgeAccepted || n.Answer != "yes" {
		t.Errorf("Respond = %+v, %v", n, err)
	}

	if err := c.Show(ctx); err != nil || fb.seen().shows != 1 {
		t.Errorf("Show: err %v, backend saw %d shows", err, fb.seen().shows)
	}

	if err := c.SyncMail(ctx); err != nil || fb.seen().mailSyncs != 1 {
		t.Errorf("SyncMail: err %v, backend saw %d mail syncs", err, fb.seen().mailSyncs)
	}
	if err := c.SyncCalendars(ctx); err != nil || fb.seen().calSyncs != 1 || fb.seen().mailSyncs != 1 {
		t.Errorf("SyncCalendars: err %v, backend saw %d calendar syncs and %d mail syncs", err, fb.seen().calSyncs, fb.seen().mailSyncs)
	}
}

func TestClientErrors(t *testing.T) {
	fb := &fakeBackend{onRespond: func(id int64, action, text string) (Nudge, error) {
		switch id {
		case 8:
			return Nudge{}, fmt.Errorf("nudge 8 is already closed: %w", ErrConflict)
		case 7:
			return Nudge{}, fmt.Errorf("respond: %w", store.ErrBusy)
		}
		return Nudge{}, fmt.Errorf("nudge %d: %w", id, ErrNotFound)
	}}
	ts := start(t, fb)
	c := NewClient(ts.info)
	ctx := t.Context()

	tests := []clientErrCase{
		{"not found", func() error { _, err := c.Respond(ctx, 9, ActionDismiss, ""); return err }, 404, ErrNotFound, "nudge 9: not found"},
		{"conflict", func() error { _, err := c.Respond(ctx, 8, ActionAccept, ""); return err }, 409, ErrConflict, "already closed"},
		{"bad action", func() error { _, err := c.Respond(ctx, 8, "maybe", ""); return err }, 400, ErrBadRequest, "action must be one of"},
		{"busy", func() error { _, err := c.Respond(ctx, 7, ActionDismiss, ""); return err }, 503, store.ErrBusy, BusyMessage},
		{"empty say", func() error { _, err := c.Say(ctx, "  "); return err }, 400, ErrBadRequest, "text is required"},
		{"bad token", func() error {
			_, err := NewClient(Info{Addr: ts.addr, Token: "nope"}).Health(ctx)
			return err
		}, 401, nil, "bearer token"},
	}
	checkClientErrs(t, tests)
}

// clientErrCase is a client call that must fail with a status error.
type clientErrCase struct {
	name     string
	call     func() error
	code     int
	sentinel error // the one error kind it must match; nil for none
	msg      string
}

func checkClientErrs(t *testing.T, tests []clientErrCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			se, ok := errors.AsType[*StatusError](err)
			if !ok {
				t.Fatalf("err = %v (%T), want *StatusError", err, err)
			}
			if se.Code != tt.code || !strings.Contains(se.Message, tt.msg) {
				t.Errorf("StatusError = %d %q, want %d containing %q", se.Code, se.Message, tt.code, tt.msg)
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.sentinel)
			}
			for _, other := range []error{ErrNotFound, ErrConflict, ErrBadRequest, store.ErrBusy} {
				if other != tt.sentinel && errors.Is(err, other) {
					t.Errorf("errors.Is(%v, %v) = true", err, other)
				}
			}
		})
	}
}

func TestClientRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"example.com:80", "10.0.0.1:4000", "127.0.0.1", ""} {
		err := NewClient(Info{Addr: addr, Token: "t"}).Show(t.Context())
		if err == nil {
			t.Errorf("addr %q: Show succeeded", addr)
		} else if _, ok := errors.AsType[*StatusError](err); ok {
			t.Errorf("addr %q: got a server response %v, want a local refusal", addr, err)
		}
	}
}

func TestReadInfo(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadInfo(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing api.json: err = %v, want fs.ErrNotExist", err)
	}
	bad := map[string]string{
		"not JSON":     `{`,
		"remote addr":  `{"addr":"192.168.1.5:4000","token":"x"}`,
		"no token":     `{"addr":"127.0.0.1:4000"}`,
		"no port":      `{"addr":"127.0.0.1","token":"x"}`,
		"bad port":     `{"addr":"127.0.0.1:http","token":"x"}`,
		"zero port":    `{"addr":"127.0.0.1:0","token":"x"}`,
		"empty object": `{}`,
	}
	for name, content := range bad {
		if err := os.WriteFile(filepath.Join(dir, InfoFile), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if info, err := ReadInfo(dir); err == nil {
			t.Errorf("%s: ReadInfo = %+v, want error", name, info)
		}
	}
}

func TestNotifyReachesBackend(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	c := NewClient(ts.info)
	n, err := c.Notify(context.Background(), NewNudge{Kind: "info", Message: "  Filing due at 5  ", ActionPrompt: " check ECF "})
	if err != nil {
		t.Fatal(err)
	}
	want := NewNudge{Kind: "info", Message: "Filing due at 5", ActionPrompt: "check ECF"}
	if got := fb.notifiedNudge(); got != want {
		t.Errorf("backend got %+v, want %+v", got, want)
	}
	if n.ID != 9 || n.Message != want.Message || n.State != store.NudgeShown {
		t.Errorf("client got %+v", n)
	}
}

// TestNotifyTakesScriptsOwnKinds: a script may raise "info" or a kind of
// its own naming; those reach the backend as they are.
func TestNotifyTakesScriptsOwnKinds(t *testing.T) {
	for _, kind := range []string{"info", "file_review", "proposal"} {
		t.Run(kind, func(t *testing.T) {
			fb := &fakeBackend{}
			ts := start(t, fb)
			if _, err := NewClient(ts.info).Notify(t.Context(), NewNudge{Kind: kind, Message: "Check the docket"}); err != nil {
				t.Fatal(err)
			}
			if got := fb.notifiedNudge(); got.Kind != kind {
				t.Errorf("backend got kind %q, want %q", got.Kind, kind)
			}
		})
	}
}

func (f *fakeBackend) notifiedNudge() NewNudge {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notified
}

// fakeAgents returns an open agent (with a conversation the API must not
// send) and an older one that has finished.
func fakeAgents() map[string]AgentDetail {
	open := task.Task{
		Session: "task-open", Prompt: "Draft a reply to Marcy", Need: "a draft is saved",
		Phase: task.PhaseWaiting, Status: store.StatusActive, Created: t0.Add(time.Hour), Updated: t0.Add(time.Hour),
		State: task.State{Plan: []string{"read the thread", "draft the reply"}, Step: 1,
			Messages: []llm.Message{{Role: llm.RoleUser, Text: "privileged conversation"}}},
	}
	done := task.Task{
		Session: "task-done", Prompt: "Find the Smith engagement letter", Need: "the letter is found",
		Phase: task.PhaseFinished, Status: store.StatusVerified, Result: "Found it.", Created: t0, Updated: t0,
		State: task.State{Messages: []llm.Message{{Role: llm.RoleUser, Text: "privileged conversation"}}},
	}
	return map[string]AgentDetail{
		open.Session: {Agent: AgentOf(open), Entries: []Entry{
			{ID: 10, TS: t0.Add(time.Hour), Kind: store.KindAgent, Status: store.StatusStart, Session: open.Session, Text: open.Prompt},
			{ID: 11, TS: t0.Add(time.Hour + time.Second), Kind: store.KindEvent, Source: "agent", Identifier: open.Session, Text: "question: Which Marcy?"},
		}},
		done.Session: {Agent: AgentOf(done)},
	}
}

// agentsLocked returns f.agents, filling it on first use; f.mu is held.
func (f *fakeBackend) agentsLocked() map[string]AgentDetail {
	if f.agents == nil {
		f.agents = fakeAgents()
	}
	return f.agents
}

func (f *fakeBackend) Agents(ctx context.Context) ([]Agent, error) {
	f.called()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Agent
	for _, d := range f.agentsLocked() {
		out = append(out, d.Agent)
	}
	slices.SortFunc(out, func(a, b Agent) int { return b.Created.Compare(a.Created) })
	return out, nil
}

func (f *fakeBackend) Agent(ctx context.Context, session string) (AgentDetail, error) {
	f.called()
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.agentsLocked()[session]
	if !ok {
		return AgentDetail{}, fmt.Errorf("agent %s: %w", session, ErrNotFound)
	}
	return d, nil
}

func (f *fakeBackend) CancelAgent(ctx context.Context, session string) (Agent, error) {
	f.called()
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.agentsLocked()[session]
	switch {
	case !ok:
		return Agent{}, fmt.Errorf("agent %s: %w", session, ErrNotFound)
	case !d.Phase.Open():
		return Agent{}, fmt.Errorf("agent %s has already ended: %w", session, ErrConflict)
	}
	d.Phase, d.Status = task.PhaseCancelled, store.StatusFailed
	f.agents[session] = d
	return d.Agent, nil
}

func TestAgentRoutes(t *testing.T) {
	fb := &fakeBackend{}
	ts := start(t, fb)
	c := NewClient(ts.info)
	ctx := t.Context()

	list, err := c.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Session != "task-open" || list[1].Session != "task-done" {
		t.Fatalf("Agents = %+v, want task-open then task-done", list)
	}
	if got := list[0].State; len(got.Plan) != 2 || got.Step != 1 {
		t.Errorf("listed state = %+v, want the plan without messages", got)
	}

	d, err := c.Agent(ctx, "task-open")
	if err != nil {
		t.Fatal(err)
	}
	if d.Prompt != "Draft a reply to Marcy" || d.Phase != task.PhaseWaiting || len(d.Entries) != 2 ||
		d.Entries[1].Text != "question: Which Marcy?" {
		t.Errorf("Agent = %+v", d)
	}
	// An agent without entries still gets a list, never null.
	resp := ts.do(t, request{method: "GET", path: "/agents/task-done"})
	if resp.status != http.StatusOK || !strings.Contains(string(resp.body), `"entries":[]`) {
		t.Errorf("GET /agents/task-done: %d %s", resp.status, resp.body)
	}
	// The conversation never leaves the process, on any route.
	for _, rt := range []request{{method: "GET", path: "/agents"}, {method: "GET", path: "/agents/task-open"}} {
		if resp := ts.do(t, rt); strings.Contains(string(resp.body), "privileged") || strings.Contains(string(resp.body), `"messages"`) {
			t.Errorf("%s %s sends the conversation: %s", rt.method, rt.path, resp.body)
		}
	}

	cancelled, err := c.CancelAgent(ctx, "task-open")
	if err != nil {
		t.Fatal(err)
	}
	if cancelled.Phase != task.PhaseCancelled || cancelled.Session != "task-open" {
		t.Errorf("CancelAgent = %+v", cancelled)
	}
	if d, err := c.Agent(ctx, "task-open"); err != nil || d.Phase != task.PhaseCancelled {
		t.Errorf("after cancel: %+v, %v", d.Agent, err)
	}

	errs := []clientErrCase{
		{"show unknown", func() error { _, err := c.Agent(ctx, "task-nope"); return err }, 404, ErrNotFound, "agent task-nope: not found"},
		{"cancel unknown", func() error { _, err := c.CancelAgent(ctx, "task-nope"); return err }, 404, ErrNotFound, "not found"},
		{"cancel ended", func() error { _, err := c.CancelAgent(ctx, "task-done"); return err }, 409, ErrConflict, "already ended"},
		{"cancel twice", func() error { _, err := c.CancelAgent(ctx, "task-open"); return err }, 409, ErrConflict, "already ended"},
		{"id too long", func() error { _, err := c.Agent(ctx, strings.Repeat("x", maxSessionBytes+1)); return err }, 400, ErrBadRequest, "agent id"},
		{"no token", func() error { _, err := NewClient(Info{Addr: ts.addr, Token: "nope"}).Agents(ctx); return err }, 401, nil, "bearer token"},
		{"no token cancel", func() error {
			_, err := NewClient(Info{Addr: ts.addr, Token: "nope"}).CancelAgent(ctx, "task-done")
			return err
		}, 401, nil, "bearer token"},
	}
	checkClientErrs(t, errs)

	// A cancel carries no body, but a wrong method is refused as elsewhere.
	resp = ts.do(t, request{method: "GET", path: "/agents/task-open/cancel"})
	checkError(t, resp, http.StatusMethodNotAllowed, "method not allowed")
}
