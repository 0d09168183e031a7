package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"
)

// OrbSize is the orb's side in Fyne units; its window is exactly this big.
const OrbSize = 44

// Orb is Spirit's presence at the edge of the screen: a glowing disc that
// opens Spirit's panel when tapped. It draws a static picture, so an idle orb
// costs no redraws at all.
type Orb struct {
	widget.BaseWidget
	OnTapped func()
	variant  fyne.ThemeVariant
}

// NewOrb returns an orb that calls onTapped when clicked.
func NewOrb(onTapped func()) *Orb {
	o := &Orb{OnTapped: onTapped}
	o.ExtendBaseWidget(o)
	return o
}

// Tapped implements fyne.Tappable.
func (o *Orb) Tapped(*fyne.PointEvent) {
	if o.OnTapped != nil {
		o.OnTapped()
	}
}

// MinSize keeps the orb square.
func (o *Orb) MinSize() fyne.Size { return fyne.NewSquareSize(OrbSize) }

// CreateRenderer implements fyne.Widget.
func (o *Orb) CreateRenderer() fyne.WidgetRenderer {
	r := &orbRenderer{orb: o,
		bg:    canvas.NewRectangle(color.Transparent),
		halo:  canvas.NewCircle(color.Transparent),
		ring:  canvas.NewCircle(color.Transparent),
		core:  canvas.NewCircle(color.Transparent),
		spark: canvas.NewCircle(color.Transparent),
	}
	r.applyColors()
	return r
}

type orbRenderer struct {
	orb                         *Orb
	bg, halo, ring, core, spark fyne.CanvasObject
}

func (r *orbRenderer) applyColors() {
	p := PaletteFor(fyne.CurrentApp().Settings().ThemeVariant())
	r.bg.(*canvas.Rectangle).FillColor = p.Background
	r.bg.(*canvas.Rectangle).CornerRadius = 10
	glow := p.Glow
	r.halo.(*canvas.Circle).FillColor = color.NRGBA{glow.R, glow.G, glow.B, 0x38}
	r.ring.(*canvas.Circle).FillColor = color.NRGBA{glow.R, glow.G, glow.B, 0x70}
	r.core.(*canvas.Circle).FillColor = glow
	r.spark.(*canvas.Circle).FillColor = color.NRGBA{0xff, 0xff, 0xff, 0xd0}
}

func (r *orbRenderer) Layout(size fyne.Size) {
	r.bg.Resize(size)
	side := fyne.Min(size.Width, size.Height)
	center := fyne.NewPos(size.Width/2, size.Height/2)
	place := func(o fyne.CanvasObject, d float32) {
		o.Resize(fyne.NewSquareSize(d))
		o.Move(center.Subtract(fyne.NewPos(d/2, d/2)))
	}
	place(r.halo, side*0.86)
	place(r.ring, side*0.64)
	place(r.core, side*0.44)
	// A small highlight up and to the left gives the disc some depth.
	s := side * 0.12
	r.spark.Resize(fyne.NewSquareSize(s))
	r.spark.Move(center.Subtract(fyne.NewPos(side*0.12, side*0.12)))
}

func (r *orbRenderer) MinSize() fyne.Size { return r.orb.MinSize() }

func (r *orbRenderer) Refresh() {
	r.applyColors()
	for _, o := range r.Objects() {
		o.Refresh()
	}
}

func (r *orbRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.bg, r.halo, r.ring, r.core, r.spark}
}

func (r *orbRenderer) Destroy() {}
