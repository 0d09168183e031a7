package desktop

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/store"
)

// saidItem is one commitment's row in the Reminders window.
type saidItem struct{ done, remind *widget.Button }

// saidItems are the rows of the "Said on calls" section, by task.
func saidItems(v *remindersView) map[string]saidItem {
	out := map[string]saidItem{}
	for _, o := range v.said.Objects {
		row, ok := o.(*fyne.Container)
		if !ok {
			continue
		}
		var task string
		var it saidItem
		for _, part := range row.Objects {
			box, ok := part.(*fyne.Container)
			if !ok {
				continue
			}
			for _, w := range box.Objects {
				switch w := w.(type) {
				case *widget.Label:
					if task == "" && w.TextStyle.Bold {
						task = w.Text
					}
				case *widget.Button:
					switch w.Text {
					case "Done":
						it.done = w
					case "Remind me…":
						it.remind = w
					}
				}
			}
		}
		if task != "" {
			out[task] = it
		}
	}
	return out
}

// waitFor runs what background work handed to g's UI thread (g.uiq) on
// the test's goroutine and checks cond until it holds or 10 s pass: the
// window reads the core off the main thread.
func waitFor(t *testing.T, g *gui, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for queued := true; queued; {
			select {
			case f := <-g.uiq:
				f()
			default:
				queued = false
			}
		}
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

// openRemindersView opens the Reminders window on g and reads what it
// lists.
func openRemindersView(t *testing.T, g *gui) (*remindersView, fyne.Window) {
	t.Helper()
	w := g.fa.NewWindow("Spirit · Reminders")
	t.Cleanup(w.Close)
	v := newRemindersView(g, w)
	w.SetContent(v.content)
	w.Resize(fyne.NewSize(560, 380))
	v.reload()
	return v, w
}

// TestRemindersWindowListsWhatWasSaid: commitments heard in calls without
// a time are listed with the words they came from; Done settles one,
// Remind me… makes a reminder of the other, and both leave the list.
func TestRemindersWindowListsWhatWasSaid(t *testing.T) {
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	ctx := t.Context()
	// What the window's background reads hand to the UI thread waits for
	// waitFor, which runs it on the test's goroutine (Fyne's test driver
	// would run it at once on the reading goroutine, alongside the test).
	g := &gui{core: sp.core, fa: a, ctx: ctx, log: slog.New(slog.NewTextHandler(io.Discard, nil)), uiq: make(chan func(), 64)}
	estoppel := "um, I'll look into the estoppel question for you"
	for _, said := range []string{estoppel, "and I'll check the title commitment"} {
		if _, err := sp.core.Heard(ctx, said, time.Now()); err != nil {
			t.Fatal(err)
		}
	}

	v, w := openRemindersView(t, g)
	waitFor(t, g, "the open commitments listed", func() bool { return len(saidItems(v)) == 2 })
	if _, ok := hasLabel(v.said, saidTitle); !ok {
		t.Errorf("no %q heading", saidTitle)
	}
	if _, ok := hasLabel(v.said, "“"+estoppel+"”"); !ok {
		t.Errorf("the words %q are not shown: %v", estoppel, labels(v.said))
	}
	if _, ok := hasLabel(v.said, "heard "); !ok {
		t.Errorf("no heard time shown: %v", labels(v.said))
	}
	items := saidItems(v)
	look, check := items["look into the estoppel question"], items["check the title commitment"]
	if look.done == nil || look.remind == nil || check.done == nil || check.remind == nil {
		t.Fatalf("rows without their buttons: %+v", items)
	}

	test.Tap(look.done)
	waitFor(t, g, "Done to settle the commitment", func() bool {
		open, err := sp.core.OpenCommitments(ctx)
		return err == nil && len(open) == 1 && open[0].Task == "check the title commitment"
	})
	waitFor(t, g, "the window to drop it", func() bool { _, ok := saidItems(v)["look into the estoppel question"]; return !ok })

	test.Tap(check.remind)
	entries, buttons, _ := formParts(w)
	if len(entries) != 1 || entries[0].Text != "" {
		t.Fatalf("the Remind me form: entries %v", entries)
	}
	entries[0].SetText("tomorrow at 10")
	var ok *widget.Button
	for _, b := range buttons {
		if b.Text == "Remind me" {
			ok = b
		}
	}
	if ok == nil {
		t.Fatal("no Remind me button in the form")
	}
	test.Tap(ok)
	var r store.Reminder
	waitFor(t, g, "the reminder to be made", func() bool {
		rs, err := sp.core.Reminders(ctx)
		if err != nil || len(rs) != 1 {
			return false
		}
		r = rs[0]
		return true
	})
	tomorrow := time.Now().AddDate(0, 0, 1)
	want := time.Date(tomorrow.Year(), tomorrow.Month(), tomorrow.Day(), 10, 0, 0, 0, time.Local)
	if r.Task != "check the title commitment" || r.Due == nil || !r.Due.Equal(want) {
		t.Fatalf("reminder %+v (due %v), want one to check the title commitment at %v", r, r.Due, want)
	}
	waitFor(t, g, "the section to go", func() bool { return len(v.said.Objects) == 0 })
	if _, ok := hasLabel(v.said, saidTitle); ok {
		t.Error("the heading stays with nothing under it")
	}
}

func TestSaidWhen(t *testing.T) {
	loc := time.FixedZone("EST", -5*3600)
	now := time.Date(2030, 3, 11, 10, 0, 0, 0, loc)
	friday := time.Date(2030, 3, 15, 9, 0, 0, 0, loc)
	for _, tc := range []struct {
		name string
		c    store.Commitment
		want string
	}{
		{"no time", store.Commitment{Heard: now.Add(-2 * time.Minute)}, "heard Mon Mar 11 9:58 AM"},
		{"with the time promised", store.Commitment{Heard: now.Add(-2 * time.Minute), Deadline: &friday},
			"heard Mon Mar 11 9:58 AM · by Fri Mar 15 9:00 AM"},
		{"last year", store.Commitment{Heard: time.Date(2029, 12, 30, 16, 0, 0, 0, loc)}, "heard Sun Dec 30 2029 4:00 PM"},
		{"read on the lawyer's clock", store.Commitment{Heard: now.UTC()}, "heard Mon Mar 11 10:00 AM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := saidWhen(tc.c, now); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// momentButtons are the Done buttons of the "Next time you…" rows, by
// the row's words.
func momentButtons(v *remindersView) map[string]*widget.Button {
	out := map[string]*widget.Button{}
	for _, o := range v.moments.Objects {
		row, ok := o.(*fyne.Container)
		if !ok {
			continue
		}
		var line string
		var done *widget.Button
		for _, part := range row.Objects {
			switch w := part.(type) {
			case *widget.Label:
				line = w.Text
			case *fyne.Container:
				for _, b := range w.Objects {
					if b, ok := b.(*widget.Button); ok && b.Text == "Done" {
						done = b
					}
				}
			}
		}
		if line != "" {
			out[line] = done
		}
	}
	return out
}

// TestRemindersWindowListsMoments: reminders tied to a moment are listed
// under their own heading in the lawyer's words, apart from the timed
// ones; Done settles one and it leaves the list.
func TestRemindersWindowListsMoments(t *testing.T) {
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	ctx := t.Context()
	g := &gui{core: sp.core, fa: a, ctx: ctx, log: slog.New(slog.NewTextHandler(io.Discard, nil)), uiq: make(chan func(), 64)}
	for _, said := range []string{
		"remind me to ask about the cure period next time I'm in Marcy Howard's email",
		"next time I talk to Grant remind me about the estoppel",
		"remind me to call the bank tomorrow at 10",
	} {
		if res, err := sp.core.Heard(ctx, said, time.Now()); err != nil || res.Intent != "remind" {
			t.Fatalf("Heard(%q) = %+v, %v", said, res, err)
		}
	}
	v, _ := openRemindersView(t, g)
	waitFor(t, g, "the moments listed", func() bool { return len(momentButtons(v)) == 2 })
	if _, ok := hasLabel(v.moments, momentsTitle); !ok {
		t.Errorf("no %q heading: %v", momentsTitle, labels(v.moments))
	}
	cure := "When you next open Marcy Howard's email: ask about the cure period"
	rows := momentButtons(v)
	if rows[cure] == nil || rows["When you next meet with Grant: the estoppel"] == nil {
		t.Fatalf("rows %v, want the two moments in the lawyer's words with Done", rows)
	}
	if _, ok := hasLabel(v.rows, "call the bank"); !ok {
		t.Errorf("the timed reminder is not in the list above: %v", labels(v.rows))
	}
	if _, ok := hasLabel(v.rows, "ask about the cure period"); ok {
		t.Error("a reminder waiting for its moment is also listed with the timed ones")
	}
	test.Tap(rows[cure])
	waitFor(t, g, "Done to settle it", func() bool {
		rs, err := sp.core.Reminders(ctx)
		if err != nil {
			return false
		}
		for _, r := range rs {
			if r.Task == "ask about the cure period" {
				return false
			}
		}
		return true
	})
	waitFor(t, g, "the window to drop it", func() bool { _, ok := momentButtons(v)[cure]; return !ok && len(momentButtons(v)) == 1 })
}
