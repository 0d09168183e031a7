package caltools

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/calendar/calendartest"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/platform/secrets"
)

// TestAgentBooksOnCloudCalendars: an agent's calendar_create_event is
// refused before approval and, once the lawyer approves exactly those
// arguments, posted to Graph (POST /me/events) or Google (events.insert)
// with the mail account's sign-in, and synced back.
func TestAgentBooksOnCloudCalendars(t *testing.T) {
	for _, kind := range []string{store.CalendarMicrosoft, store.CalendarGoogle} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
			t.Setenv("XDG_RUNTIME_DIR", dir)
			st := openStore(t)
			ix := index.New(st)
			sec, err := secrets.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			var acct index.Account
			var created func() []json.RawMessage
			if kind == store.CalendarMicrosoft {
				g := calendartest.StartGraph(t)
				acct, created = g.Account(t, ix, sec, g.SignIn(false, calendartest.GraphScopes...)), g.Created
			} else {
				g := calendartest.StartGoogle(t)
				acct, created = g.Account(t, ix, sec, g.SignIn(false, calendartest.GoogleScopes...)), g.Created
			}
			cals := calendars(t, st)
			auth := calendar.MailAccounts{Index: ix, Secrets: sec}
			c, _, err := calendar.AddCloudCalendar(t.Context(), st, auth, acct.ID, "", calendar.SyncOptions{Cloud: auth, Now: cals.now()})
			if err != nil {
				t.Fatal(err)
			}
			create := CreateEvent{Calendars: cals, Cloud: auth, Dir: t.TempDir()}
			args := `{"title":"Hour with Marcy Howard","start":"2026-11-30 08:00","duration_minutes":60,"attendees":["Marcy Howard <marcy@howardlaw.com>"]}`
			act, err := create.Resolve(t.Context(), json.RawMessage(args))
			if err != nil {
				t.Fatal(err)
			}
			if f := fields(act.Approval); f["Calendar"] != c.Name || f["When"] != "Mon 30 Nov 2026, 08:00–09:00 EST (America/New_York)" {
				t.Errorf("approval fields %v", f)
			}
			srv := scripted.New(t,
				scripted.ToolCalls(call("p", "submit_plan", map[string]any{"steps": []string{"Book it with approval"}})),
				scripted.ToolCalls(call("c1", CreateEventName, args)),
				scripted.ToolCalls(call("c2", "request_approval", `{"action":"`+CreateEventName+`","args":`+args+`,"reason":"an hour with Marcy"}`)),
			)
			runner, l := startRunner(t, st, srv.Provider(t, "anthropic"), create)
			if _, err := runner.Start(t.Context(), task.NewTask{Prompt: "book an hour with Marcy on Monday at 8", Origin: "typed"}); err != nil {
				t.Fatal(err)
			}
			n := l.next(t, nudge.KindApproval)
			if len(created()) != 0 {
				t.Fatal("the event was posted before approval")
			}
			srv.Push(
				scripted.ToolCalls(call("c3", CreateEventName, act.Canonical)),
				scripted.ToolCalls(call("c4", "finish_task", map[string]any{"summary": "Booked"})),
				scripted.ToolCalls(call("v", "give_verdict", map[string]any{"verdict": "verified"})),
			)
			if err := runner.Answer(t.Context(), n, nudge.Accept, ""); err != nil {
				t.Fatal(err)
			}
			l.next(t, nudge.KindResult)
			posted := created()
			if len(posted) != 1 {
				t.Fatalf("%d events posted, want 1", len(posted))
			}
			body := string(posted[0])
			for _, want := range []string{"Hour with Marcy Howard", "2026-11-30T13:00:00", "marcy@howardlaw.com"} {
				if !strings.Contains(body, want) {
					t.Errorf("posted %s, without %q", body, want)
				}
			}
			// Synced back: the lawyer's Monday shows it.
			occs, err := calendar.Upcoming(t.Context(), st, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.UTC)
			if err != nil || len(occs) != 1 || occs[0].Summary != "Hour with Marcy Howard" || !occs[0].Start.Equal(time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)) {
				t.Errorf("after the write the store has %+v (%v)", occs, err)
			}
		})
	}
}
