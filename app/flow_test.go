package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

// TestEveryPartIsSupervised: every long-running part is added to the one
// supervisor, in the order they start (they stop in the reverse).
func TestEveryPartIsSupervised(t *testing.T) {
	p, _ := newTestParts(t, t.TempDir())
	var got []string
	for _, s := range p.sup.States() {
		got = append(got, s.Name)
	}
	want := []string{partReminders, partAgents, partKeeper, partMaintenance, partMail, partVoice, partWatcher, partGlance, partMoments, partWork, partDigest, partCalendar, partCommands}
	if !slices.Equal(got, want) {
		t.Errorf("supervised parts = %v, want %v", got, want)
	}
}

// TestSwitchTravelsToABubble follows one app switch through the running
// parts: the watcher's event on the stream reaches the glance service,
// which reads the mailbox and proposes a nudge, which reaches a front end
// as NudgeShown — with no display, the switch is published as the watcher
// would publish it.
func TestSwitchTravelsToABubble(t *testing.T) {
	path, _ := filepath.Abs("../../shared/cases/glance/snda-needs-reply/mailbox.mbox")
	if _, err := os.Stat(path); err != nil {
		t.Skip("shared glance cases not present")
	}
	ctx := context.Background()
	dir := t.TempDir()
	deskless(t, dir) // the watcher finds no display: switches come from the test
	p, st := newTestParts(t, dir)
	ix := index.New(st)
	a, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: "Dana Whitfield", Address: "dana.whitfield@hartleyross.com"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := mbox.OpenMbox(path, mbox.Options{From: mail.Address{Email: "dana.whitfield@hartleyross.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, a.ID, conn, nil); err != nil {
		t.Fatal(err)
	}
	conn.Close()

	front := p.bus.Subscribe(events.NudgeShown|events.ServiceChanged, 0)
	t.Cleanup(front.Unsubscribe)
	runParts(t, p)

	p.bus.Log(events.AppSwitched, screen.Switch{App: "Microsoft Outlook", Title: "RE: SNDA - Brooklyn Gardens - Message (HTML)", At: time.Now()})
	timeout := time.After(20 * time.Second)
	for {
		select {
		case ev := <-front.C():
			if ev.Type != events.NudgeShown {
				continue
			}
			n := ev.Data.(store.Nudge)
			if n.Kind != nudge.KindGlance || n.Subject != nudge.GlanceSubject(sndaLatest) {
				t.Fatalf("nudge shown = %+v, want a glance about %s", n, sndaLatest)
			}
			if !strings.Contains(n.Message, "SNDA") {
				t.Errorf("message %q does not name the thread", n.Message)
			}
			return
		case <-timeout:
			es, _ := st.Recent(ctx, 20)
			var b strings.Builder
			for _, e := range es {
				b.WriteString(e.String() + "\n")
			}
			t.Fatalf("no bubble for the switch; world log:\n%s", b.String())
		}
	}
}
