package desktop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/voice/listen"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

func TestSpeechRowState(t *testing.T) {
	m := model.Model{Name: "base.en"}
	inst := model.Status{Model: m, Path: "/d/models/ggml-base.en.bin", Size: 142 << 20}
	for _, tc := range []struct {
		name        string
		s           model.Status
		inUse       string
		downloading bool
		want        modelRowState
	}{
		{"not downloaded", model.Status{Model: m}, "", false, modelRowState{state: "Not downloaded", download: "Download"}},
		{"partly downloaded", model.Status{Model: m, Partial: 62 << 20}, "", false,
			modelRowState{state: "Partly downloaded (62 MiB)", download: "Resume download", remove: true}},
		{"downloading", model.Status{Model: m, Partial: 1}, "", true, modelRowState{state: "Downloading…"}},
		{"in use", inst, inst.Path, false, modelRowState{state: "In use", remove: true}},
		{"downloaded, another in use", inst, "/d/models/ggml-tiny.en.bin", false, modelRowState{state: "Downloaded", use: true, remove: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := rowState(tc.s, tc.inUse, tc.downloading); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSpeechAfterDelete(t *testing.T) {
	for _, tc := range []struct {
		name, chosen, deleting, want string
		installed                    []string
	}{
		{"the chosen one stays", "tiny.en", "small.en", "tiny.en", []string{"small.en", "base.en", "tiny.en"}},
		{"the chosen one goes: the best left", "small.en", "small.en", "base.en", []string{"small.en", "base.en", "tiny.en"}},
		{"none chosen: the best left", "", "base.en", "tiny.en", []string{"base.en", "tiny.en"}},
		{"the last one goes", "", "tiny.en", "", []string{"tiny.en"}},
		{"chosen but not installed", "small.en", "tiny.en", "base.en", []string{"base.en", "tiny.en"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := afterDelete(tc.installed, tc.chosen, tc.deleting); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSpeechDeleteQuestion(t *testing.T) {
	for _, tc := range []struct {
		name, next string
		inUse      bool
		want       string
	}{
		{"last model", "", true, "Voice commands stop until you download a model again."},
		{"the one in use", "tiny.en", true, "Spirit listens with tiny.en instead."},
		{"another one", "base.en", false, "Spirit goes on listening with base.en."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := deleteQuestion("small.en", "466 MiB", tc.next, tc.inUse)
			if !strings.HasPrefix(got, "Delete the speech model small.en (466 MiB) from this computer? ") || !strings.HasSuffix(got, tc.want) {
				t.Errorf("got %q, want it to end %q", got, tc.want)
			}
		})
	}
}

func TestSpeechInUseText(t *testing.T) {
	for _, tc := range []struct {
		name              string
		path              string
		paused, installed bool
		state, want       string
	}{
		{"listening", "/d/models/ggml-base.en.bin", false, true, "Listening", "base.en"},
		{"paused with a model", "/d/models/ggml-base.en.bin", true, true, "paused", "base.en (listening is paused)"},
		{"no model", "", false, false, "no speech model", "nothing: download a model below to use voice commands"},
		{"loading", "", false, true, "loading speech model", "nothing yet: the model is loading"},
		{"failed", "", false, true, "speech model failed", "nothing: the model did not load (bad magic). Delete it and download it again."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := inUseText(tc.path, tc.paused, tc.installed, tc.state, "bad magic", "below"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSpeechPageUseAndDelete: with two models downloaded, the page shows
// the one listening uses; Use switches listening to the other without a
// restart; Delete… asks, saying what listening does next, and listening
// goes back to the one left.
func TestSpeechPageUseAndDelete(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	dir := model.Dir(g.dataDir())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	tiny, base := filepath.Join(dir, "ggml-tiny.en.bin"), filepath.Join(dir, "ggml-base.en.bin")
	for _, p := range []string{tiny, base} {
		if err := whispertest.WriteModel(p, whispertest.Tiny()); err != nil {
			t.Fatal(err)
		}
	}
	g.models.catalog = model.Catalog()[:2] // tiny.en, base.en
	sp.core.SpeechModelsChanged(ctx, "test: models written")
	poll(t, g, "listening with base.en, the best", func() bool { return sp.core.SpeechModelInUse() == base })

	w := test.NewWindow(nil)
	w.Resize(fyne.NewSize(700, 600))
	v := newSpeechView(g, w)
	w.SetContent(v.content)
	rowTiny, rowBase := v.list.rows[0], v.list.rows[1]
	if rowBase.state.Text != "In use" || rowTiny.state.Text != "Downloaded" || !rowTiny.use.Visible() || rowBase.use.Visible() {
		t.Fatalf("rows say %q (Use %v) and %q (Use %v)", rowTiny.state.Text, rowTiny.use.Visible(), rowBase.state.Text, rowBase.use.Visible())
	}
	if v.inUse.Text != "base.en" {
		t.Errorf("listening with %q", v.inUse.Text)
	}

	test.Tap(rowTiny.use)
	waitList(t, g, v.list)
	poll(t, g, "listening with tiny.en", func() bool { return sp.core.SpeechModelInUse() == tiny })
	if set, _ := sp.core.Settings(ctx); set.VoiceModel != "tiny.en" {
		t.Errorf("voice.model = %q after Use", set.VoiceModel)
	}
	v.refresh()
	if rowTiny.state.Text != "In use" || v.inUse.Text != "tiny.en" {
		t.Errorf("after Use the page says %q, %q", rowTiny.state.Text, v.inUse.Text)
	}

	test.Tap(rowTiny.remove)
	_, buttons, labels := formParts(w)
	if !containsText(labels, "Delete the speech model tiny.en") || !containsText(labels, "Spirit listens with base.en instead.") {
		t.Fatalf("the question says %q", labels)
	}
	for _, b := range buttons {
		if b.Text == "Delete" {
			test.Tap(b)
		}
	}
	waitList(t, g, v.list)
	if _, err := os.Stat(tiny); !os.IsNotExist(err) {
		t.Fatalf("tiny.en is still there: %v", err)
	}
	if set, _ := sp.core.Settings(ctx); set.VoiceModel != "" {
		t.Errorf("voice.model = %q after deleting the chosen model, want empty", set.VoiceModel)
	}
	poll(t, g, "listening with base.en again", func() bool { return sp.core.SpeechModelInUse() == base })
	v.refresh()
	if rowTiny.state.Text != "Not downloaded" || rowTiny.download.Text != "Download" || rowBase.state.Text != "In use" {
		t.Errorf("after Delete the rows say %q (%q) and %q", rowTiny.state.Text, rowTiny.download.Text, rowBase.state.Text)
	}
}

// TestSpeechPageWakePhrase: the phrase typed is kept when Enter is
// pressed, and read back when the page is built again.
func TestSpeechPageWakePhrase(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	w := test.NewWindow(nil)
	v := newSpeechView(g, w)
	w.SetContent(v.content)
	test.Type(v.wake, "hey spirit")
	v.wake.OnSubmitted(v.wake.Text)
	poll(t, g, "the wake phrase saved", func() bool {
		set, _ := sp.core.Settings(context.Background())
		return set.WakePhrase == "hey spirit"
	})
	if v2 := newSpeechView(g, w); v2.wake.Text != "hey spirit" {
		t.Errorf("the page shows %q", v2.wake.Text)
	}
}

func waitList(t *testing.T, g *gui, l *modelList) {
	t.Helper()
	waitGroups(t, g, "the model list's work", &l.bg)
}

func containsText(labels []string, s string) bool {
	for _, l := range labels {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestSpeechStatusLineOffersModel: without a speech model the menu's
// status line opens Settings on the Speech page; with one, or paused, it
// is only a line.
func TestSpeechStatusLineOffersModel(t *testing.T) {
	g, _, _ := newTestGUI(t)
	for _, tc := range []struct {
		name string
		st   app.Status
		want bool
	}{
		{"no model", app.Status{Voice: listen.NoModel}, true},
		{"no model, paused", app.Status{Voice: listen.NoModel, ListeningPaused: true}, false},
		{"listening", app.Status{Voice: listen.Capturing}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g.setItems(tc.st)
			if got := !g.statusItem.Disabled && g.statusItem.Action != nil; got != tc.want {
				t.Fatalf("status line offers a model: %v, want %v", got, tc.want)
			}
			if !tc.want {
				return
			}
			g.statusItem.Action()
			tabs := g.settingsWindow.Content().(*container.AppTabs)
			if tabs.Selected() == nil || tabs.Selected().Text != "Speech" {
				t.Errorf("Settings opened on %v, want Speech", tabs.Selected())
			}
		})
	}
}
