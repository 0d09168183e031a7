package work

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work/pace"
)

// skipsBy counts the recorded runs by outcome: "done" for a delivery, a
// skip's reason, or "error".
func skipsBy(t *testing.T, st *store.Store) map[string]int {
	t.Helper()
	runs, err := st.WorkRuns(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range runs {
		switch r.State {
		case store.WorkSkip:
			got[r.Reason]++
		default:
			got[string(r.State)]++
		}
	}
	return got
}

// heldEnv is an env whose model calls are held until released (all at
// once, by closing release), and which tells when a run waits for the
// runs in flight: what a flood of requests looks like while the model
// thinks.
func heldEnv(t *testing.T, protocol string, opts ...envOption) (*env, *heldProvider, chan struct{}) {
	t.Helper()
	waiting := make(chan struct{}, 1000)
	var held *heldProvider
	e := newEnv(t, protocol, append([]envOption{func(e *env) {
		held = &heldProvider{Provider: e.srv.Provider(t, protocol), entered: make(chan struct{}, 1000), release: make(chan struct{})}
		e.opt.Provider = func(context.Context) (llm.Provider, string, error) { return held, priced, nil }
		e.opt.Log = slog.New(signalHandler{msg: logWaitingForRun, ch: waiting})
	}}, opts...)...)
	return e, held, waiting
}

// callsWhileHeld waits until want runs are at the model and the other
// waiters wait for them, and fails as soon as one more calls the model.
func callsWhileHeld(t *testing.T, held *heldProvider, waiting chan struct{}, want, waiters int) {
	t.Helper()
	for in, w := 0, 0; in < want || w < waiters; {
		select {
		case <-held.entered:
			if in++; in > want {
				t.Fatalf("%d model calls before any ended, want %d", in, want)
			}
		case <-waiting:
			w++
		}
	}
}

// TestFloodOfSourcesCallsTheModelForTheCapOnly (issue 27): webhook
// requests from many sources at once, every one of which the model would
// speak up for. Only as many reach the model as the hourly cap can still
// show: the others wait for those in flight and are then skipped, before
// any model call of their own. Before, each passed the gate on the
// finished runs alone and called the model.
func TestFloodOfSourcesCallsTheModelForTheCapOnly(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			e, held, waiting := heldEnv(t, protocol) // four unasked-for nudges an hour
			const requests, capPerHour = 60, 4
			for i := range capPerHour {
				e.srv.Push(scripted.ToolCalls(notify("n", fmt.Sprintf("Docket %d: the hearing moved.", i))))
			}
			for i := range requests {
				src := Source(fmt.Sprintf("webhook:efile-%d", i))
				if _, err := e.r.Start(t.Context(), Request{Source: src, Prompt: "The court's e-filing system wrote; tell the lawyer if it matters."}); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			callsWhileHeld(t, held, waiting, capPerHour, requests-capPerHour)
			close(held.release)
			e.r.Wait()

			if got := len(e.srv.Requests()); got != capPerHour {
				t.Errorf("%d requests made %d model calls, want %d (the hourly cap)", requests, got, capPerHour)
			}
			if got := len(e.delivered()); got != capPerHour {
				t.Errorf("deliveries = %d, want %d", got, capPerHour)
			}
			want := map[string]int{string(store.WorkDone): capPerHour, string(ReasonHourlyCap): requests - capPerHour}
			if got := skipsBy(t, e.st); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("outcomes %v, want %v", got, want)
			}
			checkOneOutcomeEach(t, e.st)
		})
	}
}

// TestOneDedupKeyCallsTheModelOnce (issue 27): many requests at once with
// the same dedup key, from different sources: one reaches the model; the
// others wait for it and, once it delivered, are duplicates without a
// model call of their own.
func TestOneDedupKeyCallsTheModelOnce(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			e, held, waiting := heldEnv(t, protocol)
			e.setPolicy(pace.Policy{MaxPerHour: 100})
			const requests = 60
			e.srv.Push(scripted.ToolCalls(notify("n", "The Jones hearing moved to 9:00 tomorrow.")))
			for i := range requests {
				src := Source(fmt.Sprintf("webhook:efile-%d", i))
				if _, err := e.r.Start(t.Context(), Request{Source: src, Prompt: "Hearing moved.", DedupKey: "efile-123"}); err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
			}
			callsWhileHeld(t, held, waiting, 1, requests-1)
			close(held.release)
			e.r.Wait()

			if got := len(e.srv.Requests()); got != 1 {
				t.Errorf("%d requests with one dedup key made %d model calls, want 1", requests, got)
			}
			want := map[string]int{string(store.WorkDone): 1, string(ReasonDuplicate): requests - 1}
			if got := skipsBy(t, e.st); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("outcomes %v, want %v", got, want)
			}
			checkOneOutcomeEach(t, e.st)
		})
	}
}

// TestSameKeyAfterSilenceStillRuns: a request that waited for another
// run with its dedup key, which then ended without speaking up, is looked
// into after all: waiting on a run in flight skips nothing that run did
// not deliver.
func TestSameKeyAfterSilenceStillRuns(t *testing.T) {
	waiting := make(chan struct{}, 8)
	e := newEnv(t, llm.ProtocolOpenAI, func(e *env) {
		e.opt.Log = slog.New(signalHandler{msg: logWaitingForRun, ch: waiting})
	})
	started, gate := make(chan struct{}), make(chan struct{})
	first := Request{Source: "webhook:a", Prompt: "p", DedupKey: "k",
		Work: func(ctx context.Context, _ Request) (Result, error) {
			close(started)
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return Result{}, nil // silence
		}}
	if _, err := e.r.Start(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	<-started
	second := make(chan Outcome, 1)
	go func() {
		o, err := e.r.Run(t.Context(), Request{Source: "webhook:b", Prompt: "p", DedupKey: "k",
			Work: func(context.Context, Request) (Result, error) {
				return Result{Notice: &Notice{Message: "The hearing moved."}}, nil
			}})
		if err != nil {
			t.Error(err)
		}
		second <- o
	}()
	<-waiting // the second waits for the first, which holds the key
	close(gate)
	if o := <-second; o.Status != store.WorkDone || !o.Delivered {
		t.Fatalf("second outcome %+v, want delivered after the first stayed silent", o)
	}
	e.r.Wait()
	checkOneOutcomeEach(t, e.st)
}

// signalHandler is a slog handler that tells which messages were logged.
type signalHandler struct {
	msg string
	ch  chan struct{}
}

func (h signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h signalHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.ch <- struct{}{}:
		default: // told already
		}
	}
	return nil
}
func (h signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h signalHandler) WithGroup(string) slog.Handler      { return h }

// heldProvider holds every model call until released, counting the calls
// under way: the scripted server answers each once it is let through.
type heldProvider struct {
	llm.Provider
	entered chan struct{}
	release chan struct{}

	mu       sync.Mutex
	now, top int
}

func (p *heldProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	p.mu.Lock()
	p.now++
	p.top = max(p.top, p.now)
	p.mu.Unlock()
	defer func() { p.mu.Lock(); p.now--; p.mu.Unlock() }()
	p.entered <- struct{}{}
	select {
	case <-p.release:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return p.Provider.Complete(ctx, req)
}

// TestModelCallsAtOnceAreBounded (issue 27): however many requests come
// in at once, at most MaxRunning of them call the model at the same time;
// the rest wait for a free slot, not for the model.
func TestModelCallsAtOnceAreBounded(t *testing.T) {
	const requests, running = 6, 2
	parked := make(chan struct{}, requests)
	var held *heldProvider
	e := newEnv(t, llm.ProtocolAnthropic, func(e *env) {
		inner := e.srv.Provider(t, llm.ProtocolAnthropic)
		held = &heldProvider{Provider: inner, entered: make(chan struct{}, requests), release: make(chan struct{})}
		e.opt.Provider = func(context.Context) (llm.Provider, string, error) { return held, priced, nil }
		e.opt.MaxRunning = running
		e.opt.Log = slog.New(signalHandler{msg: logWaitingForSlot, ch: parked})
	})
	e.setPolicy(pace.Policy{MaxPerHour: 100})
	for range requests {
		e.srv.Push(scripted.Text("Nothing needs the lawyer."))
	}
	for i := range requests {
		if _, err := e.r.Start(t.Context(), Request{Source: Source(fmt.Sprintf("webhook:s%d", i)), Prompt: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	// The first two reach the model; the other four wait for a slot.
	for in, waiting := 0, 0; in < running || waiting < requests-running; {
		select {
		case <-held.entered:
			if in++; in > running {
				t.Fatalf("%d model calls at once, want at most %d", in, running)
			}
		case <-parked:
			waiting++
		}
	}
	// Let them all through, one at a time.
	for i := range requests {
		held.release <- struct{}{}
		if i+running < requests {
			<-held.entered
		}
	}
	e.r.Wait()
	if held.top != running || len(e.srv.Requests()) != requests {
		t.Errorf("at most %d calls at once, %d in all; want %d and %d", held.top, len(e.srv.Requests()), running, requests)
	}
	if got := skipsBy(t, e.st); got[string(ReasonAck)] != requests {
		t.Errorf("outcomes %v, want %d acks", got, requests)
	}
	checkOneOutcomeEach(t, e.st)
}

// TestOutsideQueueIsBounded (issue 27): once MaxQueued requests from
// outside are waiting or running, another is refused at once (nothing is
// recorded for it); Spirit's own work is still taken.
func TestOutsideQueueIsBounded(t *testing.T) {
	parked := make(chan struct{}, 8)
	e := newEnv(t, llm.ProtocolOpenAI, func(e *env) {
		e.opt.MaxQueued, e.opt.MaxRunning = 3, 1
		e.opt.Log = slog.New(signalHandler{msg: logWaitingForSlot, ch: parked})
	})
	e.setPolicy(pace.Policy{MaxPerHour: 100})
	// The first model call hangs until the runner closes; the next two
	// wait for its slot.
	e.srv.Push(scripted.Text("…").After(time.Hour))
	for i := range 3 {
		if _, err := e.r.Start(t.Context(), Request{Source: Source(fmt.Sprintf("webhook:s%d", i)), Prompt: "p"}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	_, err := e.r.Start(t.Context(), Request{Source: "webhook:s3", Prompt: "p"})
	if !errors.Is(err, ErrTooMany) {
		t.Fatalf("fourth outside request: %v, want ErrTooMany", err)
	}
	if _, err := e.r.Start(t.Context(), Request{Source: SourceWebhook, Prompt: "p"}); !errors.Is(err, ErrTooMany) {
		t.Fatalf("a plain webhook request: %v, want ErrTooMany", err)
	}
	hb, err := e.r.Start(t.Context(), Request{Source: SourceHeartbeat, Prompt: "p",
		Work: func(context.Context, Request) (Result, error) { return Result{}, nil }})
	if err != nil || hb.ID == 0 {
		t.Fatalf("the heartbeat was refused: %+v, %v", hb, err)
	}
	for range 3 { // two outside runs and the heartbeat wait for the one slot
		<-parked
	}
	e.r.Close()
	runs, _ := e.st.WorkRuns(t.Context(), 0)
	if len(runs) != 4 {
		t.Errorf("%d runs recorded, want 4 (the three outside ones taken and the heartbeat)", len(runs))
	}
	checkOneOutcomeEach(t, e.st)
}

func TestWebhookSource(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Source
		ok       bool
	}{
		{"none is the webhook", "", SourceWebhook, true},
		{"the webhook itself", "webhook", SourceWebhook, true},
		{"a script's name", "efile", "webhook:efile", true},
		{"a named script", "script:efile", "webhook:script:efile", true},
		{"already in the namespace", "webhook:efile", "webhook:efile", true},
		{"the calendar's name", "calendar", "webhook:calendar", true},
		{"the heartbeat's name", "heartbeat", "webhook:heartbeat", true},
		{"a routine's name", "routine:1", "webhook:routine:1", true},
		{"upper case", "Script", "", false},
		{"spaces", "my script", "", false},
		{"three parts", "a:b:c", "", false},
		{"too long", strings.Repeat("x", 60), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WebhookSource(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Fatalf("WebhookSource(%q) = %q, %v; want %q (ok %v)", tc.in, got, err, tc.want, tc.ok)
			}
			if tc.ok && (!got.Valid() || !got.Outside()) {
				t.Errorf("%q: valid %v, outside %v", got, got.Valid(), got.Outside())
			}
			if !tc.ok && !errors.Is(err, store.ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
		})
	}
	for _, own := range []Source{SourceHeartbeat, SourceCalendar, RoutineSource(3)} {
		if own.Outside() {
			t.Errorf("%q is taken for an outside source", own)
		}
	}
}
