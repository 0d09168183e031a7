package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/digest"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform/secrets"
)

// workClock is a clock a test moves.
type workClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *workClock) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *workClock) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// wednesday10 is inside the default active hours (weekdays 08:00–19:00).
var wednesday10 = time.Date(2026, 11, 25, 10, 5, 0, 0, time.UTC)

// newWorkParts builds Spirit whole on a fresh store with clock now and,
// unless protocol is "", a scripted provider of that protocol.
func newWorkParts(t *testing.T, protocol string, now func() time.Time) (*parts, *store.Store, *scripted.Server) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, err := build(ctx, partsConfig{Store: st, DataDir: dir, Version: "test", Now: now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	t.Cleanup(p.core.work.runner.Close)
	if protocol == "" {
		return p, st, nil
	}
	srv := scripted.New(t)
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := setup.Settings{Kind: protocol, BaseURL: srv.URL(), Roles: llm.Roles{Agent: "agent-model"}}
	if protocol == setup.OpenAI {
		s.BaseURL += "/v1"
	}
	if err := setup.Save(ctx, st, sec, s, "sk-test"); err != nil {
		t.Fatal(err)
	}
	return p, st, srv
}

func notifyCall(msg string) scripted.Reply {
	in, _ := json.Marshal(map[string]string{"message": msg})
	return scripted.ToolCalls(llm.ToolCall{ID: "n1", Name: work.NotifyUserName, Input: in})
}

// TestHeartbeatNotifiesOnce: a heartbeat whose model calls notify_user is
// delivered once, as a bubble and a nudge, in both protocols; the same
// text at the next heartbeat is a duplicate and shows nothing. The model
// is given the world log since the last heartbeat, the open items and the
// read-only tools.
func TestHeartbeatNotifiesOnce(t *testing.T) {
	for _, protocol := range []string{setup.Anthropic, setup.OpenAI} {
		t.Run(protocol, func(t *testing.T) {
			ctx := context.Background()
			clock := &workClock{t: wednesday10}
			p, st, srv := newWorkParts(t, protocol, clock.now)
			c, w := p.core, p.core.work
			rec := record(c)
			c.event(ctx, "mail", "inbox", "Marcy Howard: SNDA comments needed today")
			if _, err := st.CreateReminder(ctx, store.NewReminder{Task: "Call the Jones client", Due: ptr(wednesday10.Add(5 * time.Hour))}); err != nil {
				t.Fatal(err)
			}

			// The digest quotes the window in front: the model hears it, the
			// stored run never keeps it.
			const onScreen = "On screen: From: Marcy Howard Subject: RE: SNDA comments."
			w.digest = func() (digest.Analysis, bool) {
				return digest.Analysis{At: wednesday10.Add(-time.Minute), HUD: "Reading mail", Digest: onScreen}, true
			}
			msg := "Marcy Howard needs your SNDA comments by 17:00 today."
			// The model reads the open commitments, then speaks up.
			srv.Push(scripted.ToolCalls(llm.ToolCall{ID: "l1", Name: ListCommitmentsName, Input: json.RawMessage(`{}`)}), notifyCall(msg))
			o, err := w.heartbeat(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != store.WorkDone || !o.Delivered || o.NudgeID == 0 {
				t.Fatalf("outcome = %+v, want done and delivered", o)
			}
			shown := rec.shown()
			if len(shown) != 1 || shown[0].Message != msg || shown[0].Kind != nudge.KindInfo || shown[0].Subject != store.WorkIdentifier(o.ID) {
				t.Fatalf("bubbles = %+v, want one info bubble saying %q", shown, msg)
			}
			n, err := st.Nudge(ctx, o.NudgeID)
			if err != nil || n.Message != msg {
				t.Fatalf("nudge %d = %+v, %v", o.NudgeID, n, err)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("provider requests = %d, want 2", len(reqs))
			}
			first := reqs[0]
			prompt := first.Messages[0].Text
			for _, want := range []string{"Heartbeat", "Marcy Howard: SNDA comments needed today", "Call the Jones client", "15:05", onScreen} {
				if !strings.Contains(prompt, want) {
					t.Errorf("heartbeat prompt lacks %q:\n%s", want, prompt)
				}
			}
			if run, err := st.WorkRun(ctx, o.ID); err != nil || strings.Contains(run.Prompt, "On screen") || !strings.Contains(run.Prompt, "Heartbeat") {
				t.Errorf("stored heartbeat prompt %q, %v: want it without the digest", run.Prompt, err)
			}
			var tools []string
			for _, tl := range first.Tools {
				tools = append(tools, tl.Name)
			}
			for _, want := range []string{work.NotifyUserName, work.ListRemindersName, work.QueryWorldName, ListCommitmentsName, "search_email"} {
				if !strings.Contains(strings.Join(tools, " "), want) {
					t.Errorf("tools %q lack %s", tools, want)
				}
			}
			if first.Model != "agent-model" {
				t.Errorf("model = %q, want the agent role's", first.Model)
			}

			// The next heartbeat says the same: held back.
			clock.set(wednesday10.Add(HeartbeatEvery))
			srv.Push(notifyCall("  marcy howard needs your SNDA comments by 17:00 today. "))
			o2, err := w.heartbeat(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if o2.Status != store.WorkSkip || o2.Reason != work.ReasonDuplicate || o2.Delivered {
				t.Fatalf("second outcome = %+v, want skip duplicate", o2)
			}
			if got := rec.shown(); len(got) != 1 {
				t.Fatalf("bubbles after the duplicate = %d, want still 1", len(got))
			}
			// The second heartbeat's world log starts after the first.
			if p2 := srv.Requests()[2].Messages[0].Text; strings.Contains(p2, "Marcy Howard: SNDA comments needed today") {
				t.Errorf("second heartbeat repeats the world log before the first:\n%s", p2)
			}
			// /health counts both runs, and what their three calls cost.
			h := c.Health(ctx)
			if h.Work == nil || h.Work.Runs != 2 || h.Work.Delivered != 1 || h.Work.Skips[work.ReasonDuplicate] != 1 ||
				h.Work.Errors != 0 || h.Work.TokensIn != int64(o.Usage.InputTokens+o2.Usage.InputTokens) || h.Work.TokensIn == 0 {
				t.Errorf("/health work = %+v", h.Work)
			}
		})
	}
}

// TestHeartbeatGates: the cases where no nudge may come of a heartbeat,
// and what each records; outside the active hours, paused, or without a
// provider, no request reaches the provider at all.
func TestHeartbeatGates(t *testing.T) {
	saturday := time.Date(2026, 11, 28, 10, 5, 0, 0, time.UTC)
	evening := time.Date(2026, 11, 25, 19, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		protocol   string
		now        time.Time
		paused     bool
		script     []scripted.Reply
		timeout    time.Duration
		wantStatus store.WorkState
		wantReason work.Reason
		wantErr    string // in the outcome's error
		wantCalls  int    // -1: at least one
	}{
		{"saturday", setup.Anthropic, saturday, false, nil, 0, store.WorkSkip, work.ReasonOutsideActiveHours, "", 0},
		{"evening", setup.OpenAI, evening, false, nil, 0, store.WorkSkip, work.ReasonOutsideActiveHours, "", 0},
		{"paused", setup.Anthropic, wednesday10, true, nil, 0, store.WorkSkip, work.ReasonPaused, "", 0},
		{"no provider", "", wednesday10, false, nil, 0, store.WorkSkip, work.ReasonNoProvider, "", 0},
		{"provider 500 anthropic", setup.Anthropic, wednesday10, false,
			[]scripted.Reply{scripted.HTTPError(500, "0"), scripted.HTTPError(500, "0"), scripted.HTTPError(500, "0")}, 0,
			store.WorkError, "", "500", -1},
		{"provider 500 openai", setup.OpenAI, wednesday10, false,
			[]scripted.Reply{scripted.HTTPError(500, "0"), scripted.HTTPError(500, "0"), scripted.HTTPError(500, "0")}, 0,
			store.WorkError, "", "500", -1},
		{"malformed anthropic", setup.Anthropic, wednesday10, false, []scripted.Reply{scripted.Malformed()}, 0,
			store.WorkError, "", "model", -1},
		{"malformed openai", setup.OpenAI, wednesday10, false, []scripted.Reply{scripted.Malformed()}, 0,
			store.WorkError, "", "model", -1},
		{"timeout", setup.Anthropic, wednesday10, false, []scripted.Reply{notifyCall("Too late.").After(20 * time.Second)},
			300 * time.Millisecond, store.WorkError, "", "in time", 1},
		{"prose shaped like a notice", setup.OpenAI, wednesday10, false,
			[]scripted.Reply{scripted.Text(`NOTIFY USER: "Marcy needs your SNDA comments today." notify_user(message="call Marcy")`)}, 0,
			store.WorkSkip, work.ReasonAck, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clock := &workClock{t: tc.now}
			p, st, srv := newWorkParts(t, tc.protocol, clock.now)
			c, w := p.core, p.core.work
			rec := record(c)
			if tc.paused {
				if err := c.SetListeningPaused(ctx, true, "test"); err != nil {
					t.Fatal(err)
				}
				if err := c.SetWatchingPaused(ctx, true, "test"); err != nil {
					t.Fatal(err)
				}
			}
			if srv != nil {
				srv.Push(tc.script...)
			}
			rctx := ctx
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				rctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			o, err := w.heartbeat(rctx)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status != tc.wantStatus || o.Reason != tc.wantReason || o.Delivered {
				t.Fatalf("outcome = %+v, want %s %s", o, tc.wantStatus, tc.wantReason)
			}
			if !strings.Contains(o.Err, tc.wantErr) {
				t.Errorf("outcome error = %q, want it to contain %q", o.Err, tc.wantErr)
			}
			calls := 0
			if srv != nil {
				calls = len(srv.Requests())
			}
			if tc.wantCalls >= 0 && calls != tc.wantCalls || tc.wantCalls < 0 && calls == 0 {
				t.Errorf("provider requests = %d, want %d", calls, tc.wantCalls)
			}
			if ns, _ := st.Nudges(ctx); len(ns) != 0 || len(rec.shown()) != 0 {
				t.Errorf("nudges = %+v, want none", ns)
			}
			// The outcome is recorded, with its line in the world log.
			run, err := st.WorkRun(ctx, o.ID)
			if err != nil || run.State != tc.wantStatus {
				t.Errorf("stored run = %+v, %v", run, err)
			}
			es, _ := st.Recent(ctx, 20)
			found := false
			for _, e := range es {
				found = found || e.Source == store.WorkEventSource && e.Identifier == store.WorkIdentifier(o.ID)
			}
			if !found {
				t.Errorf("no world-log line for run %d in %+v", o.ID, es)
			}
		})
	}
}

func TestNextHeartbeat(t *testing.T) {
	def := settings.DefaultActiveHours()
	night, _ := settings.ParseActiveHours("daily 22:00-02:00")
	loc := time.FixedZone("EST", -5*3600)
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name  string
		now   time.Time
		hours settings.ActiveHours
		want  time.Time
	}{
		{"mid-morning", at(25, 10, 5), def, at(25, 10, 30)},
		{"on the half hour", at(25, 10, 30), def, at(25, 11, 0)},
		{"last of the day", at(25, 18, 29), def, at(25, 18, 30)},
		{"after hours: next morning", at(25, 18, 45), def, at(26, 8, 0)},
		{"friday evening: monday", at(27, 19, 0), def, at(30, 8, 0)},
		{"before hours", at(25, 6, 59), def, at(25, 8, 0)},
		{"past midnight span", at(25, 23, 40), night, at(26, 0, 0)},
		{"end of the night span", at(26, 1, 45), night, at(26, 22, 0)},
		{"lawyer's zone", time.Date(2026, 11, 25, 7, 50, 0, 0, loc), def, time.Date(2026, 11, 25, 8, 0, 0, 0, loc)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextHeartbeat(tc.now, tc.hours); !got.Equal(tc.want) {
				t.Errorf("NextHeartbeat(%v) = %v, want %v", tc.now, got, tc.want)
			}
		})
	}
}

// TestWorkPartRunsDueRoutines: the running part ends a run the last stop
// left open, then runs a routine that is due and delivers what it found,
// once; the routine's time is recorded as handled. Spirit stopping ends
// the part without an error.
func TestWorkPartRunsDueRoutines(t *testing.T) {
	ctx := context.Background()
	// Two minutes ahead of the store's clock: a routine made now is due.
	now := func() time.Time { return time.Now().Add(2 * time.Minute) }
	p, st, srv := newWorkParts(t, setup.Anthropic, now)
	c, w := p.core, p.core.work
	rec := record(c)
	s, _ := settings.Load(ctx, st)
	s.WorkHeartbeat = false
	if _, err := settings.Save(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	left, err := st.CreateWorkRun(ctx, store.NewWorkRun{Source: "webhook", Prompt: "left over"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.StartWorkRun(ctx, left.ID); err != nil {
		t.Fatal(err)
	}
	rt, err := work.AddRoutine(ctx, st, "* * * * *", "What is waiting on me today?")
	if err != nil {
		t.Fatal(err)
	}
	srv.Push(notifyCall("Two drafts wait for your approval."))

	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	var r store.Routine
	for deadline := time.Now().Add(10 * time.Second); r.LastRun == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("routine %d never ran; requests %d", rt.ID, len(srv.Requests()))
		}
		time.Sleep(10 * time.Millisecond)
		if r, err = st.Routine(ctx, rt.ID); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if got := rec.shown(); len(got) != 1 || got[0].Message != "Two drafts wait for your approval." {
		t.Fatalf("bubbles = %+v, want the routine's one", got)
	}
	if l, _ := st.WorkRun(ctx, left.ID); l.State != store.WorkError || !strings.Contains(l.Reason, "interrupted") {
		t.Errorf("left-over run = %+v, want an interrupted error", l)
	}
	runs, _ := st.WorkRuns(ctx, 10)
	routineRuns := 0
	for _, run := range runs {
		if run.Source == string(work.RoutineSource(rt.ID)) {
			routineRuns++
			if run.State != store.WorkDone || run.Delivered == nil {
				t.Errorf("routine run = %+v, want done and delivered", run)
			}
		}
	}
	if routineRuns != 1 {
		t.Errorf("routine runs = %d, want 1", routineRuns)
	}
}

// TestWorkWebhook: POST /work on the local API queues work and answers
// 202 with its id; GET /work/{id} gives its outcome; bad bodies are 400s
// that say what is wrong, with the token and Host checks of every route.
func TestWorkWebhook(t *testing.T) {
	for _, protocol := range []string{setup.Anthropic, setup.OpenAI} {
		t.Run(protocol, func(t *testing.T) { testWorkWebhook(t, protocol) })
	}
}

func testWorkWebhook(t *testing.T, protocol string) {
	ctx := context.Background()
	clock := &workClock{t: wednesday10}
	p, _, srv := newWorkParts(t, protocol, clock.now)
	c := p.core
	rec := record(c)
	dir := t.TempDir()
	server := api.New(c, api.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	addr, err := server.Start(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- server.Run(sctx) }()
	defer func() { stop(); <-served }()
	info, err := api.ReadInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	client := api.NewClient(info)

	srv.Push(notifyCall("The court moved the Jones hearing to 9:00 tomorrow."))
	run, err := client.StartWork(ctx, api.NewWork{Prompt: "The court's e-filing system says: hearing moved. Tell the lawyer if it matters.",
		Source: "script:efile", DedupKey: "efile-123"})
	if err != nil {
		t.Fatal(err)
	}
	if run.ID == 0 || run.Source != "webhook:script:efile" || run.Ended() {
		t.Fatalf("queued run = %+v", run)
	}
	var got api.WorkRun
	for deadline := time.Now().Add(10 * time.Second); !got.Ended(); {
		if time.Now().After(deadline) {
			t.Fatalf("run %d never ended: %+v", run.ID, got)
		}
		time.Sleep(10 * time.Millisecond)
		if got, err = client.WorkRun(ctx, run.ID); err != nil {
			t.Fatal(err)
		}
	}
	if got.State != "done" || !got.Delivered || got.NudgeID == 0 || got.Message != "The court moved the Jones hearing to 9:00 tomorrow." {
		t.Fatalf("outcome = %+v, want done and delivered", got)
	}
	if len(rec.shown()) != 1 {
		t.Errorf("bubbles = %d, want 1", len(rec.shown()))
	}

	post := func(path, ctype, body, token, host string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+path, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return resp.StatusCode, b.String()
	}
	for _, tc := range []struct {
		name, ctype, body, token, host string
		wantStatus                     int
		wantText                       string
	}{
		{"no prompt", "application/json", `{"source":"webhook"}`, info.Token, "", 400, "prompt is required"},
		{"blank prompt", "application/json", `{"prompt":"   "}`, info.Token, "", 400, "prompt is required"},
		{"not JSON", "application/json", `prompt=hi`, info.Token, "", 400, ""},
		{"unknown field", "application/json", `{"prompt":"hi","priority":1}`, info.Token, "", 400, "priority"},
		{"prompt not a string", "application/json", `{"prompt":42}`, info.Token, "", 400, "prompt"},
		{"two objects", "application/json", `{"prompt":"a"}{"prompt":"b"}`, info.Token, "", 400, ""},
		{"bad source", "application/json", `{"prompt":"hi","source":"My Script!"}`, info.Token, "", 400, "source must be"},
		{"long dedup key", "application/json", `{"prompt":"hi","dedup_key":"` + strings.Repeat("k", 201) + `"}`, info.Token, "", 400, "dedup_key is too long"},
		{"not JSON content type", "text/plain", `{"prompt":"hi"}`, info.Token, "", 415, "Content-Type"},
		{"no token", "application/json", `{"prompt":"hi"}`, "", "", 401, "token"},
		{"wrong token", "application/json", `{"prompt":"hi"}`, "nope", "", 401, "token"},
		{"foreign Host", "application/json", `{"prompt":"hi"}`, info.Token, "evil.example:80", 403, "Host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post("/work", tc.ctype, tc.body, tc.token, tc.host)
			if status != tc.wantStatus || !strings.Contains(body, tc.wantText) {
				t.Errorf("POST /work %s = %d %s, want %d with %q", tc.body, status, body, tc.wantStatus, tc.wantText)
			}
		})
	}
	if _, err := client.WorkRun(ctx, 9999); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("GET /work/9999 = %v, want not found", err)
	}
	// Nothing a bad body asked for was queued.
	if runs, _ := c.store.WorkRuns(ctx, 50); len(runs) != 1 {
		t.Errorf("work runs = %d, want only the good one", len(runs))
	}
}

func TestScheduleWords(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"weekdays", "30 8 * * 1-5", "weekdays at 8:30"},
		{"named weekdays", "0 9 * * MON-FRI", "weekdays at 9:00"},
		{"every day", "0 17 * * *", "every day at 17:00"},
		{"one day", "5 7 * * 1", "Mondays at 7:05"},
		{"weekends", "0 10 * * 0,6", "weekends at 10:00"},
		{"every minute stays a spec", "* * * * *", "* * * * *"},
		{"a day of the month stays a spec", "0 9 1 * *", "0 9 1 * *"},
		{"steps stay a spec", "*/15 9-17 * * 1-5", "*/15 9-17 * * 1-5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ScheduleWords(tc.spec); got != tc.want {
				t.Errorf("ScheduleWords(%q) = %q, want %q", tc.spec, got, tc.want)
			}
		})
	}
}

func TestRoutineError(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"minute", "70 8 * * *", `cron "70 8 * * *": the minute must be 0 to 59`},
		{"hour", "0 25 * * *", `cron "0 25 * * *": the hour must be 0 to 23`},
		{"month", "0 8 1 13 *", `cron "0 8 1 13 *": the month must be 1 to 12`},
		{"day 0", "0 8 0 * *", `cron "0 8 0 * *": a day or month cannot be 0 (days of the month and months start at 1)`},
		{"four fields", "30 8 * *", `cron "30 8 * *": it has 4 fields, not 5`},
		{"a word", "30 eight * * *", `cron "30 eight * * *": "eight" is not a number or a day or month name`},
		{"never", "0 9 30 2 *", `cron "0 9 30 2 *": that date never comes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := work.ParseSchedule(tc.spec)
			if err == nil {
				t.Fatalf("ParseSchedule(%q) accepted it", tc.spec)
			}
			if got := RoutineError(err); got != tc.want {
				t.Errorf("RoutineError = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestHeartbeatSeesTheLatestDigest: the digest of what the lawyer is doing
// is the heartbeat's view of the last minutes, but only while it is
// recent; an old one says nothing about now.
func TestHeartbeatSeesTheLatestDigest(t *testing.T) {
	tests := []struct {
		name     string
		analysis digest.Analysis
		ok       bool
		want     string // "" : the section says (none)
	}{
		{"a recent model digest", digest.Analysis{At: wednesday10.Add(-2 * time.Minute), HUD: "Reading mail", Digest: "Reading ‘RE: SNDA’ from Marcy Howard in Outlook."}, true, "Reading ‘RE: SNDA’ from Marcy Howard in Outlook. (at 10:03)"},
		{"code's HUD when no model wrote a digest", digest.Analysis{At: wednesday10.Add(-time.Minute), HUD: "On a call · 14 min"}, true, "On a call · 14 min (at 10:04)"},
		{"an hour-old digest is not now", digest.Analysis{At: wednesday10.Add(-time.Hour), Digest: "Drafting in Word."}, true, ""},
		{"no digest yet", digest.Analysis{}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, _ := newWorkParts(t, "", func() time.Time { return wednesday10 })
			w := p.core.work
			w.digest = func() (digest.Analysis, bool) { return tt.analysis, tt.ok }
			prompt, doing, _ := w.heartbeatPrompt(context.Background(), wednesday10)
			if strings.Contains(prompt, "What the lawyer is doing") {
				t.Errorf("the digest is in the prompt that is stored:\n%s", prompt)
			}
			_, section, found := strings.Cut(prompt+doing, "What the lawyer is doing (the latest digest):\n")
			if !found {
				t.Fatalf("heartbeat prompt has no digest section:\n%s", prompt)
			}
			want := "(none)\n"
			if tt.want != "" {
				want = "- " + tt.want + "\n"
			}
			if section != want {
				t.Errorf("digest section = %q, want %q", section, want)
			}
		})
	}
}

func TestTodaysMeetings(t *testing.T) {
	me := calendar.Me{Addresses: []string{"dana@firm.com"}}
	at := func(h, m int) time.Time { return time.Date(2026, 11, 25, h, m, 0, 0, time.UTC) }
	marcy := calendar.Person{Name: "Marcy Howard", Email: "marcy@howardlaw.com", PartStat: calendar.PartStatAccepted}
	dana := func(ps string) calendar.Person { return calendar.Person{Email: "dana@firm.com", PartStat: ps} }
	for _, tc := range []struct {
		name string
		occs []calendar.Occurrence
		want []string
	}{
		{"nothing", nil, nil},
		{"a call and a meeting under way", []calendar.Occurrence{
			{Summary: "Partners' meeting", Start: at(9, 30), End: at(10, 30), Location: "Room 4"},
			{Summary: "Call re SNDA", Start: at(14, 0), End: at(14, 30), Attendees: []calendar.Person{marcy, dana(calendar.PartStatAccepted)}},
		}, []string{"09:30–10:30 (under way) “Partners' meeting”, at Room 4", "14:00–14:30 “Call re SNDA” with Marcy Howard"}},
		{"free, cancelled, declined and over are left out", []calendar.Occurrence{
			{Summary: "Hold", Start: at(11, 0), End: at(12, 0), Transparent: true},
			{Summary: "Closing", Start: at(12, 0), End: at(13, 0), Status: calendar.StatusCancelled},
			{Summary: "Bar talk", Start: at(13, 0), End: at(14, 0), Attendees: []calendar.Person{dana(calendar.PartStatDeclined)}},
			{Summary: "Breakfast", Start: at(8, 0), End: at(9, 0)},
		}, nil},
		{"all day first", []calendar.Occurrence{
			{Summary: "Call", Start: at(11, 0), End: at(11, 30)},
			{Summary: "Trial", AllDay: true, Start: at(0, 0), End: at(24, 0)},
		}, []string{"all day: “Trial”", "11:00–11:30 “Call”"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := todaysMeetings(tc.occs, me, wednesday10)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestHeartbeatSeesTodaysMeetings: the heartbeat's prompt lists the rest
// of the day from the stored calendars, not tomorrow's.
func TestHeartbeatSeesTodaysMeetings(t *testing.T) {
	p, st, _ := newWorkParts(t, "", func() time.Time { return wednesday10 })
	ics := filepath.Join(t.TempDir(), "work.ics")
	ev := func(uid, summary string, start time.Time) string {
		return "BEGIN:VEVENT\r\nUID:" + uid + "\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:" + start.Format("20060102T150405Z") +
			"\r\nDTEND:" + start.Add(time.Hour).Format("20060102T150405Z") + "\r\nSUMMARY:" + summary +
			"\r\nORGANIZER;CN=Marcy Howard:mailto:marcy@howardlaw.com\r\nEND:VEVENT\r\n"
	}
	body := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" + ev("a@x", "Call re SNDA", wednesday10.Add(4*time.Hour).Truncate(time.Hour)) +
		ev("b@x", "Estoppel review", wednesday10.Add(24*time.Hour)) + "END:VCALENDAR\r\n"
	if err := os.WriteFile(ics, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := st.AddCalendar(t.Context(), store.Calendar{Kind: store.CalendarFile, Source: ics, Name: "Work"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := calendar.Sync(t.Context(), st, c, calendar.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	prompt, _, _ := p.core.work.heartbeatPrompt(t.Context(), wednesday10)
	_, section, found := strings.Cut(prompt, "Meetings still to come today (from the lawyer's calendars):\n")
	if !found {
		t.Fatalf("no meetings section:\n%s", prompt)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	section = strings.TrimRight(section, "\n") // the last section ends the prompt
	if want := "- 14:00–15:00 “Call re SNDA” with Marcy Howard"; section != want {
		t.Errorf("meetings section = %q, want %q", section, want)
	}
}

// TestMaintenancePrunesWorkRuns: Spirit's maintenance pass, on a real
// file, deletes work runs past a month and clears heartbeat prompts past
// a week, keeping the lawyer's own prompts and anything recent.
func TestMaintenancePrunesWorkRuns(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{t: mon}
	c, st := newClockedCore(t, clock)
	run := func(source work.Source) int64 {
		t.Helper()
		r, err := st.CreateWorkRun(ctx, store.NewWorkRun{Source: string(source), Prompt: "World log since 09:30: …"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.StartWorkRun(ctx, r.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.FinishWorkRun(ctx, r.ID, store.WorkOutcome{State: store.WorkSkip, Reason: "ack", Text: "skip ack"}); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	day := 24 * time.Hour
	old := run(work.SourceHeartbeat)
	clock.Advance(25 * day)
	beat, routine := run(work.SourceHeartbeat), run(work.RoutineSource(4))
	clock.Advance(8 * day)
	recent := run(work.SourceHeartbeat)

	c.maintainOnce(ctx)
	if _, err := st.WorkRun(ctx, old); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a run of 33 days ago: %v, want it deleted", err)
	}
	for _, w := range []struct {
		name   string
		id     int64
		prompt bool
	}{{"heartbeat of 8 days ago", beat, false}, {"routine of 8 days ago", routine, true}, {"heartbeat just now", recent, true}} {
		r, err := st.WorkRun(ctx, w.id)
		if err != nil {
			t.Errorf("%s: %v", w.name, err)
			continue
		}
		if got := r.Prompt != ""; got != w.prompt {
			t.Errorf("%s: prompt kept %v, want %v", w.name, got, w.prompt)
		}
	}
}
