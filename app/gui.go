package app

import (
	"context"
	"fmt"
	"image"
	"log/slog"
	"os"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
	"github.com/go-gl/glfw/v3.4/glfw"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/ui"
	"github.com/spirit-app/spirit/assets"
	"github.com/spirit-app/spirit/platform"
)

// AppID is Spirit's application id (Fyne preferences, desktop entry).
const AppID = "app.spirit.desktop"

// dockMargin keeps the orb a few pixels off the screen edge.
const dockMargin = 6

// gui is the Fyne front end: the tray menu, the orb docked at the right edge,
// the panel that mirrors the tray menu, the nudge bubble and the windows.
type gui struct {
	core *Core
	fa   fyne.App
	desk *platform.Desktop // nil where the OS gives no window-manager access
	log  *slog.Logger
	ctx  context.Context

	trayState platform.TrayState

	// Menu items are shared by the tray and the orb's panel.
	menu                                *fyne.Menu
	statusItem, listenItem, watchItem   *fyne.MenuItem
	orb, panel, bubbleWin               fyne.Window
	orbView                             *ui.Orb // set once under mu; used on the main thread
	panelMenu                           *widget.Menu
	reminders, activity, settingsWindow fyne.Window
	activityView                        *activityView
	settingsView                        *settingsView
	remindersView                       *remindersView
	mailView                            *mailView

	mu           sync.Mutex
	orbXID       uint32
	lastOther    uint32 // the last focused window that is not Spirit's
	panelVisible bool
	hotkey       string    // the grabbed pause hotkey, for Settings
	nudgeHotkey  string    // the grabbed hotkey that focuses the bubble, for Settings
	menuSent     time.Time // when the tray menu was last re-sent; see sendMenuSoon
	menuPending  bool      // a re-send is scheduled
	pendingSave  map[string]*time.Timer
	bubble       *ui.Bubble
	bubbleID     int64
	queue        []store.Nudge

	// The nudge bubble beyond bubble/bubbleID/queue; see nudges.go.
	shown         store.Nudge    // the nudge in the bubble on screen
	folded        map[int64]bool // queued nudges whose bubble folded away unanswered
	bubbleEngaged bool           // the lawyer clicked or typed in the bubble on screen
	foldDelay     time.Duration  // how long a bubble may be left alone; 0: 45 s
	foldTimer     *time.Timer
	foldGen       int
	waitingItem   *fyne.MenuItem // "Waiting for you (N)…", atop the menu while N > 0
	bubbleXID     uint32         // guarded by mu, for the focus watcher
	bubbleFocusOK bool           // guarded by mu: the bubble may keep the keyboard

	// What the orb shows besides nudges; main thread only (see updateOrb).
	hearing bool // speech is being heard now
	working int  // agents running now

	quitOnce  sync.Once
	onStarted func()
}

// runGUI runs the Fyne app until Quit or until ctx ends.
// started runs once the orb is up, on its own goroutine.
func runGUI(ctx context.Context, core *Core, log *slog.Logger, started func()) error {
	g := &gui{core: core, log: log, ctx: ctx, onStarted: started}
	g.fa = fyneapp.NewWithID(AppID)
	g.fa.SetIcon(assets.Icon())
	g.fa.Settings().SetTheme(ui.Theme{})

	if d, err := platform.OpenDesktop(); err != nil {
		log.Warn("no window-manager access: the orb is placed by the toolkit", "err", err)
	} else {
		g.desk = d
		defer d.Close()
	}

	g.buildMenu(core.Status())
	probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	state, err := platform.ProbeTray(probeCtx)
	cancel()
	g.trayState = state
	switch state {
	case platform.TrayNoBus:
		// fyne.io/systray needs a bus, and panics on Quit without one.
		log.Warn("no DBus session bus: the tray icon is off; Spirit's orb gives the same menu", "err", err)
	default:
		if state == platform.TrayNoHost {
			log.Warn("no tray host on this desktop: the tray icon will appear if one starts; the orb gives the same menu")
		}
		if desk, ok := g.fa.(desktop.App); ok {
			desk.SetSystemTrayMenu(g.menu)
			desk.SetSystemTrayIcon(assets.TrayIcon())
		}
	}

	core.SetPresenter(g)
	defer core.SetPresenter(nil)

	g.fa.Lifecycle().SetOnStarted(g.started)
	go func() {
		<-ctx.Done()
		fyne.Do(g.quit)
	}()
	g.fa.Run()
	return nil
}

// started runs on the main thread once the driver is up.
func (g *gui) started() {
	// GLFW focuses every window it shows by default; Spirit's windows must
	// never take the focus from the lawyer's work.
	glfw.WindowHint(glfw.FocusOnShow, glfw.False)

	drv, ok := g.fa.Driver().(desktop.Driver)
	if !ok {
		g.log.Error("this driver cannot make borderless windows; the orb is off")
		return
	}
	g.orb = drv.CreateSplashWindow()
	g.orb.SetTitle("Spirit")
	orbView := ui.NewOrb(g.togglePanel)
	g.mu.Lock() // Subsystems reads it from the API's goroutines
	g.orbView = orbView
	g.mu.Unlock()
	g.orb.SetContent(orbView)
	g.orb.Resize(fyne.NewSquareSize(ui.OrbSize))
	if w, ok := g.orb.(desktop.Window); ok {
		w.RequestAlwaysOnTop()
	}

	g.panel = drv.CreateSplashWindow()
	g.panel.SetTitle("Spirit menu")
	g.rebuildPanel()
	if w, ok := g.panel.(desktop.Window); ok {
		w.RequestAlwaysOnTop()
	}

	if g.desk != nil {
		g.rootChanged(platform.ActiveChanged) // remember the lawyer's window
		if err := g.desk.WatchRoot(g.ctx, g.rootChanged); err != nil {
			g.log.Warn("cannot follow screen changes; the orb docks only when shown", "err", err)
		}
		g.grabHotkey()
		g.grabNudgeHotkey()
	}
	g.showOrb()
	// The bubble's window, made before any nudge comes: see nudges.go.
	g.prepareBubbleWindow()
	g.updateOrb() // hearing or nudges may have come before the orb
	g.log.Info("orb shown", "tray", string(g.trayState))
	if g.onStarted != nil {
		go g.onStarted()
	}
}

// DefaultPauseHotkey toggles listening from anywhere.
const DefaultPauseHotkey = "Ctrl+Alt+P"

// grabHotkey installs the global pause-listening shortcut.
func (g *gui) grabHotkey() {
	text := DefaultPauseHotkey
	if v, ok, err := g.core.store.Setting(g.ctx, settingPauseHotkey); err == nil && ok {
		text = v
	}
	if text == "" || text == "off" {
		return
	}
	hk, err := platform.ParseHotkey(text)
	if err == nil {
		err = g.desk.GrabHotkey(g.ctx, hk, func() {
			g.toggle(g.core.SetListeningPaused, !g.core.Status().ListeningPaused)
		})
	}
	if err != nil {
		g.log.Warn("no global pause hotkey", "hotkey", text, "err", err)
		return
	}
	g.hotkey = hk.String()
	g.log.Info("global hotkey toggles listening", "hotkey", g.hotkey)
}

// xid is the X11 window id of w, or 0 elsewhere.
func xid(w fyne.Window) uint32 {
	var id uint32
	if nw, ok := w.(driver.NativeWindow); ok {
		nw.RunNative(func(c any) {
			if x, ok := c.(driver.X11WindowContext); ok {
				id = uint32(x.WindowHandle)
			}
		})
	}
	return id
}

// showOrb shows and docks the orb; window managers forget "above" and
// positions across hide and show, so both are applied after every show.
func (g *gui) showOrb() {
	g.orb.Show()
	id := xid(g.orb)
	g.mu.Lock()
	g.orbXID = id
	g.mu.Unlock()
	if g.desk != nil && id != 0 {
		if err := g.desk.PrepareFloating(id, false); err != nil {
			g.log.Warn("orb window hints", "err", err)
		}
	}
	g.dockOrb()
	if g.desk != nil && id != 0 {
		g.rootChanged(platform.ActiveChanged)
	}
}

// dockOrb moves the orb to the right edge of the work area, vertically centred.
func (g *gui) dockOrb() {
	if g.desk == nil {
		return
	}
	wa, err := g.desk.WorkArea()
	if err != nil {
		g.log.Warn("work area", "err", err)
		return
	}
	sz, err := g.desk.WindowSize(xid(g.orb))
	if err != nil {
		s := ui.OrbSize * g.orb.Canvas().Scale()
		sz = platform.WindowSize{W: int(s), H: int(s)}
	}
	p := platform.DockPosition(wa, sz, dockMargin)
	if w, ok := g.orb.(desktop.Window); ok {
		w.RequestPosition(p.X, p.Y)
	}
	g.log.Debug("orb docked", "x", p.X, "y", p.Y, "workarea", wa.String())
	if g.panel != nil && g.panelShown() {
		g.placeBeside(g.panel, p, sz)
	}
	if g.bubbleWin != nil {
		g.placeBeside(g.bubbleWin, p, sz)
	}
}

// placeBeside puts w left of the orb at orbPos, centred on it and kept inside
// the work area.
func (g *gui) placeBeside(w fyne.Window, orbPos image.Point, orb platform.WindowSize) {
	if g.desk == nil {
		return
	}
	wa, err := g.desk.WorkArea()
	if err != nil {
		return
	}
	sz, err := g.desk.WindowSize(xid(w))
	if err != nil || sz.W <= 1 {
		s := w.Canvas().Size()
		scale := w.Canvas().Scale()
		sz = platform.WindowSize{W: int(s.Width * scale), H: int(s.Height * scale)}
	}
	x := orbPos.X - sz.W - 8
	y := orbPos.Y + orb.H/2 - sz.H/2
	y = max(wa.Min.Y, min(y, wa.Max.Y-sz.H))
	x = max(wa.Min.X, x)
	if dw, ok := w.(desktop.Window); ok {
		dw.RequestPosition(x, y)
	}
}

func (g *gui) orbPos() (image.Point, platform.WindowSize, bool) {
	if g.desk == nil {
		return image.Point{}, platform.WindowSize{}, false
	}
	wa, err := g.desk.WorkArea()
	if err != nil {
		return image.Point{}, platform.WindowSize{}, false
	}
	sz, err := g.desk.WindowSize(xid(g.orb))
	if err != nil {
		return image.Point{}, platform.WindowSize{}, false
	}
	return platform.DockPosition(wa, sz, dockMargin), sz, true
}

// showFloating shows a window beside the orb: above others, out of the
// taskbar, and focusable only when the lawyer clicks it.
func (g *gui) showFloating(w fyne.Window) {
	w.Show()
	if p, sz, ok := g.orbPos(); ok {
		g.placeBeside(w, p, sz)
	}
	if g.desk != nil {
		if id := xid(w); id != 0 {
			if err := g.desk.PrepareFloating(id, true); err != nil {
				g.log.Warn("window hints", "err", err)
			}
		}
	}
}

// rootChanged runs on the X watcher's goroutine, and once after the orb is
// shown in case the window manager focused it before its hints were set.
func (g *gui) rootChanged(ev platform.RootEvent) {
	switch ev {
	case platform.WorkAreaChanged:
		fyne.Do(g.dockOrb)
	case platform.ActiveChanged:
		active, err := g.desk.ActiveWindow()
		if err != nil || active == 0 {
			return
		}
		// Never remember one of Spirit's own windows as the lawyer's.
		if pid, err := g.desk.WindowPID(active); err == nil && pid == os.Getpid() {
			g.mu.Lock()
			orb, prev := g.orbXID, g.lastOther
			// Nor does the bubble, unless the lawyer clicked it or used the hotkey.
			if active == g.bubbleXID && !g.bubbleFocusOK {
				orb = active
			}
			g.mu.Unlock()
			// The orb never keeps the focus: hand it back to the lawyer's window.
			if active == orb && prev != 0 {
				if err := g.desk.Activate(prev); err != nil {
					g.log.Debug("give focus back", "err", err)
				}
			}
			return
		}
		g.mu.Lock()
		g.lastOther = active
		g.mu.Unlock()
	}
}

func (g *gui) togglePanel() {
	if g.panelShown() {
		g.panel.Hide()
		g.setPanelShown(false)
		return
	}
	g.rebuildPanel()
	g.showFloating(g.panel)
	g.setPanelShown(true)
}

// rebuildPanel renders the menu afresh: Fyne's menu widget lays out its
// check-mark column once, so a refresh alone would overlap the labels.
func (g *gui) rebuildPanel() {
	g.panelMenu = widget.NewMenu(g.menu)
	g.panelMenu.OnDismiss = func() {
		g.panel.Hide()
		g.setPanelShown(false)
	}
	g.panel.SetContent(g.panelMenu)
	g.panel.Resize(g.panelMenu.MinSize())
}

func (g *gui) panelShown() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.panelVisible
}

func (g *gui) setPanelShown(v bool) {
	g.mu.Lock()
	g.panelVisible = v
	g.mu.Unlock()
}

// quit ends the Fyne app once. Quit tears down the tray, which panics in
// fyne.io/systray when its bus went away; never let that crash the exit.
func (g *gui) quit() {
	g.quitOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				g.log.Warn("tray teardown failed during quit", "panic", fmt.Sprint(r))
			}
		}()
		g.fa.Quit()
	})
}

// StatusChanged implements Presenter.
func (g *gui) StatusChanged(st Status) {
	fyne.Do(func() { g.applyStatus(st) })
}

// Show implements Presenter: a second `spirit` asked us to come forward.
func (g *gui) Show() {
	fyne.Do(func() {
		g.showOrb()
		if !g.panelShown() {
			g.togglePanel()
		}
	})
}

// Notify implements Presenter with a desktop notification.
func (g *gui) Notify(title, body string) {
	g.fa.SendNotification(fyne.NewNotification(title, body))
}

// OpenReminders implements Presenter.
func (g *gui) OpenReminders() { fyne.Do(g.showReminders) }

// updateOrb shows on the orb what Spirit is doing; main thread only.
// By priority: attention (a nudge bubble is out or nudges are queued) over
// working (agents running) over listening (speech being heard) over idle.
// The done sparkle (TaskDone) overlays idle only; see ui.OrbState.
// Whatever changes g.bubble or g.queue must call it afterwards.
func (g *gui) updateOrb() {
	if g.orbView == nil {
		return
	}
	s := ui.OrbIdle
	switch {
	case g.bubble != nil || len(g.queue) > 0:
		s = ui.OrbAttention
	case g.working > 0:
		s = ui.OrbWorking
	case g.hearing:
		s = ui.OrbListening
	}
	if s != g.orbView.State() {
		g.log.Debug("orb", "state", s.String())
	}
	g.orbView.SetState(s)
}

// Hearing implements Presenter: the orb pulses while speech is heard.
func (g *gui) Hearing(on bool) {
	fyne.Do(func() {
		g.hearing = on
		g.updateOrb()
	})
}

// Working implements Presenter: the orb's dot circles while agents run.
func (g *gui) Working(n int) {
	fyne.Do(func() {
		g.working = max(n, 0)
		g.updateOrb()
	})
}

// TaskDone implements Presenter: a brief sparkle on the orb.
func (g *gui) TaskDone() {
	fyne.Do(func() {
		if g.orbView != nil {
			g.orbView.Sparkle()
		}
	})
}

// Subsystems implements Presenter.
func (g *gui) Subsystems() map[string]api.Subsystem {
	state := g.trayState
	if state != platform.TrayNoBus {
		// A tray host can come and go (a panel restarts): ask again.
		ctx, cancel := context.WithTimeout(g.ctx, time.Second)
		if s, err := platform.ProbeTray(ctx); err == nil {
			state = s
		}
		cancel()
	}
	tray := api.Subsystem{State: string(state)}
	if state == platform.TrayNoBus || state == platform.TrayNoHost {
		tray.Detail = "the orb gives the tray's menu"
	}
	subs := map[string]api.Subsystem{"tray": tray, "ui": {State: "gui"}}
	g.mu.Lock()
	o := g.orbView
	g.mu.Unlock()
	if o != nil {
		subs["orb"] = api.Subsystem{State: o.State().String()}
	}
	return subs
}
