package desktop_test

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform/xtest"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

// TestOrbStatesOnScreen runs the real binary and looks at the orb's pixels:
// idle is the blue glow; a nudge raised through the API turns it to the
// static attention look (a warm ring and badge) while the bubble is out; and
// back to idle once the nudge is answered.
//
// Working and the done sparkle are TestOrbStatesWorkingOnScreen's, and
// listening is TestOrbStatesListeningOnScreen's.
//
// The screenshots are saved in the test's temporary directory and, when
// SPIRIT_SHOTS_DIR is set, copied there.
func TestOrbStatesOnScreen(t *testing.T) {
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	p := d.start(t, ctx, dataDir, nil)
	if _, err := d.host.WaitItem(ctx); err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa)).Rect
	c := apiClient(t, ctx, dataDir)
	shots := newShots(t)

	// Idle: the blue glow, nothing warm. The window maps before its first
	// frame is drawn, so wait for the glow.
	idle := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return l.blue >= orb.Dx()*orb.Dy()/4 && l.warm == 0
	})
	shots.save("orb-idle", idle.img, orb)
	checkOrbPixels(t, d.disp, orb)
	steady(t, d.disp, orb, idle.img, "idle")

	// Attention: a nudge is out.
	n, err := c.Notify(ctx, api.NewNudge{Kind: "info", Message: "The Brooklyn Gardens SNDA came back signed."})
	if err != nil {
		t.Fatal(err)
	}
	att := waitOrbLook(t, ctx, d.disp, c, orb, "attention", func(l orbLook) bool {
		return l.warm >= 150
	})
	shots.save("orb-attention", att.img, orb)
	if att.blue >= idle.blue {
		t.Errorf("attention has %d blue pixels, idle %d: the ring should have turned warm", att.blue, idle.blue)
	}
	// The badge sits in the top right quarter of the orb.
	badge := image.Rect(orb.Min.X+orb.Dx()*3/4-4, orb.Min.Y, orb.Max.X, orb.Min.Y+orb.Dy()/4+4)
	if w := countPixels(att.img, badge, warm); w < 12 {
		t.Errorf("only %d warm pixels where the badge belongs (%v)", w, badge)
	}
	steady(t, d.disp, orb, att.img, "attention")

	// Answered: the bubble closes and the orb is idle again.
	if _, err := c.Respond(ctx, n.ID, api.ActionDismiss, ""); err != nil {
		t.Fatal(err)
	}
	back := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return l.warm == 0 && l.blue >= orb.Dx()*orb.Dy()/4
	})
	shots.save("orb-idle-after-nudge", back.img, orb)
	if diff := countDiff(idle.img, back.img, orb); diff != 0 {
		t.Errorf("the orb after the nudge differs from idle in %d pixels", diff)
	}
}

// steady watches the orb for a second: a static state's picture must not
// change at all (it is an observation window, not a wait for anything).
func steady(t *testing.T, disp *xtest.Display, orb image.Rectangle, ref image.Image, state string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < time.Second; {
		img, err := disp.Screenshot()
		if err != nil {
			t.Fatal(err)
		}
		if diff := countDiff(ref, img, orb); diff != 0 {
			t.Errorf("the %s orb changed by %d pixels with nothing happening", state, diff)
			return
		}
	}
}

// orbLook is one screenshot and what the orb's rectangle holds.
type orbLook struct {
	img        image.Image
	blue, warm int
	state      string // the orb's state in /health
}

// waitOrbLook polls /health and screenshots until the orb is in state and
// its pixels satisfy ok; it fails the test at ctx's deadline.
func waitOrbLook(t *testing.T, ctx context.Context, disp *xtest.Display, c *api.Client, orb image.Rectangle,
	state string, ok func(orbLook) bool) orbLook {
	t.Helper()
	var l orbLook
	// The state is read before the screenshot: the picture lags the state.
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	err := xtest.Poll(pctx, func() (bool, error) {
		h, err := c.Health(pctx)
		if err != nil {
			return false, err
		}
		l.state = h.Subsystems["orb"].State
		if l.state != state {
			return false, nil
		}
		img, err := disp.Screenshot()
		if err != nil {
			return false, err
		}
		l.img = img
		l.blue = countPixels(img, orb, bluish)
		l.warm = countPixels(img, orb, warm)
		return ok(l), nil
	})
	if err != nil {
		if l.img != nil {
			path := filepath.Join(t.TempDir(), "orb-"+state+"-failed.png")
			if xtest.WritePNG(path, l.img) == nil {
				t.Logf("screenshot: %s", path)
			}
		}
		t.Fatalf("orb never looked %s: /health orb=%q, %d blue and %d warm pixels in %v: %v",
			state, l.state, l.blue, l.warm, orb, err)
	}
	return l
}

// warm is the attention colour (the palette's Warning, light or dark) over
// the orb's background: clearly more red than blue.
func warm(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r > b+0x3000 && g > b && r >= g
}

func countPixels(img image.Image, r image.Rectangle, match func(color.Color) bool) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if match(img.At(x, y)) {
				n++
			}
		}
	}
	return n
}

func countDiff(a, b image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			if ar != br || ag != bg || ab != bb {
				n++
			}
		}
	}
	return n
}

// shots saves screenshots in the test's directory and SPIRIT_SHOTS_DIR.
type shots struct {
	t    *testing.T
	dirs []string
}

func newShots(t *testing.T) *shots {
	s := &shots{t: t, dirs: []string{t.TempDir()}}
	if dir := os.Getenv("SPIRIT_SHOTS_DIR"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		s.dirs = append(s.dirs, dir)
	}
	return s
}

// save writes the whole screen as name.png and the orb with a margin
// around it as name-crop.png.
func (s *shots) save(name string, img image.Image, orb image.Rectangle) {
	s.t.Helper()
	r := orb.Inset(-12).Intersect(img.Bounds())
	crop := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(crop, crop.Bounds(), img, r.Min, draw.Src)
	for _, dir := range s.dirs {
		for file, im := range map[string]image.Image{name + ".png": img, name + "-crop.png": crop} {
			path := filepath.Join(dir, file)
			if err := xtest.WritePNG(path, im); err != nil {
				s.t.Errorf("save %s: %v", path, err)
			}
		}
	}
	s.t.Logf("screenshot %s in %v", name, s.dirs)
}

// TestMain lets this test binary double as audiotest's JACK player (and as
// the audio capture helper), as the voice packages' tests do, and removes
// the spirit binary its tests built once (programs) when they are done.
func TestMain(m *testing.M) {
	audiotest.ServeHelpers()
	os.Exit(programs.Run(m))
}

// TestOrbStatesWorkingOnScreen runs the real binary with a task agent whose
// model call is held: while it runs, /health says orb=working and the orb
// shows the working look, a small dot lapping the disc (it moves between
// two shots); once the agent is verified its result nudge turns the orb to
// attention; answered, the orb plays the done sparkle and is idle again.
func TestOrbStatesWorkingOnScreen(t *testing.T) {
	w := newAgentWorld(t, setup.Anthropic) // secrets in the data directory's file
	d := newDesk(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	// The desk's session bus has no Secret Service: Spirit falls back to
	// the same secret file newAgentWorld wrote the IMAP password and the
	// provider key to (XDG_RUNTIME_DIR is inherited from newAgentWorld).
	p := d.start(t, ctx, w.dir, nil)
	if _, err := d.host.WaitItem(ctx); err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa)).Rect
	c := apiClient(t, ctx, w.dir)
	shots := newShots(t)
	idle := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return l.blue >= orb.Dx()*orb.Dy()/4 && l.warm == 0
	})
	shots.save("orb-working-before", idle.img, orb)

	// The agent's first model call (its plan) is held for a while: the
	// orb is looked at while it is held.
	const hold = 4 * time.Second
	w.srv.Push(
		scripted.ToolCalls(tc("p", "submit_plan", map[string]any{"steps": []string{"Look up the SNDA deadline", "Report it"}})).After(hold),
		scripted.ToolCalls(tc("f", "finish_task", map[string]any{"summary": "The SNDA comments are due Friday"})),
		scripted.ToolCalls(tc("v", "give_verdict", map[string]any{"verdict": "verified"})),
	)
	prop, err := c.Notify(ctx, api.NewNudge{Kind: "proposal", Message: "Check the SNDA deadline?", ActionPrompt: "Tell me when the SNDA comments are due"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Respond(ctx, prop.ID, api.ActionAccept, ""); err != nil {
		t.Fatal(err)
	}
	accepted := time.Now()
	calls := func() int { return len(w.srv.Requests()) }

	// Working: the dot laps the disc, so the picture differs from idle only
	// in a small spot on the dot's orbit.
	centre := image.Pt(orb.Min.X+orb.Dx()/2, orb.Min.Y+orb.Dy()/2)
	var dot []image.Point
	work := waitOrbLook(t, ctx, d.disp, c, orb, "working", func(l orbLook) bool {
		// The accepted proposal's "waiting for you" ring is taken down
		// through the UI thread, which may draw it once more after
		// /health already says working: a look with the ring is not yet
		// the working orb.
		if l.warm > 0 {
			return false
		}
		dot = diffPixels(idle.img, l.img, orb)
		return len(dot) > 0
	})
	seen := time.Since(accepted)
	shots.save("orb-working", work.img, orb)
	checkDot(t, "working vs idle", dot, centre, orb.Dx())
	// About 100 ms later the dot has moved on along its orbit.
	var work2 orbLook
	var moved []image.Point
	work2.img, moved, err = nextFrame(ctx, d.disp, work.img, orb)
	if err != nil {
		t.Fatalf("the working orb did not move within a second: %v", err)
	}
	if h, err := c.Health(ctx); err != nil {
		t.Fatalf("/health after the second working shot: %v", err)
	} else if got := h.Subsystems["orb"].State; got != "working" {
		t.Fatalf("/health orb after the second working shot = %q, want working (%v)", got, h.Subsystems["orb"])
	}
	shots.save("orb-working-later", work2.img, orb)
	checkDot(t, "working vs working later", moved, centre, orb.Dx())
	if dd := diffPixels(idle.img, work2.img, orb); len(dd) == 0 {
		t.Error("the later working shot equals idle: no dot")
	} else {
		checkDot(t, "working later vs idle", dd, centre, orb.Dx())
	}
	if calls() != 1 {
		t.Errorf("%d model calls by the end of the working shots, want 1 (the held plan): they may show something else", calls())
	}
	t.Logf("accept → orb working on screen in %v; second shot after another %v", seen, time.Since(accepted)-seen)

	// Verified: the result nudge brings the bubble and the attention look;
	// the sparkle starts right after (TaskDone follows the nudge) but
	// waits under attention, so the nudge is answered at once.
	res := waitNudge(t, ctx, c, nudge.KindResult, prop.ID)
	att := waitOrbLook(t, ctx, d.disp, c, orb, "attention", func(l orbLook) bool {
		return l.warm >= 150
	})
	if _, err := c.Respond(ctx, res.ID, api.ActionDismiss, ""); err != nil {
		t.Fatal(err)
	}
	answered := time.Since(res.Created)
	t.Logf("result nudge answered %v after it was stored; plan held %v, accept → result %v", answered, hold, time.Since(accepted))

	// The sparkle: four green sparks fly out diagonally from the core and
	// fade, with /health idle (it is an overlay on idle, not a state) and
	// nothing warm left; it lasts a second from TaskDone. Spark pixels are
	// the ones greener than idle's at the same place: the orb's blues
	// never are, even as the sparks fade.
	var spark orbLook
	var sparks []image.Point
	sctx, scancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	err = xtest.Poll(sctx, func() (bool, error) {
		h, err := c.Health(sctx)
		if err != nil || h.Subsystems["orb"].State != "idle" {
			return false, err
		}
		img, err := d.disp.Screenshot()
		if err != nil {
			return false, err
		}
		spark.img, spark.warm = img, countPixels(img, orb, warm)
		sparks = greenerPixels(idle.img, img, orb)
		q := quadrants(sparks, centre)
		return spark.warm == 0 && min(q[0], q[1], q[2], q[3]) >= 2, nil
	})
	scancel()
	sparkSeen := time.Since(res.Created)
	shots.save("orb-working-result", att.img, orb)
	switch {
	case err == nil:
		shots.save("orb-sparkle", spark.img, orb)
		t.Logf("done sparkle seen %v after the result nudge was stored: %d spark pixels by quadrant %v, %d of them plain green",
			sparkSeen, len(sparks), quadrants(sparks, centre), countPixels(spark.img, orb, green))
		checkSparks(t, sparks, centre, orb.Dx())
	case answered < 500*time.Millisecond:
		// Answered well inside the sparkle's second: it must have shown.
		t.Errorf("no done sparkle after the result nudge was answered %v after it was stored: %v", answered, err)
	default:
		t.Logf("done sparkle not caught: the result nudge was answered %v after it was stored, near or past the sparkle's second", answered)
	}

	back := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return countDiff(idle.img, l.img, orb) == 0
	})
	shots.save("orb-working-after", back.img, orb)
	waitStatus(t, ctx, c, store.StatusVerified)
	agents, err := c.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 1 {
		t.Errorf("agents after the run = %d, want one: %+v", len(agents), agents)
	} else if agents[0].Phase != task.PhaseFinished {
		t.Errorf("agent phase after the run = %s, want %s", agents[0].Phase, task.PhaseFinished)
	}
	if n := calls(); n != 3 {
		t.Errorf("%d model calls, want 3 (plan, finish, verdict)", n)
	}
	stopSpirit(t, ctx, p)
}

// TestOrbStatesListeningOnScreen plays a spoken command through a JACK
// dummy sound card into the running app, as the voice packages' JACK tests
// do, with a random-weight whisper model (what it transcribes does not
// matter here): while the speech is heard /health says orb=listening and
// the orb breathes, a rim and a swelling halo all round the disc, different
// from idle and from itself a moment later; after the speech it leaves
// listening.
func TestOrbStatesListeningOnScreen(t *testing.T) {
	d := newDesk(t)
	jack := audiotest.StartJack(t) // Spirit inherits JACK_DEFAULT_SERVER
	clip := audiotest.Speak(t, "Remind me to call Marcy Howard tomorrow at three about the Brooklyn Gardens estoppel certificate.")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	dataDir := t.TempDir()
	if err := os.MkdirAll(model.Dir(dataDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := whispertest.WriteModel(filepath.Join(model.Dir(dataDir), "ggml-test-tiny.bin"), whispertest.Tiny()); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDir(ctx, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"voice.device": "system", "voice.threads": "1"} {
		if err := st.SetSetting(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	p := d.start(t, ctx, dataDir, nil)
	if _, err := d.host.WaitItem(ctx); err != nil {
		t.Fatalf("tray: %v\n%s", err, p.Output())
	}
	wa, err := d.disp.WorkArea()
	if err != nil {
		t.Fatal(err)
	}
	orb := d.waitOrb(t, ctx, dockedAt(wa)).Rect
	c := apiClient(t, ctx, dataDir)
	shots := newShots(t)
	// Listening is "on" before the voice starts, too: wait for Spirit's
	// capture port in the JACK graph.
	var voice api.Subsystem
	var ports []string
	if err := xtest.Poll(ctx, func() (bool, error) {
		h, err := c.Health(ctx)
		voice = h.Subsystems["listening"]
		ports = jack.PortsOf("Spirit:")
		return err == nil && voice.State == "on" && len(ports) > 0, err
	}); err != nil {
		t.Fatalf("Spirit never opened the JACK card: listening %+v, ports %v: %v\n%s", voice, jack.Ports(), err, p.Output())
	}
	idle := waitOrbLook(t, ctx, d.disp, c, orb, "idle", func(l orbLook) bool {
		return l.blue >= orb.Dx()*orb.Dy()/4 && l.warm == 0
	})
	shots.save("orb-listening-before", idle.img, orb)

	if len(ports) != 1 {
		t.Fatalf("Spirit's JACK capture ports: %v (all: %v)", ports, jack.Ports())
	}
	pl := audiotest.NewPlayer(t, jack)
	defer pl.Close() // before jackd stops: see audiotest.Player
	jack.Connect(pl.Port, ports[0])
	x, truth := audiotest.Compose([]audiotest.Segment{{Gap: 300 * time.Millisecond, Clip: clip}}, time.Second)
	played := pl.Play(x)
	start := time.Now()

	centre := image.Pt(orb.Min.X+orb.Dx()/2, orb.Min.Y+orb.Dy()/2)
	var ring []image.Point
	lis := waitOrbLook(t, ctx, d.disp, c, orb, "listening", func(l orbLook) bool {
		ring = diffPixels(idle.img, l.img, orb)
		return len(ring) > 0
	})
	seen := time.Since(start)
	shots.save("orb-listening", lis.img, orb)
	checkRing(t, "listening vs idle", ring, centre)
	var lis2 orbLook
	lis2.img, _, err = nextFrame(ctx, d.disp, lis.img, orb)
	if err != nil {
		t.Fatalf("the listening orb did not breathe within a second: %v", err)
	}
	h, err := c.Health(ctx)
	if err != nil {
		t.Fatalf("/health after the second listening shot: %v", err)
	}
	if got := h.Subsystems["orb"].State; got != "listening" {
		t.Fatalf("/health orb after the second listening shot = %q, want listening (%v)", got, h.Subsystems["orb"])
	}
	shots.save("orb-listening-later", lis2.img, orb)
	checkRing(t, "listening later vs idle", diffPixels(idle.img, lis2.img, orb), centre)
	speech := truth[0].End - truth[0].Start
	t.Logf("speech %v (sound from %v): orb listening on screen %v after play started; second shot %v later",
		speech.Round(time.Millisecond), truth[0].Start, seen, time.Since(start)-seen)
	if time.Since(start) > truth[0].End+time.Second {
		t.Errorf("the listening shots ended %v after play started, after the speech (%v) and the VAD's hangover: they may not show hearing",
			time.Since(start), truth[0].End)
	}

	// After the speech the orb leaves listening, and the utterance counts.
	select {
	case <-played:
	case <-ctx.Done():
		t.Fatal("player stalled")
	}
	var after api.Health
	if err := xtest.Poll(ctx, func() (bool, error) {
		var err error
		after, err = c.Health(ctx)
		return err == nil && after.Subsystems["orb"].State != "listening" && after.Counters["utterances"] >= 1, err
	}); err != nil {
		t.Fatalf("after the speech: orb %q, %d utterances: %v", after.Subsystems["orb"].State, after.Counters["utterances"], err)
	}
	t.Logf("after the speech: orb %s, %d utterance(s) heard, %v after play started", after.Subsystems["orb"].State, after.Counters["utterances"], time.Since(start))
	stopSpirit(t, ctx, p)
}

// diffPixels lists the pixels of r where a and b differ.
func diffPixels(a, b image.Image, r image.Rectangle) []image.Point {
	var ps []image.Point
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			if ar != br || ag != bg || ab != bb {
				ps = append(ps, image.Pt(x, y))
			}
		}
	}
	return ps
}

// checkDot checks that changed pixels are the working dot (side*0.14 across,
// at side*0.36 from the centre; the dot may have been drawn twice, where it
// was and where it is): a few pixels, all near the orbit, in a small box.
func checkDot(t *testing.T, what string, ps []image.Point, centre image.Point, side int) {
	t.Helper()
	if len(ps) < 6 || len(ps) > 120 {
		t.Errorf("%s: %d pixels changed, want a small dot's worth (6..120)", what, len(ps))
	}
	lo, hi := 0.36*float64(side)-0.14*float64(side), 0.36*float64(side)+0.14*float64(side)
	off, box := 0, image.Rectangle{}
	for i, p := range ps {
		dx, dy := float64(p.X-centre.X), float64(p.Y-centre.Y)
		if r := math.Hypot(dx, dy); r < lo || r > hi {
			off++
		}
		if i == 0 {
			box = image.Rectangle{p, p.Add(image.Pt(1, 1))}
		} else {
			box = box.Union(image.Rectangle{p, p.Add(image.Pt(1, 1))})
		}
	}
	if off > 0 {
		t.Errorf("%s: %d of %d changed pixels are off the dot's orbit (%.0f..%.0f px from the centre)", what, off, len(ps), lo, hi)
	}
	if box.Dx() > side/2 {
		t.Errorf("%s: changed pixels spread %d px wide (%v), want one dot at most %d", what, box.Dx(), box, side/2)
	}
	if box.Dy() > side/2 {
		t.Errorf("%s: changed pixels spread %d px high (%v), want one dot at most %d", what, box.Dy(), box, side/2)
	}
}

// checkRing checks that changed pixels surround the centre: the breathing
// halo and rim change all round the disc, not in one spot.
func checkRing(t *testing.T, what string, ps []image.Point, centre image.Point) {
	t.Helper()
	q := quadrants(ps, centre)
	if len(ps) < 60 {
		t.Errorf("%s: %d pixels changed, want a ring's worth (60+)", what, len(ps))
	}
	if least := min(q[0], q[1], q[2], q[3]); least < 10 {
		t.Errorf("%s: by quadrant %v, fewest %d; want a ring all round (10+ each)", what, q, least)
	}
}

// quadrants counts points in each quadrant around centre.
func quadrants(ps []image.Point, centre image.Point) [4]int {
	var q [4]int
	for _, p := range ps {
		i := 0
		if p.X >= centre.X {
			i++
		}
		if p.Y >= centre.Y {
			i += 2
		}
		q[i]++
	}
	return q
}

// green is the sparkle's colour (the palette's Success) over the orb:
// clearly more green than red and blue.
func green(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return g > r+0x2000 && g > b+0x1000
}

// greenerPixels lists the pixels of r where img is greener (green minus
// blue) than ref by more than one level.
func greenerPixels(ref, img image.Image, r image.Rectangle) []image.Point {
	var ps []image.Point
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			_, rg, rb, _ := ref.At(x, y).RGBA()
			_, ig, ib, _ := img.At(x, y).RGBA()
			if int(ig)-int(ib) > int(rg)-int(rb)+0x100 {
				ps = append(ps, image.Pt(x, y))
			}
		}
	}
	return ps
}

// checkSparks checks that spark pixels lie on the sparks' diagonals (within
// a spark's size of them), between the core and the orb's edge.
func checkSparks(t *testing.T, ps []image.Point, centre image.Point, side int) {
	t.Helper()
	off := 0
	for _, p := range ps {
		dx, dy := float64(p.X-centre.X)+0.5, float64(p.Y-centre.Y)+0.5
		r := math.Hypot(dx, dy)
		// Distance from the nearer diagonal (y = x or y = -x).
		diag := math.Min(math.Abs(dx-dy), math.Abs(dx+dy)) / math.Sqrt2
		if r < 0.10*float64(side) || r > 0.50*float64(side) || diag > 0.10*float64(side) {
			off++
		}
	}
	if off > 0 {
		t.Errorf("%d of %d spark pixels are off the diagonals the sparks fly along", off, len(ps))
	}
}

// nextFrame takes screenshots for up to a second until the orb's region
// differs from prev: an animated state draws a new frame. It returns the
// shot and the pixels that changed.
func nextFrame(ctx context.Context, disp *xtest.Display, prev image.Image, orb image.Rectangle) (image.Image, []image.Point, error) {
	var (
		img   image.Image
		moved []image.Point
	)
	mctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	err := xtest.Poll(mctx, func() (bool, error) {
		shot, err := disp.Screenshot()
		if err != nil {
			return false, err
		}
		img, moved = shot, diffPixels(prev, shot, orb)
		return len(moved) > 0, nil
	})
	return img, moved, err
}
