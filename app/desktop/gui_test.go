package desktop

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
)

// newTestGUI is the desktop on Fyne's test driver around Spirit started
// whole; there is no X desktop, so focus and placement calls are skipped.
// Its bubbles fold by the returned clock.
func newTestGUI(t *testing.T) (*gui, spirit, *fakeClock) {
	t.Helper()
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	g := newGUI(sp.core, sp.bus.Subscribe(shown, 0), slog.New(slog.NewTextHandler(io.Discard, nil)))
	g.fa, g.ctx = a, t.Context()
	// What background work hands to the UI thread waits for pump, which
	// runs it on the test's goroutine, as the real UI thread would.
	g.uiq = make(chan func(), 1024)
	clk := &fakeClock{}
	g.bubbles.clock = clk
	g.orb = a.NewWindow("Spirit")
	g.panel = a.NewWindow("Spirit menu")
	g.buildMenu(app.Status{})
	t.Cleanup(func() { g.sub.Unsubscribe(); g.bubbles.stop() })
	return g, sp, clk
}

// pump shows every event published so far, as Events does, and runs what
// background work handed to the UI thread. An event is on the stream once
// the call that published it returns.
func pump(g *gui) {
	for {
		select {
		case ev := <-g.sub.C():
			g.handle(ev)
		case f := <-g.uiq: // nil (never ready) where the test set none
			f()
		default:
			return
		}
	}
}

func notify(t *testing.T, g *gui, c *app.Core, kind, msg, detail string) int64 {
	t.Helper()
	n, err := c.Notify(context.Background(), api.NewNudge{Kind: kind, Message: msg, Detail: detail})
	if err != nil {
		t.Fatal(err)
	}
	pump(g)
	return n.ID
}

// poll shows the stream's news and checks cond until it holds or 5 s
// pass: an answer is recorded off the main thread.
func poll(t *testing.T, g *gui, what string, cond func() bool) {
	t.Helper()
	// Generous: a loaded machine (CI's, or nine engineers' builds) is slow.
	deadline := time.Now().Add(15 * time.Second)
	for {
		pump(g)
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronisation
	}
}

func menuLabels(g *gui) string {
	var ls []string
	for _, it := range g.menu.Items {
		if !it.IsSeparator {
			ls = append(ls, it.Label)
		}
	}
	return strings.Join(ls, "|")
}

// TestBubbleWindowFollowsTheQueue is the queue's story on the windows: the
// bubble window, the menu's waiting item, the hotkey's keyboard focus and
// answers recorded by the core.
func TestBubbleWindowFollowsTheQueue(t *testing.T) {
	g, sp, clk := newTestGUI(t)
	c := sp.core
	ctx := context.Background()
	g.bubbles.delay = time.Hour
	bubbleID := func() int64 { return shownID(g.bubbles) }

	info := notify(t, g, c, nudge.KindInfo, "Synced 12 messages.", "")
	if bubbleID() != info {
		t.Fatalf("first nudge not shown: bubble %d", bubbleID())
	}
	glance := notify(t, g, c, nudge.KindGlance, "Marcy is waiting on your reply.", "")
	if got := bubbleID(); got != info {
		t.Fatalf("a lesser nudge must wait: bubble %d, want the info %d still shown", got, info)
	}
	if got := len(g.bubbles.queue); got != 1 {
		t.Fatalf("a lesser nudge must wait: queue holds %d (%v), want 1", got, queued(g.bubbles))
	}
	question := notify(t, g, c, nudge.KindQuestion, "Which draft?", `{"options":["Short","Long"]}`)
	if got := bubbleID(); got != question {
		t.Fatalf("question did not preempt the info bubble: bubble %d, want %d (queue %v)", got, question, queued(g.bubbles))
	}
	if got := len(g.bubbles.queue); got != 2 {
		t.Fatalf("after the question the queue holds %d (%v), want 2", got, queued(g.bubbles))
	}
	if g.bubbles.folded[info] {
		t.Fatalf("the preempted info bubble %d is folded, want it queued", info)
	}
	if !g.bubbleWin.Content().Visible() {
		t.Fatal("bubble window content is hidden, want the question shown")
	}
	if g.bubbleWin.Content() != g.bubble {
		t.Fatal("bubble window does not show the question's bubble")
	}
	if g.bubble.Prompt().Title != "Question" {
		t.Fatalf("bubble window shows %q", g.bubble.Prompt().Title)
	}

	// Left alone, bubbles fold one after another: question, then glance, then info.
	g.bubbles.delay = 30 * time.Millisecond
	g.bubbles.startFold()
	clk.advance(time.Second)
	if g.bubble != nil {
		t.Fatal("a bubble is still shown, want all three folded")
	}
	if got := g.bubbles.foldedCount(); got != 3 {
		t.Fatalf("folded %d bubbles, want all 3", got)
	}
	if got := menuLabels(g); !strings.HasPrefix(got, "Waiting for you (3)…|") {
		t.Fatalf("menu %q lacks the waiting item on top", got)
	}
	open, err := c.Nudges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 3 {
		t.Fatalf("open nudges = %d, want the 3 folded ones to stay open: %+v", len(open), open)
	}

	// The menu item reopens the newest important folded nudge: the question.
	g.bubbles.delay = time.Hour
	g.menu.Items[0].Action()
	if got := bubbleID(); got != question {
		t.Fatalf("reopen: bubble %d, want the question %d", got, question)
	}
	if got := g.bubbles.foldedCount(); got != 2 {
		t.Fatalf("reopen: folded %d, want 2", got)
	}
	if got, want := menuLabels(g), "Waiting for you (2)…|"; !strings.HasPrefix(got, want) {
		t.Fatalf("reopen: menu %q, want prefix %q", got, want)
	}
	g.bubble.Choose("answer:Long")
	poll(t, g, "the answered question to close", func() bool { return bubbleID() != question })
	// A question no agent asked may earn a "Spirit could not do that" notice
	// from the agent runtime: answer it, so only the folded two stay open.
	poll(t, g, "only the folded nudges to stay open", func() bool {
		ns, err := c.Nudges(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			if n.ID != info && n.ID != glance {
				c.Answer(ctx, n.ID, nudge.Dismiss, "") // a second try may find it closed: fine
			}
		}
		return len(ns) == 2 && g.bubble == nil
	})
	n, err := sp.store.Nudge(ctx, question)
	if err != nil {
		t.Fatal(err)
	}
	if n.State != store.NudgeAccepted {
		t.Fatalf("question state = %s, want %s", n.State, store.NudgeAccepted)
	}
	if n.Answer != "answer:Long" {
		t.Fatalf("question answer = %q, want %q", n.Answer, "answer:Long")
	}

	// The hotkey brings the newest open nudge forward with the cursor in it.
	g.focusNudge()
	if got := bubbleID(); got != glance {
		t.Fatalf("hotkey: bubble %d, want the newest open nudge %d", got, glance)
	}
	if !g.bubbles.engaged {
		t.Fatal("hotkey: queue not engaged, want engaged")
	}
	if got := g.bubbleWin.Canvas().Focused(); got != g.bubble.Entry() {
		t.Fatalf("hotkey: focused %T, want the bubble's entry", got)
	}
	// The lawyer is in that bubble: an approval waits instead of preempting;
	// its bad detail shows the message with the default buttons.
	approval := notify(t, g, c, nudge.KindApproval, "Save this reply in Drafts?", `{"fields":`)
	if bubbleID() != glance {
		t.Fatalf("approval preempted a bubble in use: bubble %d", bubbleID())
	}
	g.bubble.Cancel()
	poll(t, g, "the approval to show", func() bool { return bubbleID() == approval })
	if got := choiceIDs(g.bubble.Prompt().Choices); got != "dismiss=Deny" {
		t.Fatalf("bad-detail approval buttons = %s, want dismiss=Deny", got)
	}
	if got, want := g.bubble.Prompt().Message, "Save this reply in Drafts?"; !strings.HasPrefix(got, want) {
		t.Fatalf("bad-detail approval message = %q, want prefix %q", got, want)
	}
	// Only the info nudge is folded now.
	if got := g.bubbles.foldedCount(); got != 1 {
		t.Fatalf("folded %d, want only the info nudge", got)
	}
	if got, want := menuLabels(g), "Waiting for you (1)…|"; !strings.HasPrefix(got, want) {
		t.Fatalf("menu %q, want prefix %q", got, want)
	}
	// Answering from elsewhere (the API) closes a folded nudge and the waiting item goes.
	if _, err := c.Answer(ctx, info, nudge.Accept, ""); err != nil {
		t.Fatal(err)
	}
	poll(t, g, "the waiting item to go", func() bool {
		return g.bubbles.foldedCount() == 0 && !strings.HasPrefix(menuLabels(g), "Waiting")
	})
}

// TestBubbleTypingKeepsItOpen: keys typed in the bubble's box reach the
// queue as interaction, which restarts the fold.
func TestBubbleTypingKeepsItOpen(t *testing.T) {
	g, sp, clk := newTestGUI(t)
	id := notify(t, g, sp.core, nudge.KindHelp, "The draft failed twice.", "")
	b := g.bubble
	g.bubbles.delay = 250 * time.Millisecond
	g.bubbles.startFold()
	for range 120 {
		clk.advance(5 * time.Millisecond)
		if g.bubble == b {
			test.Type(b.Entry(), "x")
		}
	}
	if g.bubble != b {
		t.Fatal("bubble folded while the lawyer was typing")
	}
	clk.advance(250 * time.Millisecond)
	if g.bubble != nil {
		t.Fatal("a bubble is still shown, want it folded once left alone")
	}
	if !g.bubbles.folded[id] {
		t.Fatalf("nudge %d not folded (folded %v), want it folded once left alone", id, g.bubbles.folded)
	}
}
