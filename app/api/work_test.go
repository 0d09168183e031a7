package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// fakeWork is a backend with the work routes: it keeps what it was asked.
type fakeWork struct {
	*fakeBackend
	mu      sync.Mutex
	started []NewWork
}

func (f *fakeWork) StartWork(_ context.Context, w NewWork) (WorkRun, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.Source == "bad source" {
		return WorkRun{}, fmt.Errorf("source must be lower-case: %w", ErrBadRequest)
	}
	if w.Source == "flood" {
		return WorkRun{}, fmt.Errorf("Spirit is still working on 64 requests from local programs; try again in a minute: %w", ErrTooMany)
	}
	f.started = append(f.started, w)
	return WorkRun{ID: int64(len(f.started)), Source: w.Source, State: "queued"}, nil
}

func (f *fakeWork) WorkRun(_ context.Context, id int64) (WorkRun, error) {
	if id != 1 {
		return WorkRun{}, fmt.Errorf("work %d: %w", id, ErrNotFound)
	}
	return WorkRun{ID: 1, State: "done", Delivered: true, Message: "hi"}, nil
}

func (f *fakeWork) Routines(context.Context) ([]Routine, error) { return nil, nil }

func (f *fakeWork) AddRoutine(_ context.Context, r NewRoutine) (Routine, error) {
	if r.Cron == "70 8 * * *" {
		return Routine{}, fmt.Errorf(`cron "70 8 * * *": end of range (70) above maximum (59): %w`, ErrBadRequest)
	}
	return Routine{ID: 1, Cron: r.Cron, Prompt: r.Prompt, Enabled: true}, nil
}

func (f *fakeWork) RemoveRoutine(_ context.Context, id int64) error {
	if id != 1 {
		return fmt.Errorf("routine %d: %w", id, ErrNotFound)
	}
	return nil
}

func (f *fakeWork) RunRoutine(_ context.Context, id int64) (WorkRun, error) {
	return WorkRun{ID: 9, Source: fmt.Sprintf("routine:%d", id), State: "queued"}, nil
}

func TestWorkRoutes(t *testing.T) {
	fw := &fakeWork{fakeBackend: &fakeBackend{}}
	ts := start(t, fw)
	for _, tc := range []struct {
		name       string
		req        request
		wantStatus int
		wantText   string // in the body
	}{
		{"queued", request{method: "POST", path: "/work", body: `{"prompt":"  look at this  ","source":"script:x","dedup_key":"k1"}`}, 202, `"id":1`},
		{"no prompt", request{method: "POST", path: "/work", body: `{"source":"x"}`}, 400, "prompt is required"},
		{"prompt too long", request{method: "POST", path: "/work", body: `{"prompt":"` + strings.Repeat("a", 8001) + `"}`}, 400, "prompt is too long"},
		{"unknown field", request{method: "POST", path: "/work", body: `{"prompt":"a","when":"now"}`}, 400, "when"},
		{"not an object", request{method: "POST", path: "/work", body: `["a"]`}, 400, ""},
		{"empty body", request{method: "POST", path: "/work", contentType: "application/json"}, 400, ""},
		{"backend refuses the source", request{method: "POST", path: "/work", body: `{"prompt":"a","source":"bad source"}`}, 400, "source must be lower-case"},
		{"outcome", request{method: "GET", path: "/work/1"}, 200, `"delivered":true`},
		{"unknown run", request{method: "GET", path: "/work/2"}, 404, "work 2"},
		{"run id not a number", request{method: "GET", path: "/work/x"}, 400, "work id must be a positive integer"},
		{"routines", request{method: "GET", path: "/work/routines"}, 200, `{"routines":[]}`},
		{"add routine", request{method: "POST", path: "/work/routines", body: `{"cron":"30 8 * * 1-5","prompt":"p"}`}, 201, `"cron":"30 8 * * 1-5"`},
		{"bad cron", request{method: "POST", path: "/work/routines", body: `{"cron":"70 8 * * *","prompt":"p"}`}, 400, "above maximum (59)"},
		{"no cron", request{method: "POST", path: "/work/routines", body: `{"prompt":"p"}`}, 400, "cron is required"},
		{"remove", request{method: "DELETE", path: "/work/routines/1"}, 204, ""},
		{"remove unknown", request{method: "DELETE", path: "/work/routines/5"}, 404, "routine 5"},
		{"run routine", request{method: "POST", path: "/work/routines/3/run"}, 202, `"source":"routine:3"`},
		{"no token", request{method: "POST", path: "/work", auth: "-", body: `{"prompt":"a"}`}, 401, "token"},
		{"foreign Host", request{method: "POST", path: "/work", host: "attacker.example", body: `{"prompt":"a"}`}, 403, "Host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := ts.do(t, tc.req)
			if resp.status != tc.wantStatus || !strings.Contains(string(resp.body), tc.wantText) {
				t.Errorf("%s %s = %d %s, want %d with %q", tc.req.method, tc.req.path, resp.status, resp.body, tc.wantStatus, tc.wantText)
			}
		})
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if len(fw.started) != 1 || fw.started[0] != (NewWork{Prompt: "look at this", Source: "script:x", DedupKey: "k1"}) {
		t.Errorf("started = %+v, want only the good request, trimmed", fw.started)
	}
}

// TestWorkTooManyInFlight (issue 27): a request the runner cannot take
// now is a 429 with Retry-After, which the client reads as ErrTooMany.
func TestWorkTooManyInFlight(t *testing.T) {
	fw := &fakeWork{fakeBackend: &fakeBackend{}}
	ts := start(t, fw)
	resp := ts.do(t, request{method: "POST", path: "/work", body: `{"prompt":"a","source":"flood"}`})
	if resp.status != http.StatusTooManyRequests || resp.header.Get("Retry-After") == "" ||
		!strings.Contains(resp.errorText(t), "try again in a minute") {
		t.Fatalf("POST /work = %d %v %s, want 429 with Retry-After", resp.status, resp.header, resp.body)
	}
	_, err := NewClient(ts.info).StartWork(t.Context(), NewWork{Prompt: "a", Source: "flood"})
	if !errors.Is(err, ErrTooMany) {
		t.Errorf("client error %v, want ErrTooMany", err)
	}
}

// TestWorkRoutesWithoutWorkBackend: a backend without the work side
// answers 404, in JSON.
func TestWorkRoutesWithoutWorkBackend(t *testing.T) {
	ts := start(t, &fakeBackend{})
	resp := ts.do(t, request{method: "POST", path: "/work", body: `{"prompt":"a"}`})
	if resp.status != http.StatusNotFound {
		t.Fatalf("status = %d, want 404", resp.status)
	}
	var e struct{ Error string }
	if json.Unmarshal(resp.body, &e) != nil || e.Error == "" {
		t.Errorf("body %s is not a JSON error", resp.body)
	}
}
