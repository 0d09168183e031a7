package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/screen"
)

// indexMailbox adds the lawyer's mbox account at path to st's mail index
// and reads it in.
func indexMailbox(t *testing.T, st *store.Store, path string, me mail.Address) *index.Index {
	t.Helper()
	ctx := context.Background()
	ix := index.New(st)
	acc, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: me.Name, Address: me.Email})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{From: me})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := ix.Sync(ctx, acc.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	return ix
}

// personICS is a calendar with a call with Luis Ortega starting at luis
// and a meeting with Grant Ellis starting at grant.
func personICS(luis, grant time.Time) string {
	utc := func(t time.Time) string { return t.UTC().Format("20060102T150405Z") }
	ev := func(uid, summary, who, addr string, at time.Time) string {
		return "BEGIN:VEVENT\nUID:" + uid + "\nDTSTAMP:20260617T200000Z\nDTSTART:" + utc(at) +
			"\nDTEND:" + utc(at.Add(30*time.Minute)) + "\nSUMMARY:" + summary +
			"\nORGANIZER;CN=Dana Whitfield:mailto:dana.whitfield@hartleyross.com\nATTENDEE;CN=" + who +
			";PARTSTAT=ACCEPTED:mailto:" + addr + "\nEND:VEVENT\n"
	}
	return strings.ReplaceAll("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//spirit test//EN\n"+
		ev("call-luis", "Staffing with Luis", "Luis Ortega", "lortega@hartleyross.com", luis)+
		ev("meet-grant", "Easement walk-through", "Grant Ellis", "grant@ellis.law", grant)+
		"END:VCALENDAR\n", "\n", "\r\n")
}

// TestRemindersFireOnTheirMoment follows reminders tied to a moment from
// the spoken command to the bubble, through the running parts: the
// glance's thread, an app switch on the stream, and the calendar's meeting
// window. Each fires once; an excluded window fires nothing; a meeting
// hours away fires nothing yet.
func TestRemindersFireOnTheirMoment(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	deskless(t, dir)
	p, st := newTestParts(t, dir)
	c := p.core
	mboxPath := filepath.Join(dir, "mail.mbox")
	if err := os.WriteFile(mboxPath, []byte(marcyMail), 0o600); err != nil {
		t.Fatal(err)
	}
	indexMailbox(t, st, mboxPath, mail.Address{Name: "Dana Whitfield", Email: "dana.whitfield@hartleyross.com"})
	now := time.Now()
	ics := filepath.Join(dir, "work.ics")
	if err := os.WriteFile(ics, []byte(personICS(now.Add(10*time.Minute), now.Add(3*time.Hour))), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: ics, Name: "Work"}); err != nil {
		t.Fatal(err)
	}

	front := p.bus.Subscribe(events.NudgeShown, 256)
	defer front.Unsubscribe()

	// The commands, and how Spirit confirms each.
	tasks := map[string]string{} // task → the moment's words in the confirmation
	for _, s := range []struct{ said, reply string }{
		{"remind me to ask about the cure period next time I'm in Marcy's email",
			"I'll remind you to ask about the cure period next time you open Marcy's email."},
		{"when I open the Brookline NDA remind me to check the term",
			"I'll remind you to check the term next time you open the Brookline NDA."},
		{"next time I talk to Luis remind me about the staffing plan",
			"I'll remind you about the staffing plan next time you meet with Luis."},
		{"remind me to clear the invites when I'm next in Outlook",
			"I'll remind you to clear the invites next time you open Outlook."},
		{"next time I meet with Grant remind me to ask about the easement",
			"I'll remind you to ask about the easement next time you meet with Grant."},
		{"next time I open Excel remind me to update the trust ledger",
			"I'll remind you to update the trust ledger next time you open Excel."},
	} {
		res, err := c.Heard(ctx, s.said, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if res.Intent != "remind" || res.Reply != s.reply {
			t.Errorf("Heard(%q) = %+v, want the reply %q", s.said, res, s.reply)
		}
		ev := <-front.C()
		n := ev.Data.(store.Nudge)
		if n.Kind != nudge.KindReminderTrigger || n.Message != s.reply {
			t.Errorf("confirmation bubble %+v, want %q", n, s.reply)
		}
		task, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(s.reply, "I'll remind you to "), "I'll remind you about "), " next time")
		tasks[task] = s.said
	}

	runParts(t, p)

	// An excluded window never fires (the watcher blanks its title; it is
	// given one here to show the rule does not rely on that), then the
	// document twice (it fires once), Excel, and Marcy's thread in Outlook
	// last (also the Outlook reminder): the glance looks only at the newest
	// of the switches queued up, as when the lawyer clicks through windows.
	for _, sw := range []screen.Switch{
		{App: "Microsoft Word", Title: "Brookline NDA (private) - Word", Excluded: true},
		{App: "Microsoft Word", Title: "Brookline NDA v3.docx - Word"},
		{App: "Microsoft Word", Title: "Brookline NDA v3.docx - Word"},
		{App: "Microsoft Excel", Title: "Trust ledger.xlsx - Excel"},
		{App: "Microsoft Outlook", Title: "RE: SNDA - Brooklyn Gardens - Message (HTML)"},
	} {
		sw.At = time.Now()
		p.bus.Log(events.AppSwitched, sw)
	}
	fired := map[string]store.Nudge{}
	timeout := time.After(30 * time.Second)
	for len(fired) < 5 {
		select {
		case ev := <-front.C():
			n := ev.Data.(store.Nudge)
			if n.Kind != nudge.KindReminder {
				continue
			}
			for task := range tasks {
				if strings.Contains(n.Message, task) {
					if _, again := fired[task]; again {
						t.Errorf("%q fired twice", task)
					}
					fired[task] = n
				}
			}
		case <-timeout:
			t.Fatalf("fired %d of 5 reminders: %v", len(fired), fired)
		}
	}
	if _, ok := fired["ask about the easement"]; ok {
		t.Error("the meeting with Grant is hours away, but its reminder fired")
	}
	rs, err := st.Reminders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		_, shown := fired[r.Task]
		switch {
		case r.Task == "ask about the easement":
			if r.State != store.ReminderWaiting {
				t.Errorf("Grant's reminder is %s, want still waiting", r.State)
			}
		case !shown || r.State != store.ReminderFired || r.FireCount != 1:
			t.Errorf("%q: %s, fired %d times, bubble %v", r.Task, r.State, r.FireCount, shown)
		}
	}
	// The world log says what each fired on, and never the excluded window.
	es, err := st.Since(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for _, e := range es {
		if e.Source == store.ReminderEventSource {
			log.WriteString(e.Text + "\n")
		}
	}
	for _, want := range []string{
		`seen: Microsoft Word — "Brookline NDA v3.docx - Word"`,
		`seen: Microsoft Outlook — "RE: SNDA - Brooklyn Gardens - Message (HTML)", thread`,
		`seen: meeting “Staffing with Luis”`,
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("world log lacks %q:\n%s", want, log.String())
		}
	}
	if strings.Contains(log.String(), "private") {
		t.Errorf("the excluded window is in the reminders' log:\n%s", log.String())
	}
}

// TestThreadReminderFiresWhenTheGlanceIsSilent: the glance finds the
// thread a window shows even when it has nothing to say about replying:
// when its gate holds it back (here nudges are turned off), and when it
// has nudged about the thread before. The reminder fires each time it is
// waiting, and once.
func TestThreadReminderFiresWhenTheGlanceIsSilent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	deskless(t, dir)
	p, st := newTestParts(t, dir)
	c := p.core
	rec := record(c)
	mboxPath := filepath.Join(t.TempDir(), "mail.mbox")
	if err := os.WriteFile(mboxPath, []byte(marcyMail), 0o600); err != nil {
		t.Fatal(err)
	}
	indexMailbox(t, st, mboxPath, mail.Address{Name: "Dana Whitfield", Email: "dana.whitfield@hartleyross.com"})
	sw := screen.Switch{App: "Microsoft Outlook", Title: "RE: SNDA - Brooklyn Gardens - Message (HTML)", At: time.Now()}
	reminded := func(task string) int {
		n := 0
		for _, b := range rec.shown() {
			if b.Kind == nudge.KindReminder && strings.Contains(b.Message, task) {
				n++
			}
		}
		return n
	}

	// Nudges off: the glance is silent at its gate, the reminder fires.
	if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.GlanceMaxPerHour = 0 }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Heard(ctx, "remind me to ask about the cure period next time I'm in Marcy Howard's email", time.Now()); err != nil {
		t.Fatal(err)
	}
	p.glance.On(ctx, sw)
	p.glance.On(ctx, sw)
	if got := reminded("ask about the cure period"); got != 1 {
		t.Errorf("gate closed: %d reminder bubbles, want 1", got)
	}

	// Nudges on: the glance offers a reply once; the next time it is
	// silent (already nudged), and a reminder asked for meanwhile fires.
	if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.GlanceMaxPerHour = 10 }); err != nil {
		t.Fatal(err)
	}
	p.glance.On(ctx, sw)
	if _, err := c.Heard(ctx, "when I open the email about the SNDA remind me to check the offset rights", time.Now()); err != nil {
		t.Fatal(err)
	}
	p.glance.On(ctx, sw)
	if got := reminded("check the offset rights"); got != 1 {
		t.Errorf("already nudged: %d reminder bubbles, want 1", got)
	}
	glances := 0
	for _, b := range rec.shown() {
		if b.Kind == nudge.KindGlance {
			glances++
		}
	}
	if glances != 1 {
		t.Errorf("%d glance bubbles, want 1", glances)
	}
	es, err := st.Recent(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for _, e := range es {
		log.WriteString(e.String() + "\n")
	}
	for _, want := range []string{"unprompted nudges in the last hour (gate)", "already nudged about this thread (gate)"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("world log lacks %q:\n%s", want, log.String())
		}
	}
}
