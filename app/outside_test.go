package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/screen"
)

// workLines are the world log's work outcome lines, oldest first.
func workLines(t *testing.T, st *store.Store) []string {
	t.Helper()
	es, err := st.Since(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range es {
		if e.Source == store.WorkEventSource {
			lines = append(lines, e.Text)
		}
	}
	return lines
}

// TestOutsideWorkIsInTheWebhooksNamespace (issue 27): whatever a caller
// of POST /work calls itself, its work is logged as the webhook's,
// "webhook:<name>", never as one of Spirit's own parts: "calendar" is
// "webhook:calendar". Before, "calendar" was taken as it was, and its run
// logged as the calendar's.
func TestOutsideWorkIsInTheWebhooksNamespace(t *testing.T) {
	p, st, srv := newWorkParts(t, setup.Anthropic, (&workClock{t: wednesday10}).now)
	client := startAPI(t, p.core)
	for _, tc := range []struct{ given, want string }{
		{"calendar", "webhook:calendar"},
		{"heartbeat", "webhook:heartbeat"},
		{"routine:1", "webhook:routine:1"},
		{"script:efile", "webhook:script:efile"},
		{"webhook:efile", "webhook:efile"},
		{"", "webhook"},
	} {
		srv.Push(scripted.Text("Nothing for the lawyer."))
		run, err := client.StartWork(t.Context(), api.NewWork{Prompt: "The court's system wrote.", Source: tc.given})
		if err != nil {
			t.Fatalf("source %q: %v", tc.given, err)
		}
		if run.Source != tc.want {
			t.Errorf("source %q was taken as %q, want %q", tc.given, run.Source, tc.want)
		}
		p.core.work.runner.Wait() // one at a time: the script is in order
	}
	for _, l := range workLines(t, st) {
		if !strings.HasPrefix(l, "webhook") {
			t.Errorf("a webhook's run is logged as another part's: %q", l)
		}
	}
	if _, err := client.StartWork(t.Context(), api.NewWork{Prompt: "p", Source: "My Script!"}); !errors.Is(err, api.ErrBadRequest) ||
		!strings.Contains(err.Error(), "source must be") {
		t.Errorf("a bad source: %v, want 400 saying what a source may be", err)
	}
}

// TestWebhookFloodThroughTheAPI (issue 27): requests from many sources
// posted at once to POST /work, each of which the model would speak up
// for, make only as many model calls as the hourly cap can show (4 by
// default); requests with one dedup key make one. Every request is either
// taken (202) or, while too many are in flight, refused with 429; every
// one taken ends in exactly one outcome. The provider takes a moment to
// answer, as a real one does. Before: 2,000 requests made 504 model calls
// for 4 deliveries, 300 with one key 300 calls for 1.
func TestWebhookFloodThroughTheAPI(t *testing.T) {
	for _, tc := range []struct {
		name      string
		requests  int
		key       string
		wantCalls int
		wantSkip  work.Reason
	}{
		{name: "distinct sources", requests: 200, wantCalls: 4, wantSkip: work.ReasonHourlyCap},
		{name: "one dedup key", requests: 100, key: "efile-123", wantCalls: 1, wantSkip: work.ReasonDuplicate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, st, srv := newWorkParts(t, setup.OpenAI, (&workClock{t: wednesday10}).now)
			rec := record(p.core)
			client := startAPI(t, p.core)
			for i := range tc.wantCalls {
				srv.Push(notifyCall(fmt.Sprintf("Docket %d: the hearing moved to 9:00.", i)).After(300 * time.Millisecond))
			}
			var (
				wg               sync.WaitGroup
				mu               sync.Mutex
				taken, refused   int
				unexpectedErrors []error
			)
			for i := range tc.requests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := client.StartWork(t.Context(), api.NewWork{Prompt: "The court's e-filing system wrote.",
						Source: fmt.Sprintf("efile-%d", i), DedupKey: tc.key})
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						taken++
					case errors.Is(err, api.ErrTooMany):
						refused++
					default:
						unexpectedErrors = append(unexpectedErrors, err)
					}
				}()
			}
			wg.Wait()
			p.core.work.runner.Wait()

			if len(unexpectedErrors) > 0 || taken+refused != tc.requests || taken == 0 {
				t.Fatalf("%d taken, %d refused, errors %v; want every one of %d taken or refused", taken, refused, unexpectedErrors, tc.requests)
			}
			if got := len(srv.Requests()); got != tc.wantCalls {
				t.Errorf("%d requests taken made %d model calls, want %d", taken, got, tc.wantCalls)
			}
			if got := len(rec.shown()); got != tc.wantCalls {
				t.Errorf("%d bubbles, want %d", got, tc.wantCalls)
			}
			runs, err := st.WorkRuns(t.Context(), 0)
			if err != nil {
				t.Fatal(err)
			}
			outcomes := map[string]int{}
			for _, r := range runs {
				if r.State == store.WorkSkip {
					outcomes[r.Reason]++
				} else {
					outcomes[string(r.State)]++
				}
			}
			want := map[string]int{string(store.WorkDone): tc.wantCalls, string(tc.wantSkip): taken - tc.wantCalls}
			if len(runs) != taken || fmt.Sprint(outcomes) != fmt.Sprint(want) {
				t.Errorf("%d runs recorded with outcomes %v; want %d with %v", len(runs), outcomes, taken, want)
			}
			if lines := workLines(t, st); len(lines) != taken {
				t.Errorf("%d world log lines for %d runs", len(lines), taken)
			}
		})
	}
}

// TestAcceptingWorksActionStartsAnAgent (issue 27): a routine's, the
// heartbeat's or a webhook's delivery that proposes an action offers
// Do it, says what it would do, and accepting it starts a task agent with
// that action, as the README promises. Before, it was an info bubble with
// only OK, and accepting it started nothing. A delivery without an action
// stays a plain info bubble, whose OK starts nothing.
func TestAcceptingWorksActionStartsAnAgent(t *testing.T) {
	p, st, _ := newWorkParts(t, setup.OpenAI, (&workClock{t: wednesday10}).now)
	c, ctx := p.core, t.Context()
	const action = "Draft a reply to Marcy Howard agreeing to Friday"
	id, err := c.deliverWork(ctx, work.Delivery{RunID: 7, Source: work.RoutineSource(1),
		Message: "Marcy Howard asked whether Friday works for the closing.", Action: action, Subject: store.WorkIdentifier(7)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := st.Nudge(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	choices := nudge.SpecFor(n.Kind).Choices
	if len(choices) == 0 || choices[0].ID != nudge.Accept || choices[0].Label != "Do it" || !strings.Contains(n.Message, action) ||
		n.ActionPrompt != action || n.Subject != store.WorkIdentifier(7) {
		t.Fatalf("nudge %+v offers %+v; want Do it, saying what it would do", n, choices)
	}
	if _, err := c.Answer(ctx, id, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	as, err := st.ActiveAgents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || !strings.HasPrefix(as[0].Text, action) || !strings.Contains(as[0].Text, fmt.Sprintf("nudge-%d", id)) {
		t.Fatalf("agents after Do it = %+v, want one doing %q", as, action)
	}

	plain, err := c.deliverWork(ctx, work.Delivery{RunID: 8, Source: work.SourceHeartbeat,
		Message: "The Jones hearing moved to 9:00.", Subject: store.WorkIdentifier(8)})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Nudge(ctx, plain); n.Kind != nudge.KindInfo || n.ActionPrompt != "" {
		t.Errorf("a delivery without an action = %+v, want a plain info nudge", n)
	}
	if _, err := c.Answer(ctx, plain, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	if as, _ := st.ActiveAgents(ctx); len(as) != 1 {
		t.Errorf("OK on a plain delivery started an agent: %+v", as)
	}
}

// TestExcludedAppsLeaveNoName (issue 27): a switch to an excluded app —
// a password manager by the built-in rules, or an app the lawyer
// excluded — leaves no name anywhere: not in the world log, not in the
// query_world_log tool's result, not in any request the provider
// receives; the log says only that an excluded app came to the front.
// The switches given are as the watcher gave them before, app names and
// all, so that the line written cannot rely on the watcher alone. Before,
// the line's identifier was the app's name ("Bitwarden", "Signal"), and
// the heartbeat's prompt and the tool sent it to the provider.
func TestExcludedAppsLeaveNoName(t *testing.T) {
	for _, protocol := range []string{setup.Anthropic, setup.OpenAI} {
		t.Run(protocol, func(t *testing.T) {
			clock := &workClock{t: wednesday10}
			p, st, srv := newWorkParts(t, protocol, clock.now)
			c, ctx := p.core, t.Context()
			excl := screen.NewExclusions([]string{"Signal"}, nil) // the lawyer's list
			onSwitch := switched(p.bus, c.wl.record)
			names := []string{"bitwarden", "signal"}
			for _, w := range []platform.Window{
				{ID: 7, PID: 70, Class: "Bitwarden", Process: "bitwarden", Title: "Vault 7731 - Bitwarden"},
				{ID: 8, PID: 80, Class: "Signal", Process: "signal-desktop", Title: "Mum - Signal"},
			} {
				ex, why := excl.Match(w)
				if !ex {
					t.Fatalf("%s is not excluded", w.Class)
				}
				onSwitch(ctx, screen.Switch{App: w.App(), Class: w.Class, Process: w.Process, PID: w.PID, Window: w.ID,
					Excluded: true, ExcludedBy: why, At: clock.now()})
			}
			onSwitch(ctx, screen.Switch{App: "Microsoft Outlook", Process: "OUTLOOK.EXE", Title: "RE: SNDA - Message (HTML)", At: clock.now()})

			// The heartbeat reads the world log, then stays silent.
			srv.Push(scripted.ToolCalls(llm.ToolCall{ID: "w", Name: work.QueryWorldName, Input: json.RawMessage(`{"what":"recent"}`)}),
				scripted.Text("Nothing needs the lawyer."))
			if _, err := c.work.heartbeat(ctx); err != nil {
				t.Fatal(err)
			}

			es, err := st.Since(ctx, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			excluded := 0
			for _, e := range es {
				line := strings.ToLower(e.String())
				for _, name := range names {
					if strings.Contains(line, name) {
						t.Errorf("the world log names %s: %s", name, e)
					}
				}
				if strings.Contains(line, "excluded app") {
					excluded++
				}
			}
			if excluded != 2 {
				t.Errorf("%d world log lines say an excluded app came to the front, want 2", excluded)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2 (the tool, then silence)", len(reqs))
			}
			var result string
			for _, m := range reqs[1].Messages {
				for _, r := range m.ToolResults {
					result += r.Content
				}
			}
			if !strings.Contains(result, "excluded app") {
				t.Errorf("the tool's result lacks the excluded switches: %q", result)
			}
			for _, name := range names {
				if strings.Contains(strings.ToLower(result), name) {
					t.Errorf("the query_world_log result names %s: %q", name, result)
				}
			}
			for i, r := range reqs {
				body := strings.ToLower(string(r.Body))
				for _, name := range names {
					if strings.Contains(body, name) {
						t.Errorf("request %d to the provider names %s", i, name)
					}
				}
			}
		})
	}
}
