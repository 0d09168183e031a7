package store

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// A reminder tied to a moment waits without a time, is listed by its
// kind, fires once (a second watcher seeing the same moment does
// nothing), is then an ordinary fired reminder, and the world log says
// what was seen.
func TestTriggeredReminderFiresOnce(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	heard := time.Date(2026, 11, 20, 10, 15, 0, 0, est)
	r := mustCreateReminder(t, s, NewReminder{Task: "ask about the cure period", Heard: heard,
		Trigger: &Trigger{Kind: TriggerThread, Person: " Marcy Howard "}})
	if r.State != ReminderWaiting || r.Due != nil || r.Trigger == nil || r.Trigger.Person != "Marcy Howard" {
		t.Fatalf("created %+v (trigger %+v)", r, r.Trigger)
	}
	timed := mustCreateReminder(t, s, NewReminder{Task: "call Grant", Due: tp(heard.Add(time.Hour))})
	if timed.Trigger != nil {
		t.Errorf("timed reminder has trigger %+v", timed.Trigger)
	}
	for kind, want := range map[TriggerKind]int{TriggerThread: 1, TriggerApp: 0, TriggerPerson: 0} {
		ws, err := s.WaitingReminders(ctx, kind)
		if err != nil || len(ws) != want {
			t.Errorf("WaitingReminders(%s) = %d, %v; want %d", kind, len(ws), err, want)
		}
	}
	if due, err := s.DueReminders(ctx, heard.Add(48*time.Hour)); err != nil || len(due) != 1 || due[0].ID != timed.ID {
		t.Errorf("DueReminders = %v, %v; the waiting one must not be due by time", due, err)
	}
	at := heard.Add(2 * time.Hour)
	fr, n, err := s.FireTriggered(ctx, r.ID, at, `Outlook — "RE: SNDA"`, Nudge{Message: "Reminder: ask about the cure period"})
	if err != nil {
		t.Fatal(err)
	}
	if fr.State != ReminderFired || fr.Due == nil || !fr.Due.Equal(at) || fr.NudgeID != n.ID || fr.Trigger == nil {
		t.Errorf("fired %+v", fr)
	}
	if _, _, err := s.FireTriggered(ctx, r.ID, at, "again", Nudge{Message: "again"}); !errors.Is(err, ErrNotDue) {
		t.Errorf("second firing: %v, want ErrNotDue", err)
	}
	if ws, _ := s.WaitingReminders(ctx, TriggerThread); len(ws) != 0 {
		t.Errorf("still waiting after firing: %v", ws)
	}
	if fs, err := s.OpenReminderFirings(ctx); err != nil || len(fs) != 1 || fs[0].Reminder.Trigger == nil {
		t.Errorf("OpenReminderFirings = %+v, %v", fs, err)
	}
	if _, err := s.CompleteReminder(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	ev := reminderEvents(t, s, r.ID)
	if len(ev) != 3 || !strings.Contains(ev[0], `waits for thread person="Marcy Howard"`) ||
		!strings.Contains(ev[1], `seen: Outlook — "RE: SNDA"`) || !strings.HasPrefix(ev[2], "done") {
		t.Errorf("world log: %q", ev)
	}
}

func TestTriggeredReminderRules(t *testing.T) {
	s, _ := openTest(t)
	ctx := t.Context()
	due := time.Date(2026, 11, 21, 9, 0, 0, 0, est)
	for _, c := range []struct {
		name string
		nr   NewReminder
	}{
		{"thread without person or subject", NewReminder{Task: "x", Trigger: &Trigger{Kind: TriggerThread}}},
		{"app without name", NewReminder{Task: "x", Trigger: &Trigger{Kind: TriggerApp, Person: "Marcy"}}},
		{"person without name", NewReminder{Task: "x", Trigger: &Trigger{Kind: TriggerPerson, Name: "Outlook"}}},
		{"unknown kind", NewReminder{Task: "x", Trigger: &Trigger{Kind: "place", Name: "court"}}},
		{"trigger and time", NewReminder{Task: "x", Due: &due, Trigger: &Trigger{Kind: TriggerApp, Name: "Word"}}},
		{"trigger and recurrence", NewReminder{Task: "x", Every: EveryDay, Trigger: &Trigger{Kind: TriggerApp, Name: "Word"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := s.CreateReminder(ctx, c.nr); !errors.Is(err, ErrInvalid) {
				t.Errorf("CreateReminder: %v, want ErrInvalid", err)
			}
		})
	}
	// A time given instead of the moment makes it an ordinary reminder.
	r := mustCreateReminder(t, s, NewReminder{Task: "check the term", Trigger: &Trigger{Kind: TriggerApp, Name: "Brookline NDA"}})
	u, err := s.UpdateReminder(ctx, r.ID, ReminderUpdate{Due: &due})
	if err != nil {
		t.Fatal(err)
	}
	if u.State != ReminderPending || u.Trigger != nil || u.Due == nil {
		t.Errorf("after a time: %+v", u)
	}
	all, err := s.Reminders(ctx, ReminderWaiting)
	if err != nil || slices.ContainsFunc(all, func(x Reminder) bool { return x.ID == r.ID }) {
		t.Errorf("Reminders(waiting) = %v, %v", all, err)
	}
}
