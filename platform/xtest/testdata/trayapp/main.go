// Command trayapp is a minimal Fyne tray app used by the platform/xtest
// self-test: a "Pause listening" checkbox item, a "Quit" item and a window
// titled "xtest-window" filled with one known colour.
//
// It lives under testdata so that ./... patterns skip it; build it
// explicitly with go build ./platform/xtest/testdata/trayapp.
package main

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
)

func main() {
	a := app.NewWithID("io.spirit.xtest.trayapp")
	w := a.NewWindow("xtest-window")
	// The test looks for this colour in a screenshot.
	w.SetContent(canvas.NewRectangle(color.NRGBA{R: 0x20, G: 0x80, B: 0xe0, A: 0xff}))
	w.SetPadded(false)
	w.Resize(fyne.NewSize(320, 200))

	desk, ok := a.(desktop.App)
	if !ok {
		panic("trayapp: driver has no system tray")
	}
	pause := fyne.NewMenuItem("Pause listening", nil)
	menu := fyne.NewMenu("trayapp", pause, fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Quit", a.Quit))
	pause.Action = func() {
		pause.Checked = !pause.Checked
		fmt.Printf("paused=%v\n", pause.Checked)
		menu.Refresh()
	}
	desk.SetSystemTrayMenu(menu)

	w.ShowAndRun()
	fmt.Println("bye")
}
