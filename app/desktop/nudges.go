package desktop

import (
	"context"
	"errors"
	"os"
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
// orb without taking the keyboard.
func (g *gui) showBubble(n store.Nudge) {
	p, err := buildPrompt(n, time.Now())
	if err != nil {
		g.log.Warn("nudge detail not understood: showing its message only", "nudge", n.ID, "kind", n.Kind, "err", err)
	}
	var b *widgets.Bubble
	b = widgets.NewBubble(p, func(a widgets.Answer) { g.answer(n.ID, a) })
	b.OnInteract = func() { g.bubbleInteract(b) }
	b.OnResize = func() {
		if g.bubble == b {
			g.fitBubble()
			g.placeBubble()
		}
	}
	g.bubble = b
	g.setBubbleFocus(false)
	g.createBubbleWindow()
	g.bubbleWin.SetContent(b)
	g.bubbleWin.Canvas().SetOnTypedKey(b.TypedKey)
	g.fitBubble()
	g.showBubbleWindow()
}

// hideBubble implements bubbleView.
func (g *gui) hideBubble(hadKeys bool) {
	g.bubble = nil
	g.setBubbleFocus(false)
	if g.bubbleWin != nil {
		g.bubbleWin.Hide()
	}
	if hadKeys {
		g.giveFocusBack()
	}
}

// bubbleInUse implements bubbleView: the bubble's window is the active one.
func (g *gui) bubbleInUse() bool {
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
	g.bubbleWin.Resize(fyne.NewSize(widgets.BubbleWidth, b.MinSize().Height))
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
			fyne.Do(func() { g.nudgeClosed(id) }) // still take the bubble down
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
