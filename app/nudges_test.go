package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
)

func choiceIDs(cs []ui.Choice) string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID+"="+c.Label)
	}
	return strings.Join(ids, "|")
}

func TestPromptForAgentKinds(t *testing.T) {
	now := time.Now()
	q, err := buildPrompt(store.Nudge{Kind: kindQuestion, Message: "Which one?",
		Detail: `{"options":["Short","Long","Neither","Ask Priya","Fifth"]}`}, now)
	if err != nil || q.Title != "Question" || q.Message != "Which one?" || !q.NoDefault {
		t.Fatalf("question prompt %+v, %v", q, err)
	}
	if got := choiceIDs(q.Options); got != "answer:Short=Short|answer:Long=Long|answer:Neither=Neither|answer:Ask Priya=Ask Priya" {
		t.Errorf("question options %s", got)
	}
	if got := choiceIDs(q.Choices); got != "dismiss=Dismiss" || q.Cancel != api.ActionDismiss {
		t.Errorf("question buttons %s cancel %s", got, q.Cancel)
	}

	a, err := buildPrompt(store.Nudge{Kind: kindApproval, Message: "Save this reply in Drafts?",
		Detail: `{"tool":"create_draft","title":"Draft reply","fields":[{"label":"To","value":"Marcy Howard <marcy@x.com>"},{"label":"Cc","value":""},{"label":"Subject","value":"Re: SNDA"}],"body":"Hi Marcy,\n\nAgreed.\n\nDana"}`}, now)
	if err != nil || a.Title != "Approve?" || a.Body != "Hi Marcy,\n\nAgreed.\n\nDana" || len(a.Fields) != 3 || a.Fields[0] != (ui.Field{Label: "To", Value: "Marcy Howard <marcy@x.com>"}) {
		t.Fatalf("approval prompt %+v, %v", a, err)
	}
	if got := choiceIDs(a.Choices); got != "accept=Approve|edit=Edit|dismiss=Deny" || !a.NoDefault {
		t.Errorf("approval buttons %s", got)
	}

	h, _ := buildPrompt(store.Nudge{Kind: kindHelp, Message: "The draft failed twice."}, now)
	if got := choiceIDs(h.Choices); h.Title != "Need help" || got != "accept=Try again|dismiss=Stop" || h.Placeholder != "Tell Spirit how to go on…" {
		t.Errorf("help prompt %+v", h)
	}
	r, _ := buildPrompt(store.Nudge{Kind: kindResult, Message: "Drafted the reply."}, now)
	if got := choiceIDs(r.Choices); r.Title != "Done" || got != "accept=OK|open_activity=Show activity" {
		t.Errorf("result prompt %+v", r)
	}

	bad, err := buildPrompt(store.Nudge{Kind: kindQuestion, Message: "Garbled", Detail: `{"options": [1,`}, now)
	if err == nil || bad.Message != "Garbled" || choiceIDs(bad.Choices) != choiceIDs(defaultChoices()) || len(bad.Options) != 0 || bad.Body != "" {
		t.Errorf("question with bad detail: %+v, %v", bad, err)
	}
	// An approval the lawyer cannot see in full can only be denied.
	for _, detail := range []string{`{"options": [1,`, ``, `{}`} {
		bad, err := buildPrompt(store.Nudge{Kind: kindApproval, Message: "Garbled", Detail: detail}, now)
		if err == nil || !strings.HasPrefix(bad.Message, "Garbled") || choiceIDs(bad.Choices) != "dismiss=Deny" || bad.Body != "" {
			t.Errorf("approval with detail %q: %+v, %v", detail, bad, err)
		}
	}
}

func TestPickNextOrder(t *testing.T) {
	ns := []store.Nudge{
		{ID: 1, Kind: kindInfo}, {ID: 2, Kind: kindQuestion}, {ID: 5, Kind: kindGlance},
		{ID: 3, Kind: kindApproval}, {ID: 4, Kind: kindResult}, {ID: 6, Kind: kindReminder},
	}
	var order []int64
	left := append([]store.Nudge(nil), ns...)
	for {
		i := pickNext(left, nil)
		if i < 0 {
			break
		}
		order = append(order, left[i].ID)
		left = append(left[:i], left[i+1:]...)
	}
	if fmt.Sprint(order) != "[3 2 6 5 4 1]" {
		t.Fatalf("order %v, want important newest first, then the rest newest first", order)
	}
	if i := pickNext(ns, func(n store.Nudge) bool { return importantKind(n.Kind) }); ns[i].ID != 6 {
		t.Fatalf("skip: picked %d", ns[i].ID)
	}
	if pickNext(nil, nil) != -1 {
		t.Fatal("empty queue")
	}
}

// newTestGUI is a gui on Fyne's test driver around a real Core and store;
// there is no X desktop, so focus and placement calls are skipped.
func newTestGUI(t *testing.T) (*gui, *Core) {
	t.Helper()
	a := test.NewTempApp(t)
	c, _ := newTestCore(t, t.TempDir())
	g := &gui{core: c, fa: a, ctx: t.Context(), log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		foldDelay: time.Hour}
	g.orb = a.NewWindow("Spirit")
	g.panel = a.NewWindow("Spirit menu")
	g.buildMenu(Status{})
	c.SetPresenter(g)
	t.Cleanup(func() { c.SetPresenter(nil); g.stopFold() })
	return g, c
}

func notify(t *testing.T, c *Core, kind, msg, detail string) int64 {
	t.Helper()
	n, err := c.Notify(context.Background(), api.NewNudge{Kind: kind, Message: msg, Detail: detail})
	if err != nil {
		t.Fatal(err)
	}
	return n.ID
}

// poll checks cond on the (test) main thread until it holds or 5 s pass.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok := false
		fyne.DoAndWait(func() { ok = cond() })
		if ok {
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

func TestBubbleQueuePreemptFoldAndReopen(t *testing.T) {
	g, c := newTestGUI(t)
	ctx := context.Background()
	info := notify(t, c, kindInfo, "Synced 12 messages.", "")
	if g.bubbleID != info {
		t.Fatalf("first nudge not shown: bubble %d", g.bubbleID)
	}
	glance := notify(t, c, kindGlance, "Marcy is waiting on your reply.", "")
	if g.bubbleID != info || len(g.queue) != 1 {
		t.Fatalf("a lesser nudge must wait: bubble %d queue %v", g.bubbleID, g.queue)
	}
	question := notify(t, c, kindQuestion, "Which draft?", `{"options":["Short","Long"]}`)
	if g.bubbleID != question || len(g.queue) != 2 || g.folded[info] {
		t.Fatalf("question did not preempt the info bubble: bubble %d queue %v", g.bubbleID, g.queue)
	}
	if !g.bubbleWin.Content().Visible() || g.bubbleWin.Content() != g.bubble {
		t.Fatal("bubble window does not show the question")
	}

	// Left alone, bubbles fold one after another: question, then glance, then info.
	fyne.DoAndWait(func() {
		g.foldDelay = 30 * time.Millisecond
		g.startFold()
	})
	poll(t, "all three bubbles to fold", func() bool { return g.bubble == nil && g.foldedCount() == 3 })
	if got := menuLabels(g); !strings.HasPrefix(got, "Waiting for you (3)…|") {
		t.Fatalf("menu %q lacks the waiting item on top", got)
	}
	open, err := c.Nudges(ctx)
	if err != nil || len(open) != 3 {
		t.Fatalf("folded nudges must stay open: %+v, %v", open, err)
	}

	// The menu item reopens the newest important folded nudge: the question.
	fyne.DoAndWait(func() {
		g.foldDelay = time.Hour
		g.menu.Items[0].Action()
	})
	if g.bubbleID != question || g.foldedCount() != 2 || !strings.HasPrefix(menuLabels(g), "Waiting for you (2)…|") {
		t.Fatalf("reopen: bubble %d folded %d menu %q", g.bubbleID, g.foldedCount(), menuLabels(g))
	}
	g.bubble.Choose("answer:Long")
	poll(t, "the answered question to close", func() bool { return g.bubbleID != question })
	// A question no agent asked may earn a "Spirit could not do that" notice
	// from the agent runtime: answer it, so only the folded two stay open.
	poll(t, "only the folded nudges to stay open", func() bool {
		ns, err := c.Nudges(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			if n.ID != info && n.ID != glance {
				c.Answer(ctx, n.ID, api.ActionDismiss, "") // a second try may find it closed: fine
			}
		}
		return len(ns) == 2 && g.bubble == nil
	})
	n, err := c.store.Nudge(ctx, question)
	if err != nil || n.State != store.NudgeAccepted || n.Answer != "answer:Long" {
		t.Fatalf("question answer %+v, %v", n, err)
	}

	// The hotkey brings the newest open nudge forward with the cursor in it.
	fyne.DoAndWait(g.focusNudge)
	if g.bubbleID != glance || !g.bubbleEngaged || g.bubbleWin.Canvas().Focused() != g.bubble.Entry() {
		t.Fatalf("hotkey: bubble %d engaged %v focused %T", g.bubbleID, g.bubbleEngaged, g.bubbleWin.Canvas().Focused())
	}
	// The lawyer is in that bubble: an approval waits instead of preempting;
	// its bad detail shows the message with the default buttons.
	approval := notify(t, c, kindApproval, "Save this reply in Drafts?", `{"fields":`)
	if g.bubbleID != glance {
		t.Fatalf("approval preempted a bubble in use: bubble %d", g.bubbleID)
	}
	g.bubble.Cancel()
	poll(t, "the approval to show", func() bool { return g.bubbleID == approval })
	if got := choiceIDs(g.bubble.Prompt().Choices); got != "dismiss=Deny" || !strings.HasPrefix(g.bubble.Prompt().Message, "Save this reply in Drafts?") {
		t.Fatalf("bad-detail approval: %s", got)
	}
	// Only the info nudge is folded now.
	if g.foldedCount() != 1 || !strings.HasPrefix(menuLabels(g), "Waiting for you (1)…|") {
		t.Fatalf("folded %d, menu %q", g.foldedCount(), menuLabels(g))
	}
	// Answering from elsewhere (the API) closes a folded nudge and the waiting item goes.
	if _, err := c.Answer(ctx, info, api.ActionAccept, ""); err != nil {
		t.Fatal(err)
	}
	poll(t, "the waiting item to go", func() bool { return g.foldedCount() == 0 && !strings.HasPrefix(menuLabels(g), "Waiting") })
}

func TestBubbleInteractionDelaysFold(t *testing.T) {
	g, c := newTestGUI(t)
	id := notify(t, c, kindHelp, "The draft failed twice.", "")
	var b *ui.Bubble
	fyne.DoAndWait(func() {
		b = g.bubble
		g.foldDelay = 250 * time.Millisecond
		g.startFold()
	})
	// Typing keeps it open: each key restarts the delay.
	deadline := time.Now().Add(600 * time.Millisecond)
	for time.Now().Before(deadline) {
		fyne.DoAndWait(func() {
			if g.bubble == b {
				test.Type(b.Entry(), "x")
			}
		})
		time.Sleep(5 * time.Millisecond) // a typist's pace, not synchronisation
	}
	folded := false
	fyne.DoAndWait(func() { folded = g.bubble != b })
	if folded {
		t.Fatal("bubble folded while the lawyer was typing")
	}
	poll(t, "the bubble to fold once left alone", func() bool { return g.bubble == nil && g.folded[id] })
}
