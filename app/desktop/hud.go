package desktop

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// tipTitle names the tooltip's window.
const tipTitle = "Spirit: what you are doing"

// hudView is the analysis loop's HUD line where the lawyer sees it: the
// orb's tooltip (a small window beside the orb while the pointer is on
// it) and the first line of the orb's panel. Main thread only.
type hudView struct {
	line  string
	tip   fyne.Window // nil until first needed
	label *widget.Label
	over  bool // the pointer is on the orb
	// stopWatch ends the pointer watch of a shown tooltip; nil when none
	// runs.
	stopWatch context.CancelFunc
	// xid is the tooltip's X window, guarded by gui.mu: the focus watcher
	// hands the focus back should the window manager give it the tooltip.
	xid uint32
}

// setHUD shows a new HUD line; main thread only.
func (g *gui) setHUD(line string) {
	if line == g.hud.line {
		return
	}
	g.hud.line = line
	if g.hud.label != nil {
		g.hud.label.SetText(line)
		if g.hud.tip != nil {
			g.hud.tip.Resize(g.hud.label.MinSize())
		}
	}
	if g.panel != nil && g.panelShown() {
		g.rebuildPanel()
	}
	g.orbHover(g.hud.over) // an open tooltip follows the line, or closes
}

// orbHover shows the tooltip while the pointer is on the orb, there is a
// line to show and the panel (which shows it too) is closed; main thread
// only.
func (g *gui) orbHover(in bool) {
	g.hud.over = in
	show := in && g.hud.line != "" && !g.panelShown()
	if !show {
		g.stopTipWatch()
		if g.hud.tip != nil {
			g.hud.tip.Hide()
		}
		return
	}
	g.prepareTip()
	g.createTip() // where prepareTip does nothing (no X11)
	g.hud.label.SetText(g.hud.line)
	g.hud.tip.Resize(g.hud.label.MinSize())
	g.hud.tip.Show()
	if p, sz, ok := g.orbPos(); ok {
		g.placeBeside(g.hud.tip, p, sz)
	}
	if g.desk != nil {
		// A tooltip is never given the keyboard: the lawyer's window keeps it.
		if id := xid(g.hud.tip); id != 0 {
			if err := g.desk.PrepareFloating(id, false); err != nil {
				g.log.Warn("tooltip window hints", "err", err)
			}
		}
	}
	g.watchTipPointer()
}

// createTip makes the tooltip's window, once.
func (g *gui) createTip() {
	if g.hud.tip != nil {
		return
	}
	g.hud.label = widget.NewLabel(g.hud.line)
	if drv, ok := g.fa.Driver().(desktop.Driver); ok {
		g.hud.tip = drv.CreateSplashWindow() // no frame, like the orb
	} else {
		g.hud.tip = g.fa.NewWindow("") // a driver without borderless windows (tests)
	}
	g.hud.tip.SetTitle(tipTitle)
	g.hud.tip.SetContent(g.hud.label)
	if w, ok := g.hud.tip.(desktop.Window); ok {
		w.RequestAlwaysOnTop()
	}
}

// prepareTip makes the tooltip's X window before it first shows, as
// prepareBubbleWindow does the bubble's: mapped once at one pixel, its
// input hint goes off, so the tooltip never takes the keyboard. Main
// thread, X11 only.
func (g *gui) prepareTip() {
	if g.desk == nil || g.hud.tip != nil {
		return
	}
	g.createTip()
	g.prepareNoFocus(g.hud.tip, "tooltip", func(id uint32) { g.hud.xid = id })
}

// watchTipPointer hides the tooltip once the pointer has left the orb:
// the toolkit never reports the pointer leaving a window (see
// pointerProbe). It runs only while the tooltip is shown.
func (g *gui) watchTipPointer() {
	if g.hud.stopWatch != nil || g.desk == nil || g.ctx == nil {
		return
	}
	id := xid(g.orb)
	if id == 0 {
		return
	}
	ctx, cancel := context.WithCancel(g.ctx)
	g.hud.stopWatch = cancel
	go func() {
		p, err := openPointerProbe()
		if err != nil {
			g.log.Debug("no pointer watch: the tooltip hides when the orb says the pointer left", "err", err)
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
			if in, err := p.over(id); err == nil && !in {
				g.do(func() {
					if ctx.Err() == nil {
						g.orbHover(false)
					}
				})
				return
			}
		}
	}()
}

func (g *gui) stopTipWatch() {
	if g.hud.stopWatch != nil {
		g.hud.stopWatch()
		g.hud.stopWatch = nil
	}
}

// panelContent is the panel: the HUD line, when there is one, above the
// menu.
func (g *gui) panelContent() fyne.CanvasObject {
	if g.hud.line == "" {
		return g.panelMenu
	}
	line := widget.NewLabel(g.hud.line)
	line.Truncation = fyne.TextTruncateEllipsis
	return container.NewVBox(line, widget.NewSeparator(), g.panelMenu)
}
