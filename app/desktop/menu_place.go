package desktop

import (
	"image"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/spirit-app/spirit/platform"
)

// placer is a desktop that can place a window before it is shown, so the
// window manager maps it there at once (X11: platform.Desktop.PlaceAt).
// Elsewhere a window is moved after it is shown; on Windows placing it
// before its first showing took the focus from the lawyer's window.
type placer interface {
	PlaceAt(xid uint32, x, y int) error
}

// besideOrb is where a window of size win goes: left of the orb at orbPos,
// a gap away, vertically centred on it and kept inside the work area wa.
func besideOrb(wa image.Rectangle, orbPos image.Point, orb, win platform.WindowSize) image.Point {
	const gap = 8
	x := orbPos.X - win.W - gap
	y := orbPos.Y + orb.H/2 - win.H/2
	y = max(wa.Min.Y, min(y, wa.Max.Y-win.H))
	x = max(wa.Min.X, x)
	return image.Pt(x, y)
}

// premapPanel shows the orb's menu window once, one pixel large, and hides
// it again, just before its first real showing. Fyne centres a splash
// window on the screen at its first showing whatever position was asked
// for; without this the menu's first appearance was in the middle of the
// screen, then it jumped beside the orb (a click aimed at it missed:
// "Spirit did not exit after Quit"). Once shown, the window keeps the
// positions it is given. Main thread.
func (g *gui) premapPanel() {
	if _, ok := any(g.desk).(placer); !ok || g.desk == nil {
		return
	}
	dot := canvas.NewRectangle(color.Transparent)
	dot.SetMinSize(fyne.NewSquareSize(1))
	g.panel.SetContent(dot)
	g.panel.Resize(fyne.NewSquareSize(1))
	g.panel.Show()
	g.panel.Hide()
}

// placeBeforeShow puts the hidden window w beside the orb, where the
// window manager will map it when it is shown; where the desktop cannot,
// showFloating moves it after showing. Main thread.
func (g *gui) placeBeforeShow(w fyne.Window) {
	pl, ok := any(g.desk).(placer)
	if !ok || g.desk == nil {
		return
	}
	orbPos, orbSz, ok := g.orbPos()
	if !ok {
		return
	}
	wa, err := g.desk.WorkArea()
	if err != nil {
		return
	}
	// The window's size as Fyne will make it: the X window may not have
	// been resized yet.
	s, scale := w.Content().MinSize(), w.Canvas().Scale()
	win := platform.WindowSize{W: int(s.Width * scale), H: int(s.Height * scale)}
	p := besideOrb(wa, orbPos, orbSz, win)
	if dw, ok := w.(desktop.Window); ok {
		dw.RequestPosition(p.X, p.Y) // Fyne moves it there again as it shows it
	}
	if id := xid(w); id != 0 {
		if err := pl.PlaceAt(id, p.X, p.Y); err != nil {
			g.log.Debug("place window before showing", "err", err)
		}
	}
}
