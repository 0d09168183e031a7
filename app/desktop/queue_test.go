package desktop

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// fakeClock runs fold timers when the test advances it.
type fakeClock struct {
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	at           time.Duration
	f            func()
	fired, ended bool
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	t := &fakeTimer{at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		was := !t.fired && !t.ended
		t.ended = true
		return was
	}
}

// advance moves the clock on by d, running each timer due on the way, in
// order, at its own time (a timer a timer starts runs too if it is due).
func (c *fakeClock) advance(d time.Duration) {
	end := c.now + d
	for {
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.fired && !t.ended && t.at <= end && (next == nil || t.at < next.at) {
				next = t
			}
		}
		if next == nil {
			break
		}
		c.now = next.at
		next.fired = true
		next.f()
	}
	c.now = end
}

// screen is the bubble window as the queue's decisions leave it.
type fakeScreen struct {
	noOrb    bool
	inUse    bool    // the lawyer's cursor is in the bubble
	shown    []int64 // every nudge put in a bubble, in order
	onScreen int64   // the nudge in the bubble now; 0 for none
	keysBack int     // how often the keyboard went back to the lawyer's window
	changes  int
}

func (s *fakeScreen) canShowBubble() bool { return !s.noOrb }
func (s *fakeScreen) showBubble(n store.Nudge) {
	s.shown = append(s.shown, n.ID)
	s.onScreen = n.ID
}
func (s *fakeScreen) hideBubble(hadKeys bool) {
	s.onScreen = 0
	if hadKeys {
		s.keysBack++
	}
}
func (s *fakeScreen) bubbleInUse() bool { return s.inUse }
func (s *fakeScreen) queueChanged()     { s.changes++ }

func newTestQueue() (*bubbleQueue, *fakeScreen, *fakeClock) {
	s, c := &fakeScreen{}, &fakeClock{}
	return newBubbleQueue(s, c, slog.New(slog.NewTextHandler(io.Discard, nil))), s, c
}

// shownID is the nudge on screen, 0 for none.
func shownID(q *bubbleQueue) int64 {
	n, ok := q.onScreen()
	if !ok {
		return 0
	}
	return n.ID
}

func queued(q *bubbleQueue) []int64 {
	var ids []int64
	for _, n := range q.queue {
		ids = append(ids, n.ID)
	}
	slices.Sort(ids)
	return ids
}

// menuOf is the tray menu's top as refreshWaiting leaves it.
func menuOf(q *bubbleQueue) string {
	if label, show := waitingLabel(q.foldedCount()); show {
		return label + "|Status"
	}
	return "Status"
}

// nudges records nudges in a real store, as the core does before it
// shows them.
type nudges struct {
	t  *testing.T
	st *store.Store
}

func newNudges(t *testing.T) nudges {
	st, err := store.OpenDir(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return nudges{t: t, st: st}
}

func (ns nudges) add(kind, msg, detail string) store.Nudge {
	ns.t.Helper()
	n, err := ns.st.CreateNudge(context.Background(), store.Nudge{Kind: kind, Message: msg, Detail: detail})
	if err != nil {
		ns.t.Fatal(err)
	}
	return n
}

// answer records an answer as the core does; the queue then hears
// NudgeWithdrawn.
func (ns nudges) answer(q *bubbleQueue, id int64, state store.NudgeState, answer string) {
	ns.t.Helper()
	if _, err := ns.st.RespondNudge(context.Background(), id, state, answer); err != nil {
		ns.t.Fatal(err)
	}
	q.close(id)
}

func (ns nudges) open() []store.Nudge {
	ns.t.Helper()
	open, err := ns.st.Nudges(context.Background(), store.NudgeShown, store.NudgeSnoozed)
	if err != nil {
		ns.t.Fatal(err)
	}
	return open
}

func TestPickNextOrder(t *testing.T) {
	ns := []store.Nudge{
		{ID: 1, Kind: nudge.KindInfo}, {ID: 2, Kind: nudge.KindQuestion}, {ID: 5, Kind: nudge.KindGlance},
		{ID: 3, Kind: nudge.KindApproval}, {ID: 4, Kind: nudge.KindResult}, {ID: 6, Kind: nudge.KindReminder},
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
	if i := pickNext(ns, func(n store.Nudge) bool { return nudge.Important(n.Kind) }); ns[i].ID != 6 {
		t.Fatalf("skip: picked %d", ns[i].ID)
	}
	if pickNext(nil, nil) != -1 {
		t.Fatal("empty queue")
	}
}

func TestBubbleQueuePreemptFoldAndReopen(t *testing.T) {
	q, scr, clk := newTestQueue()
	q.delay = time.Hour
	ns := newNudges(t)

	info := ns.add(nudge.KindInfo, "Synced 12 messages.", "").ID
	q.add(store.Nudge{ID: info, Kind: nudge.KindInfo})
	if shownID(q) != info {
		t.Fatalf("first nudge not shown: bubble %d", shownID(q))
	}
	glance := ns.add(nudge.KindGlance, "Marcy is waiting on your reply.", "").ID
	q.add(store.Nudge{ID: glance, Kind: nudge.KindGlance})
	if got := shownID(q); got != info {
		t.Fatalf("a lesser nudge must wait: bubble %d, want the info %d still shown", got, info)
	}
	if got := len(q.queue); got != 1 {
		t.Fatalf("a lesser nudge must wait: queue holds %d (%v), want 1", got, queued(q))
	}
	question := ns.add(nudge.KindQuestion, "Which draft?", `{"options":["Short","Long"]}`).ID
	q.add(store.Nudge{ID: question, Kind: nudge.KindQuestion})
	if got := shownID(q); got != question {
		t.Fatalf("question did not preempt the info bubble: bubble %d, want %d (queue %v)", got, question, queued(q))
	}
	if got := len(q.queue); got != 2 {
		t.Fatalf("after the question the queue holds %d (%v), want 2", got, queued(q))
	}
	if q.folded[info] {
		t.Fatalf("the preempted info bubble %d is folded, want it queued", info)
	}
	// The window: the question's bubble is the one on screen.
	if scr.onScreen != question {
		t.Fatalf("bubble window shows %d, want the question %d", scr.onScreen, question)
	}

	// Left alone, bubbles fold one after another: question, then glance, then info.
	q.delay = 30 * time.Millisecond
	q.startFold()
	clk.advance(time.Second)
	if got := shownID(q); got != 0 {
		t.Fatalf("bubble %d still shown, want all three folded", got)
	}
	if got := q.foldedCount(); got != 3 {
		t.Fatalf("folded %d bubbles, want all 3", got)
	}
	if got, want := scr.shown[len(scr.shown)-3:], []int64{question, glance, info}; !slices.Equal(got, want) {
		t.Errorf("bubbles shown while folding: %v, want %v", got, want)
	}
	if got := menuOf(q); !strings.HasPrefix(got, "Waiting for you (3)…|") {
		t.Fatalf("menu %q lacks the waiting item on top", got)
	}
	if open := ns.open(); len(open) != 3 {
		t.Fatalf("folded nudges must stay open: %+v", open)
	}

	// The menu item reopens the newest important folded nudge: the question.
	q.delay = time.Hour
	q.reopenFolded()
	if got := shownID(q); got != question {
		t.Fatalf("reopen: bubble %d, want the question %d", got, question)
	}
	if got := q.foldedCount(); got != 2 {
		t.Fatalf("reopen: folded %d, want 2", got)
	}
	if got, want := menuOf(q), "Waiting for you (2)…|"; !strings.HasPrefix(got, want) {
		t.Fatalf("reopen: menu %q, want prefix %q", got, want)
	}
	ns.answer(q, question, store.NudgeAccepted, nudge.AnswerChoice("Long"))
	if shownID(q) == question {
		t.Fatal("the answered question is still on screen")
	}
	// Only the folded nudges stay open, and no bubble is out: both folded.
	if open := ns.open(); len(open) != 2 {
		t.Fatalf("open nudges = %d, want only the 2 folded: %+v", len(open), open)
	}
	if got := shownID(q); got != 0 {
		t.Fatalf("bubble %d shown, want none: both folded", got)
	}
	n, err := ns.st.Nudge(context.Background(), question)
	if err != nil {
		t.Fatal(err)
	}
	if n.State != store.NudgeAccepted {
		t.Fatalf("question state = %s, want %s", n.State, store.NudgeAccepted)
	}
	if n.Answer != "answer:Long" {
		t.Fatalf("question answer = %q, want %q", n.Answer, "answer:Long")
	}

	// The hotkey brings the newest open nudge forward and engages it.
	if !q.bringForward() {
		t.Fatal("hotkey: no bubble came forward")
	}
	if first := q.interact(); !first {
		t.Error("hotkey: the bubble was engaged already")
	}
	if got := shownID(q); got != glance {
		t.Fatalf("hotkey: bubble %d, want the newest open nudge %d", got, glance)
	}
	if !q.engaged {
		t.Fatal("hotkey: queue not engaged, want engaged")
	}
	// The lawyer is in that bubble: an approval waits instead of preempting;
	// its bad detail shows the message with the default buttons.
	approvalN := ns.add(nudge.KindApproval, "Save this reply in Drafts?", `{"fields":`)
	approval := approvalN.ID
	q.add(approvalN)
	if shownID(q) != glance {
		t.Fatalf("approval preempted a bubble in use: bubble %d", shownID(q))
	}
	ns.answer(q, glance, store.NudgeDismissed, "") // Esc in the bubble
	if shownID(q) != approval {
		t.Fatalf("the approval to show: bubble %d", shownID(q))
	}
	if scr.keysBack != 1 {
		t.Errorf("the keyboard went back %d times, want once (the engaged glance closed)", scr.keysBack)
	}
	on, _ := q.onScreen()
	p := promptFor(on, time.Now())
	if got := choiceIDs(p.Choices); got != "dismiss=Deny" {
		t.Fatalf("bad-detail approval buttons = %s, want dismiss=Deny", got)
	}
	if want := "Save this reply in Drafts?"; !strings.HasPrefix(p.Message, want) {
		t.Fatalf("bad-detail approval message = %q, want prefix %q", p.Message, want)
	}
	// Only the info nudge is folded now.
	if got := q.foldedCount(); got != 1 {
		t.Fatalf("folded %d, want only the info nudge", got)
	}
	if got, want := menuOf(q), "Waiting for you (1)…|"; !strings.HasPrefix(got, want) {
		t.Fatalf("menu %q, want prefix %q", got, want)
	}
	// Answering from elsewhere (the API) closes a folded nudge and the waiting item goes.
	ns.answer(q, info, store.NudgeAccepted, "")
	if got := q.foldedCount(); got != 0 {
		t.Fatalf("folded %d after the info was answered, want 0", got)
	}
	if got := menuOf(q); strings.HasPrefix(got, "Waiting") {
		t.Fatalf("menu %q still starts with the waiting item, want it gone", got)
	}
}

func TestBubbleInteractionDelaysFold(t *testing.T) {
	q, _, clk := newTestQueue()
	id := int64(7)
	q.add(store.Nudge{ID: id, Kind: nudge.KindHelp, Message: "The draft failed twice."})
	q.delay = 250 * time.Millisecond
	q.startFold()
	// Typing keeps it open: each key restarts the delay.
	for range 120 { // 600 ms at a typist's pace of a key per 5 ms
		clk.advance(5 * time.Millisecond)
		q.interact()
	}
	if shownID(q) != id {
		t.Fatal("bubble folded while the lawyer was typing")
	}
	clk.advance(250 * time.Millisecond)
	if got := shownID(q); got != 0 {
		t.Fatalf("bubble %d still shown, want it folded once left alone", got)
	}
	if !q.folded[id] {
		t.Fatalf("nudge %d not folded (folded %v), want it folded once left alone", id, q.folded)
	}
}

// TestBubbleQueueDecisions covers each decision on its own.
func TestBubbleQueueDecisions(t *testing.T) {
	type step func(q *bubbleQueue, s *fakeScreen, c *fakeClock)
	add := func(id int64, kind string) step {
		return func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.add(store.Nudge{ID: id, Kind: kind}) }
	}
	closeN := func(id int64) step { return func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.close(id) } }
	wait := func(d time.Duration) step { return func(_ *bubbleQueue, _ *fakeScreen, c *fakeClock) { c.advance(d) } }
	engage := func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.interact() }
	cursorIn := func(_ *bubbleQueue, s *fakeScreen, _ *fakeClock) { s.inUse = true }
	reopen := func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.reopenFolded() }
	look := func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.looked() }
	noOrb := func(_ *bubbleQueue, s *fakeScreen, _ *fakeClock) { s.noOrb = true }
	switchTo := func(window uint64, title string) step {
		return func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.switched(window, title, false) }
	}
	newPane := func(window uint64, title string) step {
		return func(q *bubbleQueue, _ *fakeScreen, _ *fakeClock) { q.switched(window, title, true) }
	}
	message := switchTo(7, "RE: SNDA - Message (HTML)")

	for _, tc := range []struct {
		name     string
		steps    []step
		onScreen int64
		queue    []int64
		folded   int
		menu     string
	}{
		{"first nudge shows", []step{add(1, nudge.KindInfo)}, 1, nil, 0, "Status"},
		{"a lesser nudge waits", []step{add(1, nudge.KindInfo), add(2, nudge.KindGlance)}, 1, []int64{2}, 0, "Status"},
		{"an important nudge preempts", []step{add(1, nudge.KindInfo), add(2, nudge.KindQuestion)}, 2, []int64{1}, 0, "Status"},
		{"an important nudge does not preempt another", []step{add(1, nudge.KindApproval), add(2, nudge.KindQuestion)}, 1, []int64{2}, 0, "Status"},
		{"an engaged bubble is not preempted", []step{add(1, nudge.KindInfo), engage, add(2, nudge.KindHelp)}, 1, []int64{2}, 0, "Status"},
		{"the same nudge again is ignored", []step{add(1, nudge.KindInfo), add(1, nudge.KindInfo)}, 1, nil, 0, "Status"},
		{"closing the bubble shows the next", []step{add(1, nudge.KindInfo), add(2, nudge.KindGlance), closeN(1)}, 2, nil, 0, "Status"},
		{"closing a queued nudge", []step{add(1, nudge.KindInfo), add(2, nudge.KindGlance), closeN(2)}, 1, nil, 0, "Status"},
		{"left alone, it folds", []step{add(1, nudge.KindInfo), wait(defaultFoldDelay)}, 0, []int64{1}, 1, "Waiting for you (1)…|Status"},
		{"not before its time", []step{add(1, nudge.KindInfo), wait(defaultFoldDelay - time.Millisecond)}, 1, nil, 0, "Status"},
		{"never from under the cursor", []step{add(1, nudge.KindInfo), engage, cursorIn, wait(3 * defaultFoldDelay)}, 1, nil, 0, "Status"},
		{"engaged but the cursor elsewhere, it folds", []step{add(1, nudge.KindInfo), engage, wait(defaultFoldDelay)}, 0, []int64{1}, 1, "Waiting for you (1)…|Status"},
		{"never from under the pointer that opened it", []step{add(1, nudge.KindInfo), look, cursorIn, wait(3 * defaultFoldDelay)}, 1, nil, 0, "Status"},
		{"pointed at, it stays a delay from then", []step{add(1, nudge.KindInfo), wait(defaultFoldDelay - time.Second), look, wait(defaultFoldDelay - time.Millisecond)}, 1, nil, 0, "Status"},
		{"pointed at, then left alone, it folds", []step{add(1, nudge.KindInfo), wait(defaultFoldDelay - time.Second), look, wait(defaultFoldDelay)}, 0, []int64{1}, 1, "Waiting for you (1)…|Status"},
		{"pointing at nothing changes nothing", []step{look}, 0, nil, 0, "Status"},
		{"pointed at is not engaged: a question still preempts", []step{add(1, nudge.KindInfo), look, add(2, nudge.KindQuestion)}, 2, []int64{1}, 0, "Status"},
		{"a folded nudge answered elsewhere", []step{add(1, nudge.KindInfo), wait(defaultFoldDelay), closeN(1)}, 0, nil, 0, "Status"},
		{"reopen steps the bubble back", []step{add(1, nudge.KindInfo), wait(defaultFoldDelay), add(2, nudge.KindGlance), reopen}, 1, []int64{2}, 0, "Status"},
		{"reopen with nothing folded", []step{add(1, nudge.KindInfo), reopen}, 1, nil, 0, "Status"},
		{"no orb, no bubble", []step{noOrb, add(1, nudge.KindQuestion)}, 0, []int64{1}, 0, "Status"},
		{"a glance folds when the lawyer leaves its window", []step{message, add(1, nudge.KindGlance), switchTo(9, "Budget.xlsx")}, 0, []int64{1}, 1, "Waiting for you (1)…|Status"},
		{"a glance folds when another message comes to the front", []step{message, add(1, nudge.KindGlance), switchTo(7, "RE: Lease - Message (HTML)")}, 0, []int64{1}, 1, "Waiting for you (1)…|Status"},
		{"a glance stays while its message is in front", []step{message, add(1, nudge.KindGlance), message}, 1, nil, 0, "Status"},
		{"a glance folds when the reading pane opens another message", []step{switchTo(7, "Inbox - Mozilla Thunderbird"), add(1, nudge.KindGlance), newPane(7, "Inbox - Mozilla Thunderbird")}, 0, []int64{1}, 1, "Waiting for you (1)…|Status"},
		{"a glance in use stays when the lawyer leaves", []step{message, add(1, nudge.KindGlance), engage, switchTo(9, "Budget.xlsx")}, 1, nil, 0, "Status"},
		{"other kinds stay when the lawyer leaves", []step{message, add(1, nudge.KindReminder), switchTo(9, "Budget.xlsx")}, 1, nil, 0, "Status"},
		{"the next bubble shows when a glance folds", []step{message, add(1, nudge.KindGlance), add(2, nudge.KindInfo), switchTo(9, "Budget.xlsx")}, 2, []int64{1}, 1, "Waiting for you (1)…|Status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, s, c := newTestQueue()
			for _, st := range tc.steps {
				st(q, s, c)
			}
			if got := shownID(q); got != tc.onScreen {
				t.Errorf("on screen: got %d, want %d", got, tc.onScreen)
			}
			if s.onScreen != tc.onScreen {
				t.Errorf("bubble window: got %d, want %d", s.onScreen, tc.onScreen)
			}
			if got := queued(q); !slices.Equal(got, tc.queue) {
				t.Errorf("queue: got %v, want %v", got, tc.queue)
			}
			if got := q.foldedCount(); got != tc.folded {
				t.Errorf("folded: got %d, want %d", got, tc.folded)
			}
			if got := menuOf(q); got != tc.menu {
				t.Errorf("menu: got %q, want %q", got, tc.menu)
			}
		})
	}
}
