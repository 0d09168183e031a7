package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

// Reminders tied to a moment (issue 15 §4) fire from three places: the
// glance tells threadMoments which thread a window showed, momentsPart
// hears each app switch, and the calendar part looks for the people of a
// meeting about to start (calendarPart.meetingMoments). The rules are
// reminders.Match*; each reminder fires once, by the store's
// FireTriggered.

// partMoments is the app-switch watcher's name.
const partMoments = "moments"

// threadMoments fires the reminders waiting for a mail thread when the
// glance matches a window to one.
type threadMoments struct {
	rem *reminders.Scheduler
	ix  *index.Index
	log *slog.Logger
}

// Watching implements glance.ThreadWatcher.
func (t threadMoments) Watching(ctx context.Context) bool {
	return t.rem.Waiting(ctx, store.TriggerThread)
}

// ThreadShown implements glance.ThreadWatcher: the thread's people and
// subject are read from the index only when a reminder waits for a thread.
func (t threadMoments) ThreadShown(ctx context.Context, sw screen.Switch, threadID int64) {
	if sw.Excluded || !t.Watching(ctx) {
		return
	}
	th, err := t.ix.ReadEmailThread(ctx, threadID)
	if err != nil {
		t.log.Warn("reminders: thread unreadable", "thread", threadID, "err", err)
		return
	}
	mt := reminders.MailThread{Subject: th.Subject}
	add := func(as ...mail.Address) {
		for _, a := range as {
			mt.People = append(mt.People, reminders.Person{Name: a.Name, Email: a.Email})
		}
	}
	add(th.Participants...)
	for _, m := range th.Messages {
		add(m.From)
		add(m.To...)
		add(m.Cc...)
	}
	seen := fmt.Sprintf("%s — %q, thread %d", sw.App, sw.Title, threadID)
	if _, err := t.rem.FireOn(ctx, store.TriggerThread, seen, func(tr store.Trigger) bool {
		return reminders.MatchThread(tr, mt)
	}); err != nil {
		t.log.Error("reminders: firing on a thread", "err", err)
	}
}

var _ glance.ThreadWatcher = threadMoments{}

// momentsPart fires the reminders waiting for an app or a window on each
// app switch. Excluded windows never reach the stream, and are refused
// again by reminders.MatchWindow.
type momentsPart struct {
	rem      *reminders.Scheduler
	switches <-chan events.Event
	log      *slog.Logger
}

// Run implements supervisor.Service.
func (p momentsPart) Run(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-p.switches:
			if !ok {
				return nil
			}
			if sw, ok := ev.Data.(screen.Switch); ok {
				p.switched(ctx, sw)
			}
		}
	}
}

func (p momentsPart) switched(ctx context.Context, sw screen.Switch) {
	if sw.Excluded || !p.rem.Waiting(ctx, store.TriggerApp) {
		return
	}
	w := reminders.Window{App: sw.App, Title: sw.Title, Mail: glance.ParseTitle(sw.App, sw.Title).Client != ""}
	seen := fmt.Sprintf("%s — %q", sw.App, sw.Title)
	if _, err := p.rem.FireOn(ctx, store.TriggerApp, seen, func(tr store.Trigger) bool {
		return reminders.MatchWindow(tr, w)
	}); err != nil {
		p.log.Error("reminders: firing on an app switch", "err", err)
	}
}
