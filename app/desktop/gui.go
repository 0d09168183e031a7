package desktop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
	"github.com/go-gl/glfw/v3.4/glfw"

	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/desktop/widgets"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/assets"
	"github.com/spirit-app/spirit/platform"
)

// dockMargin keeps the orb a few pixels off the screen edge.
const dockMargin = 6

// menuTakesFocus says whether the orb's menu may be given the keyboard.
// On Windows it never is: a click on the orb must leave the lawyer's
// window in front, and the menu's items answer clicks without the focus
// (seen under Wine). On X11 the menu keeps its focusable hint, which its
// tests were written against.
const menuTakesFocus = runtime.GOOS != "windows"

// gui is the Fyne front end: the tray menu, the orb docked at the right edge,
// the panel that mirrors the tray menu, the nudge bubble and the windows.
type gui struct {
	// uiq, when set (tests), receives what do would hand to fyne.Do.
	uiq  chan func()
	core Core
	sub  *events.Subscription // what to show; read by Events
	fa   fyne.App
	desk *platform.Desktop // nil where the OS gives no window-manager access
	log  *slog.Logger
	// ctx is Run's: the lifetime of the windows, for the work their
	// buttons start (Fyne's callbacks carry no context). Set before up
	// closes; Events and the windows use it only after.
	ctx context.Context

	up     chan struct{} // closed once the windows are up: Events waits for it
	upOnce sync.Once

	trayState platform.TrayState

	// Menu items are shared by the tray and the orb's panel.
	menu                                *fyne.Menu
	statusItem, listenItem, watchItem   *fyne.MenuItem
	orb, panel, bubbleWin               fyne.Window
	orbView                             *widgets.Orb // set once under mu; used on the main thread
	panelMenu                           *widget.Menu
	reminders, activity, settingsWindow fyne.Window
	activityView                        *activityView
	settingsView                        *settingsView
	remindersView                       *remindersView
	mailView                            *mailView
	calendarsView                       *calendarsView

	mu           sync.Mutex
	orbXID       uint32
	lastOther    uint32 // the last focused window that is not Spirit's
	panelVisible bool
	// panelPremapped: the menu's window was shown once (premapPanel);
	// main thread.
	panelPremapped bool
	hotkey         string    // the grabbed pause hotkey, for Settings
	nudgeHotkey    string    // the grabbed hotkey that focuses the bubble, for Settings
	menuSent       time.Time // when the tray menu was last re-sent; see sendMenuSoon
	menuPending    bool      // a re-send is scheduled
	pendingSave    map[string]*time.Timer
	// saves counts the General page's saves under way (tests wait on it).
	saves sync.WaitGroup

	// The nudge bubble, main thread only; see nudges.go. The queue
	// decides which nudge is on screen; bubble is its widget.
	bubbles       *bubbleQueue
	bubble        *widgets.Bubble // nil: no bubble on screen
	waitingItem   *fyne.MenuItem  // "Waiting for you (N)…", atop the menu while N > 0
	bubbleXID     uint32          // guarded by mu, for the focus watcher
	bubbleFocusOK bool            // guarded by mu: the bubble may keep the keyboard
	form          bubbleForm      // the bubble's form and place on screen

	// What the orb shows besides nudges; main thread only (see updateOrb).
	hearing bool // speech is being heard now
	working int  // agents running now

	// The analysis loop's line: the orb's tooltip, the panel's first line.
	hud hudView

	// Speech models: where they come from, and those being downloaded
	// (guarded by mu). See speech_settings.go.
	models      modelSource
	downloading map[string]bool
	speechView  *speechView // Settings' Speech page, once built; main thread
	setup       *firstRun   // the first-run window, once built; main thread

	quitOnce sync.Once
}

// fyneID is the Fyne application id of a Spirit keeping its data in
// dataDir. Fyne keeps an app's preferences under its own config folder by
// application id (<config>/fyne/<id>/preferences.json), whatever the data
// folder, so Spirits with different data folders would share one file and
// race on it (one read it half-written: "EOF"). The Spirit in the usual
// data folder (defaultDir) keeps AppID, which the desktop entry,
// notifications and the Wayland app id go by; any other data folder gets
// AppID with a suffix from its path, and so preferences of its own.
func fyneID(dataDir, defaultDir string) string {
	dataDir = filepath.Clean(dataDir)
	if defaultDir != "" && dataDir == filepath.Clean(defaultDir) {
		return AppID
	}
	sum := sha256.Sum256([]byte(dataDir))
	return AppID + ".d" + hex.EncodeToString(sum[:6])
}

// defaultDataDir is the data folder Spirit uses when none is given, ""
// if there is none.
func defaultDataDir() string {
	dir, err := platform.DataDir("")
	if err != nil {
		return ""
	}
	return dir
}

// Run shows Spirit until the lawyer quits or ctx ends. It must run on the
// main goroutine: the toolkit requires it.
func (g *gui) Run(ctx context.Context) error {
	g.ctx = ctx
	log, core := g.log, g.core
	// Events waits for the windows; if they never come up it must not
	// wait forever.
	defer g.upOnce.Do(func() { close(g.up) })
	g.fa = fyneapp.NewWithID(fyneID(filepath.Dir(core.DatabasePath()), defaultDataDir()))
	g.fa.SetIcon(assets.Icon())
	g.fa.Settings().SetTheme(widgets.Theme{})

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
	g.mu.Lock()
	g.trayState = state
	g.mu.Unlock()
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

	g.fa.Lifecycle().SetOnStarted(g.started)
	stop := context.AfterFunc(ctx, func() { g.do(g.quit) })
	defer stop()
	g.fa.Run()
	g.bubbles.stop() // no fold may fire into a closed app
	return nil
}

// started runs on the main thread once the driver is up.
func (g *gui) started() {
	// Whatever happens below, the events may flow now: they find the
	// windows that came up.
	defer g.upOnce.Do(func() { close(g.up) })
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
	orbView := widgets.NewOrb(g.togglePanel)
	orbView.OnHover = func(in bool) { g.orbHover(in) }
	g.mu.Lock() // Subsystems reads it from the API's goroutines
	g.orbView = orbView
	g.mu.Unlock()
	g.orb.SetContent(orbView)
	g.orb.Resize(fyne.NewSquareSize(widgets.OrbSize))
	if w, ok := g.orb.(desktop.Window); ok {
		w.RequestAlwaysOnTop()
	}

	// The menu's window is made (premapped) at its first showing: each
	// window costs about 9 MB of the GL driver's memory at rest.
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
		s := g.hotkeySettings()
		g.grabHotkey(s)
		g.grabNudgeHotkey(s)
	}
	g.showOrb()
	// The bubble's and the tooltip's windows are made on first use (see
	// prepareBubbleWindow): each costs ~9 MB of the GL driver's memory.
	// And, where it never takes the focus, the menu's: shown for the
	// first time when the orb is clicked, it was activated as it
	// appeared (under Wine) before its style could say no.
	if g.desk != nil && !menuTakesFocus {
		g.prepareNoFocus(g.panel, "menu", func(uint32) {})
	}
	g.updateOrb() // hearing or nudges may have come before the orb
	// A HUD line written before the orb came up.
	g.setHUD(g.core.HUDLine())
	g.log.Info("orb shown", "tray", string(g.trayState))
	go g.checkFirstRun()
}

// hotkeySettings reads the shortcuts to grab. Settings that are not valid
// read as their defaults, which is what Spirit grabbed before they were
// typed.
func (g *gui) hotkeySettings() settings.Settings {
	s, err := g.core.Settings(g.ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		g.log.Warn("hotkeys: settings unreadable, defaults used", "err", err)
	}
	return s
}

// grabHotkey installs the global pause-listening shortcut.
func (g *gui) grabHotkey(s settings.Settings) {
	text := s.PauseHotkey
	if text == "" || text == settings.HotkeyOff {
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

// xid is the id platform.Desktop knows w by: the X11 window id, the
// Windows HWND (which Windows keeps within 32 bits), or 0 elsewhere.
func xid(w fyne.Window) uint32 {
	var id uint32
	if nw, ok := w.(driver.NativeWindow); ok {
		nw.RunNative(func(c any) {
			switch x := c.(type) {
			case driver.X11WindowContext:
				id = uint32(x.WindowHandle)
			case driver.WindowsWindowContext:
				id = uint32(x.HWND)
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
		s := widgets.OrbSize * g.orb.Canvas().Scale()
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
	g.placeBubble()
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
	at := besideOrb(wa, orbPos, orb, sz)
	if dw, ok := w.(desktop.Window); ok {
		dw.RequestPosition(at.X, at.Y)
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
// taskbar, and focusable only when the lawyer clicks it. On Windows it is
// never activated at all (menuTakesFocus).
func (g *gui) showFloating(w fyne.Window) {
	w.Show()
	if p, sz, ok := g.orbPos(); ok {
		g.placeBeside(w, p, sz)
	}
	if g.desk != nil {
		if id := xid(w); id != 0 {
			if err := g.desk.PrepareFloating(id, menuTakesFocus); err != nil {
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
		g.do(g.dockOrb)
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
			// Nor the HUD tooltip, ever.
			if active == g.hud.xid {
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
		g.do(g.activeChanged) // the bubble moves off the lawyer's new window
	}
}

func (g *gui) togglePanel() {
	if g.panelShown() {
		g.panel.Hide()
		g.setPanelShown(false)
		return
	}
	if !g.panelPremapped {
		g.premapPanel()
		g.panelPremapped = true
	}
	g.rebuildPanel()
	g.placeBeforeShow(g.panel)
	g.showFloating(g.panel)
	g.setPanelShown(true)
	g.orbHover(g.hud.over) // the panel shows the line: no tooltip over it
}

// rebuildPanel renders the menu afresh: Fyne's menu widget lays out its
// check-mark column once, so a refresh alone would overlap the labels.
func (g *gui) rebuildPanel() {
	g.panelMenu = widget.NewMenu(g.menu)
	g.panelMenu.OnDismiss = func() {
		g.panel.Hide()
		g.setPanelShown(false)
	}
	content := g.panelContent()
	g.panel.SetContent(content)
	g.panel.Resize(content.MinSize())
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

// quitSpirit is the lawyer's Quit: Spirit stops as on SIGTERM (its run's
// end closes this UI through Run's context), or, where nothing runs the
// core as Spirit, the app closes here.
func (g *gui) quitSpirit() {
	if !g.core.Quit() {
		g.quit()
	}
}

// show brings Spirit forward: a second `spirit` asked for it.
func (g *gui) show() {
	g.showOrb()
	if !g.panelShown() {
		g.togglePanel()
	}
}

// updateOrb shows on the orb what Spirit is doing; main thread only.
// By priority: attention (a nudge bubble is out or nudges are queued) over
// working (agents running) over listening (speech being heard) over idle.
// The done sparkle (TaskDone) overlays idle only; see widgets.OrbState.
// Whatever changes the bubble queue must call it afterwards.
func (g *gui) updateOrb() {
	if g.orbView == nil {
		return
	}
	s := widgets.OrbIdle
	switch {
	case g.bubbles.attention():
		s = widgets.OrbAttention
	case g.working > 0:
		s = widgets.OrbWorking
	case g.hearing:
		s = widgets.OrbListening
	}
	if s != g.orbView.State() {
		g.log.Debug("orb", "state", s.String())
	}
	g.orbView.SetState(s)
}

// Subsystems implements app.UI. The API calls it from its own goroutines,
// before the windows are up too.
func (g *gui) Subsystems() map[string]api.Subsystem {
	g.mu.Lock()
	state := g.trayState
	g.mu.Unlock()
	if state != platform.TrayNoBus {
		// A tray host can come and go (a panel restarts): ask again.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
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
