package app

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
)

// recorder is a Presenter that remembers what it was asked to show.
type recorder struct {
	statuses []Status
	shown    []store.Nudge
	closed   []int64
	notes    []string
	opened   int
}

func (r *recorder) StatusChanged(s Status)               { r.statuses = append(r.statuses, s) }
func (r *recorder) ShowNudge(n store.Nudge)              { r.shown = append(r.shown, n) }
func (r *recorder) NudgeClosed(id int64)                 { r.closed = append(r.closed, id) }
func (r *recorder) Show()                                {}
func (r *recorder) Notify(title, body string)            { r.notes = append(r.notes, title+": "+body) }
func (r *recorder) OpenReminders()                       { r.opened++ }
func (r *recorder) Subsystems() map[string]api.Subsystem { return nil }
func (r *recorder) Hearing(bool)                         {}
func (r *recorder) Working(int)                          {}
func (r *recorder) TaskDone()                            {}

func newTestCore(t *testing.T, dir string) (*Core, *store.Store) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c, err := NewCore(ctx, st, "test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return c, st
}

func TestSayReachesTheCommandHandlerAndPersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, st := newTestCore(t, dir)
	rec := &recorder{}
	c.SetPresenter(rec)

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
	if len(rec.statuses) != 1 || rec.statuses[0].Line() != "Listening paused · Watching" {
		t.Errorf("presenter saw %+v", rec.statuses)
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
	rec := &recorder{}
	c.SetPresenter(rec)

	n, err := c.Notify(ctx, api.NewNudge{Kind: "info", Message: "Filing due at 5"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.shown) != 1 || rec.shown[0].ID != n.ID {
		t.Fatalf("shown %+v", rec.shown)
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
	if len(rec.closed) != 1 || rec.closed[0] != n.ID {
		t.Errorf("closed %v", rec.closed)
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

func withReminders(c *Core, st *store.Store) {
	c.rem = reminders.New(st, c, reminders.Options{Logger: c.log})
}

func TestSayRemindConfirmChangeAndCancel(t *testing.T) {
	ctx := context.Background()
	c, st := newTestCore(t, t.TempDir())
	withReminders(c, st)
	rec := &recorder{}
	c.SetPresenter(rec)

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
	if len(rec.shown) != 1 || rec.shown[0].Kind != kindReminderConfirm ||
		!strings.HasPrefix(rec.shown[0].Message, "Remind you to call Marcy Howard — tomorrow 3:00 PM") {
		t.Fatalf("confirm bubble %+v", rec.shown)
	}

	// "at 4 instead" typed into the bubble moves it and asks again.
	if _, err := c.Answer(ctx, rec.shown[0].ID, ui.ChoiceReply, "at 4 instead"); err != nil {
		t.Fatal(err)
	}
	r, _ := st.Reminder(ctx, rs[0].ID)
	if r.Due == nil || r.Due.Hour() != 16 || r.Due.YearDay() != due.YearDay() {
		t.Fatalf("after 'at 4 instead' due = %v, want the same day at 16:00", r.Due)
	}
	if last := rec.shown[len(rec.shown)-1]; last.Kind != kindReminderConfirm || !strings.Contains(last.Message, "4:00 PM") {
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
	withReminders(c, st)
	rec := &recorder{}
	c.SetPresenter(rec)

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
	withReminders(c, st)
	rec := &recorder{}
	c.SetPresenter(rec)

	if _, err := c.Say(ctx, "remind me to send Priya the closing checklist"); err != nil {
		t.Fatal(err)
	}
	if len(rec.shown) != 1 || rec.shown[0].Kind != kindReminderWhen {
		t.Fatalf("bubble %+v, want a when-question", rec.shown)
	}
	p := promptFor(rec.shown[0], time.Now())
	if len(p.Choices) < 2 || !strings.HasPrefix(p.Choices[0].ID, choiceAtPrefix) {
		t.Fatalf("quick choices %+v", p.Choices)
	}
	// The bubble's quick choice sets the time.
	if _, err := c.Answer(ctx, rec.shown[0].ID, p.Choices[0].ID, ""); err != nil {
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
	ask := rec.shown[len(rec.shown)-1]
	if _, err := c.RespondNudge(ctx, ask.ID, api.ActionAccept, "purple elephants"); err != nil {
		t.Fatal(err)
	}
	if again := rec.shown[len(rec.shown)-1]; again.Kind != kindReminderWhen || !strings.Contains(again.Message, "didn't catch a time") {
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
		{Status{Voice: voiceCapturing, Watch: "on"}, "Listening · Watching"},
		{Status{Voice: "no speech model", Watch: "on"}, "No speech model · Watching"},
		{Status{Voice: voiceCapturing, Watch: "unavailable"}, "Listening · Not watching"},
		{Status{Voice: voiceCapturing, Watch: "error", WatchingPaused: true}, "Listening · Watching paused"},
		{Status{ListeningPaused: true, WatchingPaused: true}, "Paused: not listening or watching"},
		{Status{Voice: voiceCapturing, Watch: "on", Mail: "Syncing mail 120/500"}, "Listening · Watching · Syncing mail 120/500"},
	} {
		if got := tt.st.Line(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.st, got, tt.want)
		}
	}
}
