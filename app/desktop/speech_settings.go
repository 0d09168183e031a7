package desktop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/voice/listen"
	"github.com/spirit-app/spirit/voice/model"
)

// modelURLEnv names the variable that points downloads at another copy
// of the models, as `spirit model download` reads it.
const modelURLEnv = "SPIRIT_MODEL_URL"

// modelSource is where speech models come from: the catalog and the
// server the windows download from, the same as `spirit model download`.
// Tests point it at a local server and a catalog of generated models.
type modelSource struct {
	baseURL string
	catalog []model.Model
	client  *http.Client
}

func defaultModelSource() modelSource {
	base := os.Getenv(modelURLEnv)
	if base == "" {
		base = model.DefaultBaseURL
	}
	return modelSource{baseURL: base, catalog: model.Catalog(),
		client: &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 30 * time.Second}}}
}

// dataDir is Spirit's data folder, where the models live.
func (g *gui) dataDir() string { return filepath.Dir(g.core.DatabasePath()) }

// claimDownload marks name as being downloaded, or reports that a window
// already downloads it: two downloads into one file would spoil it.
func (g *gui) claimDownload(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.downloading == nil {
		g.downloading = map[string]bool{}
	}
	if g.downloading[name] {
		return false
	}
	g.downloading[name] = true
	return true
}

func (g *gui) releaseDownload(name string) {
	g.mu.Lock()
	delete(g.downloading, name)
	g.mu.Unlock()
}

// mib is a size in MiB for people: "142 MiB", "4.2 MiB".
func mib(n int64) string {
	v := float64(n) / (1 << 20)
	if v >= 10 {
		return fmt.Sprintf("%.0f MiB", v)
	}
	return fmt.Sprintf("%.1f MiB", v)
}

// modelRowState is what one model's row offers, decided from the model's
// state on disk, the model listening uses (its path) and whether it is
// being downloaded.
type modelRowState struct {
	state    string // "In use", "Downloaded", "Not downloaded", …
	download string // the download button's text; "" hides it
	use      bool   // offer Use
	remove   bool   // offer Delete…
}

func rowState(s model.Status, inUse string, downloading bool) modelRowState {
	switch {
	case downloading:
		return modelRowState{state: "Downloading…"}
	case s.Installed() && s.Path == inUse:
		return modelRowState{state: "In use", remove: true}
	case s.Installed():
		return modelRowState{state: "Downloaded", use: true, remove: true}
	case s.Partial > 0:
		return modelRowState{state: "Partly downloaded (" + mib(s.Partial) + ")", download: "Resume download", remove: true}
	}
	return modelRowState{state: "Not downloaded", download: "Download"}
}

// modelNote is what a model is good for, in the lawyer's words.
func modelNote(name string) string {
	switch name {
	case "tiny.en":
		return "Fastest and smallest; makes more mistakes."
	case "base.en":
		return "Recommended: quick, and good for commands."
	case "small.en":
		return "Most accurate; slower, and needs more memory."
	}
	return ""
}

// afterDelete is the model listening goes on with once deleting is gone:
// the chosen one if it stays, else the best one left (installed is best
// first, as model.Installed lists them); "" when none is left.
func afterDelete(installed []string, chosen, deleting string) string {
	var left []string
	for _, n := range installed {
		if n != deleting {
			left = append(left, n)
		}
	}
	for _, n := range left {
		if n == chosen {
			return n
		}
	}
	if len(left) > 0 {
		return left[0]
	}
	return ""
}

// deleteQuestion asks before deleting a model and says what listening
// does next.
func deleteQuestion(name, size, next string, inUse bool) string {
	q := "Delete the speech model " + name + " (" + size + ") from this computer?"
	switch {
	case next == "":
		return q + " Voice commands stop until you download a model again."
	case inUse:
		return q + " Spirit listens with " + next + " instead."
	}
	return q + " Spirit goes on listening with " + next + "."
}

// modelList is the speech models, one row each: its size, what it is good
// for, its state, and Download (with progress and Cancel, resumed where a
// download stopped), Use and Delete…. The Speech page and the first-run
// window both show it.
type modelList struct {
	g       *gui
	win     fyne.Window
	content *fyne.Container
	rows    []*modelRow
	// changed is called on the main thread after a download ends or a
	// model is used or deleted.
	changed func()
	// bg counts work off the main thread, so a test can wait for it.
	bg sync.WaitGroup
}

// modelRow is one model of a modelList.
type modelRow struct {
	l        *modelList
	m        model.Model
	title    *widget.Label
	state    *widget.Label
	status   *widget.Label
	bar      *widget.ProgressBar
	download *widget.Button
	cancel   *widget.Button
	use      *widget.Button
	remove   *widget.Button
	// stop cancels the download under way; main thread only.
	stop context.CancelFunc
}

func newModelList(g *gui, win fyne.Window) *modelList {
	l := &modelList{g: g, win: win, content: container.NewVBox()}
	for i, m := range g.models.catalog {
		r := &modelRow{l: l, m: m}
		r.title = widget.NewLabelWithStyle(m.Name+"  ·  "+m.Approx, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		note := widget.NewLabel(modelNote(m.Name))
		note.Importance = widget.LowImportance
		note.Wrapping = fyne.TextWrapWord
		r.state = widget.NewLabel("")
		r.status = widget.NewLabel("")
		r.status.Wrapping = fyne.TextWrapWord
		r.status.Hide()
		r.bar = widget.NewProgressBar()
		r.bar.Hide()
		r.download = widget.NewButtonWithIcon("Download", theme.DownloadIcon(), r.start)
		r.download.Importance = widget.HighImportance
		r.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), r.cancelDownload)
		r.cancel.Hide()
		r.use = widget.NewButtonWithIcon("Use", theme.ConfirmIcon(), r.useIt)
		r.remove = widget.NewButtonWithIcon("Delete…", theme.DeleteIcon(), r.askDelete)
		// Top-aligned at their own height, not stretched to the row's.
		buttons := container.NewVBox(container.NewHBox(r.state, r.use, r.remove, r.download, r.cancel))
		head := container.NewBorder(nil, nil, nil, buttons, container.NewVBox(r.title, note))
		if i > 0 {
			l.content.Add(widget.NewSeparator())
		}
		l.content.Add(container.NewVBox(head, r.bar, r.status))
		l.rows = append(l.rows, r)
	}
	l.refresh()
	return l
}

// refresh shows each model's state on disk; main thread.
func (l *modelList) refresh() {
	st := model.Statuses(l.g.dataDir(), l.g.models.catalog)
	inUse := l.g.core.SpeechModelInUse()
	for i, r := range l.rows {
		r.show(rowState(st[i], inUse, r.stop != nil))
	}
}

// installed reports whether any model is downloaded.
func (l *modelList) installed() bool {
	for _, s := range model.Statuses(l.g.dataDir(), l.g.models.catalog) {
		if s.Installed() {
			return true
		}
	}
	return false
}

func (r *modelRow) show(s modelRowState) {
	r.state.SetText(s.state)
	r.state.Importance = widget.LowImportance
	if s.state == "In use" {
		r.state.Importance = widget.SuccessImportance
	}
	r.state.Refresh()
	setShown(r.use, s.use)
	setShown(r.remove, s.remove)
	setShown(r.download, s.download != "")
	r.download.SetText(s.download)
}

func setShown(o fyne.CanvasObject, on bool) {
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}

// start downloads the row's model off the main thread, resuming what an
// earlier download kept and checking the checksum (model.Download, the
// code of `spirit model download`).
func (r *modelRow) start() {
	g := r.l.g
	if !g.claimDownload(r.m.Name) {
		showLabel(r.status, "Another Spirit window is downloading "+r.m.Name+" already.")
		return
	}
	ctx, cancel := context.WithCancel(g.ctx)
	r.stop = cancel
	r.show(rowState(model.Status{}, "", true))
	r.cancel.Show()
	r.bar.SetValue(0)
	r.bar.Show()
	showLabel(r.status, "Connecting…")
	began := time.Now()
	progress := func(done, total int64) {
		g.do(func() {
			if r.stop == nil {
				return // a late report of a download that ended
			}
			if total > 0 {
				r.bar.SetValue(float64(done) / float64(total))
			}
			showLabel(r.status, progressText(r.m.Name, done, total, time.Since(began)))
		})
	}
	r.l.bg.Add(1)
	go func() {
		defer r.l.bg.Done()
		defer g.releaseDownload(r.m.Name)
		path, err := model.Download(ctx, g.models.client, g.models.baseURL, r.m, g.dataDir(), progress)
		cancelled := ctx.Err() != nil
		cancel()
		if err != nil && !cancelled {
			g.log.Error("speech model download", "model", r.m.Name, "err", err)
		} else if err == nil {
			g.log.Info("speech model downloaded and checked", "path", path)
		}
		// Listening starts with the new model when it had none, or
		// when the lawyer had chosen this one.
		reload := err == nil && (g.core.SpeechModelInUse() == "" || r.chosen())
		if reload {
			g.core.SpeechModelsChanged(g.ctx, "speech model "+r.m.Name+" downloaded")
		}
		g.do(func() {
			r.stop = nil
			r.cancel.Hide()
			r.bar.Hide()
			switch {
			case err == nil && reload:
				showLabel(r.status, r.m.Name+" is downloaded and checked. Spirit listens with it now.")
			case err == nil:
				showLabel(r.status, r.m.Name+" is downloaded and checked. Choose Use to listen with it.")
			case cancelled:
				showLabel(r.status, "Download cancelled. What was downloaded is kept: Resume goes on from there.")
			default:
				showLabel(r.status, "The download did not finish: "+downloadProblem(err))
			}
			r.l.refresh()
			if r.l.changed != nil {
				r.l.changed()
			}
		})
	}()
}

// chosen reports whether the lawyer chose this model in the settings.
func (r *modelRow) chosen() bool {
	s, err := r.l.g.core.Settings(r.l.g.ctx)
	return (err == nil || errors.Is(err, settings.ErrInvalid)) && s.VoiceModel == r.m.Name
}

// progressText is a download's status line.
func progressText(name string, done, total int64, took time.Duration) string {
	rate := ""
	if s := took.Seconds(); s >= 1 {
		rate = fmt.Sprintf(" · %.1f MiB/s", float64(done)/(1<<20)/s)
	}
	if total <= 0 {
		return fmt.Sprintf("Downloading %s… %s%s", name, mib(done), rate)
	}
	return fmt.Sprintf("Downloading %s… %s of %s%s", name, mib(done), mib(total), rate)
}

// downloadProblem says why a download failed, without Go's wrapping.
func downloadProblem(err error) string {
	s := err.Error()
	if strings.Contains(s, "dial tcp") {
		return "this computer could not reach the download server. Check the internet connection and try again (what was downloaded is kept)."
	}
	return s
}

func (r *modelRow) cancelDownload() {
	if r.stop != nil {
		r.stop()
		r.cancel.Disable()
		showLabel(r.status, "Cancelling…")
	}
}

// useIt makes listening use this model from now on.
func (r *modelRow) useIt() {
	g := r.l.g
	name := r.m.Name
	r.use.Disable()
	showLabel(r.status, "Switching to "+name+"…")
	r.l.bg.Add(1)
	go func() {
		defer r.l.bg.Done()
		ctx, cancel := context.WithTimeout(g.ctx, 5*time.Second)
		defer cancel()
		_, err := g.core.UpdateSettings(ctx, "settings", func(s *settings.Settings) { s.VoiceModel = name })
		if err == nil {
			g.core.SpeechModelsChanged(ctx, "speech model "+name+" chosen")
		}
		g.do(func() {
			r.use.Enable()
			if err != nil {
				showLabel(r.status, "Could not switch: "+problemText(err))
			} else {
				showLabel(r.status, "Spirit listens with "+name+" now.")
			}
			r.l.refresh()
			if r.l.changed != nil {
				r.l.changed()
			}
		})
	}()
}

// askDelete asks first, saying what listening does next, then deletes.
func (r *modelRow) askDelete() {
	g := r.l.g
	var names []string
	for _, p := range model.Installed(g.dataDir()) {
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "ggml-"), ".bin"))
	}
	set, _ := g.core.Settings(g.ctx)
	inUse := g.core.SpeechModelInUse() == filepath.Join(model.Dir(g.dataDir()), r.m.File())
	next := afterDelete(names, set.VoiceModel, r.m.Name)
	size := r.m.Approx
	if st := model.Statuses(g.dataDir(), []model.Model{r.m})[0]; st.Installed() {
		size = mib(st.Size)
	} else if st.Partial > 0 {
		size = mib(st.Partial) + " downloaded so far"
	}
	d := dialog.NewConfirm("Delete "+r.m.Name+"?", deleteQuestion(r.m.Name, size, next, inUse), func(ok bool) {
		if ok {
			r.deleteIt(set.VoiceModel == r.m.Name)
		}
	}, r.l.win)
	d.SetConfirmText("Delete")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

func (r *modelRow) deleteIt(wasChosen bool) {
	g := r.l.g
	r.l.bg.Add(1)
	go func() {
		defer r.l.bg.Done()
		ctx, cancel := context.WithTimeout(g.ctx, 5*time.Second)
		defer cancel()
		err := model.Remove(g.dataDir(), r.m)
		if err == nil && wasChosen {
			// The choice goes with the model: the best one left is used.
			_, err = g.core.UpdateSettings(ctx, "settings", func(s *settings.Settings) { s.VoiceModel = "" })
		}
		if err == nil {
			g.core.SpeechModelsChanged(ctx, "speech model "+r.m.Name+" deleted")
		} else {
			g.log.Error("delete speech model", "model", r.m.Name, "err", err)
		}
		g.do(func() {
			if err != nil {
				showLabel(r.status, "Could not delete: "+err.Error())
			} else {
				showLabel(r.status, r.m.Name+" is deleted.")
			}
			r.l.refresh()
			if r.l.changed != nil {
				r.l.changed()
			}
		})
	}()
}

// stopAll cancels every download of the list (its window closed).
func (l *modelList) stopAll() {
	for _, r := range l.rows {
		if r.stop != nil {
			r.stop()
		}
	}
}

// speechView is Settings' "Speech" page: the model in use, the models to
// download, use or delete, and the wake phrase.
type speechView struct {
	g       *gui
	content fyne.CanvasObject
	list    *modelList
	inUse   *widget.Label
	wake    *widget.Entry
	problem *widget.Label
}

func newSpeechView(g *gui, win fyne.Window) *speechView {
	v := &speechView{g: g, list: newModelList(g, win), inUse: widget.NewLabel("")}
	v.inUse.Wrapping = fyne.TextWrapWord
	v.list.changed = v.refresh
	set, err := g.core.Settings(g.ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		g.log.Error("speech page: settings unreadable, defaults shown", "err", err)
	}
	v.problem = problemLabel()
	problems := map[string]*widget.Label{settings.KeyWakePhrase: v.problem}
	v.wake = widget.NewEntry()
	v.wake.SetPlaceHolder("e.g. hey spirit")
	v.wake.SetText(set.WakePhrase)
	saveWake := func(text string) func() {
		return func() {
			g.saveSettings(settings.KeyWakePhrase, func(s *settings.Settings) { s.WakePhrase = text }, problems)
		}
	}
	v.wake.OnSubmitted = func(text string) { go saveWake(text)() }
	v.wake.OnChanged = func(text string) { g.debounceSave(settings.KeyWakePhrase, saveWake(text)) }
	// Two short lines, not wrapped: a wrapped label in a scrolled form is
	// measured before its width is known and overlaps what follows.
	wakeNote := widget.NewLabel("Spirit acts only on spoken commands that start with these words,\n" +
		"e.g. “hey spirit, remind me to call Dana at 3”. Empty: every command counts.")
	wakeNote.Importance = widget.LowImportance

	intro := widget.NewLabel("Spirit turns speech into text on this computer with a speech model. " +
		"A model is downloaded once; the sound itself never leaves this computer.")
	intro.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Listening with", v.inUse),
		widget.NewFormItem("Wake phrase", container.NewVBox(v.wake, v.problem, wakeNote)),
	)
	v.content = container.NewVScroll(container.NewPadded(container.NewVBox(
		intro, widget.NewSeparator(), form, widget.NewSeparator(),
		widget.NewLabelWithStyle("Speech models", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		v.list.content)))
	v.refresh()
	return v
}

// refresh shows the model in use and each model's state; main thread.
func (v *speechView) refresh() {
	v.list.refresh()
	state, detail := v.g.core.VoiceState()
	inUse, paused, installed := v.g.core.SpeechModelInUse(), v.g.core.Status().ListeningPaused, v.list.installed()
	v.inUse.SetText(inUseText(inUse, paused, installed, state, detail, "below"))
	if v.g.settingsView != nil {
		v.g.settingsView.showSpeech(inUseText(inUse, paused, installed, state, detail, "on the Speech page"))
	}
}

// inUseText says which model listening uses, in the lawyer's words, from
// the model file loaded, the pause, whether any model is downloaded and
// the voice state with its detail; where says where models are downloaded
// from the page showing it.
func inUseText(path string, paused, installed bool, state, detail, where string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "ggml-"), ".bin")
	switch {
	case path != "" && paused:
		return name + " (listening is paused)"
	case path != "":
		return name
	case paused:
		return "nothing: listening is paused"
	case state == listen.Failed:
		return "nothing: the model did not load (" + detail + "). Delete it and download it again."
	case installed:
		return "nothing yet: the model is loading"
	}
	return "nothing: download a model " + where + " to use voice commands"
}

// showSpeechSettings opens Settings on its Speech page.
func (g *gui) showSpeechSettings() {
	g.showSettings()
	if tabs, ok := g.settingsWindow.Content().(*container.AppTabs); ok {
		for _, it := range tabs.Items {
			if it.Text == "Speech" {
				tabs.Select(it)
			}
		}
	}
}
