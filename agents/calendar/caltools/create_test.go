package caltools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
)

// caldav starts radicale with the lawyer's "Work" calendar holding week,
// adds it to st as a CalDAV calendar and syncs it; the returned tool
// writes to it.
func caldav(t *testing.T, st *store.Store) (CreateEvent, *calendartest.Radicale, store.Calendar) {
	t.Helper()
	r := calendartest.StartRadicale(t)
	r.MkCalendar(t, "/dana/work/", "Work")
	// CalDAV keeps one event (one UID) per object.
	head, rest, _ := strings.Cut(week, "BEGIN:VEVENT")
	for i, ev := range strings.Split("BEGIN:VEVENT"+strings.TrimSuffix(strings.TrimRight(rest, "\n"), "END:VCALENDAR"), "BEGIN:VEVENT")[1:] {
		r.Put(t, fmt.Sprintf("/dana/work/week-%d.ics", i), strings.ReplaceAll(head+"BEGIN:VEVENT"+ev+"END:VCALENDAR\n", "\n", "\r\n"))
	}
	c, err := st.AddCalendar(t.Context(), store.Calendar{Kind: store.CalendarCalDAV, Source: r.Base + "/dana/work/", Name: "Work",
		Username: calendartest.User})
	if err != nil {
		t.Fatal(err)
	}
	tool := CreateEvent{Calendars: calendars(t, st), HTTP: r.HTTP, Secrets: calendartest.Secrets{calendar.PasswordKey(c.ID): calendartest.Password},
		Dir: t.TempDir()}
	if _, err := calendar.Sync(t.Context(), st, c, calendar.SyncOptions{HTTP: r.HTTP, Secrets: tool.Secrets, Now: tool.now()}); err != nil {
		t.Fatal(err)
	}
	return tool, r, c
}

// onServer reads the events radicale holds in c, by title.
func onServer(t *testing.T, r *calendartest.Radicale, c store.Calendar) map[string]calendar.Occurrence {
	t.Helper()
	d, err := calendar.NewCalDAV(r.HTTP, c.Source, calendartest.User, calendartest.Password)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(c.Source)
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	objs, err := d.Query(t.Context(), u.Path, from, from.AddDate(0, 2, 0))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]calendar.Occurrence{}
	for _, o := range objs {
		occs, err := calendar.Occurrences(o.Calendar, from, from.AddDate(0, 2, 0), time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		for _, oc := range occs {
			out[oc.Summary] = oc
		}
	}
	return out
}

func fields(a nudge.Approval) map[string]string {
	m := map[string]string{}
	for _, f := range a.Fields {
		m[f.Label] = f.Value
	}
	return m
}

const marcyCall = `{"title":"Call with Marcy Howard re SNDA","start":"2026-11-30 11:00","duration_minutes":60,` +
	`"attendees":["Marcy Howard <Marcy@HowardLaw.com>"],"description":"Section 4.2(b) cure period."}`

func TestCreateEventThroughCalDAV(t *testing.T) {
	st := openStore(t)
	tool, r, c := caldav(t, st)
	act, err := tool.Resolve(t.Context(), json.RawMessage(marcyCall))
	if err != nil {
		t.Fatal(err)
	}
	f := fields(act.Approval)
	for label, want := range map[string]string{
		"Title":     "Call with Marcy Howard re SNDA",
		"When":      "Mon 30 Nov 2026, 11:00–12:00 EST (America/New_York)",
		"Attendees": "Marcy Howard <marcy@howardlaw.com>",
		"Calendar":  "Work",
	} {
		if f[label] != want {
			t.Errorf("approval %s = %q, want %q", label, f[label], want)
		}
	}
	if act.Approval.Body != "Section 4.2(b) cure period." || act.Approval.Tool != CreateEventName {
		t.Errorf("approval %+v", act.Approval)
	}
	// The canonical action is the tool's own input: resolved again it is
	// the same action.
	again, err := tool.Resolve(t.Context(), json.RawMessage(act.Canonical))
	if err != nil || again.Canonical != act.Canonical {
		t.Fatalf("canonical %s resolved again to %s (%v)", act.Canonical, again.Canonical, err)
	}
	if _, ok := onServer(t, r, c)["Call with Marcy Howard re SNDA"]; ok {
		t.Fatal("the event is on the server before it was written")
	}
	out, err := tool.Do(t.Context(), act.Canonical)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "added to the calendar “Work”") {
		t.Errorf("result %q", out)
	}
	ev, ok := onServer(t, r, c)["Call with Marcy Howard re SNDA"]
	if !ok {
		t.Fatal("the event is not on the CalDAV server")
	}
	ny := mustZone(t, "America/New_York")
	if !ev.Start.Equal(time.Date(2026, 11, 30, 11, 0, 0, 0, ny)) || !ev.End.Equal(time.Date(2026, 11, 30, 12, 0, 0, 0, ny)) {
		t.Errorf("on the server at %s–%s", ev.Start, ev.End)
	}
	var people []string
	for _, p := range ev.People() {
		people = append(people, p.Email+"="+p.PartStat)
	}
	if got := strings.Join(people, ","); got != "nadia@firm.com=ACCEPTED,marcy@howardlaw.com=NEEDS-ACTION" {
		t.Errorf("people on the server: %s", got)
	}
	// Synced at once: the lawyer's free time no longer has that hour.
	var free struct{ Free []struct{ Start, End string } }
	run(t, FindFreeSlots{tool.Calendars}, `{"duration_minutes":60,"from":"2026-11-30","to":"2026-11-30"}`, &free)
	if len(free.Free) != 2 || free.Free[1].Start != "Mon 2026-11-30 12:00 EST" {
		t.Errorf("free after the booking: %+v", free.Free)
	}
}

func TestCreateEventAsFile(t *testing.T) {
	st := openStore(t)
	fileCalendar(t, st, "Work", week)
	tool := CreateEvent{Calendars: calendars(t, st), Dir: filepath.Join(t.TempDir(), "Spirit events")}
	act, err := tool.Resolve(t.Context(), json.RawMessage(marcyCall))
	if err != nil {
		t.Fatal(err)
	}
	if w := fields(act.Approval)["Calendar"]; !strings.Contains(w, ".ics file") || !strings.Contains(w, tool.Dir) {
		t.Errorf("approval says the calendar is %q, want an .ics file in %s", w, tool.Dir)
	}
	out, err := tool.Do(t.Context(), act.Canonical)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(tool.Dir, "*.ics"))
	if len(files) != 1 || !strings.Contains(out, files[0]) {
		t.Fatalf("files %v, result %q: want one .ics file, named in the result", files, out)
	}
	if filepath.Base(files[0]) != "2026-11-30 1100 Call with Marcy Howard re SNDA.ics" {
		t.Errorf("file name %q", filepath.Base(files[0]))
	}
	cal, err := calendar.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	occs, err := calendar.Occurrences(cal, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.UTC)
	if err != nil || len(occs) != 1 || !occs[0].Start.Equal(time.Date(2026, 11, 30, 16, 0, 0, 0, time.UTC)) || occs[0].Description != "Section 4.2(b) cure period." {
		t.Fatalf("the file holds %+v (%v)", occs, err)
	}
	// A second time never replaces the first file.
	if _, err := tool.Do(t.Context(), act.Canonical); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(tool.Dir, "*.ics")); len(files) != 2 {
		t.Errorf("%d files after a second write, want 2", len(files))
	}
}

func TestCreateEventRefusesBadArguments(t *testing.T) {
	st := openStore(t)
	fileCalendar(t, st, "Work", week)
	tool := CreateEvent{Calendars: calendars(t, st), Dir: t.TempDir()}
	for _, tc := range []struct{ name, args, says string }{
		{"no title", `{"start":"2026-11-30 11:00","duration_minutes":60}`, "needs a title"},
		{"in the past", `{"title":"x","start":"2026-11-20 11:00","duration_minutes":60}`, "in the past"},
		{"no end", `{"title":"x","start":"2026-11-30 11:00"}`, "end or duration_minutes"},
		{"end before start", `{"title":"x","start":"2026-11-30 11:00","end":"2026-11-30 10:00"}`, "end must be after start"},
		{"a date without time", `{"title":"x","start":"2026-11-30","duration_minutes":30}`, "time of day"},
		{"not an address", `{"title":"x","start":"2026-11-30 11:00","duration_minutes":30,"attendees":["Marcy"]}`, "not an email address"},
		{"unknown calendar", `{"title":"x","start":"2026-11-30 11:00","duration_minutes":30,"calendar":"Golf"}`, `"Work" (id 1)`},
		{"unknown zone", `{"title":"x","start":"2026-11-30 11:00","duration_minutes":30,"time_zone":"Mars/Olympus"}`, "not a time zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tool.Resolve(t.Context(), json.RawMessage(tc.args))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v, want one saying %q", err, tc.says)
			}
		})
	}
	// Another zone is kept and shown.
	act, err := tool.Resolve(t.Context(), json.RawMessage(`{"title":"x","start":"2026-11-30 17:00","duration_minutes":30,"time_zone":"Europe/London"}`))
	if err != nil {
		t.Fatal(err)
	}
	f := fields(act.Approval)
	if f["When"] != "Mon 30 Nov 2026, 17:00–17:30 GMT (Europe/London)" || f["Attendees"] != "nobody else (only you)" {
		t.Errorf("approval fields %q", f)
	}
	if _, ok := f["Location"]; ok {
		t.Errorf("an empty location is shown: %q", f)
	}
}

// listener hands the test what the agents show.
type listener struct{ nudges chan store.Nudge }

func (l listener) NudgeCreated(n store.Nudge)        { l.nudges <- n }
func (listener) NudgeClosed(int64)                   {}
func (listener) Working(int)                         {}
func (listener) Verified(string)                     {}
func (listener) Lifecycle(string, store.AgentStatus) {}
func (l listener) next(t *testing.T, kind string) store.Nudge {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case n := <-l.nudges:
			if n.Kind == kind {
				return n
			}
		case <-deadline:
			t.Fatalf("no %s nudge within 20 s", kind)
		}
	}
}

func call(id, name string, input any) llm.ToolCall {
	if s, ok := input.(string); ok { // JSON already
		return llm.ToolCall{ID: id, Name: name, Input: json.RawMessage(s)}
	}
	b, _ := json.Marshal(input)
	return llm.ToolCall{ID: id, Name: name, Input: b}
}

// TestAgentFindsAnHourAndBooksIt: "find me an hour with Marcy next week"
// as a task agent with a scripted model over real HTTP: it looks for free
// time, is refused a write without approval, asks for approval, and once
// the lawyer accepts the event is on the CalDAV server.
func TestAgentFindsAnHourAndBooksIt(t *testing.T) {
	for _, proto := range []string{"anthropic", "openai"} {
		t.Run(proto, func(t *testing.T) {
			st := openStore(t)
			create, r, c := caldav(t, st)
			args := `{"title":"Hour with Marcy Howard","start":"2026-11-30 08:00","duration_minutes":60,"attendees":["Marcy Howard <marcy@howardlaw.com>"]}`
			act, err := create.Resolve(t.Context(), json.RawMessage(args))
			if err != nil {
				t.Fatal(err)
			}
			srv := scripted.New(t,
				scripted.ToolCalls(call("p", "submit_plan", map[string]any{"steps": []string{"Find a free hour next week", "Book it with approval"}})),
				scripted.ToolCalls(call("c1", FindFreeSlotsName, map[string]any{"duration_minutes": 60, "from": "2026-11-30", "to": "2026-12-04"})),
				scripted.ToolCalls(call("c2", CreateEventName, args)),
				scripted.ToolCalls(call("c3", "request_approval", `{"action":"`+CreateEventName+`","args":`+args+`,"reason":"an hour with Marcy"}`)),
			)
			runner, l := startRunner(t, st, srv.Provider(t, proto), create, ListUpcoming{create.Calendars}, FindFreeSlots{create.Calendars})

			if _, err := runner.Start(t.Context(), task.NewTask{Prompt: "find me an hour with Marcy next week", Origin: "voice"}); err != nil {
				t.Fatal(err)
			}
			n := l.next(t, nudge.KindApproval)
			var a nudge.Approval
			if err := nudge.ReadDetail(n.Detail, &a); err != nil {
				t.Fatal(err)
			}
			if f := fields(a); f["When"] != "Mon 30 Nov 2026, 08:00–09:00 EST (America/New_York)" || f["Attendees"] != "Marcy Howard <marcy@howardlaw.com>" ||
				f["Calendar"] != "Work" || a.Tool != CreateEventName || n.Message != "Add “Hour with Marcy Howard” to your calendar?" {
				t.Errorf("approval %q %+v", n.Message, a)
			}
			reqs := srv.Requests()
			// The tools were offered, the free time was read, and the
			// write before approval was refused.
			offered := map[string]bool{}
			for _, tl := range reqs[1].Tools {
				offered[tl.Name] = true
			}
			for _, name := range []string{ListUpcomingName, FindFreeSlotsName, CreateEventName, "request_approval"} {
				if !offered[name] {
					t.Errorf("tool %s not offered: %v", name, offered)
				}
			}
			results := map[string]llm.ToolResult{}
			for _, rq := range reqs {
				for _, m := range rq.Messages {
					for _, tr := range m.ToolResults {
						results[tr.CallID] = tr
					}
				}
			}
			if !strings.Contains(results["c1"].Content, `"start":"Mon 2026-11-30 08:00 EST","end":"Mon 2026-11-30 10:00 EST"`) {
				t.Errorf("free slots the model read: %s", results["c1"].Content)
			}
			// (OpenAI's wire has no error flag: the text says it.)
			if !strings.Contains(results["c2"].Content, "refused") || !strings.Contains(results["c2"].Content, "request_approval first") {
				t.Errorf("write before approval: %+v", results["c2"])
			}
			if _, ok := onServer(t, r, c)["Hour with Marcy Howard"]; ok {
				t.Fatal("the event was written before approval")
			}

			srv.Push(
				scripted.ToolCalls(call("c4", CreateEventName, act.Canonical)),
				scripted.ToolCalls(call("c5", "finish_task", map[string]any{"summary": "Booked Mon 30 Nov 08:00 with Marcy Howard"})),
				scripted.ToolCalls(call("v", "give_verdict", map[string]any{"verdict": "verified"})),
			)
			if err := runner.Answer(t.Context(), n, nudge.Accept, ""); err != nil {
				t.Fatal(err)
			}
			l.next(t, nudge.KindResult)
			ev, ok := onServer(t, r, c)["Hour with Marcy Howard"]
			if !ok || !ev.Start.Equal(time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)) {
				t.Fatalf("on the server after approval: %+v (found %v)", ev, ok)
			}
			reqs = srv.Requests()
			results = map[string]llm.ToolResult{}
			for _, rq := range reqs {
				for _, m := range rq.Messages {
					for _, tr := range m.ToolResults {
						results[tr.CallID] = tr
					}
				}
			}
			if !strings.Contains(results["c3"].Content, "Approved. Now call "+CreateEventName+" with exactly these arguments: "+act.Canonical) {
				t.Errorf("approval result to the model: %q", results["c3"].Content)
			}
			if !strings.Contains(results["c4"].Content, "added to the calendar “Work”") {
				t.Errorf("write result: %+v", results["c4"])
			}
		})
	}
}

// TestAgentEventEditIsAChangeRequest: words typed into a calendar
// event's approval are not a yes: the agent hears them as changes to make
// and nothing is written.
func TestAgentEventEditIsAChangeRequest(t *testing.T) {
	st := openStore(t)
	fileCalendar(t, st, "Work", week)
	create := CreateEvent{Calendars: calendars(t, st), Dir: t.TempDir()}
	args := `{"title":"Hour with Marcy Howard","start":"2026-11-30 08:00","duration_minutes":60,"attendees":["Marcy Howard <marcy@howardlaw.com>"],"description":"SNDA"}`
	srv := scripted.New(t,
		scripted.ToolCalls(call("p", "submit_plan", map[string]any{"steps": []string{"Book an hour with approval"}})),
		scripted.ToolCalls(call("c1", "request_approval", `{"action":"`+CreateEventName+`","args":`+args+`}`)),
	)
	runner, l := startRunner(t, st, srv.Provider(t, "openai"), create)
	if _, err := runner.Start(t.Context(), task.NewTask{Prompt: "book an hour with Marcy on Monday", Origin: "bubble"}); err != nil {
		t.Fatal(err)
	}
	n := l.next(t, nudge.KindApproval)
	srv.Push(
		scripted.ToolCalls(call("c2", "finish_task", map[string]any{"summary": "Not booked: the lawyer wants 9:00"})),
		scripted.ToolCalls(call("v", "give_verdict", map[string]any{"verdict": "verified"})),
	)
	if err := runner.Answer(t.Context(), n, nudge.Edit, "make it 9:00 instead"); err != nil {
		t.Fatal(err)
	}
	l.next(t, nudge.KindResult)
	var heard string
	for _, rq := range srv.Requests() {
		for _, m := range rq.Messages {
			for _, tr := range m.ToolResults {
				if tr.CallID == "c1" {
					heard = tr.Content
				}
			}
		}
	}
	if !strings.Contains(heard, "Not approved yet: the lawyer asked for changes: make it 9:00 instead") {
		t.Errorf("the agent heard %q", heard)
	}
	if files, _ := filepath.Glob(filepath.Join(create.Dir, "*")); len(files) != 0 {
		t.Errorf("written without approval: %v", files)
	}
}

// startRunner runs a task runner whose agents are p, with create as
// their write and tools besides, until the test ends; l hears its nudges.
func startRunner(t *testing.T, st *store.Store, p llm.Provider, create CreateEvent, tools ...task.Tool) (*task.Runner, listener) {
	t.Helper()
	l := listener{nudges: make(chan store.Nudge, 16)}
	runner := task.NewRunner(task.Options{Store: st, Listener: l, Now: create.Now, Log: slog.New(slog.DiscardHandler),
		Provider: func(context.Context) (llm.Provider, string, error) { return p, "test-model", nil },
		Tools:    tools, Writes: []task.Write{create}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { runner.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return runner, l
}
