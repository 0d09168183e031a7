package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/desktop/widgets"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform"
)

// maxOptionLabel is how many runes of a question's option its button shows.
const maxOptionLabel = 44

// promptFor words the bubble for a nudge: its buttons follow its kind.
func promptFor(n store.Nudge, now time.Time) widgets.Prompt {
	p, _ := buildPrompt(n, now)
	return p
}

// withSnoozeLength names minutes on the Snooze button: "Snooze 25 min",
// "Snooze 1 h", "Snooze 1 h 30 min". The other choices are kept; so is a
// Snooze button when minutes is not a length.
func withSnoozeLength(cs []widgets.Choice, minutes int) []widgets.Choice {
	out := slices.Clone(cs)
	if minutes <= 0 {
		return out
	}
	label := fmt.Sprintf("Snooze %d min", minutes)
	switch h, m := minutes/60, minutes%60; {
	case h > 0 && m == 0:
		label = fmt.Sprintf("Snooze %d h", h)
	case h > 0:
		label = fmt.Sprintf("Snooze %d h %d min", h, m)
	}
	for i := range out {
		if out[i].ID == nudge.Snooze {
			out[i].Label = label
		}
	}
	return out
}

// buildPrompt is promptFor that also reports a Detail it could not read; the
// bubble then shows the message with the default buttons. A kind's title,
// buttons and hint are its nudge.SpecFor; what a nudge carries beyond its
// message (a question's options, an approval's action, the quick times of
// "when?") is added here.
func buildPrompt(n store.Nudge, now time.Time) (widgets.Prompt, error) {
	spec := nudge.SpecFor(n.Kind)
	p := widgets.Prompt{Title: spec.Title, Message: n.Message, Cancel: nudge.Dismiss,
		Choices: spec.Choices, Placeholder: spec.Placeholder, NoDefault: spec.NoDefault}
	switch n.Kind {
	case nudge.KindGlance:
		p.Summary = glanceSummary(n.Message)
	case nudge.KindReminderWhen:
		for _, q := range reminders.QuickTimes(now) {
			p.Choices = append(p.Choices, widgets.Choice{ID: nudge.AtChoice(q.At), Label: q.Label})
		}
	case nudge.KindQuestion:
		var d nudge.Question
		if err := nudge.ReadDetail(n.Detail, &d); err != nil {
			p.Choices, p.Placeholder, p.NoDefault = nudge.DefaultChoices(), "", false
			return p, err
		}
		for _, o := range d.Options {
			o = strings.TrimSpace(o)
			if o == "" {
				continue
			}
			if len(p.Options) == widgets.MaxOptions {
				break
			}
			p.Options = append(p.Options, widgets.Choice{ID: nudge.AnswerChoice(o), Label: shorten(o, maxOptionLabel)})
		}
		// NoDefault (the spec's): Enter on an empty box must not dismiss
		// the question.
	case nudge.KindResult, nudge.KindInfo:
		// A kept document (a meeting brief) is shown whole, with Copy.
		var d nudge.DocumentRef
		if err := nudge.ReadDetail(n.Detail, &d); err != nil {
			return p, err
		}
		p.Document = d.Markdown
	case nudge.KindApproval:
		var d nudge.Approval
		err := nudge.ReadDetail(n.Detail, &d)
		if err == nil && d.Body == "" && len(d.Fields) == 0 {
			err = errors.New("nudge detail: an approval without the action")
		}
		if err != nil {
			// Nothing may be approved that the lawyer cannot see in full.
			p.Message += nudge.ApprovalUnreadable
			p.Choices, p.Placeholder, p.NoDefault = onlyDeny(spec.Choices), "", false
			return p, err
		}
		for _, f := range d.Fields {
			p.Fields = append(p.Fields, widgets.Field{Label: f.Label, Value: f.Value})
		}
		p.Body = d.Body
		if d.Body == "" { // nothing to edit
			p.Choices = without(p.Choices, nudge.Edit)
		}
		// NoDefault (the spec's): approve with a click, never with a
		// stray Enter.
	}
	return p, nil
}

// glanceWaiting is how the glance words a message waiting on the lawyer's
// reply (agents/glance, waitingMessage): "<sender> is waiting on your reply
// about <subject>. Draft a reply?".
var glanceWaiting = regexp.MustCompile(`^(.+?) is waiting on your reply about (.+?)\.? Draft a reply\?$`)

// glanceSummary is the one line of a compact glance bubble: who and what,
// as an inbox shows a message ("Marcy Howard: SNDA – Brooklyn Gardens"),
// short enough to read whole at the screen's edge. A message worded
// otherwise (by a model) gives "", its first sentence then.
func glanceSummary(message string) string {
	m := glanceWaiting.FindStringSubmatch(strings.TrimSpace(message))
	if m == nil {
		return ""
	}
	return m[1] + ": " + m[2]
}

// onlyDeny keeps the approval's Dismiss button (labelled Deny).
func onlyDeny(cs []widgets.Choice) []widgets.Choice {
	for _, c := range cs {
		if c.ID == nudge.Dismiss {
			return []widgets.Choice{c}
		}
	}
	return []widgets.Choice{{ID: nudge.Dismiss, Label: "Deny"}}
}

// without drops the choice with id.
func without(cs []widgets.Choice, id string) []widgets.Choice {
	var out []widgets.Choice
	for _, c := range cs {
		if c.ID != id {
			out = append(out, c)
		}
	}
	return out
}

// opensExpanded says whether a nudge's bubble opens whole rather than as
// one line at the edge: when someone waits on the lawyer (a question back
// from a running task, an approval, a task stuck and asking for help), or
// the lawyer waits on Spirit (a reminder that fell due, the answers to a
// reminder they just asked for). A glance at an email, a notice and a
// finished task open as one line, over as little of the lawyer's work as
// can be.
func opensExpanded(kind string) bool {
	switch kind {
	case nudge.KindReminder, nudge.KindReminderConfirm, nudge.KindReminderTrigger, nudge.KindReminderWhen, nudge.KindReminderList:
		return true
	}
	return nudge.Important(kind)
}

// pointerGrace is how long the pointer must stay off an open bubble before
// it folds back: a pointer that slips over the edge and back keeps it open.
const pointerGrace = 400 * time.Millisecond

// pointerPoll is how often the pointer is looked at while a bubble is open.
const pointerPoll = 150 * time.Millisecond

// formState is what decides whether an open bubble folds back to its line.
type formState struct {
	hovered   bool          // the pointer has been over the bubble since it opened
	pointerIn bool          // the pointer is over it now
	outFor    time.Duration // how long the pointer has been off it
	typed     bool          // text in its box, or its body open for editing
	hasKeys   bool          // its window has the keyboard
}

// foldsBack says whether the open bubble goes back to its line: once the
// pointer that opened it (or came over it) has left it a moment, unless
// the lawyer typed in it (never lose typed text) or it has the keyboard
// (the lawyer clicked into it to answer). A bubble that opened whole and
// was never pointed at stays whole.
func foldsBack(s formState) bool {
	return s.hovered && !s.pointerIn && s.outFor >= pointerGrace && !s.typed && !s.hasKeys
}

// bubbleForm is the bubble's form and place on screen; main thread only.
type bubbleForm struct {
	spot      spot // where the bubble sits and how it grows; valid when placed
	placed    bool
	hovered   bool          // the pointer has been over the open bubble
	pointerIn bool          // the pointer is over it, at the last look
	outSince  time.Time     // when the pointer left it; zero while over it
	outFor    time.Duration // how long the pointer has been off it, at the last look
	stopWatch func()        // ends the pointer watch; nil when none runs

	disp   *platform.Display // reads the window in front and the monitors; nil until needed
	noDisp bool              // it could not be opened
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// The bubble on screen, main thread only: g.bubbles (queue.go) decides
// which nudge it shows and when it folds; the gui carries that out on the
// window, as the queue's bubbleView.

// nudgeShown puts a nudge in the queue: NudgeShown.
func (g *gui) nudgeShown(n store.Nudge) {
	g.refreshReminders()
	g.bubbles.add(n)
}

// nudgeClosed takes a nudge out of the queue: NudgeWithdrawn.
func (g *gui) nudgeClosed(id int64) {
	g.refreshReminders()
	g.bubbles.close(id)
}

// canShowBubble implements bubbleView: the bubble sits beside the orb.
func (g *gui) canShowBubble() bool { return g.orb != nil }

// showBubble implements bubbleView: n in a new bubble, shown beside the
// orb without taking the keyboard; compact unless its kind opens whole.
func (g *gui) showBubble(n store.Nudge) {
	p, err := buildPrompt(n, time.Now())
	if err != nil {
		g.log.Warn("nudge detail not understood: showing its message only", "nudge", n.ID, "kind", n.Kind, "err", err)
	}
	if n.Kind == nudge.KindReminder {
		// The button says how long the lawyer's snooze is (Settings →
		// Nudges); read when the bubble shows, so a change shows at once.
		s, _ := g.core.Settings(g.ctx) // usable settings even with an error
		p.Choices = withSnoozeLength(p.Choices, s.SnoozeMinutes)
	}
	var b *widgets.Bubble
	b = widgets.NewBubble(p, func(a widgets.Answer) { g.answer(n.ID, a) })
	b.SetCompact(!opensExpanded(n.Kind))
	b.OnInteract = func() { g.bubbleInteract(b) }
	b.OnHover = func() {
		if g.bubble == b {
			g.form.hovered, g.form.pointerIn = true, true
			g.bubbles.looked()
		}
	}
	b.OnResize = func() {
		if g.bubble == b {
			g.bubbleResized()
		}
	}
	g.stopPointerWatch()
	g.form = bubbleForm{disp: g.form.disp, noDisp: g.form.noDisp}
	g.bubble = b
	g.setBubbleFocus(false)
	g.prepareBubbleWindow()
	g.createBubbleWindow() // where prepareBubbleWindow does nothing (no X11)
	g.bubbleWin.SetContent(b)
	g.bubbleWin.Canvas().SetOnTypedKey(b.TypedKey)
	g.fitBubble()
	g.showBubbleWindow()
	g.followPointer()
}

// bubbleResized fits and places the bubble after it opened, folded back to
// its line or grew (the body opened for editing).
func (g *gui) bubbleResized() {
	if g.bubble.Compact() {
		g.form.hovered, g.form.pointerIn, g.form.outSince, g.form.outFor = false, false, time.Time{}, 0
	}
	g.fitBubble()
	g.placeBubble()
	g.followPointer()
}

// hideBubble implements bubbleView.
func (g *gui) hideBubble(hadKeys bool) {
	g.stopPointerWatch()
	g.form = bubbleForm{disp: g.form.disp, noDisp: g.form.noDisp}
	g.bubble = nil
	g.setBubbleFocus(false)
	if g.bubbleWin != nil {
		g.bubbleWin.Hide()
	}
	if hadKeys {
		g.giveFocusBack()
	}
}

// bubbleInUse implements bubbleView: the bubble's window is the active one,
// or the pointer is over it.
func (g *gui) bubbleInUse() bool {
	return g.bubble != nil && (g.form.pointerIn || g.bubbleHasKeys())
}

// bubbleHasKeys says the bubble's window has the keyboard.
func (g *gui) bubbleHasKeys() bool {
	if g.desk == nil {
		return false
	}
	a, err := g.desk.ActiveWindow()
	return err == nil && a != 0 && a == xid(g.bubbleWin)
}

// queueChanged implements bubbleView: the orb and the "Waiting for you"
// item of the tray menu and the orb's panel follow the queue.
func (g *gui) queueChanged() {
	g.updateOrb()
	g.refreshWaiting()
}

// giveFocusBack returns the keyboard to the lawyer's window once a bubble
// that had it is gone, unless the lawyer has moved on to another window.
func (g *gui) giveFocusBack() {
	if g.desk == nil {
		return
	}
	g.mu.Lock()
	prev, bubble := g.lastOther, g.bubbleXID
	g.mu.Unlock()
	if prev == 0 {
		return
	}
	go func() {
		if active, err := g.desk.ActiveWindow(); err == nil && active != 0 && active != bubble {
			if pid, err := g.desk.WindowPID(active); err != nil || pid != os.Getpid() {
				return // the lawyer's own choice: leave it
			}
		}
		if err := g.desk.Activate(prev); err != nil {
			g.log.Debug("give focus back", "err", err)
		}
	}()
}

func (g *gui) createBubbleWindow() {
	if g.bubbleWin != nil {
		return
	}
	if drv, ok := g.fa.Driver().(desktop.Driver); ok {
		g.bubbleWin = drv.CreateSplashWindow()
	} else {
		g.bubbleWin = g.fa.NewWindow("")
	}
	g.bubbleWin.SetTitle("Spirit nudge")
}

// prepareBubbleWindow makes the bubble's X window before the first bubble
// shows: the toolkit creates a window only by mapping it, with default
// hints that let the window manager focus it. Mapped once for a moment at
// one pixel, its input hint goes off, so no bubble takes the keyboard; the
// focus watcher hands the keyboard back should the window manager have
// given it to the pixel. Made on first use, not at start-up: a window
// costs ~9 MB of the GL driver's memory, for as long as Spirit runs. Main
// thread, X11 only.
func (g *gui) prepareBubbleWindow() {
	if g.desk == nil || g.bubbleWin != nil {
		return
	}
	g.createBubbleWindow()
	g.prepareNoFocus(g.bubbleWin, "bubble", func(id uint32) { g.bubbleXID = id })
}

// prepareNoFocus maps w once, at 1×1, to learn its X window id and tell
// the window manager it never takes the keyboard, then hides it again.
// set keeps the id; it runs under g.mu, before the focus is handed back
// (the focus watcher reads the id) in case the window manager gave it to
// w meanwhile. what names w in the log.
func (g *gui) prepareNoFocus(w fyne.Window, what string, set func(id uint32)) {
	w.Resize(fyne.NewSize(1, 1))
	w.Show()
	id := xid(w)
	g.mu.Lock()
	set(id)
	g.mu.Unlock()
	if id != 0 {
		if err := g.desk.SetFocusable(id, false); err != nil {
			g.log.Debug(what+" input hint", "err", err)
		}
	}
	w.Hide()
	if id != 0 {
		g.rootChanged(platform.ActiveChanged) // hand the focus back if the WM gave it
	}
}

// fitBubble sizes the window to the bubble. Wrapped text gets its height
// only once laid out at the bubble's width, so lay out until it settles.
func (g *gui) fitBubble() {
	b := g.bubble
	g.bubbleWin.Resize(b.MinSize())
	for range 3 {
		min := b.MinSize()
		g.bubbleWin.Resize(min)
		if b.MinSize() == min {
			break
		}
	}
}

// showBubbleWindow shows the bubble beside the orb without taking the
// keyboard: its input hint is off before it is mapped (from the second
// bubble on; the watcher hands the focus back should the first be focused).
func (g *gui) showBubbleWindow() {
	w := g.bubbleWin
	if g.desk != nil {
		if id := xid(w); id != 0 {
			if err := g.desk.SetFocusable(id, false); err != nil {
				g.log.Debug("bubble input hint", "err", err)
			}
		}
	}
	g.placeBubble() // shown where it belongs, not where the last one was
	w.Show()
	id := xid(w)
	g.mu.Lock()
	g.bubbleXID = id
	g.mu.Unlock()
	g.placeBubble()
	if g.desk != nil && id != 0 {
		if err := g.desk.PrepareFloating(id, false); err != nil {
			g.log.Warn("bubble window hints", "err", err)
		}
		g.rootChanged(platform.ActiveChanged) // hand the focus back if the WM gave it
	}
}

// placeBubble puts the bubble at the edge by the orb where it covers least
// of the lawyer's window (chooseSpot). A bubble that opened from its line
// grows from where the line was (growFrom), so it stays under the pointer.
// Its size is the one just asked for, not the X window's, which lags
// behind a resize: placed by the old size the bubble would jump.
func (g *gui) placeBubble() {
	if g.bubble == nil {
		return
	}
	in, ok := g.placeInput()
	if !ok {
		return
	}
	// In screen pixels as the toolkit sizes the window: rounded up.
	s, scale := g.bubble.MinSize(), g.bubbleWin.Canvas().Scale()
	size := image.Pt(int(math.Ceil(float64(s.Width*scale))), int(math.Ceil(float64(s.Height*scale))))
	var r image.Rectangle
	if g.bubble.Compact() || !g.form.placed {
		g.form.spot, g.form.placed = chooseSpot(in, size), true
		r = g.form.spot.rect
	} else {
		r = growFrom(g.form.spot, size, in.area())
	}
	if dw, ok := g.bubbleWin.(desktop.Window); ok {
		dw.RequestPosition(r.Min.X, r.Min.Y)
	}
	g.log.Debug("bubble placed", "rect", r.String(), "compact", g.bubble.Compact(),
		"covers", overlap(r, in.active), "window", in.active.String())
}

// placeInput reads what the placement needs: the work area, the orb, the
// monitors and the frame of the lawyer's window.
func (g *gui) placeInput() (placeInput, bool) {
	p, sz, ok := g.orbPos()
	if !ok {
		return placeInput{}, false
	}
	wa, err := g.desk.WorkArea()
	if err != nil {
		return placeInput{}, false
	}
	in := placeInput{work: wa, orb: image.Rectangle{Min: p, Max: p.Add(image.Pt(sz.W, sz.H))}}
	disp := g.screenReader()
	if disp == nil {
		return in, true // beside the orb, as if no window were in front
	}
	ctx, cancel := context.WithTimeout(g.ctx, time.Second)
	defer cancel()
	if ms, err := disp.Monitors(ctx); err == nil {
		in.monitors = ms
	}
	in.active = g.lawyersFrame(ctx, disp)
	return in, true
}

// screenReader is a connection for reading windows and monitors, opened
// the first time a bubble is placed and closed with the app; nil where it
// cannot be opened.
func (g *gui) screenReader() *platform.Display {
	if g.form.disp != nil || g.form.noDisp {
		return g.form.disp
	}
	d, err := platform.OpenDisplay("")
	if err != nil {
		g.log.Warn("cannot read the window in front: the bubble sits beside the orb", "err", err)
		g.form.noDisp = true
		return nil
	}
	g.form.disp = d
	context.AfterFunc(g.ctx, func() { d.Close() })
	return d
}

// lawyersFrame is the frame of the lawyer's window in front, or the one
// they were in when a Spirit window has the keyboard; empty if unknown.
func (g *gui) lawyersFrame(ctx context.Context, disp *platform.Display) image.Rectangle {
	w, err := disp.Foreground(ctx)
	if err == nil && w.ID != 0 && w.PID != os.Getpid() {
		return w.Frame
	}
	g.mu.Lock()
	prev := g.lastOther
	g.mu.Unlock()
	if prev == 0 {
		return image.Rectangle{}
	}
	ws, err := disp.VisibleWindows(ctx)
	if err != nil {
		return image.Rectangle{}
	}
	for _, w := range ws {
		if w.ID == uint64(prev) {
			return w.Frame
		}
	}
	return image.Rectangle{}
}

// activeChanged runs when the lawyer brings another window to the front.
// A compact bubble moves to cover least of it; an open one that the
// pointer has left folds back now that the keyboard left it too, unless
// something was typed; one that opened whole and has not been touched
// moves as a compact one does.
func (g *gui) activeChanged() {
	b := g.bubble
	if b == nil {
		return
	}
	if b.Compact() {
		g.placeBubble()
		return
	}
	if g.maybeFoldBack() {
		return
	}
	if !g.form.hovered && !g.bubbles.engaged && !b.Typed() {
		g.form.placed = false
		g.placeBubble()
	}
}

// openBubble opens the compact bubble whole: the lawyer answers to it
// (the hotkey) or speaks to it.
func (g *gui) openBubble() {
	if g.bubble != nil {
		g.bubble.SetCompact(false)
	}
}

// followPointer watches the pointer while the bubble is open, to fold it
// back once the pointer has left it; a compact bubble needs no watch.
func (g *gui) followPointer() {
	if g.bubble == nil || g.bubble.Compact() {
		g.stopPointerWatch()
		return
	}
	if g.form.stopWatch != nil || g.desk == nil || g.ctx == nil {
		return
	}
	id := xid(g.bubbleWin)
	if id == 0 {
		return
	}
	ctx, cancel := context.WithCancel(g.ctx)
	g.form.stopWatch = cancel
	b := g.bubble
	go func() {
		p, err := openPointerProbe()
		if err != nil {
			g.log.Debug("no pointer watch: an open bubble stays open", "err", err)
			return
		}
		defer p.close()
		tick := time.NewTicker(pointerPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			in, err := p.over(id)
			if err != nil {
				continue // the window is being remapped: look again
			}
			g.do(func() { g.pointerAt(b, in, time.Now()) })
		}
	}()
}

func (g *gui) stopPointerWatch() {
	if g.form.stopWatch != nil {
		g.form.stopWatch()
		g.form.stopWatch = nil
	}
}

// pointerAt is where the pointer watch found the pointer: over bubble b or
// not, at now.
func (g *gui) pointerAt(b *widgets.Bubble, in bool, now time.Time) {
	if g.bubble != b || b.Compact() {
		return
	}
	if in {
		if !g.form.hovered {
			g.bubbles.looked()
		}
		g.form.hovered, g.form.pointerIn, g.form.outSince, g.form.outFor = true, true, time.Time{}, 0
		return
	}
	g.form.pointerIn = false
	if g.form.outSince.IsZero() {
		g.form.outSince = now
	}
	g.form.outFor = now.Sub(g.form.outSince)
	g.maybeFoldBack()
}

// maybeFoldBack folds the open bubble back to its line when foldsBack says
// so, and reports whether it did.
func (g *gui) maybeFoldBack() bool {
	b := g.bubble
	st := formState{hovered: g.form.hovered, pointerIn: g.form.pointerIn, outFor: g.form.outFor, typed: b.Typed()}
	if !foldsBack(st) { // only then ask the X server who has the keyboard
		return false
	}
	if st.hasKeys = g.bubbleHasKeys(); foldsBack(st) {
		g.log.Debug("bubble folded back to its line: the pointer left it")
		b.SetCompact(true)
		return true
	}
	return false
}

// setBubbleFocus says whether the bubble may keep the keyboard: only after
// the lawyer clicked into it or used the hotkey. The focus watcher reads it.
func (g *gui) setBubbleFocus(ok bool) {
	g.mu.Lock()
	g.bubbleFocusOK = ok
	g.mu.Unlock()
}

// bubbleInteract runs when the lawyer clicks or types in bubble b: it keeps
// the bubble open, and on the first click gives it the keyboard.
func (g *gui) bubbleInteract(b *widgets.Bubble) {
	if g.bubble != b || !g.bubbles.interact() {
		return
	}
	g.setBubbleFocus(true)
	if g.desk == nil {
		return
	}
	id := xid(g.bubbleWin)
	if id == 0 {
		return
	}
	go func() {
		if err := g.desk.Focus(g.ctx, id); err != nil {
			g.log.Warn("focus the bubble", "err", err)
		}
	}()
}

// focusNudge is the hotkey: the bubble on screen, or else the first open
// nudge (important, newest), comes forward with the keyboard in it.
func (g *gui) focusNudge() {
	if !g.bubbles.bringForward() {
		return
	}
	g.openBubble()
	b := g.bubble
	g.bubbleInteract(b)
	if b.Editing() {
		g.bubbleWin.Canvas().Focus(b.BodyEntry())
	} else {
		g.bubbleWin.Canvas().Focus(b.Entry())
	}
}

// refreshWaiting puts "Waiting for you (N)…" at the top of the menu while
// N > 0 nudges are folded, and takes it away when none is.
func (g *gui) refreshWaiting() {
	if g.menu == nil || g.waitingItem == nil {
		return
	}
	label, show := waitingLabel(g.bubbles.foldedCount())
	has := len(g.menu.Items) > 0 && g.menu.Items[0] == g.waitingItem
	switch {
	case show && has && g.waitingItem.Label == label:
		return
	case show && !has:
		g.menu.Items = append([]*fyne.MenuItem{g.waitingItem, fyne.NewMenuItemSeparator()}, g.menu.Items...)
	case !show && !has:
		return
	case !show && has:
		g.menu.Items = g.menu.Items[2:]
	}
	g.waitingItem.Label = label
	g.sendMenu()
	if g.panel != nil && g.panelShown() {
		g.rebuildPanel()
	}
}

// openWaiting is the "Waiting for you" item: the panel closes, the bubble opens.
func (g *gui) openWaiting() {
	if g.panel != nil && g.panelShown() {
		g.panel.Hide()
		g.setPanelShown(false)
	}
	g.bubbles.reopenFolded()
}

// grabNudgeHotkey installs the global shortcut that focuses the newest nudge.
func (g *gui) grabNudgeHotkey(s settings.Settings) {
	text := s.FocusNudgeHotkey
	if text == "" || text == settings.HotkeyOff {
		return
	}
	hk, err := platform.ParseHotkey(text)
	if err == nil {
		err = g.desk.GrabHotkey(g.ctx, hk, func() { g.do(g.focusNudge) })
	}
	if err != nil {
		g.log.Warn("no global nudge hotkey", "hotkey", text, "err", err)
		return
	}
	g.nudgeHotkey = hk.String()
	g.log.Info("global hotkey focuses the newest nudge", "hotkey", g.nudgeHotkey)
}

// answer records the lawyer's answer; the store write happens off the main thread.
func (g *gui) answer(id int64, a widgets.Answer) {
	action := a.Choice
	if action == nudge.OpenActivity {
		g.showActivity()
	}
	go func() {
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		defer cancel()
		if _, err := g.core.Answer(ctx, id, action, a.Text); err != nil {
			g.log.Error("record nudge answer", "nudge", id, "err", err)
			g.do(func() { g.nudgeClosed(id) }) // still take the bubble down
		}
	}()
}

// refreshReminders keeps an open Reminders window current: nudges come and
// go as reminders are made, fired, moved and cancelled.
func (g *gui) refreshReminders() {
	if g.remindersView != nil && g.reminders != nil && g.reminders.Content().Visible() {
		g.remindersView.reload()
	}
}
