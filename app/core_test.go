package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/voice/listen"
)

func TestSayReachesTheCommandHandlerAndPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, st := newTestCore(t, dir)
	rec := record(c)

	res, err := c.Say(ctx, "Hey Spirit, pause listening.")
	if err != nil {
		t.Fatal(err)
	}
	if res.Intent != "pause_listening" || !res.Handled {
		t.Fatalf("Say = %+v", res)
	}
	if !c.Status().ListeningPaused || c.Status().WatchingPaused {
		t.Fatalf("status %+v", c.Status())
	}
	if len(rec.statuses()) != 1 || rec.statuses()[0].Line() != "Listening paused · Watching" {
		t.Errorf("presenter saw %+v", rec.statuses())
	}
	if h := c.Health(ctx); h.Subsystems["listening"].State != "paused" || h.Counters["say_commands"] != 1 {
		t.Errorf("health %+v", h)
	}
	es, err := st.Recent(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range es {
		texts = append(texts, e.Text)
	}
	if !strings.Contains(strings.Join(texts, "|"), "listening paused") {
		t.Errorf("world log %q lacks the pause", texts)
	}

	// Ambient speech changes nothing.
	if res, _ := c.Say(ctx, "the court will resume at two"); res.Handled || res.Intent != "none" {
		t.Errorf("ambient speech handled: %+v", res)
	}

	// A new Core on the same database starts paused: the toggle persisted.
	st.Close()
	c2, _ := newTestCore(t, dir)
	if !c2.Status().ListeningPaused {
		t.Error("pause not kept across restart")
	}
	if _, err := c2.Say(ctx, "resume"); err != nil {
		t.Fatal(err)
	}
	if c2.Status() != (Status{}) {
		t.Errorf("resume left %+v", c2.Status())
	}
}

func TestNudgeLifecycle(t *testing.T) {
	ctx := context.Background()
	c, _ := newTestCore(t, t.TempDir())
	rec := record(c)

	n, err := c.Notify(ctx, api.NewNudge{Kind: "info", Message: "Filing due at 5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.shown()) != 1 || rec.shown()[0].ID != n.ID {
		t.Fatalf("shown %+v", rec.shown())
	}
	open, err := c.Nudges(ctx)
	if err != nil || len(open) != 1 {
		t.Fatalf("open nudges %+v, %v", open, err)
	}
	got, err := c.RespondNudge(ctx, n.ID, api.ActionAccept, "on it")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.NudgeAccepted || got.Answer != "on it" {
		t.Errorf("answered nudge %+v", got)
	}
	if len(rec.closed()) != 1 || rec.closed()[0] != n.ID {
		t.Errorf("closed %v", rec.closed())
	}
	if _, err := c.RespondNudge(ctx, n.ID, api.ActionDismiss, ""); !errors.Is(err, api.ErrConflict) {
		t.Errorf("second answer: %v, want ErrConflict", err)
	}
	if _, err := c.RespondNudge(ctx, 999, api.ActionDismiss, ""); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("unknown nudge: %v, want ErrNotFound", err)
	}
	if _, err := c.RespondNudge(ctx, n.ID, "delete", ""); !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("bad action: %v, want ErrBadRequest", err)
	}
}

func TestSayRemindConfirmChangeAndCancel(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	rec := record(c)

	res, err := c.Say(ctx, "remind me to call Marcy Howard tomorrow at 3pm")
	if err != nil || res.Intent != "remind" {
		t.Fatalf("Say = %+v, %v", res, err)
	}
	rs, err := st.Reminders(ctx)
	if err != nil || len(rs) != 1 || rs[0].Task != "call Marcy Howard" || rs[0].Due == nil {
		t.Fatalf("reminders %+v, %v", rs, err)
	}
	due := *rs[0].Due
	if due.Hour() != 15 || !due.After(time.Now()) {
		t.Fatalf("due %v, want tomorrow 15:00", due)
	}
	if len(rec.shown()) != 1 || rec.shown()[0].Kind != nudge.KindReminderConfirm ||
		!strings.HasPrefix(rec.shown()[0].Message, "Remind you to call Marcy Howard — tomorrow 3:00 PM") {
		t.Fatalf("confirm bubble %+v", rec.shown())
	}

	// "at 4 instead" typed into the bubble moves it and asks again.
	if _, err := c.Answer(ctx, rec.shown()[0].ID, nudge.Reply, "at 4 instead"); err != nil {
		t.Fatal(err)
	}
	r, _ := st.Reminder(ctx, rs[0].ID)
	if r.Due == nil || r.Due.Hour() != 16 || r.Due.YearDay() != due.YearDay() {
		t.Fatalf("after 'at 4 instead' due = %v, want the same day at 16:00", r.Due)
	}
	if last := rec.shown()[len(rec.shown())-1]; last.Kind != nudge.KindReminderConfirm || !strings.Contains(last.Message, "4:00 PM") {
		t.Fatalf("no new confirmation: %+v", last)
	}

	// "never mind" takes it back and withdraws its open bubble.
	res, err = c.Say(ctx, "never mind")
	if err != nil || !strings.Contains(res.Reply, "Cancelled") {
		t.Fatalf("cancel: %+v, %v", res, err)
	}
	if r, _ := st.Reminder(ctx, rs[0].ID); r.State != store.ReminderCancelled {
		t.Fatalf("state %s, want cancelled", r.State)
	}
	if open, _ := st.Nudges(ctx, store.NudgeShown); len(open) != 0 {
		t.Fatalf("open nudges left: %+v", open)
	}
}

// A snooze said while the confirmation is up puts the bubble off and
// leaves the reminder's time alone: its length ("20") once moved the
// reminder to 8 PM.
func TestSnoozeConfirmationKeepsTheTime(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	record(c) // a front end is listening, as in the app

	if _, err := c.Say(ctx, "remind me to call Marcy Howard tomorrow at 8am"); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Reminders(ctx)
	if err != nil || len(rs) != 1 || rs[0].Due == nil {
		t.Fatalf("reminders %+v, %v", rs, err)
	}
	want := *rs[0].Due
	res, err := c.Say(ctx, "snooze that for 20 minutes")
	if err != nil || res.Intent != "snooze" {
		t.Fatalf("Say = %+v, %v", res, err)
	}
	r, err := st.Reminder(ctx, rs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Due == nil || !r.Due.Equal(want) {
		t.Errorf("due after snoozing the confirmation = %v, want %v", r.Due, want)
	}
	if r.State != store.ReminderPending {
		t.Errorf("state = %s, want pending", r.State)
	}
}

func TestSayRemindWithoutTimeAsksWhen(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	rec := record(c)

	if _, err := c.Say(ctx, "remind me to send Priya the closing checklist"); err != nil {
		t.Fatal(err)
	}
	if len(rec.shown()) != 1 || rec.shown()[0].Kind != nudge.KindReminderWhen {
		t.Fatalf("bubble %+v, want a when-question", rec.shown())
	}
	quick := reminders.QuickTimes(time.Now())
	if len(quick) < 2 || !strings.HasPrefix(nudge.AtChoice(quick[0].At), nudge.AtPrefix) {
		t.Fatalf("quick choices %+v", quick)
	}
	// The bubble's quick choice sets the time.
	if _, err := c.Answer(ctx, rec.shown()[0].ID, nudge.AtChoice(quick[0].At), ""); err != nil {
		t.Fatal(err)
	}
	rs, _ := st.Reminders(ctx)
	if len(rs) != 1 || rs[0].Due == nil || rs[0].State != store.ReminderPending {
		t.Fatalf("reminder %+v", rs)
	}
	// Unintelligible time: asked again, nothing guessed.
	if _, err := c.Say(ctx, "remind me to renew the bar membership"); err != nil {
		t.Fatal(err)
	}
	ask := rec.shown()[len(rec.shown())-1]
	if _, err := c.RespondNudge(ctx, ask.ID, api.ActionAccept, "purple elephants"); err != nil {
		t.Fatal(err)
	}
	if again := rec.shown()[len(rec.shown())-1]; again.Kind != nudge.KindReminderWhen || !strings.Contains(again.Message, "didn't catch a time") {
		t.Fatalf("no second question: %+v", again)
	}
	res, err := c.Say(ctx, "what are my reminders")
	if err != nil || !strings.Contains(res.Reply, "send Priya the closing checklist") {
		t.Fatalf("list: %+v, %v", res, err)
	}
}

func TestStatusLineSaysWhatIsTrue(t *testing.T) {
	for _, tt := range []struct {
		st   Status
		want string
	}{
		{Status{}, "Starting · Watching"},
		{Status{Voice: listen.Capturing, Watch: "on"}, "Listening · Watching"},
		{Status{Voice: "no speech model", Watch: "on"}, "No speech model · Watching"},
		{Status{Voice: listen.Capturing, Watch: "unavailable"}, "Listening · Not watching"},
		{Status{Voice: listen.Capturing, Watch: "error", WatchingPaused: true}, "Listening · Watching paused"},
		{Status{ListeningPaused: true, WatchingPaused: true}, "Paused: not listening or watching"},
		{Status{Voice: listen.Capturing, Watch: "on", Mail: "Syncing mail 120/500"}, "Listening · Watching · Syncing mail 120/500"},
		{Status{Voice: listen.Capturing, Watch: "on", Failing: "Mail, Email check"}, "Listening · Watching · Mail, Email check: trouble, retrying"},
	} {
		if got := tt.st.Line(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.st, got, tt.want)
		}
	}
}
