package app

import (
	"context"
	"fmt"
	"time"

	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/voice/model"
)

// window returns the window in *slot, creating it with build on first use.
// Closing hides it, so reopening is instant and keeps its state.
func (g *gui) window(slot *fyne.Window, title string, size fyne.Size, build func(fyne.Window) fyne.CanvasObject) fyne.Window {
	if *slot == nil {
		w := g.fa.NewWindow(title)
		w.SetContent(build(w))
		w.Resize(size)
		w.SetCloseIntercept(w.Hide)
		w.CenterOnScreen()
		*slot = w
	}
	return *slot
}

func (g *gui) showReminders() {
	w := g.window(&g.reminders, "Spirit · Reminders", fyne.NewSize(560, 380), func(w fyne.Window) fyne.CanvasObject {
		g.remindersView = newRemindersView(g, w)
		return g.remindersView.content
	})
	g.remindersView.reload()
	w.Show()
	w.RequestFocus()
}

func (g *gui) showSettings() {
	w := g.window(&g.settingsWindow, "Spirit · Settings", fyne.NewSize(640, 500), func(w fyne.Window) fyne.CanvasObject {
		g.settingsView = newSettingsView(g)
		g.mailView = newMailView(g, w)
		return container.NewAppTabs(
			container.NewTabItem("General", g.settingsView.content),
			container.NewTabItem("Mail accounts", container.NewPadded(g.mailView.content)),
			container.NewTabItem("Model provider", container.NewPadded(newProviderPage(g))),
		)
	})
	g.settingsView.update(g.core.Status())
	g.mailView.reload()
	w.Show()
	w.RequestFocus()
}

// settingsView is the Settings window's content.
type settingsView struct {
	content       fyne.CanvasObject
	listen, watch *widget.Check
	updating      bool
}

func newSettingsView(g *gui) *settingsView {
	v := &settingsView{}
	v.listen = widget.NewCheck("Pause listening", func(on bool) {
		if !v.updating {
			g.toggle(g.core.SetListeningPaused, on)
		}
	})
	v.watch = widget.NewCheck("Pause watching", func(on bool) {
		if !v.updating {
			g.toggle(g.core.SetWatchingPaused, on)
		}
	})
	ctx := g.ctx
	st := g.core.store

	wake := widget.NewCheck("Act only on commands that start with “hey spirit”", func(on bool) {
		phrase := ""
		if on {
			phrase = "hey spirit"
		}
		go g.saveSetting(settingWakePhrase, phrase)
	})
	if p, ok, _ := st.Setting(ctx, settingWakePhrase); ok && p != "" {
		wake.SetChecked(true)
	}

	keep := map[string]string{"Don't keep them": "0", "1 day": "1", "7 days": "7", "30 days": "30"}
	retention := widget.NewSelect([]string{"Don't keep them", "1 day", "7 days", "30 days"}, func(label string) {
		go g.saveSetting(settingTranscriptDays, keep[label])
	})
	days := g.core.retentionDays(ctx)
	for label, d := range keep {
		if d == fmt.Sprint(days) {
			retention.SetSelectedIndex(indexOf(retention.Options, label))
		}
	}

	excludedApps := widget.NewEntry()
	excludedApps.SetPlaceHolder("e.g. Signal, Personal Notes")
	if v, ok, _ := st.Setting(ctx, settingExcludedApps); ok {
		excludedApps.SetText(v)
	}
	excludedApps.OnSubmitted = func(s string) { go g.saveSetting(settingExcludedApps, s) }
	excludedApps.OnChanged = func(s string) { g.debounceSave(settingExcludedApps, s) }
	excludedNote := widget.NewLabel("Password managers and private browser windows are never looked at. " +
		"Apps listed here are excluded too (comma-separated). Takes effect when watching resumes or Spirit restarts.")
	excludedNote.Wrapping = fyne.TextWrapWord
	excludedNote.Importance = widget.LowImportance
	ocr := widget.NewCheck("Read text on screen when a window title is not enough", func(on bool) {
		go g.saveSetting(settingScreenText, fmt.Sprint(on))
	})
	ocrOn, _ := st.BoolSetting(ctx, settingScreenText, true)
	ocr.SetChecked(ocrOn)

	speech := "none: run `spirit model download base.en`"
	st0, _ := g.core.voiceState()
	if path, err := model.Find(filepath.Dir(st.Path()), ""); err == nil {
		speech = filepath.Base(path) + " (" + st0 + ")"
	}
	hotkey := g.hotkey
	if hotkey == "" {
		hotkey = "none"
	}

	dataDir := widget.NewLabel(st.Path())
	dataDir.Wrapping = fyne.TextWrapBreak
	privacy := widget.NewLabel("Audio and screenshots stay in memory. Nothing leaves this computer " +
		"except requests to the model provider you configure, and nothing is changed or sent " +
		"without your approval.")
	privacy.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Privacy", container.NewVBox(v.listen, v.watch)),
		widget.NewFormItem("Voice", container.NewVBox(wake, widget.NewLabel("Speech model: "+speech),
			widget.NewLabel("Pause listening from anywhere: "+hotkey))),
		widget.NewFormItem("Transcripts", retention),
		widget.NewFormItem("Never look at", container.NewVBox(excludedApps, excludedNote)),
		widget.NewFormItem("Screen text", ocr),
		widget.NewFormItem("Database", dataDir),
	)
	v.content = container.NewVScroll(container.NewPadded(container.NewVBox(form, widget.NewSeparator(), privacy)))
	return v
}

// debounceSave saves a typed setting once typing pauses.
func (g *gui) debounceSave(key, value string) {
	g.mu.Lock()
	if g.pendingSave == nil {
		g.pendingSave = map[string]*time.Timer{}
	}
	if t := g.pendingSave[key]; t != nil {
		t.Stop()
	}
	g.pendingSave[key] = time.AfterFunc(time.Second, func() { g.saveSetting(key, value) })
	g.mu.Unlock()
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// saveSetting writes a setting off the main thread and logs it.
func (g *gui) saveSetting(key, value string) {
	ctx, cancel := context.WithTimeout(g.ctx, 5*time.Second)
	defer cancel()
	if err := g.core.store.SetSetting(ctx, key, value); err != nil {
		g.log.Error("save setting", "key", key, "err", err)
		return
	}
	g.core.event(ctx, "user", "settings", key+" = "+value)
}

// update shows st without triggering the checks' callbacks.
func (v *settingsView) update(st Status) {
	v.updating = true
	v.listen.SetChecked(st.ListeningPaused)
	v.watch.SetChecked(st.WatchingPaused)
	v.updating = false
}

func (g *gui) showActivity() {
	w := g.window(&g.activity, "Spirit · Activity", fyne.NewSize(720, 440), func(w fyne.Window) fyne.CanvasObject {
		g.activityView = newActivityView(g)
		return g.activityView.list
	})
	g.activityView.reload()
	w.Show()
	w.RequestFocus()
}

// activityView lists the world log, newest last.
type activityView struct {
	g       *gui
	list    *widget.List
	entries []store.Entry
}

func newActivityView(g *gui) *activityView {
	v := &activityView{g: g}
	v.list = widget.NewList(
		func() int { return len(v.entries) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.TextStyle = fyne.TextStyle{Monospace: true}
			l.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, widget.NewIcon(theme.InfoIcon()), nil, l)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(v.entries[i].String())
		},
	)
	return v
}

// reload reads the latest entries off the main thread, then shows them.
func (v *activityView) reload() {
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		es, err := v.g.core.store.Recent(ctx, 500)
		if err != nil {
			v.g.log.Error("read world log", "err", err)
			es = []store.Entry{{Kind: store.KindEvent, Source: "system", Identifier: "activity",
				Text: fmt.Sprintf("could not read the world log: %v", err), TS: time.Now()}}
		}
		fyne.Do(func() {
			v.entries = es
			v.list.Refresh()
			v.list.ScrollToBottom()
		})
	}()
}
