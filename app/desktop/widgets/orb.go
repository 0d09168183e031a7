package widgets

import (
	"image/color"
	"math"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// OrbSize is the orb's side in Fyne units; its window is exactly this big.
const OrbSize = 44

// OrbState is what the orb shows about Spirit right now.
//
// When several apply, the app picks one by priority: attention (a nudge is
// out) beats working (agents are running), which beats listening (speech is
// being heard), which beats idle. The done sparkle (Sparkle) is an overlay
// on idle only: while another state shows it waits, and it plays out the
// rest of its second if the orb falls back to idle in time.
type OrbState int

// The orb's states.
const (
	// OrbIdle is a static soft glow.
	OrbIdle OrbState = iota
	// OrbListening pulses gently while speech is being heard.
	OrbListening
	// OrbWorking circles a small dot around the disc while agents run.
	OrbWorking
	// OrbAttention is a static warmer ring with a badge dot: a nudge is out.
	OrbAttention
)

// String names the state for logs and /health.
func (s OrbState) String() string {
	switch s {
	case OrbIdle:
		return "idle"
	case OrbListening:
		return "listening"
	case OrbWorking:
		return "working"
	case OrbAttention:
		return "attention"
	}
	return "unknown"
}

// Animation timings. The sparkle's end is timed by the orb itself, not by
// the animation's last frame, so it ends on drivers that never tick too.
const (
	pulseHalf       = 1100 * time.Millisecond // one breath in (and out again)
	orbitPeriod     = 1600 * time.Millisecond // one lap of the working dot
	sparkleDuration = time.Second
)

// look is what the renderer draws: an OrbState or the done sparkle.
type look int

const (
	lookIdle look = iota
	lookListening
	lookWorking
	lookAttention
	lookSparkle
	lookNone look = -1 // nothing drawn yet, or the renderer was destroyed
)

// animated reports whether a look moves; the others are static pictures and
// run no animation (nor any other redraw loop) at all.
func (l look) animated() bool {
	return l == lookListening || l == lookWorking || l == lookSparkle
}

// Orb is Spirit's presence at the edge of the screen: a glowing disc that
// opens Spirit's panel when tapped, and shows Spirit's state (OrbState).
// Idle and attention are static pictures, so an idle orb costs no redraws at
// all; the spec's "soft breathing glow" for idle is deliberately a still
// soft glow, because animations must cost nothing measurable when idle and a
// breathing loop would redraw the window at the display's frame rate
// forever. Only listening, working and the done sparkle animate, and their
// animation is stopped as soon as the orb turns static again.
//
// SetState and Sparkle must be called on the main thread (inside fyne.Do
// from other goroutines); State and Animating may be called from anywhere.
type Orb struct {
	widget.BaseWidget
	OnTapped func()
	// OnHover, if set, is told when the pointer comes onto the orb (true)
	// and leaves it (false): the app shows its tooltip then.
	OnHover func(in bool)

	// applyMu serialises look changes, drawing included, so that Animating
	// answers only once the look it reports is drawn. (Fyne's test driver
	// runs fyne.Do on the calling goroutine, e.g. the sparkle's timer.)
	applyMu sync.Mutex

	mu           sync.Mutex
	state        OrbState
	sparkleUntil time.Time       // the done sparkle overlays idle until then
	look         look            // what is drawn now
	phase        float32         // the running animation's progress, 0..1
	anim         *fyne.Animation // the running animation; nil when static
	r            *orbRenderer    // nil until the orb is first rendered
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

// MouseIn implements desktop.Hoverable.
func (o *Orb) MouseIn(*desktop.MouseEvent) {
	if o.OnHover != nil {
		o.OnHover(true)
	}
}

// MouseMoved implements desktop.Hoverable.
func (o *Orb) MouseMoved(*desktop.MouseEvent) {}

// MouseOut implements desktop.Hoverable.
func (o *Orb) MouseOut() {
	if o.OnHover != nil {
		o.OnHover(false)
	}
}

// MinSize keeps the orb square.
func (o *Orb) MinSize() fyne.Size { return fyne.NewSquareSize(OrbSize) }

// State returns the state last set.
func (o *Orb) State() OrbState {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.state
}

// Animating reports whether an animation is running.
func (o *Orb) Animating() bool {
	o.applyMu.Lock()
	defer o.applyMu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.anim != nil
}

// SetState shows s; main thread only.
func (o *Orb) SetState(s OrbState) {
	o.mu.Lock()
	o.state = s
	o.mu.Unlock()
	o.apply()
}

// Sparkle plays the brief done sparkle (about a second) over the idle orb,
// then the orb is back to its state; main thread only.
func (o *Orb) Sparkle() {
	o.mu.Lock()
	o.sparkleUntil = time.Now().Add(sparkleDuration)
	o.mu.Unlock()
	o.apply()
	// The end of the sparkle is one more look change; a timer, not a loop.
	time.AfterFunc(sparkleDuration, func() { fyne.Do(o.apply) })
}

// lookLocked is the look for the current state at now.
func (o *Orb) lookLocked(now time.Time) look {
	switch o.state {
	case OrbListening:
		return lookListening
	case OrbWorking:
		return lookWorking
	case OrbAttention:
		return lookAttention
	}
	if now.Before(o.sparkleUntil) {
		return lookSparkle
	}
	return lookIdle
}

// apply switches to the look the state calls for: it stops the running
// animation, draws the new look and starts its animation if it has one.
func (o *Orb) apply() {
	o.applyMu.Lock()
	defer o.applyMu.Unlock()
	o.mu.Lock()
	now := time.Now()
	l := o.lookLocked(now)
	if l == o.look {
		o.mu.Unlock()
		return
	}
	old := o.anim
	o.look, o.phase, o.anim = l, 0, nil
	var a *fyne.Animation
	switch l {
	case lookListening:
		a = fyne.NewAnimation(pulseHalf, nil)
		a.AutoReverse = true
		a.Curve = fyne.AnimationEaseInOut
		a.RepeatCount = fyne.AnimationRepeatForever
	case lookWorking:
		a = fyne.NewAnimation(orbitPeriod, nil)
		a.Curve = fyne.AnimationLinear
		a.RepeatCount = fyne.AnimationRepeatForever
	case lookSparkle:
		a = fyne.NewAnimation(o.sparkleUntil.Sub(now), nil)
		a.Curve = fyne.AnimationEaseOut
	}
	if a != nil {
		a.Tick = func(f float32) { o.tick(a, f) }
		o.anim = a
	}
	r := o.r
	o.mu.Unlock()

	// Start and Stop may call Tick at once (the test driver does): never
	// hold the lock across them.
	if old != nil {
		old.Stop()
	}
	if r != nil {
		r.update()
	}
	if a != nil {
		a.Start()
	}
}

// tick draws one frame of animation a, unless a has been replaced.
func (o *Orb) tick(a *fyne.Animation, f float32) {
	o.mu.Lock()
	if o.anim != a {
		o.mu.Unlock()
		return
	}
	o.phase = f
	r := o.r
	o.mu.Unlock()
	if r != nil {
		r.update()
	}
}

// CreateRenderer implements fyne.Widget.
func (o *Orb) CreateRenderer() fyne.WidgetRenderer {
	r := &orbRenderer{orb: o,
		bg:        canvas.NewRectangle(color.Transparent),
		halo:      canvas.NewCircle(color.Transparent),
		pulse:     canvas.NewCircle(color.Transparent),
		ring:      canvas.NewCircle(color.Transparent),
		core:      canvas.NewCircle(color.Transparent),
		highlight: canvas.NewCircle(color.Transparent),
		dot:       canvas.NewCircle(color.Transparent),
		badge:     canvas.NewCircle(color.Transparent),
	}
	for i := range r.sparks {
		r.sparks[i] = canvas.NewCircle(color.Transparent)
	}
	o.mu.Lock()
	o.r = r
	redraw := o.look != lookNone
	o.mu.Unlock()
	// Draws the look, and restarts its animation after a Destroy.
	o.apply()
	if redraw {
		r.update()
	}
	return r
}

type orbRenderer struct {
	orb                                            *Orb
	bg                                             *canvas.Rectangle
	halo, pulse, ring, core, highlight, dot, badge *canvas.Circle
	sparks                                         [4]*canvas.Circle

	mu   sync.Mutex // guards size: Layout and frames may come from different goroutines in tests
	size fyne.Size
}

func alpha(c color.NRGBA, a uint8) color.NRGBA { c.A = a; return c }

// orbVariant is the theme variant the orb paints; tests pin it.
var orbVariant = func() fyne.ThemeVariant { return fyne.CurrentApp().Settings().ThemeVariant() }

// update draws the orb's current look and animation phase.
func (r *orbRenderer) update() {
	o := r.orb
	o.mu.Lock()
	l, f := o.look, o.phase
	o.mu.Unlock()
	r.mu.Lock()
	size := r.size
	r.mu.Unlock()

	p := PaletteFor(orbVariant())
	side := fyne.Min(size.Width, size.Height)
	center := fyne.NewPos(size.Width/2, size.Height/2)
	place := func(c *canvas.Circle, d float32, at fyne.Position) {
		c.Resize(fyne.NewSquareSize(d))
		c.Move(at.Subtract(fyne.NewPos(d/2, d/2)))
	}
	show := func(c *canvas.Circle, on bool) {
		if on {
			c.Show()
		} else {
			c.Hide()
		}
	}

	r.bg.FillColor = p.Background
	r.bg.CornerRadius = 10
	r.bg.Resize(size)

	// The idle picture: a soft halo, a ring and a bright core with a small
	// highlight up and to the left that gives the disc some depth.
	glow := p.Glow
	haloD, haloA := side*0.86, uint8(0x38)
	ringC := alpha(glow, 0x70)
	coreD := side * 0.44
	r.highlight.FillColor = color.NRGBA{0xff, 0xff, 0xff, 0xd0}

	show(r.pulse, false)
	show(r.dot, false)
	show(r.badge, false)
	for _, s := range r.sparks {
		show(s, false)
	}
	haloC := glow

	switch l {
	case lookListening:
		// A gentle breath: the halo swells and brightens, and a thin rim
		// around it makes the state readable even between breaths.
		haloD = side * (0.74 + 0.20*f)
		haloA = uint8(0x30 + 0x48*f)
		coreD = side * (0.44 + 0.06*f)
		r.pulse.FillColor = color.Transparent
		r.pulse.StrokeColor = alpha(glow, uint8(0xe0-0x60*f))
		r.pulse.StrokeWidth = 1.5
		place(r.pulse, haloD, center)
		show(r.pulse, true)
	case lookWorking:
		// A small dot in the foreground colour laps the disc.
		angle := 2*math.Pi*float64(f) - math.Pi/2
		rad := float64(side) * 0.36
		at := center.Add(fyne.NewPos(float32(rad*math.Cos(angle)), float32(rad*math.Sin(angle))))
		r.dot.FillColor = p.Foreground
		r.dot.StrokeWidth = 0
		place(r.dot, side*0.14, at)
		show(r.dot, true)
	case lookAttention:
		// Warmer: the halo and ring take the warning colour, and a badge dot
		// sits at the top right, edged in the background colour.
		haloC, haloA = p.Warning, 0x48
		ringC = alpha(p.Warning, 0xb0)
		r.badge.FillColor = p.Warning
		r.badge.StrokeColor = p.Background
		r.badge.StrokeWidth = 1.5
		place(r.badge, side*0.28, center.Add(fyne.NewPos(side*0.29, -side*0.29)))
		show(r.badge, true)
	case lookSparkle:
		// Four sparks fly out from the core and fade while it flares.
		coreD = side * (0.44 + 0.10*(1-f))
		for i, s := range r.sparks {
			angle := math.Pi/4 + float64(i)*math.Pi/2
			rad := float64(side) * (0.18 + 0.24*float64(f))
			at := center.Add(fyne.NewPos(float32(rad*math.Cos(angle)), float32(rad*math.Sin(angle))))
			s.FillColor = alpha(p.Success, uint8(0xff*(1-f)))
			place(s, side*(0.12-0.04*f), at)
			show(s, true)
		}
	}

	r.halo.FillColor = alpha(haloC, haloA)
	place(r.halo, haloD, center)
	r.ring.FillColor = ringC
	place(r.ring, side*0.64, center)
	r.core.FillColor = glow
	place(r.core, coreD, center)
	s := side * 0.12
	r.highlight.Resize(fyne.NewSquareSize(s))
	r.highlight.Move(center.Subtract(fyne.NewPos(side*0.12, side*0.12)))

	for _, c := range r.Objects() {
		c.Refresh()
	}
}

func (r *orbRenderer) Layout(size fyne.Size) {
	r.mu.Lock()
	r.size = size
	r.mu.Unlock()
	r.update()
}

func (r *orbRenderer) MinSize() fyne.Size { return r.orb.MinSize() }

// Refresh redraws with the current theme variant.
func (r *orbRenderer) Refresh() { r.update() }

func (r *orbRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.bg, r.halo, r.pulse, r.ring, r.core, r.highlight,
		r.dot, r.badge, r.sparks[0], r.sparks[1], r.sparks[2], r.sparks[3]}
}

// Destroy stops any animation: a destroyed orb must not keep redrawing.
func (r *orbRenderer) Destroy() {
	o := r.orb
	o.mu.Lock()
	a := o.anim
	o.anim, o.look = nil, lookNone
	if o.r == r {
		o.r = nil
	}
	o.mu.Unlock()
	if a != nil {
		a.Stop()
	}
}
