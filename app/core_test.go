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
	if res.Intent != "pause_listening" {
		t.Fatalf("Say intent = %q, want pause_listening (%+v)", res.Intent, res)
	}
	if !res.Handled {
		t.Fatalf("Say handled = false, want true (%+v)", res)
	}
	if got := c.Status(); !got.ListeningPaused {
		t.Fatalf("status ListeningPaused = false, want true (%+v)", got)
	}
	if got := c.Status(); got.WatchingPaused {
		t.Fatalf("status WatchingPaused = true, want false (%+v)", got)
	}
	if got := rec.statuses(); len(got) != 1 {
		t.Errorf("presenter saw %d statuses, want 1: %+v", len(got), got)
	} else if line := got[0].Line(); line != "Listening paused · Watching" {
		t.Errorf("presenter status line = %q, want %q", line, "Listening paused · Watching")
	}
	h := c.Health(ctx)
	if got := h.Subsystems["listening"].State; got != "paused" {
		t.Errorf("health listening state = %q, want paused (%+v)", got, h)
	}
	if got := h.Counters["say_commands"]; got != 1 {
		t.Errorf("health say_commands = %d, want 1 (%+v)", got, h)
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
	ambient, _ := c.Say(ctx, "the court will resume at two")
	if ambient.Handled {
		t.Errorf("ambient speech handled = true, want false (%+v)", ambient)
	}
	if ambient.Intent != "none" {
		t.Errorf("ambient speech intent = %q, want none (%+v)", ambient.Intent, ambient)
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
	if got := rec.shown(); len(got) != 1 {
		t.Fatalf("shown %d nudges, want 1: %+v", len(got), got)
	}
	if got := rec.shown()[0].ID; got != n.ID {
		t.Fatalf("shown nudge ID = %d, want %d", got, n.ID)
	}
	open, err := c.Nudges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 {
		t.Fatalf("open nudges = %d, want 1: %+v", len(open), open)
	}
	got, err := c.RespondNudge(ctx, n.ID, api.ActionAccept, "on it")
	if err != nil {
		t.Fatal(err)
	}
	if got.State != store.NudgeAccepted {
		t.Errorf("answered nudge state = %q, want %q", got.State, store.NudgeAccepted)
	}
	if got.Answer != "on it" {
		t.Errorf("answered nudge answer = %q, want %q", got.Answer, "on it")
	}
	if closed := rec.closed(); len(closed) != 1 {
		t.Errorf("closed %d nudges, want 1: %v", len(closed), closed)
	} else if closed[0] != n.ID {
		t.Errorf("closed nudge = %d, want %d", closed[0], n.ID)
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
	if err != nil {
		t.Fatal(err)
	}
	if res.Intent != "remind" {
		t.Fatalf("Say intent = %q, want remind (%+v)", res.Intent, res)
	}
	rs, err := st.Reminders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("reminders = %d, want 1: %+v", len(rs), rs)
	}
	if rs[0].Task != "call Marcy Howard" {
		t.Fatalf("reminder task = %q, want %q", rs[0].Task, "call Marcy Howard")
	}
	if rs[0].Due == nil {
		t.Fatalf("reminder due = nil, want a time (%+v)", rs[0])
	}
	due := *rs[0].Due
	if due.Hour() != 15 {
		t.Fatalf("due hour = %d (%v), want tomorrow 15:00", due.Hour(), due)
	}
	if !due.After(time.Now()) {
		t.Fatalf("due %v is not in the future, want tomorrow 15:00", due)
	}
	shown := rec.shown()
	if len(shown) != 1 {
		t.Fatalf("shown %d bubbles, want 1 confirmation: %+v", len(shown), shown)
	}
	if shown[0].Kind != nudge.KindReminderConfirm {
		t.Fatalf("bubble kind = %q, want %q", shown[0].Kind, nudge.KindReminderConfirm)
	}
	if want := "Remind you to call Marcy Howard — tomorrow 3:00 PM"; !strings.HasPrefix(shown[0].Message, want) {
		t.Fatalf("confirm bubble message = %q, want prefix %q", shown[0].Message, want)
	}

	// "at 4 instead" typed into the bubble moves it and asks again.
	if _, err := c.Answer(ctx, rec.shown()[0].ID, nudge.Reply, "at 4 instead"); err != nil {
		t.Fatal(err)
	}
	r, _ := st.Reminder(ctx, rs[0].ID)
	if r.Due == nil {
		t.Fatal("after 'at 4 instead' due = nil, want the same day at 16:00")
	}
	if r.Due.Hour() != 16 {
		t.Fatalf("after 'at 4 instead' due hour = %d (%v), want 16", r.Due.Hour(), r.Due)
	}
	if r.Due.YearDay() != due.YearDay() {
		t.Fatalf("after 'at 4 instead' due day = %d (%v), want %d, the same day", r.Due.YearDay(), r.Due, due.YearDay())
	}
	last := rec.shown()[len(rec.shown())-1]
	if last.Kind != nudge.KindReminderConfirm {
		t.Fatalf("last bubble kind = %q, want a new %q (%+v)", last.Kind, nudge.KindReminderConfirm, last)
	}
	if !strings.Contains(last.Message, "4:00 PM") {
		t.Fatalf("new confirmation message = %q, want it to contain %q", last.Message, "4:00 PM")
	}

	// "never mind" takes it back and withdraws its open bubble.
	res, err = c.Say(ctx, "never mind")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Reply, "Cancelled") {
		t.Fatalf("cancel reply = %q, want it to contain Cancelled", res.Reply)
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
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("reminders = %d, want 1: %+v", len(rs), rs)
	}
	if rs[0].Due == nil {
		t.Fatalf("reminder due = nil, want a time (%+v)", rs[0])
	}
	want := *rs[0].Due
	res, err := c.Say(ctx, "snooze that for 20 minutes")
	if err != nil {
		t.Fatal(err)
	}
	if res.Intent != "snooze" {
		t.Fatalf("Say intent = %q, want snooze (%+v)", res.Intent, res)
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
	if got := rec.shown(); len(got) != 1 {
		t.Fatalf("shown %d bubbles, want 1 when-question: %+v", len(got), got)
	}
	if got := rec.shown()[0].Kind; got != nudge.KindReminderWhen {
		t.Fatalf("bubble kind = %q, want %q", got, nudge.KindReminderWhen)
	}
	quick := reminders.QuickTimes(time.Now())
	if len(quick) < 2 {
		t.Fatalf("quick choices = %d, want at least 2: %+v", len(quick), quick)
	}
	if got := nudge.AtChoice(quick[0].At); !strings.HasPrefix(got, nudge.AtPrefix) {
		t.Fatalf("first quick choice = %q, want prefix %q", got, nudge.AtPrefix)
	}
	// The bubble's quick choice sets the time.
	if _, err := c.Answer(ctx, rec.shown()[0].ID, nudge.AtChoice(quick[0].At), ""); err != nil {
		t.Fatal(err)
	}
	rs, _ := st.Reminders(ctx)
	if len(rs) != 1 {
		t.Fatalf("reminders = %d, want 1: %+v", len(rs), rs)
	}
	if rs[0].Due == nil {
		t.Fatalf("reminder due = nil after the quick choice, want a time (%+v)", rs[0])
	}
	if rs[0].State != store.ReminderPending {
		t.Fatalf("reminder state = %q, want %q", rs[0].State, store.ReminderPending)
	}
	// Unintelligible time: asked again, nothing guessed.
	if _, err := c.Say(ctx, "remind me to renew the bar membership"); err != nil {
		t.Fatal(err)
	}
	ask := rec.shown()[len(rec.shown())-1]
	if _, err := c.RespondNudge(ctx, ask.ID, api.ActionAccept, "purple elephants"); err != nil {
		t.Fatal(err)
	}
	again := rec.shown()[len(rec.shown())-1]
	if again.Kind != nudge.KindReminderWhen {
		t.Fatalf("last bubble kind = %q, want a second %q (%+v)", again.Kind, nudge.KindReminderWhen, again)
	}
	if !strings.Contains(again.Message, "didn't catch a time") {
		t.Fatalf("second question = %q, want it to say it didn't catch a time", again.Message)
	}
	res, err := c.Say(ctx, "what are my reminders")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Reply, "send Priya the closing checklist") {
		t.Fatalf("list reply = %q, want it to contain %q", res.Reply, "send Priya the closing checklist")
	}
}

func TestStatusLineSaysWhatIsTrue(t *testing.T) {
	for _, tt := range []struct {
		name string
		st   Status
		want string
	}{
		{"nothing known yet", Status{}, "Starting · Watching"},
		{"capturing and watching", Status{Voice: listen.Capturing, Watch: "on"}, "Listening · Watching"},
		{"voice trouble is named", Status{Voice: "no speech model", Watch: "on"}, "No speech model · Watching"},
		{"watcher unavailable", Status{Voice: listen.Capturing, Watch: "unavailable"}, "Listening · Not watching"},
		{"watching paused beats watcher error", Status{Voice: listen.Capturing, Watch: "error", WatchingPaused: true}, "Listening · Watching paused"},
		{"both paused", Status{ListeningPaused: true, WatchingPaused: true}, "Paused: not listening or watching"},
		{"mail sync progress", Status{Voice: listen.Capturing, Watch: "on", Mail: "Syncing mail 120/500"}, "Listening · Watching · Syncing mail 120/500"},
		{"failing parts", Status{Voice: listen.Capturing, Watch: "on", Failing: "Mail, Email check"}, "Listening · Watching · Mail, Email check: trouble, retrying"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.st.Line(); got != tt.want {
				t.Errorf("Line() of %+v = %q, want %q", tt.st, got, tt.want)
			}
		})
	}
}
