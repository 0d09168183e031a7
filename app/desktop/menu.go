package desktop

import (
	"context"
	"time"

	"fyne.io/fyne/v2"

	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/voice/listen"
)

// statusOffersModel reports whether the status line leads to downloading
// a speech model: listening is on but has none.
func statusOffersModel(st app.Status) bool {
	return st.Voice == listen.NoModel && !st.ListeningPaused
}

// buildMenu makes the menu that both the tray and the orb's panel show.
func (g *gui) buildMenu(st app.Status) {
	g.statusItem = fyne.NewMenuItem(st.Line(), nil)
	g.statusItem.Disabled = true
	g.listenItem = fyne.NewMenuItem("Pause listening", func() {
		g.toggle(g.core.SetListeningPaused, !g.core.Status().ListeningPaused)
	})
	g.watchItem = fyne.NewMenuItem("Pause watching", func() {
		g.toggle(g.core.SetWatchingPaused, !g.core.Status().WatchingPaused)
	})
	// Shown atop the menu only while nudges are folded away (refreshWaiting).
	g.waitingItem = fyne.NewMenuItem("Waiting for you…", g.openWaiting)
	quit := fyne.NewMenuItem("Quit", g.quitSpirit)
	quit.IsQuit = true
	g.menu = fyne.NewMenu("Spirit",
		g.statusItem,
		fyne.NewMenuItemSeparator(),
		g.listenItem,
		g.watchItem,
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Reminders…", g.showReminders),
		fyne.NewMenuItem("Activity…", g.showActivity),
		fyne.NewMenuItem("Settings…", g.showSettings),
		fyne.NewMenuItemSeparator(),
		quit,
	)
	g.setItems(st)
}

func (g *gui) setItems(st app.Status) {
	g.statusItem.Label = st.Line()
	// Without a speech model, the status line opens Settings → Speech,
	// where one is downloaded; otherwise it only says how things are.
	g.statusItem.Disabled = !statusOffersModel(st)
	g.statusItem.Action = nil
	if statusOffersModel(st) {
		g.statusItem.Action = g.showSpeechSettings
	}
	g.listenItem.Checked = st.ListeningPaused
	g.watchItem.Checked = st.WatchingPaused
}

// toggle runs a pause setter off the main thread: it writes to the database.
func (g *gui) toggle(set func(context.Context, bool, string) error, paused bool) {
	go func() {
		ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
		defer cancel()
		if err := set(ctx, paused, "menu"); err != nil {
			g.log.Error("could not change pause setting", "err", err)
		}
	}()
}

// applyStatus runs on the main thread.
func (g *gui) applyStatus(st app.Status) {
	toggled := st.ListeningPaused != g.listenItem.Checked || st.WatchingPaused != g.watchItem.Checked
	g.setItems(st)
	if toggled {
		g.sendMenu()
	} else {
		g.sendMenuSoon()
	}
	if g.panel != nil && g.panelShown() {
		g.rebuildPanel()
	}
	if g.settingsView != nil {
		g.settingsView.update(st)
	}
	if g.calendarsView != nil {
		g.calendarsView.statusChanged(st.Calendars)
	}
	if g.speechView != nil {
		g.speechView.refresh() // the model in use follows listening's state
	}
}

// menuEvery bounds how often a changed status line alone (mail sync
// progress) re-sends the tray menu: fyne.io/systray gives every item a new
// id on each refresh, and a click in flight on an old id is dropped.
const menuEvery = time.Second

// sendMenu re-sends the tray layout over DBus; main thread only.
func (g *gui) sendMenu() {
	g.menuSent = time.Now()
	g.menu.Refresh()
}

// sendMenuSoon re-sends the tray layout now, or once menuEvery has passed
// since the last time; main thread only.
func (g *gui) sendMenuSoon() {
	wait := menuEvery - time.Since(g.menuSent)
	if wait <= 0 {
		g.sendMenu()
		return
	}
	if g.menuPending {
		return
	}
	g.menuPending = true
	time.AfterFunc(wait, func() {
		g.do(func() {
			g.menuPending = false
			g.sendMenu()
		})
	})
}
