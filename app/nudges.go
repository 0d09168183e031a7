package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
	"github.com/spirit-app/spirit/platform"
)

// Nudge kinds the task agents raise. Detail (JSON) carries what the bubble
// shows beyond the message.
const (
	kindQuestion = "question" // ask_user: Detail {"options":[…]}
	kindApproval = "approval" // request_approval: Detail {"tool","title","fields":[{label,value}],"body"}
	kindHelp     = "help"     // the verifier escalates: "Need help"
	kindResult   = "result"   // an agent finished: Message is the summary
)

// Bubble choices for the agents' kinds.
const (
	choiceAnswerPrefix = "answer:"        // question: "answer:" + the option's text
	choiceOpenActivity = "open_activity"  // result: open the Activity window
	choiceEdit         = ui.ChoiceEdit    // approval: Text is the edited body
	maxOptionLabel     = 44               // runes of an option shown on its button
	defaultFoldDelay   = 45 * time.Second // a bubble left alone this long folds away
)

// settingFocusNudgeHotkey is the global shortcut that brings the newest open
// nudge forward with the keyboard in its bubble; "off" disables it.
const settingFocusNudgeHotkey = "hotkey.focus_nudge"

// DefaultFocusNudgeHotkey shows and focuses the newest open nudge.
const DefaultFocusNudgeHotkey = "Ctrl+Alt+Space"

// importantKind: an agent is waiting on the lawyer. These bubbles go first
// and push a lesser bubble back into the queue.
func importantKind(kind string) bool {
	return kind == kindQuestion || kind == kindApproval || kind == kindHelp
}

// nudgeFirst orders bubbles: important kinds before the others, newest
// first within each group.
func nudgeFirst(a, b store.Nudge) bool {
	if ia, ib := importantKind(a.Kind), importantKind(b.Kind); ia != ib {
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

// questionDetail is a question nudge's Detail.
type questionDetail struct {
	Options []string `json:"options"`
}

// approvalDetail is an approval nudge's Detail: the exact action asked for.
type approvalDetail struct {
	Tool   string `json:"tool"`
	Title  string `json:"title"`
	Fields []struct {
		Label string `json:"label"`
		Value string `json:"value"`
	} `json:"fields"`
	Body string `json:"body"`
}

// promptFor words the bubble for a nudge: its buttons follow its kind.
func promptFor(n store.Nudge, now time.Time) ui.Prompt {
	p, _ := buildPrompt(n, now)
	return p
}

func defaultChoices() []ui.Choice {
	return []ui.Choice{{ID: api.ActionAccept, Label: "Do it"}, {ID: api.ActionSnooze, Label: "Not now"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
}

// buildPrompt is promptFor that also reports a Detail it could not read; the
// bubble then shows the message with the default buttons.
func buildPrompt(n store.Nudge, now time.Time) (ui.Prompt, error) {
	p := ui.Prompt{Title: titleFor(n.Kind), Message: n.Message, Cancel: api.ActionDismiss}
	switch n.Kind {
	case kindReminder:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Done"}, {ID: api.ActionSnooze, Label: "Snooze 10 min"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Snooze for… (e.g. 30 minutes)"
	case kindReminderConfirm:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Set"}, {ID: choiceChange, Label: "Change time"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Or type another time, e.g. “at 4 instead”"
	case kindReminderWhen:
		for _, q := range quickTimes(now) {
			p.Choices = append(p.Choices, ui.Choice{ID: choiceAtPrefix + q.At.Format(time.RFC3339), Label: q.Label})
		}
		p.Placeholder = "Or type a time, e.g. “Friday at 10”"
	case kindReminderList:
		p.Choices = []ui.Choice{{ID: choiceOpenReminders, Label: "Open Reminders"}, {ID: api.ActionAccept, Label: "OK"}}
	case kindInfo:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "OK"}}
	case kindGlance:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Draft it"}, {ID: api.ActionSnooze, Label: "Not now"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Or tell Spirit what to do instead…"
	case kindQuestion:
		var d questionDetail
		if err := readDetail(n.Detail, &d); err != nil {
			p.Choices = defaultChoices()
			return p, err
		}
		for _, o := range d.Options {
			o = strings.TrimSpace(o)
			if o == "" {
				continue
			}
			if len(p.Options) == ui.MaxOptions {
				break
			}
			p.Options = append(p.Options, ui.Choice{ID: choiceAnswerPrefix + o, Label: shorten(o, maxOptionLabel)})
		}
		p.Choices = []ui.Choice{{ID: api.ActionDismiss, Label: "Dismiss"}}
		p.Placeholder = "Type your answer…"
		p.NoDefault = true // Enter on an empty box must not dismiss the question
	case kindApproval:
		var d approvalDetail
		err := readDetail(n.Detail, &d)
		if err == nil && d.Body == "" && len(d.Fields) == 0 {
			err = errors.New("nudge detail: an approval without the action")
		}
		if err != nil {
			// Nothing may be approved that the lawyer cannot see in full.
			p.Message += "\n\nSpirit cannot show this action in full, so it cannot be approved here."
			p.Choices = []ui.Choice{{ID: api.ActionDismiss, Label: "Deny"}}
			return p, err
		}
		for _, f := range d.Fields {
			p.Fields = append(p.Fields, ui.Field{Label: f.Label, Value: f.Value})
		}
		p.Body = d.Body
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Approve"}}
		if d.Body != "" {
			p.Choices = append(p.Choices, ui.Choice{ID: choiceEdit, Label: "Edit"})
		}
		p.Choices = append(p.Choices, ui.Choice{ID: api.ActionDismiss, Label: "Deny"})
		p.Placeholder = "Or tell Spirit what to change…"
		p.NoDefault = true // approve with a click, never with a stray Enter
	case kindHelp:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Try again"}, {ID: api.ActionDismiss, Label: "Stop"}}
		p.Placeholder = "Tell Spirit how to go on…"
	case kindResult:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "OK"}, {ID: choiceOpenActivity, Label: "Show activity"}}
	default:
		p.Choices = defaultChoices()
	}
	return p, nil
}

// readDetail decodes a nudge's Detail; an empty Detail is no detail.
func readDetail(detail string, v any) error {
	if strings.TrimSpace(detail) == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(detail), v); err != nil {
		return fmt.Errorf("nudge detail: %w", err)
	}
	return nil
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func titleFor(kind string) string {
	switch kind {
	case kindReminder, kindReminderConfirm, kindReminderWhen, kindReminderList:
		return "Reminder"
	case kindInfo:
		return "Spirit"
	case kindQuestion:
		return "Question"
	case kindApproval:
		return "Approve?"
	case kindHelp:
		return "Need help"
	case kindResult:
		return "Done"
	}
	return strings.ReplaceAll(kind, "_", " ")
}

// The bubble's queue, main thread only:
//   - g.bubble/g.bubbleID/g.shown: the one bubble on screen (nil: none);
//   - g.queue: every other open nudge, waiting to be shown or folded away;
//   - g.folded: the queued nudges whose bubble was shown and left alone.
//
// A nudge stays open in the queue until it is answered, so the orb keeps
// asking for attention while anything is folded.

// ShowNudge implements Presenter: one bubble at a time, important kinds
// first, newest first.
func (g *gui) ShowNudge(n store.Nudge) {
	fyne.Do(func() {
		g.refreshReminders()
		if g.bubble != nil && g.bubbleID == n.ID {
			return // already on screen
		}
		g.removeQueued(n.ID)
		g.queue = append(g.queue, n)
		switch {
		case g.bubble == nil:
			g.nextBubble()
		case importantKind(n.Kind) && !importantKind(g.shown.Kind) && !g.bubbleEngaged:
			// Someone is waiting on the lawyer: the lesser bubble steps back.
			g.log.Debug("nudge preempts bubble", "nudge", n.ID, "back", g.bubbleID)
			g.putBack(false)
			g.nextBubble()
		}
		g.nudgesChanged()
	})
}

// NudgeClosed implements Presenter.
func (g *gui) NudgeClosed(id int64) {
	fyne.Do(func() {
		g.refreshReminders()
		g.removeQueued(id)
		if g.bubble != nil && g.bubbleID == id {
			g.takeDown()
			g.nextBubble()
		}
		g.nudgesChanged()
	})
}

// removeQueued drops nudge id from the queue and the folded set.
func (g *gui) removeQueued(id int64) {
	for i, n := range g.queue {
		if n.ID == id {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			break
		}
	}
	delete(g.folded, id)
}

// takeDown hides the bubble on screen; the caller keeps or drops its nudge.
func (g *gui) takeDown() {
	g.stopFold()
	hadKeys := g.bubbleEngaged
	g.bubble, g.bubbleID, g.shown, g.bubbleEngaged = nil, 0, store.Nudge{}, false
	g.setBubbleFocus(false)
	if g.bubbleWin != nil {
		g.bubbleWin.Hide()
	}
	if hadKeys {
		g.giveFocusBack()
	}
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

// putBack returns the bubble on screen to the queue, folded or not.
func (g *gui) putBack(folded bool) {
	if g.bubble == nil {
		return
	}
	n := g.shown
	g.takeDown()
	g.queue = append(g.queue, n)
	if folded {
		if g.folded == nil {
			g.folded = map[int64]bool{}
		}
		g.folded[n.ID] = true
	}
}

// nextBubble shows the first queued nudge that has not folded; main thread only.
func (g *gui) nextBubble() {
	if g.bubble != nil || g.orb == nil {
		return
	}
	i := pickNext(g.queue, func(n store.Nudge) bool { return g.folded[n.ID] })
	if i < 0 {
		return
	}
	g.showQueued(i)
}

// showQueued puts g.queue[i] on screen in the bubble.
func (g *gui) showQueued(i int) {
	n := g.queue[i]
	g.queue = append(g.queue[:i], g.queue[i+1:]...)
	delete(g.folded, n.ID)
	p, err := buildPrompt(n, time.Now())
	if err != nil {
		g.log.Warn("nudge detail not understood: showing its message only", "nudge", n.ID, "kind", n.Kind, "err", err)
	}
	var b *ui.Bubble
	b = ui.NewBubble(p, func(a ui.Answer) { g.answer(n.ID, a) })
	b.OnInteract = func() { g.bubbleInteract(b) }
	b.OnResize = func() {
		if g.bubble == b {
			g.fitBubble()
			g.placeBubble()
		}
	}
	g.bubble, g.bubbleID, g.shown = b, n.ID, n
	g.bubbleEngaged = false
	g.setBubbleFocus(false)
	g.createBubbleWindow()
	g.bubbleWin.SetContent(b)
	g.bubbleWin.Canvas().SetOnTypedKey(b.TypedKey)
	g.fitBubble()
	g.showBubbleWindow()
	g.startFold()
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

// prepareBubbleWindow makes the bubble's X window at start-up, while the orb
// appears: the toolkit creates a window only by mapping it, with default
// hints that let the window manager focus it. Mapped once for a moment at
// one pixel, its input hint goes off, so no bubble takes the keyboard when
// it appears later. Main thread, X11 only.
func (g *gui) prepareBubbleWindow() {
	if g.desk == nil || g.bubbleWin != nil {
		return
	}
	g.createBubbleWindow()
	w := g.bubbleWin
	w.Resize(fyne.NewSize(1, 1))
	w.Show()
	id := xid(w)
	g.mu.Lock()
	g.bubbleXID = id
	g.mu.Unlock()
	if id != 0 {
		if err := g.desk.SetFocusable(id, false); err != nil {
			g.log.Debug("bubble input hint", "err", err)
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
	g.bubbleWin.Resize(fyne.NewSize(ui.BubbleWidth, b.MinSize().Height))
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

// placeBubble puts the bubble left of the orb, centred on it, inside the
// work area. Its size is the one just asked for, not the X window's, which
// lags behind a resize: placed by the old size the bubble would jump.
func (g *gui) placeBubble() {
	p, orb, ok := g.orbPos()
	if !ok || g.bubble == nil {
		return
	}
	wa, err := g.desk.WorkArea()
	if err != nil {
		return
	}
	s, scale := g.bubble.MinSize(), g.bubbleWin.Canvas().Scale()
	w, h := int(s.Width*scale), int(s.Height*scale)
	x := max(wa.Min.X, p.X-w-8)
	y := max(wa.Min.Y, min(p.Y+orb.H/2-h/2, wa.Max.Y-h))
	if dw, ok := g.bubbleWin.(desktop.Window); ok {
		dw.RequestPosition(x, y)
	}
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
func (g *gui) bubbleInteract(b *ui.Bubble) {
	if g.bubble != b {
		return
	}
	g.startFold() // left alone counts from the last click or key
	if g.bubbleEngaged {
		return
	}
	g.bubbleEngaged = true
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

// foldDelayOr is how long a bubble may be left alone.
func (g *gui) foldDelayOr() time.Duration {
	if g.foldDelay > 0 {
		return g.foldDelay
	}
	return defaultFoldDelay
}

// startFold (re)starts the bubble's fold timer.
func (g *gui) startFold() {
	g.stopFold()
	g.foldGen++
	gen := g.foldGen
	g.foldTimer = time.AfterFunc(g.foldDelayOr(), func() { fyne.Do(func() { g.fold(gen) }) })
}

func (g *gui) stopFold() {
	if g.foldTimer != nil {
		g.foldTimer.Stop()
		g.foldTimer = nil
	}
	g.foldGen++
}

// fold hides a bubble left alone: its nudge stays open, listed under
// "Waiting for you" in the menus, and the next queued bubble shows.
func (g *gui) fold(gen int) {
	if g.bubble == nil || gen != g.foldGen {
		return
	}
	if g.bubbleEngaged && g.desk != nil {
		// Never fold away from under the lawyer's cursor.
		if a, err := g.desk.ActiveWindow(); err == nil && a != 0 && a == xid(g.bubbleWin) {
			g.startFold()
			return
		}
	}
	g.log.Debug("bubble folded", "nudge", g.bubbleID)
	g.putBack(true)
	g.nextBubble()
	g.nudgesChanged()
}

// foldedCount is how many open nudges are folded away.
func (g *gui) foldedCount() int {
	n := 0
	for _, q := range g.queue {
		if g.folded[q.ID] {
			n++
		}
	}
	return n
}

// reopenFolded shows the first folded nudge (important, newest), stepping
// the bubble on screen back into the queue.
func (g *gui) reopenFolded() {
	i := pickNext(g.queue, func(n store.Nudge) bool { return !g.folded[n.ID] })
	if i < 0 {
		return
	}
	id := g.queue[i].ID
	g.putBack(false)
	g.showByID(id)
	g.nudgesChanged()
}

// showByID shows queued nudge id; false when it is not queued.
func (g *gui) showByID(id int64) bool {
	for i, n := range g.queue {
		if n.ID == id {
			g.showQueued(i)
			return true
		}
	}
	return false
}

// focusNudge is the hotkey: the bubble on screen, or else the first open
// nudge (important, newest), comes forward with the keyboard in it.
func (g *gui) focusNudge() {
	if g.bubble == nil {
		i := pickNext(g.queue, nil)
		if i < 0 {
			return
		}
		g.showQueued(i)
		g.nudgesChanged()
	}
	b := g.bubble
	if b == nil {
		return
	}
	g.bubbleInteract(b)
	if b.Editing() {
		g.bubbleWin.Canvas().Focus(b.BodyEntry())
	} else {
		g.bubbleWin.Canvas().Focus(b.Entry())
	}
}

// nudgesChanged refreshes what depends on the queue: the orb and the
// "Waiting for you" item of the tray menu and the orb's panel.
func (g *gui) nudgesChanged() {
	g.updateOrb()
	g.refreshWaiting()
}

// refreshWaiting puts "Waiting for you (N)…" at the top of the menu while
// N > 0 nudges are folded, and takes it away when none is.
func (g *gui) refreshWaiting() {
	if g.menu == nil || g.waitingItem == nil {
		return
	}
	n := g.foldedCount()
	has := len(g.menu.Items) > 0 && g.menu.Items[0] == g.waitingItem
	label := fmt.Sprintf("Waiting for you (%d)…", n)
	switch {
	case n > 0 && has && g.waitingItem.Label == label:
		return
	case n > 0 && !has:
		g.menu.Items = append([]*fyne.MenuItem{g.waitingItem, fyne.NewMenuItemSeparator()}, g.menu.Items...)
	case n == 0 && !has:
		return
	case n == 0 && has:
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
	g.reopenFolded()
}

// grabNudgeHotkey installs the global shortcut that focuses the newest nudge.
func (g *gui) grabNudgeHotkey() {
	text := DefaultFocusNudgeHotkey
	if v, ok, err := g.core.store.Setting(g.ctx, settingFocusNudgeHotkey); err == nil && ok {
		text = v
	}
	if text == "" || text == "off" {
		return
	}
	hk, err := platform.ParseHotkey(text)
	if err == nil {
		err = g.desk.GrabHotkey(g.ctx, hk, func() { fyne.Do(g.focusNudge) })
	}
	if err != nil {
		g.log.Warn("no global nudge hotkey", "hotkey", text, "err", err)
		return
	}
	g.nudgeHotkey = hk.String()
	g.log.Info("global hotkey focuses the newest nudge", "hotkey", g.nudgeHotkey)
}

// answer records the lawyer's answer; the store write happens off the main thread.
func (g *gui) answer(id int64, a ui.Answer) {
	action := a.Choice
	if action == choiceOpenActivity {
		g.showActivity()
	}
	go func() {
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		defer cancel()
		if _, err := g.core.Answer(ctx, id, action, a.Text); err != nil {
			g.log.Error("record nudge answer", "nudge", id, "err", err)
			g.NudgeClosed(id) // still take the bubble down
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
