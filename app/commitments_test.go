package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/voice/commit"
)

// est is the lawyer's zone in these tests; mon is a Monday morning.
var (
	est = time.FixedZone("EST", -5*3600)
	mon = time.Date(2030, 3, 11, 10, 0, 0, 0, est)
)

func estAt(day, hour, minute int) time.Time { return time.Date(2030, 3, day, hour, minute, 0, 0, est) }

// testClock is the one clock of a test Spirit: the core's, the store's.
// It stands still at t unless wall is set: then it runs with the wall
// clock, ahead of it by what Advance added.
type testClock struct {
	mu    sync.Mutex
	t     time.Time
	wall  bool
	ahead time.Duration
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wall {
		return time.Now().Add(c.ahead)
	}
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.ahead += d
}

// newClockedCore builds Spirit whole on a fresh store whose clock, like
// the core's, is clock: pacing compares the two.
func newClockedCore(t *testing.T, clock *testClock) (*Core, *store.Store) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	st.Now = clock.Now
	p, err := build(ctx, partsConfig{Store: st, DataDir: dir, Version: "test", Now: clock.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.close)
	return p.core, st
}

// hear says each utterance to c, the clock moving on by gap before each.
func hear(t *testing.T, c *Core, clock *testClock, gap time.Duration, utterances ...string) {
	t.Helper()
	for _, u := range utterances {
		clock.Advance(gap)
		if _, err := c.Heard(context.Background(), u, clock.Now()); err != nil {
			t.Fatalf("Heard(%q): %v", u, err)
		}
	}
}

func nudgesOf(t *testing.T, st *store.Store, kind string) []store.Nudge {
	t.Helper()
	all, err := st.Nudges(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Nudge
	for _, n := range all {
		if n.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

func openCommitments(t *testing.T, c *Core) []store.Commitment {
	t.Helper()
	cs, err := c.OpenCommitments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func setQuietHours(t *testing.T, c *Core, q settings.QuietHours, perHour int) {
	t.Helper()
	if _, err := c.UpdateSettings(context.Background(), "test", func(s *settings.Settings) {
		s.GlanceQuietHours, s.GlanceMaxPerHour = q, perHour
	}); err != nil {
		t.Fatal(err)
	}
}

// TestHeardCommitments: what the lawyer says on a call, heard utterance by
// utterance, gives exactly the offers and open commitments it should.
func TestHeardCommitments(t *testing.T) {
	redline := "You said you'd send the revised redline by Friday. Remind you Friday at 9:00 AM?"
	for _, tc := range []struct {
		name       string
		setup      func(t *testing.T, c *Core, st *store.Store, clock *testClock)
		heard      []string
		gap        time.Duration
		offers     []string // commitment nudges' messages
		open       []string // open commitments' tasks, latest first
		reminders  int      // reminders that exist afterwards
		worldLine  string   // a line the world log must hold, if any
		noWorldArg string   // a word the world log must not hold, if any
	}{
		{name: "a dated commitment is offered once, in words",
			heard:  []string{"so where are we on the Halcyon lease amendment", "okay I'll send you the revised redline by Friday"},
			offers: []string{redline}, worldLine: "heard: send the revised redline, by Friday"},
		{name: "said twice in the call, offered once",
			heard: []string{"okay I'll send you the revised redline by Friday", "right, the rent review clause too",
				"yes so the revised redline by Friday, I'll send it over"},
			offers: []string{redline}},
		{name: "said again an hour later, still once",
			heard: []string{"okay I'll send you the revised redline by Friday", "okay, I'll send the revised redline by Friday"},
			gap:   time.Hour, offers: []string{redline}},
		{name: "a spoken command makes its own reminder and no offer",
			heard:     []string{"remind me to send the revised redline on Friday"},
			reminders: 1},
		{name: "a commitment after the command for it is not offered again",
			heard:     []string{"remind me to send the revised redline on Friday", "okay I'll send you the revised redline by Friday"},
			reminders: 1, worldLine: "not offered: " + notOfferedCovered},
		{name: "an hour before an afternoon deadline",
			heard:  []string{"I'll call Bettina back by 3"},
			offers: []string{"You said you'd call Bettina back by 3:00 PM. Remind you at 2:00 PM?"}},
		{name: "no time: an open commitment, no nudge",
			heard: []string{"I'll look into the estoppel question"},
			open:  []string{"look into the estoppel question"}, worldLine: "heard, no time: look into the estoppel question"},
		{name: "the open one said again with a time is offered and leaves the list",
			heard:     []string{"I'll look into the estoppel question", "actually I'll look into the estoppel question tonight"},
			offers:    []string{"You said you'd look into the estoppel question by 8:00 PM. Remind you at 7:00 PM?"},
			worldLine: "said again with a time"},
		{name: "others' promises, questions, refusals and the past stay silent",
			heard: []string{"she'll send it by Friday", "can you send me the redline by Friday?",
				"I can't get it to you by Friday", "I already sent the estoppel on Friday"},
			noWorldArg: "redline"},
		{name: "words for Spirit are not a commitment",
			heard: []string{"hey spirit, I'll send the revised redline by Friday"}},
		{name: "quiet hours: kept and listed, not offered",
			setup: func(t *testing.T, c *Core, _ *store.Store, _ *testClock) {
				setQuietHours(t, c, settings.QuietHours{From: 9, To: 18, On: true}, 4)
			},
			heard: []string{"okay I'll send you the revised redline by Friday"},
			open:  []string{"send the revised redline"}, worldLine: "not offered: quiet-hours (gate)"},
		{name: "the hourly cap the glance shares",
			setup: func(t *testing.T, c *Core, st *store.Store, _ *testClock) {
				setQuietHours(t, c, settings.QuietHours{}, 1)
				if _, err := st.CreateNudge(context.Background(), store.Nudge{Kind: nudge.KindGlance, Message: "Marcy is waiting"}); err != nil {
					t.Fatal(err)
				}
			},
			heard: []string{"okay I'll send you the revised redline by Friday"},
			open:  []string{"send the revised redline"}, worldLine: "not offered: hourly-cap (gate)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &testClock{t: mon}
			c, st := newClockedCore(t, clock)
			if tc.setup != nil {
				tc.setup(t, c, st, clock)
			}
			rec := record(c)
			gap := tc.gap
			if gap == 0 {
				gap = 20 * time.Second
			}
			hear(t, c, clock, gap, tc.heard...)

			var offers []string
			for _, n := range nudgesOf(t, st, nudge.KindCommitment) {
				offers = append(offers, n.Message)
			}
			if strings.Join(offers, "|") != strings.Join(tc.offers, "|") {
				t.Errorf("offers %q, want %q", offers, tc.offers)
			}
			var shown int
			for _, n := range rec.shown() {
				if n.Kind == nudge.KindCommitment {
					shown++
				}
			}
			if shown != len(tc.offers) {
				t.Errorf("%d commitment bubbles shown, want %d", shown, len(tc.offers))
			}
			var open []string
			for _, cm := range openCommitments(t, c) {
				open = append(open, cm.Task)
				if cm.Words == "" {
					t.Errorf("open commitment %q lost its words", cm.Task)
				}
			}
			if strings.Join(open, "|") != strings.Join(tc.open, "|") {
				t.Errorf("open commitments %q, want %q", open, tc.open)
			}
			rs, err := c.Reminders(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != tc.reminders {
				t.Errorf("%d reminders, want %d: %+v", len(rs), tc.reminders, rs)
			}
			log := worldLog(t, st)
			if tc.worldLine != "" && len(mentions(log, tc.worldLine)) == 0 {
				t.Errorf("world log lacks %q", tc.worldLine)
			}
			if tc.noWorldArg != "" && len(mentions(log, tc.noWorldArg)) != 0 {
				t.Errorf("world log mentions %q: %+v", tc.noWorldArg, mentions(log, tc.noWorldArg))
			}
		})
	}
}

// TestCorrectedCommitment: a promise whose day the lawyer corrects a
// moment later ("…by Friday." "Actually, make that Monday.") is offered
// with the corrected day; the first offer is withdrawn from the screen and
// its commitment superseded, so the lawyer is asked once, about the day
// they settled on.
func TestCorrectedCommitment(t *testing.T) {
	clock := &testClock{t: mon}
	c, st := newClockedCore(t, clock)
	rec := record(c)
	hear(t, c, clock, 20*time.Second, "okay I'll send you the revised redline by Friday",
		"actually, make that Monday, I'm in court on Friday")

	ns := nudgesOf(t, st, nudge.KindCommitment)
	if len(ns) != 2 {
		t.Fatalf("%d commitment nudges, want the first and the corrected one: %+v", len(ns), ns)
	}
	first, second := ns[0], ns[1]
	if first.ID > second.ID {
		first, second = second, first
	}
	if first.State != store.NudgeExpired || !strings.Contains(first.Message, "Friday") {
		t.Errorf("first offer %q is %s, want Friday's offer expired", first.Message, first.State)
	}
	if second.State != store.NudgeShown || !strings.Contains(second.Message, "Mon Mar 18") {
		t.Errorf("corrected offer %q is %s, want Monday's offer shown", second.Message, second.State)
	}
	if closed := rec.closed(); len(closed) != 1 || closed[0] != first.ID {
		t.Errorf("withdrawn from the screen: %v, want nudge %d", closed, first.ID)
	}
	key, _ := nudge.CommitmentKey(first.Subject)
	old, err := st.CommitmentByKey(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if old.State != store.CommitmentSuperseded {
		t.Errorf("the corrected commitment is %s, want superseded", old.State)
	}
	if len(mentions(worldLog(t, st), "corrected by")) == 0 {
		t.Error("the world log does not say the commitment was corrected")
	}
}

// TestCommitmentOpenKeepsTheWords: an open commitment lists the words it
// came from even after the transcript is purged.
func TestCommitmentOpenKeepsTheWords(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{t: mon}
	c, st := newClockedCore(t, clock)
	said := "um, I'll look into the estoppel question for you"
	hear(t, c, clock, time.Second, said)
	if _, err := st.PurgeTranscripts(ctx, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	ts, err := st.Transcripts(ctx, 10)
	if err != nil || len(ts) != 0 {
		t.Fatalf("transcripts after purge: %+v, %v", ts, err)
	}
	open := openCommitments(t, c)
	if len(open) != 1 || open[0].Words != said || open[0].Deadline != nil || !open[0].Heard.Equal(clock.Now()) {
		t.Fatalf("open commitments %+v", open)
	}
}

// TestCommitmentAnswers: what the lawyer answers in the bubble.
func TestCommitmentAnswers(t *testing.T) {
	friday9 := estAt(15, 9, 0)
	for _, tc := range []struct {
		name, choice, text string
		due                *time.Time // the reminder's due; nil: no reminder
		waiting            bool       // a reminder that waits for its time
		followUp           string     // the kind of nudge that follows, if any
		state              store.CommitmentState
	}{
		{name: "Set: at the time offered", choice: nudge.Accept, due: &friday9, state: store.CommitmentReminded},
		{name: "typed: Thursday at 4 instead", choice: nudge.Reply, text: "Thursday at 4 instead",
			due: ptr(estAt(14, 16, 0)), followUp: nudge.KindReminderConfirm, state: store.CommitmentReminded},
		{name: "typed: an hour earlier on the day", choice: nudge.Reply, text: "at 8 instead",
			due: ptr(estAt(15, 8, 0)), followUp: nudge.KindReminderConfirm, state: store.CommitmentReminded},
		{name: "typed words with no time: asks when", choice: nudge.Reply, text: "whenever suits",
			waiting: true, followUp: nudge.KindReminderWhen, state: store.CommitmentReminded},
		{name: "Change time: asks when", choice: nudge.Change,
			waiting: true, followUp: nudge.KindReminderWhen, state: store.CommitmentReminded},
		{name: "Not now: the offer stands", choice: nudge.Snooze, state: store.CommitmentOffered},
		{name: "Dismiss: nothing", choice: nudge.Dismiss, state: store.CommitmentDismissed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			clock := &testClock{t: mon}
			c, st := newClockedCore(t, clock)
			hear(t, c, clock, time.Minute, "okay I'll send you the revised redline by Friday")
			offers := nudgesOf(t, st, nudge.KindCommitment)
			if len(offers) != 1 {
				t.Fatalf("%d offers", len(offers))
			}
			clock.Advance(time.Minute)
			if _, err := c.Answer(ctx, offers[0].ID, tc.choice, tc.text); err != nil {
				t.Fatal(err)
			}
			rs, err := c.Reminders(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.due == nil && !tc.waiting:
				if len(rs) != 0 {
					t.Fatalf("reminders %+v, want none", rs)
				}
			case len(rs) != 1 || rs[0].Task != "send the revised redline":
				t.Fatalf("reminders %+v, want one to send the revised redline", rs)
			case tc.waiting && (rs[0].Due != nil || rs[0].State != store.ReminderAwaitingTime):
				t.Fatalf("reminder %+v, want one waiting for its time", rs[0])
			case tc.due != nil && (rs[0].Due == nil || !rs[0].Due.Equal(*tc.due)):
				t.Fatalf("reminder due %v, want %v", rs[0].Due, *tc.due)
			}
			if tc.followUp != "" {
				f := nudgesOf(t, st, tc.followUp)
				if len(f) != 1 || (len(rs) == 1 && f[0].Subject != nudge.ReminderSubject(rs[0].ID)) {
					t.Errorf("follow-up %s nudges %+v", tc.followUp, f)
				}
			}
			if len(nudgesOf(t, st, nudge.KindInfo)) != 0 {
				t.Errorf("an error reached the lawyer: %+v", nudgesOf(t, st, nudge.KindInfo))
			}
			sc, err := st.CommitmentByKey(ctx, mustKey(t, offers[0]))
			if err != nil || sc.State != tc.state {
				t.Fatalf("commitment %+v, %v; want state %s", sc, err, tc.state)
			}

			// Said again later, outside the call's window: never offered twice.
			hear(t, c, clock, 2*time.Hour, "yes, I'll send you the revised redline by Friday")
			if n := len(nudgesOf(t, st, nudge.KindCommitment)); n != 1 {
				t.Errorf("%d commitment offers after it was said again, want 1", n)
			}
		})
	}
}

func mustKey(t *testing.T, n store.Nudge) string {
	t.Helper()
	k, ok := nudge.CommitmentKey(n.Subject)
	if !ok {
		t.Fatalf("nudge subject %q names no commitment", n.Subject)
	}
	return k
}

func ptr[T any](v T) *T { return &v }

// TestSetReminderFires: Set makes a reminder that the scheduler fires.
// The promise was heard two hours ago and answered late, so the time
// offered has come and the reminder fires at once.
func TestSetReminderFires(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &testClock{t: time.Now().In(est).Add(-2 * time.Hour)}
	c, st := newClockedCore(t, clock)
	rec := record(c)
	hear(t, c, clock, time.Second, "I'll call Bettina back in two hours")
	offers := nudgesOf(t, st, nudge.KindCommitment)
	if len(offers) != 1 {
		t.Fatalf("%d offers", len(offers))
	}
	var offer nudge.CommitmentOffer
	if err := nudge.ReadDetail(offers[0].Detail, &offer); err != nil || !offer.RemindAt.Equal(offer.Deadline.Add(-time.Hour)) {
		t.Fatalf("offer %+v, %v", offer, err)
	}
	clock.Advance(2 * time.Hour)
	if _, err := c.Answer(ctx, offers[0].ID, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.rem.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, n := range rec.shown() {
			if n.Kind == nudge.KindReminder && strings.Contains(n.Message, "call Bettina back") {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the reminder set for %v never fired; shown %+v", offer.RemindAt, rec.shown())
}

func TestCommitmentsFromTheRemindersWindow(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{t: mon}
	c, st := newClockedCore(t, clock)
	hear(t, c, clock, time.Second, "I'll look into the estoppel question", "and I'll check the title commitment")
	open := openCommitments(t, c)
	if len(open) != 2 {
		t.Fatalf("open %+v", open)
	}
	at := estAt(12, 10, 0)
	r, err := c.RemindCommitment(ctx, open[0].ID, at)
	if err != nil || !r.Due.Equal(at) || r.Task != open[0].Task {
		t.Fatalf("remind: %+v, %v", r, err)
	}
	if err := c.CommitmentDone(ctx, open[1].ID); err != nil {
		t.Fatal(err)
	}
	if left := openCommitments(t, c); len(left) != 0 {
		t.Fatalf("still open: %+v", left)
	}
	if err := c.CommitmentDone(ctx, open[1].ID); err == nil {
		t.Fatal("done twice: no error")
	}
	if got, _ := st.Commitment(ctx, open[0].ID); got.State != store.CommitmentReminded || got.ReminderID != r.ID {
		t.Fatalf("reminded commitment %+v", got)
	}
}

func TestRemindAt(t *testing.T) {
	for _, tc := range []struct {
		name            string
		deadline, heard time.Time
		want            time.Time
	}{
		{"by Friday: the start of that day", estAt(15, 9, 0), mon, estAt(15, 9, 0)},
		{"tomorrow morning: at 9", estAt(12, 9, 0), mon, estAt(12, 9, 0)},
		{"by 3 today: an hour before", estAt(11, 15, 0), mon, estAt(11, 14, 0)},
		{"end of day: an hour before", estAt(11, 17, 0), mon, estAt(11, 16, 0)},
		{"Friday at 4: an hour before", estAt(15, 16, 0), mon, estAt(15, 15, 0)},
		{"by 9 today, said at 7: an hour before", estAt(11, 9, 0), estAt(11, 7, 0), estAt(11, 8, 0)},
		{"in an hour: in half an hour", estAt(11, 11, 0), mon, estAt(11, 10, 30)},
		{"in an hour, said mid-minute: on the minute", estAt(11, 11, 0), mon.Add(30 * time.Second), estAt(11, 10, 30)},
		{"in ten minutes: in five", estAt(11, 10, 10), mon, estAt(11, 10, 5)},
		{"in a minute: the deadline", estAt(11, 10, 1), mon, estAt(11, 10, 1)},
		{"past: the deadline", estAt(11, 9, 0), mon, estAt(11, 9, 0)},
		{"9:30 on a later day: an hour before", estAt(12, 9, 30), mon, estAt(12, 8, 30)},
		{"heard in another zone", estAt(15, 9, 0), mon.UTC(), estAt(15, 9, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RemindAt(tc.deadline, tc.heard); !got.Equal(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOfferMessage(t *testing.T) {
	for _, tc := range []struct {
		name                    string
		deadline, remindAt, now time.Time
		want                    string
	}{
		{"by Friday", estAt(15, 9, 0), estAt(15, 9, 0), mon,
			"You said you'd send it by Friday. Remind you Friday at 9:00 AM?"},
		{"by tomorrow", estAt(12, 9, 0), estAt(12, 9, 0), mon,
			"You said you'd send it by tomorrow. Remind you tomorrow at 9:00 AM?"},
		{"today at 3", estAt(11, 15, 0), estAt(11, 14, 0), mon,
			"You said you'd send it by 3:00 PM. Remind you at 2:00 PM?"},
		{"Friday at 4", estAt(15, 16, 0), estAt(15, 15, 0), mon,
			"You said you'd send it by Friday at 4:00 PM. Remind you Friday at 3:00 PM?"},
		{"tomorrow at noon", estAt(12, 12, 0), estAt(12, 11, 0), mon,
			"You said you'd send it by tomorrow at 12:00 PM. Remind you tomorrow at 11:00 AM?"},
		{"more than a week ahead", estAt(25, 9, 0), estAt(25, 9, 0), mon,
			"You said you'd send it by Mon Mar 25. Remind you Mon Mar 25 at 9:00 AM?"},
		{"next year", time.Date(2031, 1, 6, 9, 0, 0, 0, est), time.Date(2031, 1, 6, 9, 0, 0, 0, est), mon,
			"You said you'd send it by Mon Jan 6 2031. Remind you Mon Jan 6 2031 at 9:00 AM?"},
		{"in an hour, reminded the day before midnight", estAt(12, 0, 30), estAt(11, 23, 45), estAt(11, 23, 30),
			"You said you'd send it by tomorrow at 12:30 AM. Remind you at 11:45 PM?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := OfferMessage("send it", tc.deadline, tc.remindAt, tc.now); got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestCoveredBy(t *testing.T) {
	cm := commit.Commitment{Task: "send the revised redline", Deadline: estAt(15, 9, 0), HasTime: true}
	id := int64(0)
	rem := func(task string, due *time.Time, state store.ReminderState) store.Reminder {
		id++
		return store.Reminder{ID: id, Task: task, Due: due, State: state}
	}
	other := rem("call Marcy Howard", ptr(estAt(15, 9, 0)), store.ReminderPending)
	for _, tc := range []struct {
		name string
		rs   []store.Reminder
		want int // the index in rs of the covering reminder; -1: none
	}{
		{"none", nil, -1},
		{"the same task, at the deadline", []store.Reminder{other, rem("send the revised redline", ptr(estAt(15, 9, 0)), store.ReminderPending)}, 1},
		{"the same thing in other words, earlier", []store.Reminder{rem("email Marcy the redline", ptr(estAt(14, 16, 0)), store.ReminderPending)}, 0},
		{"waiting for its time", []store.Reminder{rem("send the revised redline", nil, store.ReminderAwaitingTime)}, 0},
		{"another task", []store.Reminder{other}, -1},
		{"fires after the deadline", []store.Reminder{rem("send the revised redline", ptr(estAt(15, 10, 0)), store.ReminderPending)}, -1},
		{"fired before it was said", []store.Reminder{rem("send the revised redline", ptr(estAt(11, 9, 0)), store.ReminderFired)}, -1},
		{"done", []store.Reminder{rem("send the revised redline", ptr(estAt(15, 9, 0)), store.ReminderDone)}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := coveredBy(cm, mon, tc.rs)
			switch {
			case tc.want < 0 && ok:
				t.Fatalf("covered by %+v, want none", got)
			case tc.want >= 0 && (!ok || got.ID != tc.rs[tc.want].ID):
				t.Fatalf("got %+v, %v; want %+v", got, ok, tc.rs[tc.want])
			}
		})
	}
}

func TestRecentSpeech(t *testing.T) {
	u := func(ago time.Duration) commit.Utterance {
		return commit.Utterance{Text: ago.String(), End: mon.Add(-ago)}
	}
	many := make([]commit.Utterance, 0, 40)
	for i := 40; i > 0; i-- {
		many = append(many, u(time.Duration(i)*time.Second))
	}
	for _, tc := range []struct {
		name  string
		all   []commit.Utterance
		first string
		n     int
	}{
		{"none", nil, "", 0},
		{"within the window", []commit.Utterance{u(4 * time.Minute), u(time.Second)}, "4m0s", 2},
		{"older ones go", []commit.Utterance{u(6 * time.Minute), u(5 * time.Minute), u(time.Minute)}, "1m0s", 1},
		{"at most the bound, room for the new one", many, "31s", recentSpeechMax - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := recentSpeech(tc.all, mon)
			if len(got) != tc.n || (tc.n > 0 && got[0].Text != tc.first) {
				t.Fatalf("got %d from %v, want %d from %s", len(got), got, tc.n, tc.first)
			}
		})
	}
}

// TestHeardCommitmentTravelsToABubble follows speech through the running
// parts: utterances on the stream, as the voice pipeline publishes them,
// reach the commands part, and the commitment in them reaches a front end
// as one bubble; Set makes the reminder.
func TestHeardCommitmentTravelsToABubble(t *testing.T) {
	ctx := context.Background()
	p, st, front := runningParts(t, events.NudgeShown)

	at := time.Now()
	for i, text := range []string{"so where are we on the Halcyon lease amendment",
		"okay I'll send you the revised redline by Friday", "yes the revised redline by Friday, I'll send it over"} {
		p.bus.Log(events.UtteranceHeard, events.Utterance{Text: text, At: at.Add(time.Duration(i) * 10 * time.Second)})
	}
	var offer store.Nudge
	select {
	case ev := <-front.C():
		offer = ev.Data.(store.Nudge)
	case <-time.After(20 * time.Second):
		t.Fatal("no bubble for the commitment")
	}
	if offer.Kind != nudge.KindCommitment || !strings.HasPrefix(offer.Message, "You said you'd send the revised redline by ") {
		t.Fatalf("bubble %+v, want the commitment's offer", offer)
	}
	// The commands part handles utterances in order: once a promise said
	// after the repeat is offered, the repeat has been heard.
	p.bus.Log(events.UtteranceHeard, events.Utterance{Text: "I'll call Bettina back by 3", At: at.Add(time.Minute)})
	deadline := time.Now().Add(20 * time.Second)
	for len(nudgesOf(t, st, nudge.KindCommitment)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the promise after the repeat was not offered: %+v", nudgesOf(t, st, nudge.KindCommitment))
		}
		time.Sleep(20 * time.Millisecond) // polling interval, not synchronisation
	}
	var redline int
	for _, n := range nudgesOf(t, st, nudge.KindCommitment) {
		if strings.Contains(n.Message, "redline") {
			redline++
		}
	}
	if redline != 1 {
		t.Fatalf("%d offers for the redline, want 1", redline)
	}
	if _, err := p.core.Answer(ctx, offer.ID, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	rs, err := p.core.Reminders(ctx)
	if err != nil || len(rs) != 1 || rs[0].Task != "send the revised redline" || rs[0].Due == nil {
		t.Fatalf("reminders %+v, %v", rs, err)
	}
}

// TestListCommitmentsTool: the work runner's model reads the open
// commitments, with their words, and nothing settled.
func TestListCommitmentsTool(t *testing.T) {
	ctx := context.Background()
	clock := &testClock{t: mon}
	c, _ := newClockedCore(t, clock)
	tools := c.commitmentTools()
	if len(tools) != 1 || tools[0].Name() != ListCommitmentsName || tools[0].Tool().Name != ListCommitmentsName {
		t.Fatalf("tools %+v", tools)
	}
	run := func() string {
		t.Helper()
		out, err := tools[0].Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := run(); got != "[]" {
		t.Fatalf("no commitments: %s", got)
	}
	long := "I'll look into the estoppel question" + strings.Repeat(" and the rest", 40)
	hear(t, c, clock, time.Second, "I'll check the title commitment", long)
	setQuietHours(t, c, settings.QuietHours{From: 0, To: 24, On: true}, 4)
	hear(t, c, clock, time.Second, "okay I'll send you the revised redline by Friday")
	open := openCommitments(t, c)
	if len(open) != 3 {
		t.Fatalf("open %+v", open)
	}
	if err := c.CommitmentDone(ctx, open[2].ID); err != nil { // the title commitment
		t.Fatal(err)
	}
	got := run()
	for _, want := range []string{
		`"task":"send the revised redline","heard":"Mon 2030-03-11 10:00 EST","deadline":"Fri 2030-03-15 09:00 EST","words":"okay I'll send you the revised redline by Friday"`,
		`"task":"look into the estoppel question and the rest`,
		`and the rest and…"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "title commitment") {
		t.Errorf("a settled commitment is listed:\n%s", got)
	}
}

// TestBenchAmbientDecide measures what Spirit pays to decide on one
// ambient utterance heard while it runs: the detector against the recent
// speech, then, for a commitment, keeping it, the gates and the offer. The
// utterances are the public ambient cases', heard one after another as a
// day of calls; the figure is the 95th percentile.
func TestBenchAmbientDecide(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs benchmarks")
	}
	b, err := os.ReadFile("../../shared/cases/ambient.jsonl")
	if err != nil {
		t.Skip("shared ambient cases not present")
	}
	var utterances []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c struct{ Utterances []string }
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		utterances = append(utterances, c.Utterances...)
	}
	clock := &testClock{t: mon}
	c, _ := newClockedCore(t, clock)
	ctx := context.Background()
	const rounds = 20
	var took []time.Duration
	for range rounds {
		for _, text := range utterances {
			clock.Advance(15 * time.Second)
			start := time.Now()
			c.hearCommitments(ctx, commit.Utterance{Text: text, End: clock.Now()})
			took = append(took, time.Since(start))
		}
		clock.Advance(24 * time.Hour) // the next day's calls: their promises are new
	}
	slices.Sort(took)
	p95 := took[len(took)*95/100]
	t.Logf("%d utterances: p50 %v, p95 %v, max %v", len(took), took[len(took)/2], p95, took[len(took)-1])
	fmt.Printf("BENCH ambient_decide_us %.0f us\n", float64(p95.Nanoseconds())/1000)
}
