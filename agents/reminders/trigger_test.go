package reminders

import (
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

func TestMatchWindow(t *testing.T) {
	app := func(name string) store.Trigger { return store.Trigger{Kind: store.TriggerApp, Name: name} }
	for _, c := range []struct {
		name string
		t    store.Trigger
		w    Window
		want bool
	}{
		{"document in its title", app("Brookline NDA"), Window{App: "Microsoft Word", Title: "Brookline_NDA_v3.docx - Word"}, true},
		{"document words in any order and case", app("brookline nda"), Window{App: "soffice", Title: "NDA (Brookline) - LibreOffice Writer"}, true},
		{"one word missing", app("Brookline NDA"), Window{App: "Microsoft Word", Title: "Brookline lease.docx"}, false},
		{"app by its name", app("Outlook"), Window{App: "Microsoft Outlook", Title: "Inbox - dana@firm.com"}, true},
		{"word inside another word does not count", app("Word"), Window{App: "1Password", Title: "Passwords"}, false},
		{"email is any mail client", app("email"), Window{App: "thunderbird", Title: "Inbox - Mozilla Thunderbird", Mail: true}, true},
		{"email is not a browser tab about email", app("email"), Window{App: "Google-chrome", Title: "Email marketing tips - Google Chrome"}, false},
		{"excluded window never fires", app("Outlook"), Window{App: "Microsoft Outlook", Excluded: true}, false},
		{"not an app trigger", store.Trigger{Kind: store.TriggerPerson, Person: "Outlook"}, Window{App: "Microsoft Outlook"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MatchWindow(c.t, c.w); got != c.want {
				t.Errorf("MatchWindow(%+v, %+v) = %v, want %v", c.t, c.w, got, c.want)
			}
		})
	}
}

func TestMatchThread(t *testing.T) {
	marcy := Person{Name: "Marcy Howard", Email: "mhoward@brooklinecap.com"}
	snda := MailThread{Subject: "RE: SNDA - Brooklyn Gardens", People: []Person{marcy, {Name: "Dana Whitfield", Email: "dana@hartleyross.com"}}}
	for _, c := range []struct {
		name string
		t    store.Trigger
		th   MailThread
		want bool
	}{
		{"first name", store.Trigger{Kind: store.TriggerThread, Person: "Marcy"}, snda, true},
		{"full name", store.Trigger{Kind: store.TriggerThread, Person: "Marcy Howard"}, snda, true},
		{"someone else", store.Trigger{Kind: store.TriggerThread, Person: "Grant"}, snda, false},
		{"part of a name is not a name", store.Trigger{Kind: store.TriggerThread, Person: "Marc"}, snda, false},
		{"subject words", store.Trigger{Kind: store.TriggerThread, Subject: "SNDA"}, snda, true},
		{"person and subject", store.Trigger{Kind: store.TriggerThread, Person: "Marcy", Subject: "Brooklyn Gardens"}, snda, true},
		{"person right, subject wrong", store.Trigger{Kind: store.TriggerThread, Person: "Marcy", Subject: "estoppel"}, snda, false},
		{"address when no name", store.Trigger{Kind: store.TriggerThread, Person: "Tom Okafor"},
			MailThread{Subject: "title", People: []Person{{Email: "tom.okafor@lawco.com"}}}, true},
		{"nothing to match", store.Trigger{Kind: store.TriggerThread}, snda, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MatchThread(c.t, c.th); got != c.want {
				t.Errorf("MatchThread(%+v) = %v, want %v", c.t, got, c.want)
			}
		})
	}
}

func TestMatchMeeting(t *testing.T) {
	people := []Person{{Name: "Grant Ellis", Email: "grant@ellis.law"}, {Name: "Dr. Ana Reyes", Email: "areyes@clinic.org"}}
	for _, c := range []struct {
		name, person string
		want         bool
	}{
		{"first name", "Grant", true},
		{"title kept by the lawyer", "Dr. Reyes", true},
		{"title alone is nobody", "Dr.", false},
		{"not coming", "Marcy", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := MatchMeeting(store.Trigger{Kind: store.TriggerPerson, Person: c.person}, people); got != c.want {
				t.Errorf("MatchMeeting(%q) = %v, want %v", c.person, got, c.want)
			}
		})
	}
}

func TestMomentAndHeading(t *testing.T) {
	for _, c := range []struct {
		name string
		t    store.Trigger
		want string
	}{
		{"thread of a person", store.Trigger{Kind: store.TriggerThread, Person: "Marcy Howard"}, "When you next open Marcy Howard's email: ask about the cure period"},
		{"thread of a name ending in s", store.Trigger{Kind: store.TriggerThread, Person: "James"}, "When you next open James' email: ask about the cure period"},
		{"thread by subject", store.Trigger{Kind: store.TriggerThread, Subject: "SNDA"}, "When you next open the email about SNDA: ask about the cure period"},
		{"document", store.Trigger{Kind: store.TriggerApp, Name: "Brookline NDA"}, "When you next open the Brookline NDA: ask about the cure period"},
		{"an app", store.Trigger{Kind: store.TriggerApp, Name: "Outlook"}, "When you next open Outlook: ask about the cure period"},
		{"the mail app", store.Trigger{Kind: store.TriggerApp, Name: "email"}, "When you next open your email: ask about the cure period"},
		{"person", store.Trigger{Kind: store.TriggerPerson, Person: "Grant"}, "When you next meet with Grant: ask about the cure period"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := c.t
			if got := Heading(store.Reminder{Task: "ask about the cure period", Trigger: &tr}); got != c.want {
				t.Errorf("Heading = %q, want %q", got, c.want)
			}
		})
	}
}

// FireOn fires what matches once, tells the notifier as a due reminder
// does, and leaves the rest waiting.
func TestFireOn(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC)
	clk := newFakeClock(now)
	st := openStore(t, tempDB(t), clk)
	rec := &recorder{}
	s := New(st, rec, Options{Clock: clk, Logger: quietLogger(t)})
	ctx := t.Context()
	nda, err := s.CreateOn(ctx, "check the term", store.Trigger{Kind: store.TriggerApp, Name: "Brookline NDA"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateOn(ctx, "send the invoice", store.Trigger{Kind: store.TriggerApp, Name: "Outlook"}, now); err != nil {
		t.Fatal(err)
	}
	if !s.Waiting(ctx, store.TriggerApp) || s.Waiting(ctx, store.TriggerPerson) {
		t.Error("Waiting disagrees with what was created")
	}
	w := Window{App: "Microsoft Word", Title: "Brookline NDA.docx - Word"}
	match := func(tr store.Trigger) bool { return MatchWindow(tr, w) }
	for i := range 2 {
		n, err := s.FireOn(ctx, store.TriggerApp, w.App+" — "+w.Title, match)
		if err != nil || n != 1-i {
			t.Fatalf("FireOn #%d = %d, %v; want %d", i+1, n, err, 1-i)
		}
	}
	fs := rec.Firings()
	if len(fs) != 1 || fs[0].r.ID != nda.ID || fs[0].missed || !strings.Contains(fs[0].n.Message, "check the term") {
		t.Fatalf("firings %+v", fs)
	}
	if ev := reminderEvents(t, st, nda.ID); len(ev) != 2 || !strings.Contains(ev[1], "Brookline NDA.docx - Word") {
		t.Errorf("world log %q", ev)
	}
	if rs, _ := s.List(ctx); len(rs) != 2 {
		t.Errorf("List has %d reminders; want the fired one and the waiting one", len(rs))
	}
	if c, err := s.CancelLast(ctx); err != nil || c.Task != "send the invoice" {
		t.Errorf("CancelLast = %+v, %v; want the waiting reminder taken back", c, err)
	}
}

func TestAboutOrTo(t *testing.T) {
	for _, c := range []struct{ name, task, want string }{
		{"an act", "ask about the cure period", "to ask about the cure period"},
		{"a thing", "the estoppel", "about the estoppel"},
		{"a thing of mine", "my timesheets", "about my timesheets"},
		{"an act on a thing", "check the term", "to check the term"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := aboutOrTo(c.task); got != c.want {
				t.Errorf("aboutOrTo(%q) = %q, want %q", c.task, got, c.want)
			}
		})
	}
}
