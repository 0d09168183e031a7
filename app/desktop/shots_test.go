package desktop

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/app/desktop/widgets"
)

// TestSettingsPagesPictures draws the Speech page, the Privacy page with
// the Delete all confirmation and the AI service step, with Spirit's
// theme, into SPIRIT_SHOTS=DIR for people to look at (the real binary's
// windows are drawn by TestFirstRunWindowOnNewFolder). Without it, it is
// skipped.
func TestSettingsPagesPictures(t *testing.T) {
	dir := os.Getenv("SPIRIT_SHOTS")
	if dir == "" {
		t.Skip("set SPIRIT_SHOTS=DIR to draw the pages")
	}
	g, _, _ := newTestGUI(t)
	g.fa.Settings().SetTheme(widgets.Theme{})
	save := func(w fyne.Window, name string) {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, w.Canvas().Capture()); err != nil {
			t.Fatal(err)
		}
	}
	w := test.NewWindow(nil)
	w.Resize(fyne.NewSize(760, 560))
	g.settingsView = newSettingsView(g, w)
	v := newSpeechView(g, w)
	w.SetContent(v.content)
	pump(g)
	save(w, "settings-speech.png")
	w.SetContent(g.settingsView.privacy)
	save(w, "settings-privacy.png")
	test.Tap(g.settingsView.deleteAll.button)
	save(w, "settings-delete-all.png")
	w.Canvas().Overlays().Remove(w.Canvas().Overlays().Top())
	w.SetContent(g.settingsView.content)
	save(w, "settings-general.png")

	g.showFirstRun()
	f := g.setup
	f.w.Resize(fyne.NewSize(820, 580))
	save(f.w, "first-run-welcome-sw.png")
	f.show(stepProvider)
	f.service.SetSelected(setupChoices()[0].label)
	save(f.w, "first-run-provider-sw.png")
}
