package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform/secrets"
)

// edt is the lawyer's zone in the calendar tests, a June Thursday.
var edt = time.FixedZone("EDT", -4*3600)

func edtAt(hour, minute int) time.Time { return time.Date(2026, 6, 18, hour, minute, 0, 0, edt) }

// marcyMail is the lawyer's mailbox: Peter sends the SNDA, Marcy asks
// Dana a question about it that Dana has not answered.
const marcyMail = `From pvance@vancekiley.com Mon Jun 15 18:10:40 2026
Message-ID: <snda-1@vancekiley.com>
Date: Mon, 15 Jun 2026 14:10:40 -0400
From: Peter Vance <pvance@vancekiley.com>
To: Dana Whitfield <dana.whitfield@hartleyross.com>
Cc: Marcy Howard <mhoward@greenleafmarkets.com>
Subject: SNDA - Brooklyn Gardens
MIME-Version: 1.0
Content-Type: text/plain; charset="us-ascii"

Dana,

Attached is the bank's form of SNDA for the Greenleaf Markets lease.
We would appreciate Greenleaf's comments, if any, by Friday, June 19.

Regards,
Peter

From mhoward@greenleafmarkets.com Tue Jun 16 13:15:34 2026
Message-ID: <snda-2@greenleafmarkets.com>
Date: Tue, 16 Jun 2026 09:15:34 -0400
From: Marcy Howard <mhoward@greenleafmarkets.com>
To: Dana Whitfield <dana.whitfield@hartleyross.com>
Subject: RE: SNDA - Brooklyn Gardens
In-Reply-To: <snda-1@vancekiley.com>
References: <snda-1@vancekiley.com>
MIME-Version: 1.0
Content-Type: text/plain; charset="us-ascii"

Dana,

I read through the SNDA last night. Section 4.2(b) seems to say the bank
isn't bound by any offset rights we have against the landlord.

Can you take a first pass and tell me what you would push back on?

Thanks,
Marcy

`

// meetingICS is a calendar with a call with Marcy at 10:30 (status and
// start as given) and a call with Luis, who has no mail, at 13:00.
func meetingICS(marcyStart time.Time, status string) string {
	utc := func(t time.Time) string { return t.UTC().Format("20060102T150405Z") }
	st := ""
	if status != "" {
		st = "STATUS:" + status + "\n"
	}
	return strings.ReplaceAll(`BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//spirit test//EN
BEGIN:VEVENT
UID:call-marcy
DTSTAMP:20260617T200000Z
DTSTART:`+utc(marcyStart)+`
DTEND:`+utc(marcyStart.Add(30*time.Minute))+`
SUMMARY:Call with Marcy Howard re SNDA
ORGANIZER;CN=Dana Whitfield:mailto:dana.whitfield@hartleyross.com
ATTENDEE;CN=Marcy Howard;PARTSTAT=ACCEPTED:mailto:mhoward@greenleafmarkets.com
`+st+`END:VEVENT
BEGIN:VEVENT
UID:call-luis
DTSTAMP:20260617T200000Z
DTSTART:`+utc(edtAt(13, 0))+`
DTEND:`+utc(edtAt(13, 30))+`
SUMMARY:Staffing with Luis
ORGANIZER;CN=Dana Whitfield:mailto:dana.whitfield@hartleyross.com
ATTENDEE;CN=Luis Ortega;PARTSTAT=ACCEPTED:mailto:lortega@hartleyross.com
END:VEVENT
END:VCALENDAR
`, "\n", "\r\n")
}

// calendarWorld is a test Spirit with a mail index holding marcyMail, a
// calendar file, and the calendar part on an injected clock.
type calendarWorld struct {
	c     *Core
	st    *store.Store
	part  *calendarPart
	clock *testClock
	ics   string
	rec   *recorder
}

func newCalendarWorld(t *testing.T, at time.Time) *calendarWorld {
	t.Helper()
	ctx := context.Background()
	clock := &testClock{t: at}
	c, st := newClockedCore(t, clock)
	dir := t.TempDir()
	mboxPath := filepath.Join(dir, "mail.mbox")
	if err := os.WriteFile(mboxPath, []byte(marcyMail), 0o600); err != nil {
		t.Fatal(err)
	}
	ix := indexMailbox(t, st, mboxPath, mail.Address{Name: "Dana Whitfield", Email: "dana.whitfield@hartleyross.com"})
	w := &calendarWorld{c: c, st: st, clock: clock, ics: filepath.Join(dir, "work.ics"), rec: record(c),
		part: newCalendar(c, ix, slog.New(slog.NewTextHandler(io.Discard, nil)))}
	w.write(t, edtAt(10, 30), "")
	if _, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: w.ics, Name: "Work"}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *calendarWorld) write(t *testing.T, marcyStart time.Time, status string) {
	t.Helper()
	if err := os.WriteFile(w.ics, []byte(meetingICS(marcyStart, status)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// at sets the clock.
func (w *calendarWorld) at(t time.Time) {
	w.clock.mu.Lock()
	defer w.clock.mu.Unlock()
	w.clock.t = t
}

// round is one turn of the part's loop: a sync, then a decision.
func (w *calendarWorld) round(t *testing.T) time.Time {
	t.Helper()
	ctx := context.Background()
	w.part.sync(ctx, false)
	if errs := w.part.Errors(); len(errs) > 0 {
		t.Fatalf("sync errors: %v", errs)
	}
	return w.part.decide(ctx)
}

// meetingNudges are the meeting nudges in the store, oldest first.
func (w *calendarWorld) meetingNudges(t *testing.T) []store.Nudge {
	t.Helper()
	all, err := w.st.Nudges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Nudge
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Kind == nudge.KindMeeting {
			out = append(out, all[i])
		}
	}
	return out
}

func TestCalendarOffersABriefOncePerMeeting(t *testing.T) {
	w := newCalendarWorld(t, edtAt(10, 0))

	// Before the window: nothing yet, and the part wakes when it opens.
	if next := w.round(t); !next.Equal(edtAt(10, 15)) {
		t.Fatalf("next window = %v, want %v", next, edtAt(10, 15))
	}
	if ns := w.meetingNudges(t); len(ns) != 0 {
		t.Fatalf("before the window: %d meeting nudges", len(ns))
	}

	w.at(edtAt(10, 15))
	w.round(t)
	ns := w.meetingNudges(t)
	if len(ns) != 1 {
		t.Fatalf("meeting nudges = %d, want 1", len(ns))
	}
	n := ns[0]
	want := "Meeting with Marcy Howard in 15 min — “SNDA - Brooklyn Gardens” still waits on your reply. Want a brief?"
	if n.Message != want || n.Subject != nudge.MeetingSubject("call-marcy") || n.State != store.NudgeShown {
		t.Fatalf("nudge = %q (%s, %s), want %q", n.Message, n.Subject, n.State, want)
	}
	if shown := w.rec.shown(); len(shown) != 1 || shown[0].ID != n.ID {
		t.Fatalf("shown = %+v, want nudge %d", shown, n.ID)
	}
	var offer nudge.MeetingOffer
	if err := nudge.ReadDetail(n.Detail, &offer); err != nil || !offer.Start.Equal(edtAt(10, 30)) ||
		len(offer.People) != 1 || offer.People[0].Email != "mhoward@greenleafmarkets.com" || len(offer.Threads) != 1 {
		t.Fatalf("offer = %+v, %v", offer, err)
	}

	// Again, a minute later, and after Not now: once per occurrence.
	w.at(edtAt(10, 16))
	w.round(t)
	if _, err := w.c.Answer(context.Background(), n.ID, nudge.Snooze, ""); err != nil {
		t.Fatal(err)
	}
	w.round(t)
	if ns := w.meetingNudges(t); len(ns) != 1 {
		t.Fatalf("after the offer: %d meeting nudges, want 1", len(ns))
	}

	// The call with Luis, who has no open mail: nothing.
	w.at(edtAt(12, 46))
	w.round(t)
	if ns := w.meetingNudges(t); len(ns) != 1 {
		t.Fatalf("meeting without open mail: %d meeting nudges, want 1", len(ns))
	}
}

func TestCalendarWithdrawsOffers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		start    time.Time
		status   string
		answer   string
		reoffers bool // the occurrence is offered again in its new window
	}{
		{"cancelled", edtAt(10, 30), "CANCELLED", withdrawnGone, false},
		{"moved within the window", edtAt(10, 25), "", withdrawnMoved, true},
		{"moved to the afternoon", edtAt(15, 0), "", withdrawnMoved, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newCalendarWorld(t, edtAt(10, 15))
			w.round(t)
			ns := w.meetingNudges(t)
			if len(ns) != 1 {
				t.Fatalf("meeting nudges = %d, want 1", len(ns))
			}
			w.write(t, tc.start, tc.status)
			w.at(edtAt(10, 17))
			w.round(t)
			old, err := w.st.Nudge(context.Background(), ns[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if old.State != store.NudgeExpired || old.Answer != tc.answer {
				t.Fatalf("offer after the change: %s %q, want expired %q", old.State, old.Answer, tc.answer)
			}
			if closed := w.rec.closed(); len(closed) == 0 || closed[len(closed)-1] != old.ID {
				t.Fatalf("withdrawn = %v, want nudge %d", closed, old.ID)
			}
			got := w.meetingNudges(t)
			if tc.reoffers != (len(got) == 2) || len(got) > 2 {
				t.Fatalf("meeting nudges = %d, reoffer %v", len(got), tc.reoffers)
			}
			if tc.reoffers && (!strings.Contains(got[1].Message, "in 8 min") || got[1].Subject != old.Subject) {
				t.Fatalf("new offer = %q (%s)", got[1].Message, got[1].Subject)
			}
			if tc.name == "moved to the afternoon" {
				w.at(edtAt(14, 46))
				w.round(t)
				if got := w.meetingNudges(t); len(got) != 2 || !strings.Contains(got[1].Message, "in 14 min") {
					t.Fatalf("in its new window: %d meeting nudges", len(got))
				}
			}
		})
	}
}

func TestCalendarBriefWithoutProvider(t *testing.T) {
	w := newCalendarWorld(t, edtAt(10, 15))
	w.round(t)
	ns := w.meetingNudges(t)
	if len(ns) != 1 {
		t.Fatalf("meeting nudges = %d, want 1", len(ns))
	}
	if _, err := w.c.Answer(context.Background(), ns[0].ID, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	var brief *store.Nudge
	for _, n := range w.rec.shown() {
		if n.Kind == nudge.KindInfo {
			brief = &n
		}
	}
	if brief == nil {
		t.Fatal("no brief shown")
	}
	// The brief is a kept document, brought in the bubble whole.
	var ref nudge.DocumentRef
	if err := nudge.ReadDetail(brief.Detail, &ref); err != nil || ref.Document == 0 || ref.Title != "Brief: Call with Marcy Howard re SNDA" {
		t.Fatalf("brief nudge detail %q: %v", brief.Detail, err)
	}
	doc, err := w.st.Document(context.Background(), ref.Document)
	if err != nil || doc.Markdown != ref.Markdown || doc.Agent != "" || doc.Origin != fmt.Sprintf("nudge-%d", ns[0].ID) {
		t.Fatalf("kept document %+v, %v; the nudge brought %+v", doc, err, ref)
	}
	for _, want := range []string{
		"# Brief: Call with Marcy Howard re SNDA",
		"Marcy Howard <mhoward@greenleafmarkets.com>",
		"“SNDA - Brooklyn Gardens” — Marcy Howard, Tue 16 Jun 09:15",
		"“Can you take a first pass and tell me what you would push back on?”",
		"## Last contact\n\n- Marcy Howard: Tue 16 Jun 09:15",
	} {
		if !strings.Contains(doc.Markdown, want) {
			t.Errorf("brief lacks %q:\n%s", want, doc.Markdown)
		}
	}
	if brief.Subject != ns[0].Subject {
		t.Errorf("brief subject %q, want %q", brief.Subject, ns[0].Subject)
	}
}

// The lawyer's pacing holds a meeting offer back; once it allows, the
// offer comes, still once.
func TestCalendarOfferIsPaced(t *testing.T) {
	w := newCalendarWorld(t, edtAt(10, 15))
	setQuietHours(t, w.c, settings.QuietHours{}, 0)
	w.round(t)
	if ns := w.meetingNudges(t); len(ns) != 0 {
		t.Fatalf("with a cap of 0: %d meeting nudges", len(ns))
	}
	setQuietHours(t, w.c, settings.QuietHours{}, 1)
	w.at(edtAt(10, 16))
	w.round(t)
	w.round(t)
	ns := w.meetingNudges(t)
	if len(ns) != 1 {
		t.Fatalf("with a cap of 1: %d meeting nudges, want 1", len(ns))
	}
	// Each offer is a run of the work runner's calendar source, with its
	// one outcome; an occurrence offered already asks for no run.
	runs, err := w.st.WorkRuns(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%s %s %s nudge=%v", r.Source, r.State, r.Reason, r.NudgeID == ns[0].ID))
	}
	want := []string{"calendar done  nudge=true", "calendar skip hourly-cap nudge=false"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("work runs %q, want %q", got, want)
	}
}

// With a provider, Brief me starts a task agent whose input is the brief
// Spirit wrote from the index; no brief is shown by code.
func TestCalendarBriefStartsAnAgent(t *testing.T) {
	// The keychain is the file one, in the test's own directory.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	w := newCalendarWorld(t, edtAt(10, 15))
	ctx := context.Background()
	srv := scripted.New(t)
	sec, err := secrets.Open(filepath.Dir(w.st.Path()))
	if err != nil {
		t.Fatal(err)
	}
	if err := setup.Save(ctx, w.st, sec, setup.Settings{Kind: setup.Anthropic, BaseURL: srv.URL()}, "sk-test"); err != nil {
		t.Fatal(err)
	}
	w.round(t)
	ns := w.meetingNudges(t)
	if len(ns) != 1 {
		t.Fatalf("meeting nudges = %d, want 1", len(ns))
	}
	if _, err := w.c.Answer(ctx, ns[0].ID, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	ts, err := task.List(ctx, w.st, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].Origin != fmt.Sprintf("nudge-%d", ns[0].ID) ||
		!strings.Contains(ts[0].Prompt, "“Can you take a first pass and tell me what you would push back on?”") ||
		!strings.Contains(ts[0].Prompt, "Write a short brief") || ts[0].Context.Document != "Brief: Call with Marcy Howard re SNDA" {
		t.Fatalf("tasks = %+v", ts)
	}
	for _, n := range w.rec.shown() {
		if n.Kind == nudge.KindInfo {
			t.Fatalf("an info nudge was shown: %q", n.Message)
		}
	}
}

func TestRecheckOffer(t *testing.T) {
	me := calendar.Me{Name: "Dana", Addresses: []string{"dana@x.com"}}
	marcy := calendar.Person{Email: "marcy@y.com", Name: "Marcy", PartStat: calendar.PartStatAccepted}
	occ := calendar.Occurrence{UID: "u", Start: edtAt(10, 30), End: edtAt(11, 0), Attendees: []calendar.Person{marcy}}
	was := nudge.MeetingOffer{Key: "u", Start: edtAt(10, 30), End: edtAt(11, 0)}
	moved := occ
	moved.Start, moved.End = edtAt(10, 40), edtAt(11, 10)
	longer := occ
	longer.End = edtAt(11, 30)
	cancelled := occ
	cancelled.Status = calendar.StatusCancelled
	declined := occ
	declined.Attendees = []calendar.Person{marcy, {Email: "dana@x.com", PartStat: calendar.PartStatDeclined}}
	for _, tc := range []struct {
		name string
		occs []calendar.Occurrence
		was  nudge.MeetingOffer
		now  time.Time
		want string
	}{
		{"unchanged", []calendar.Occurrence{occ}, was, edtAt(10, 20), ""},
		{"started, not over", []calendar.Occurrence{occ}, was, edtAt(10, 45), ""},
		{"over", []calendar.Occurrence{occ}, was, edtAt(11, 0), withdrawnOver},
		{"moved", []calendar.Occurrence{moved}, was, edtAt(10, 20), withdrawnMoved},
		{"made longer", []calendar.Occurrence{longer}, was, edtAt(10, 20), withdrawnMoved},
		{"cancelled", []calendar.Occurrence{cancelled}, was, edtAt(10, 20), withdrawnGone},
		{"declined", []calendar.Occurrence{declined}, was, edtAt(10, 20), withdrawnGone},
		{"removed", nil, was, edtAt(10, 20), withdrawnGone},
		{"detail unreadable: only gone counts", []calendar.Occurrence{moved}, nudge.MeetingOffer{}, edtAt(10, 20), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recheckOffer("u", tc.was, me, tc.occs, tc.now); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestOfferedIgnoresCalendarWithdrawals(t *testing.T) {
	s := nudge.MeetingSubject("k")
	for _, tc := range []struct {
		name string
		all  []store.Nudge
		want bool
	}{
		{"none", nil, false},
		{"shown", []store.Nudge{{Subject: s, State: store.NudgeShown}}, true},
		{"dismissed", []store.Nudge{{Subject: s, State: store.NudgeDismissed}}, true},
		{"expired by the lawyer's undo", []store.Nudge{{Subject: s, State: store.NudgeExpired}}, true},
		{"withdrawn as moved", []store.Nudge{{Subject: s, State: store.NudgeExpired, Answer: withdrawnMoved}}, false},
		{"withdrawn, then offered again", []store.Nudge{{Subject: s, State: store.NudgeExpired, Answer: withdrawnMoved},
			{Subject: s, State: store.NudgeShown}}, true},
		{"another meeting", []store.Nudge{{Subject: nudge.MeetingSubject("other"), State: store.NudgeShown}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := offered(tc.all, s); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCalendarHealth: /health says how many calendars there are and names
// one whose last sync failed, with the reason, whether or not the part runs.
func TestCalendarHealth(t *testing.T) {
	tests := []struct {
		name      string
		add       []string // calendar names to add
		failing   string   // the name of one that failed, or ""
		wantState string
		wantIn    string
	}{
		{"none yet", nil, "", "none", "spirit calendar add"},
		{"one, never synced", []string{"Work"}, "", "ok", "1 calendar, not yet synced"},
		{"one failed", []string{"Work", "Court dates"}, "Court dates", "error", "Court dates: The server refused the user name or password. Check them (many providers want an app password), then remove the calendar and add it again. (401 Unauthorized)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, st := newTestCore(t, t.TempDir())
			ctx := t.Context()
			for _, name := range tt.add {
				cal, err := st.AddCalendar(ctx, store.Calendar{Kind: "file", Source: "/tmp/" + name + ".ics", Name: name})
				if err != nil {
					t.Fatal(err)
				}
				if name == tt.failing {
					if err := st.SetCalendarError(ctx, cal.ID, "401 Unauthorized"); err != nil {
						t.Fatal(err)
					}
				}
			}
			h := c.Health(ctx)
			got := h.Subsystems["calendars"]
			if got.State != tt.wantState || !strings.Contains(got.Detail, tt.wantIn) {
				t.Errorf("calendars = %+v, want state %q with %q", got, tt.wantState, tt.wantIn)
			}
			if h.Counters["calendars"] != int64(len(tt.add)) {
				t.Errorf("calendars counter = %d, want %d", h.Counters["calendars"], len(tt.add))
			}
		})
	}
}
