package desktop

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
)

// defaultFoldDelay is how long a bubble may be left alone before it folds
// away.
const defaultFoldDelay = 45 * time.Second

// clock schedules the fold: the wall clock on the desktop (its callbacks
// run on the main thread), a fake one in tests.
type clock interface {
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// bubbleView is where the queue's decisions are carried out: the bubble
// window. Its methods run on the queue's thread (the main thread).
type bubbleView interface {
	// canShowBubble says whether a bubble can be shown at all (the orb it
	// sits beside is up).
	canShowBubble() bool
	// showBubble puts n in a new bubble on screen.
	showBubble(n store.Nudge)
	// hideBubble takes the bubble down; hadKeys says it had the keyboard,
	// which then goes back to the lawyer's window.
	hideBubble(hadKeys bool)
	// bubbleInUse says the lawyer's pointer is over the bubble, or its
	// window has the keyboard, now.
	bubbleInUse() bool
	// queueChanged tells what follows the queue (the orb, the "Waiting
	// for you" item) to look again.
	queueChanged()
}

// bubbleQueue decides which open nudge is in the one bubble on screen:
// important kinds (nudge.Important) before the others, newest first; an
// important nudge pushes a lesser bubble back unless the lawyer is using
// it; a bubble left alone folds away, its nudge still open, until the
// lawyer reopens it. Not safe for concurrent use: the desktop calls it on
// the main thread.
type bubbleQueue struct {
	view  bubbleView
	clock clock
	log   *slog.Logger
	delay time.Duration // how long a bubble may be left alone; 0: defaultFoldDelay

	queue   []store.Nudge  // every open nudge not on screen
	shown   store.Nudge    // the nudge on screen, when showing
	showing bool           // a bubble is on screen
	folded  map[int64]bool // queued nudges whose bubble folded away unanswered
	engaged bool           // the lawyer clicked or typed in the bubble on screen

	stopFold func() bool // the fold timer; nil when none runs
	foldGen  int         // tells a stale timer from the current one

	here  place // the window in front, from the last app switch
	about place // the window the glance bubble on screen came from
}

// place is a window and the message in it: in a mail client's main window
// a new title, or a new message in the reading pane, is another message.
type place struct {
	window uint64
	title  string
	pane   int // counts messages opened in the reading pane
}

func newBubbleQueue(view bubbleView, c clock, log *slog.Logger) *bubbleQueue {
	return &bubbleQueue{view: view, clock: c, log: log, folded: map[int64]bool{}}
}

// nudgeFirst orders bubbles: important kinds before the others, newest
// first within each group.
func nudgeFirst(a, b store.Nudge) bool {
	if ia, ib := nudge.Important(a.Kind), nudge.Important(b.Kind); ia != ib {
		return ia
	}
	return a.ID > b.ID
}

// pickNext is the index in ns of the nudge to show next, leaving out those
// skip rejects (nil skips none); -1 when none is left.
func pickNext(ns []store.Nudge, skip func(store.Nudge) bool) int {
	best := -1
	for i, n := range ns {
		if skip != nil && skip(n) {
			continue
		}
		if best < 0 || nudgeFirst(n, ns[best]) {
			best = i
		}
	}
	return best
}

// waitingLabel is the menu item atop the tray menu while folded > 0
// nudges are folded away; show is false when none is.
func waitingLabel(folded int) (label string, show bool) {
	return fmt.Sprintf("Waiting for you (%d)…", folded), folded > 0
}

// onScreen is the nudge in the bubble; ok is false when none is shown.
func (q *bubbleQueue) onScreen() (n store.Nudge, ok bool) { return q.shown, q.showing }

// attention says the orb should ask for attention: a bubble is out or
// nudges wait.
func (q *bubbleQueue) attention() bool { return q.showing || len(q.queue) > 0 }

// foldedCount is how many open nudges are folded away.
func (q *bubbleQueue) foldedCount() int {
	n := 0
	for _, x := range q.queue {
		if q.folded[x.ID] {
			n++
		}
	}
	return n
}

// add takes in a nudge to show: one bubble at a time, important kinds
// first, newest first.
func (q *bubbleQueue) add(n store.Nudge) {
	if q.showing && q.shown.ID == n.ID {
		return // already on screen
	}
	q.remove(n.ID)
	q.queue = append(q.queue, n)
	switch {
	case !q.showing:
		q.next()
	case nudge.Important(n.Kind) && !nudge.Important(q.shown.Kind) && !q.engaged:
		// Someone is waiting on the lawyer: the lesser bubble steps back.
		q.log.Debug("nudge preempts bubble", "nudge", n.ID, "back", q.shown.ID)
		q.putBack(false)
		q.next()
	}
	q.view.queueChanged()
}

// close drops a nudge that was answered or withdrawn; if it was on screen
// the next one shows.
func (q *bubbleQueue) close(id int64) {
	q.remove(id)
	if q.showing && q.shown.ID == id {
		q.takeDown()
		q.next()
	}
	q.view.queueChanged()
}

// remove drops nudge id from the queue and the folded set.
func (q *bubbleQueue) remove(id int64) {
	for i, n := range q.queue {
		if n.ID == id {
			q.queue = append(q.queue[:i], q.queue[i+1:]...)
			break
		}
	}
	delete(q.folded, id)
}

// takeDown hides the bubble on screen; the caller keeps or drops its nudge.
func (q *bubbleQueue) takeDown() {
	q.cancelFold()
	hadKeys := q.engaged
	q.shown, q.showing, q.engaged = store.Nudge{}, false, false
	q.view.hideBubble(hadKeys)
}

// putBack returns the bubble on screen to the queue, folded or not.
func (q *bubbleQueue) putBack(folded bool) {
	if !q.showing {
		return
	}
	n := q.shown
	q.takeDown()
	q.queue = append(q.queue, n)
	if folded {
		q.folded[n.ID] = true
	}
}

// next shows the first queued nudge that has not folded.
func (q *bubbleQueue) next() {
	if q.showing || !q.view.canShowBubble() {
		return
	}
	if i := pickNext(q.queue, func(n store.Nudge) bool { return q.folded[n.ID] }); i >= 0 {
		q.showAt(i)
	}
}

// showAt puts q.queue[i] on screen.
func (q *bubbleQueue) showAt(i int) {
	n := q.queue[i]
	q.queue = append(q.queue[:i], q.queue[i+1:]...)
	delete(q.folded, n.ID)
	q.shown, q.showing, q.engaged = n, true, false
	q.about = q.here // a glance is about the window in front as it shows
	q.view.showBubble(n)
	q.startFold()
}

// interact is the lawyer clicking or typing in the bubble: it stays open
// for another delay from now. It reports whether this is the first time,
// when the bubble takes the keyboard.
func (q *bubbleQueue) interact() (first bool) {
	if !q.showing {
		return false
	}
	q.startFold() // left alone counts from the last click or key
	if q.engaged {
		return false
	}
	q.engaged = true
	return true
}

// looked is the lawyer pointing at the bubble, which opens it to be read:
// it stays for another delay from now, without taking the keyboard.
func (q *bubbleQueue) looked() {
	if q.showing {
		q.startFold()
	}
}

// startFold (re)starts the fold timer of the bubble on screen.
func (q *bubbleQueue) startFold() {
	q.cancelFold()
	gen := q.foldGen
	d := q.delay
	if d <= 0 {
		d = defaultFoldDelay
	}
	q.stopFold = q.clock.AfterFunc(d, func() { q.foldDue(gen) })
}

func (q *bubbleQueue) cancelFold() {
	if q.stopFold != nil {
		q.stopFold()
		q.stopFold = nil
	}
	q.foldGen++
}

// foldDue folds the bubble left alone: its nudge stays open, listed under
// "Waiting for you" in the menus, and the next queued bubble shows.
func (q *bubbleQueue) foldDue(gen int) {
	if !q.showing || gen != q.foldGen {
		return // a timer stopped too late
	}
	if q.view.bubbleInUse() {
		// Never fold away from under the lawyer's cursor, nor from a
		// bubble that has the keyboard.
		q.startFold()
		return
	}
	q.log.Debug("bubble folded", "nudge", q.shown.ID)
	q.putBack(true)
	q.next()
	q.view.queueChanged()
}

// switched is the lawyer bringing another window (or another message) to
// the front. A glance bubble is about the message that was in front when
// it came: once the lawyer leaves it, the bubble folds back at once rather
// than sit over unrelated work until its delay runs out, unless the lawyer
// is using it.
func (q *bubbleQueue) switched(window uint64, title string, newPane bool) {
	here := place{window: window, title: title, pane: q.here.pane}
	if newPane {
		here.pane++
	}
	q.here = here
	if !q.showing || q.shown.Kind != nudge.KindGlance || q.engaged || q.about == q.here {
		return
	}
	q.log.Debug("glance bubble folded: the lawyer moved on", "nudge", q.shown.ID)
	q.putBack(true)
	q.next()
	q.view.queueChanged()
}

// reopenFolded shows the first folded nudge (important, newest), stepping
// the bubble on screen back into the queue.
func (q *bubbleQueue) reopenFolded() {
	i := pickNext(q.queue, func(n store.Nudge) bool { return !q.folded[n.ID] })
	if i < 0 {
		return
	}
	id := q.queue[i].ID
	q.putBack(false)
	for i, n := range q.queue {
		if n.ID == id {
			q.showAt(i)
			break
		}
	}
	q.view.queueChanged()
}

// bringForward is the hotkey's first half: the bubble on screen, or else
// the first open nudge (important, newest), comes forward. It reports
// whether a bubble is on screen; the desktop then engages it (interact)
// and gives it the keyboard.
func (q *bubbleQueue) bringForward() bool {
	if !q.showing {
		i := pickNext(q.queue, nil)
		if i < 0 {
			return false
		}
		q.showAt(i)
		q.view.queueChanged()
	}
	return q.showing
}

// stop ends the fold timer, when the desktop closes.
func (q *bubbleQueue) stop() { q.cancelFold() }
