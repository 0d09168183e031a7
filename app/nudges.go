package app

import (
	"context"
	"time"

	"fyne.io/fyne/v2"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
)

// promptFor words the bubble for a nudge.
func promptFor(n store.Nudge) ui.Prompt {
	p := ui.Prompt{Title: n.Kind, Message: n.Message, Cancel: api.ActionDismiss}
	switch n.Kind {
	case "reminder":
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Done"}, {ID: api.ActionSnooze, Label: "Snooze"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
	default:
		p.Choices = []ui.Choice{{ID: api.ActionAccept, Label: "Do it"}, {ID: api.ActionSnooze, Label: "Not now"}, {ID: api.ActionDismiss, Label: "Dismiss"}}
	}
	return p
}

// ShowNudge implements Presenter: one bubble at a time, newest first.
func (g *gui) ShowNudge(n store.Nudge) {
	fyne.Do(func() {
		g.queue = append(g.queue, n)
		if g.bubble == nil {
			g.nextBubble()
		}
	})
}

// NudgeClosed implements Presenter.
func (g *gui) NudgeClosed(id int64) {
	fyne.Do(func() {
		for i, n := range g.queue {
			if n.ID == id {
				g.queue = append(g.queue[:i], g.queue[i+1:]...)
				break
			}
		}
		if g.bubble != nil && g.bubbleID == id {
			g.bubble = nil
			g.bubbleWin.Hide()
			g.nextBubble()
		}
	})
}

// nextBubble shows the newest queued nudge; main thread only.
func (g *gui) nextBubble() {
	if len(g.queue) == 0 || g.orb == nil {
		return
	}
	n := g.queue[len(g.queue)-1]
	g.queue = g.queue[:len(g.queue)-1]
	b := ui.NewBubble(promptFor(n), func(a ui.Answer) { g.answer(n.ID, a) })
	g.bubble, g.bubbleID = b, n.ID
	if g.bubbleWin == nil {
		g.bubbleWin = g.fa.Driver().(interface{ CreateSplashWindow() fyne.Window }).CreateSplashWindow()
		g.bubbleWin.SetTitle("Spirit nudge")
	}
	g.bubbleWin.SetContent(b)
	g.bubbleWin.Canvas().SetOnTypedKey(b.TypedKey)
	// Lay out once at the bubble's width so the wrapped message gets its height.
	g.bubbleWin.Resize(fyne.NewSize(ui.BubbleWidth, b.MinSize().Height))
	g.bubbleWin.Resize(b.MinSize())
	g.showFloating(g.bubbleWin)
}

// answer records the lawyer's answer; the store write happens off the main thread.
func (g *gui) answer(id int64, a ui.Answer) {
	action := a.Choice
	if action == ui.ChoiceReply {
		action = api.ActionAccept // typed text is a yes, with instructions
	}
	go func() {
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		defer cancel()
		if _, err := g.core.RespondNudge(ctx, id, action, a.Text); err != nil {
			g.log.Error("record nudge answer", "nudge", id, "err", err)
			g.NudgeClosed(id) // still take the bubble down
		}
	}()
}
