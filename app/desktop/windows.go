package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/desktop/widgets"
	"github.com/spirit-app/spirit/app/settings"
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
		g.settingsView = newSettingsView(g, w)
		g.mailView = newMailView(g, w)
		g.calendarsView = newCalendarsView(g, w)
		g.speechView = newSpeechView(g, w)
		mailTab := container.NewTabItem("Mail accounts", container.NewPadded(g.mailView.content))
		tabs := container.NewAppTabs(
			container.NewTabItem("General", g.settingsView.content),
			container.NewTabItem("Speech", g.speechView.content),
			container.NewTabItem("Nudges", container.NewPadded(newNudgesView(g).content)),
			container.NewTabItem("Privacy", g.settingsView.privacy),
			mailTab,
			container.NewTabItem("Calendars", container.NewPadded(g.calendarsView.content)),
			container.NewTabItem("Model provider", container.NewPadded(newProviderPage(g))),
			container.NewTabItem("Routines", container.NewPadded(newRoutinesView(g).content)),
		)
		// The calendars of Microsoft 365 and Gmail need their mail account first.
		g.calendarsView.openMail = func() { tabs.Select(mailTab) }
		return tabs
	})
	g.settingsView.update(g.core.Status())
	g.speechView.refresh()
	g.mailView.reload()
	g.calendarsView.reload()
	w.Show()
	w.RequestFocus()
}

// settingsView is the Settings window's General and Privacy pages.
type settingsView struct {
	content       fyne.CanvasObject // General
	privacy       fyne.CanvasObject // Privacy
	speech        *widget.Label     // the speech model in use, on General
	deleteAll     *deleteAllRow
	listen, watch *widget.Check
	autostart     *autostartRow
	// activity is how long activity (the world log) is kept.
	activity *widget.Select
	updating bool
}

func newSettingsView(g *gui, win fyne.Window) *settingsView {
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
	set, err := g.core.Settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		g.log.Error("settings window: settings unreadable, defaults shown", "err", err)
	}
	// problems shows, under a field, why its value was not saved.
	problems := map[string]*widget.Label{}
	problem := func(key string) *widget.Label {
		l := widget.NewLabel("")
		l.Wrapping = fyne.TextWrapWord
		l.Importance = widget.DangerImportance
		l.Hide()
		problems[key] = l
		return l
	}
	// Showing the saved values below calls the widgets' callbacks; those
	// are not changes. Saving them (on a goroutine) could land after the
	// lawyer's first change and undo it, so nothing is saved until the
	// page is built.
	opening := true
	save := func(key string, change func(*settings.Settings)) {
		if opening {
			return
		}
		g.saves.Add(1)
		go func() {
			defer g.saves.Done()
			g.saveSettings(key, change, problems)
		}()
	}

	keep := map[string]int{"Don't keep them": 0, "1 day": 1, "7 days": 7, "30 days": 30}
	retentionProblem := problem(settings.KeyTranscriptDays)
	retention := widget.NewSelect([]string{"Don't keep them", "1 day", "7 days", "30 days"}, func(label string) {
		days := keep[label]
		save(settings.KeyTranscriptDays, func(s *settings.Settings) { s.TranscriptDays = days })
	})
	for label, d := range keep {
		if d == set.TranscriptDays {
			retention.SetSelectedIndex(indexOf(retention.Options, label))
		}
	}

	keepActivity := map[string]int{"All of it": 0, "1 year": 365, "90 days": 90, "30 days": 30}
	activityProblem := problem(settings.KeyWorldKeepDays)
	v.activity = widget.NewSelect([]string{"All of it", "1 year", "90 days", "30 days"}, func(label string) {
		days := keepActivity[label]
		save(settings.KeyWorldKeepDays, func(s *settings.Settings) { s.WorldKeepDays = days })
	})
	for label, d := range keepActivity {
		if d == set.WorldKeepDays {
			v.activity.SetSelectedIndex(indexOf(v.activity.Options, label))
		}
	}
	activityNote := widget.NewLabel("Older activity is deleted, except what agents did and what happened to your reminders.")
	activityNote.Wrapping = fyne.TextWrapWord
	activityNote.Importance = widget.LowImportance

	excludedProblem := problem(settings.KeyExcludedApps)
	excludedApps := widget.NewEntry()
	excludedApps.SetPlaceHolder("e.g. Signal, Personal Notes")
	excludedApps.SetText(settings.FormatList(set.ExcludedApps))
	saveExcluded := func(text string) func(*settings.Settings) {
		return func(s *settings.Settings) { s.ExcludedApps = settings.ParseList(text) }
	}
	excludedApps.OnSubmitted = func(text string) { save(settings.KeyExcludedApps, saveExcluded(text)) }
	excludedApps.OnChanged = func(text string) {
		g.debounceSave(settings.KeyExcludedApps, func() { g.saveSettings(settings.KeyExcludedApps, saveExcluded(text), problems) })
	}
	excludedNote := widget.NewLabel("Password managers and private browser windows are never looked at. " +
		"Apps listed here are excluded too (comma-separated). Takes effect when watching resumes or Spirit restarts.")
	excludedNote.Wrapping = fyne.TextWrapWord
	excludedNote.Importance = widget.LowImportance
	ocrProblem := problem(settings.KeyScreenText)
	ocr := widget.NewCheck("Read text on screen when a window title is not enough", func(on bool) {
		save(settings.KeyScreenText, func(s *settings.Settings) { s.ScreenText = on })
	})
	ocr.SetChecked(set.ScreenText)

	v.speech = widget.NewLabel("")
	v.speech.Truncation = fyne.TextTruncateEllipsis
	dbPath := g.core.DatabasePath()
	hotkey, nudgeHotkey := g.hotkey, g.nudgeHotkey
	if hotkey == "" {
		hotkey = "none"
	}
	if nudgeHotkey == "" {
		nudgeHotkey = "none"
	}

	v.autostart = newAutostartRow(g)
	dataDir := widget.NewLabel(dbPath)
	dataDir.Wrapping = fyne.TextWrapBreak
	privacy := widget.NewLabel("Audio and screenshots stay in memory. Nothing leaves this computer " +
		"except requests to the model provider you configure, and nothing is changed or sent " +
		"without your approval.")
	privacy.Wrapping = fyne.TextWrapWord
	setUp := widget.NewButtonWithIcon("Set up Spirit…", theme.SettingsIcon(), g.showFirstRun)
	setUpNote := widget.NewLabel("Goes through the first-day steps again: privacy, voice, mail, an AI service, start at login.")
	setUpNote.Wrapping = fyne.TextWrapWord
	setUpNote.Importance = widget.LowImportance
	general := widget.NewForm(
		widget.NewFormItem("Pause", container.NewVBox(v.listen, v.watch)),
		widget.NewFormItem("Voice", container.NewVBox(v.speech,
			widget.NewLabel("Pause listening from anywhere: "+hotkey))),
		widget.NewFormItem("Nudges", widget.NewLabel("Type into the newest nudge from anywhere: "+nudgeHotkey+
			". How often Spirit speaks up: the Nudges page.")),
		widget.NewFormItem("At login", v.autostart.content),
		widget.NewFormItem("Setup", container.NewVBox(container.NewHBox(setUp), setUpNote)),
		widget.NewFormItem("Database", dataDir),
	)
	v.content = container.NewVScroll(container.NewPadded(general))
	v.deleteAll = newDeleteAllRow(g, win)
	privacyForm := widget.NewForm(
		widget.NewFormItem("Transcripts", container.NewVBox(retention, retentionProblem)),
		widget.NewFormItem("Never look at", container.NewVBox(excludedApps, excludedProblem, excludedNote)),
		widget.NewFormItem("Screen text", container.NewVBox(ocr, ocrProblem)),
		widget.NewFormItem("Keep activity", container.NewVBox(v.activity, activityProblem, activityNote)),
		widget.NewFormItem("Your data", newExportRow(g, win).content),
		widget.NewFormItem("Start over", v.deleteAll.content),
	)
	v.privacy = container.NewVScroll(container.NewPadded(container.NewVBox(privacyForm, widget.NewSeparator(), privacy)))
	opening = false
	return v
}

// debounceSave runs save once typing in field key pauses.
func (g *gui) debounceSave(key string, save func()) {
	g.mu.Lock()
	if g.pendingSave == nil {
		g.pendingSave = map[string]*time.Timer{}
	}
	if t := g.pendingSave[key]; t != nil {
		t.Stop()
	}
	g.pendingSave[key] = time.AfterFunc(time.Second, save)
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

// saveSettings saves a change off the main thread; the core records it in
// the world log. A value that is not valid is shown under its field (the
// one named by the error, else field's); a valid save clears field's note.
func (g *gui) saveSettings(field string, change func(*settings.Settings), problems map[string]*widget.Label) {
	ctx, cancel := context.WithTimeout(g.ctx, 5*time.Second)
	defer cancel()
	_, err := g.core.UpdateSettings(ctx, "settings", change)
	if err != nil {
		g.log.Error("save setting", "key", field, "err", err)
	}
	var bad *settings.FieldError
	key, note := field, ""
	if errors.As(err, &bad) {
		key, note = bad.Key, bad.Reason
	}
	g.do(func() {
		l := problems[key]
		if l == nil {
			return
		}
		l.SetText(note)
		if note == "" {
			l.Hide()
		} else {
			l.Show()
		}
	})
}

// update shows st without triggering the checks' callbacks.
func (v *settingsView) update(st app.Status) {
	v.updating = true
	v.listen.SetChecked(st.ListeningPaused)
	v.watch.SetChecked(st.WatchingPaused)
	v.updating = false
}

// showSpeech shows the model in use, from the Speech page's words.
func (v *settingsView) showSpeech(text string) {
	v.speech.SetText("Speech model: " + text)
}

func (g *gui) showActivity() {
	w := g.window(&g.activity, "Spirit · Activity", fyne.NewSize(960, 560), func(w fyne.Window) fyne.CanvasObject {
		g.activityView = newActivityView(g)
		return g.activityView.content
	})
	v := g.activityView
	// Refresh only while the window is up: closing hides it and stops the
	// live refresh, showing it again starts it.
	w.SetCloseIntercept(func() {
		v.stopLive()
		w.Hide()
	})
	v.reload()
	v.startLive()
	w.Show()
	w.RequestFocus()
}

// Activity window limits and pace.
const (
	activityLogEntries  = 500             // world-log lines in "All activity"
	activityAgentsShown = 200             // agents in the filter
	activityPoll        = time.Second     // how often the live view looks for news
	activityLoadTimeout = 5 * time.Second // one load of the window's data
)

// activityView shows what Spirit and its agents did: on the left a filter
// (all activity, or one agent), on the right the world log, live, or the
// chosen agent's prompt, plan and history with a Cancel button.
type activityView struct {
	g       *gui
	content fyne.CanvasObject

	// Main thread only.
	agents    []api.Agent      // the filter's rows after "All activity", newest first
	selected  string           // the agent shown; "" for all activity
	selecting bool             // the filter's selection is being set in code
	entries   []store.Entry    // all activity, newest last
	detail    *api.AgentDetail // the agent shown, once loaded
	filter    *widget.List
	log       *widget.List
	logNote   *widget.Label // the entry chosen in the log, in full
	logBottom float32       // the log's scroll offset when last at the bottom
	logPane   fyne.CanvasObject
	agentBody *fyne.Container // the agent's prompt, plan and history
	agentPane fyne.CanvasObject
	agentHead *widget.Label
	cancelBtn *widget.Button
	right     *fyne.Container
	status    *widget.Label

	loadMu sync.Mutex // loads run one at a time, so they show in order

	mu     sync.Mutex
	want   string      // the session to load; "" for all activity
	lastID int64       // the newest world-log id loaded
	live   *time.Timer // the next look for news; nil when not live
	gen    int         // tells a look of a stopped refresh from the current one

	// shownDocument is the document last opened from the log (tests).
	shownDocument atomic.Int64

	// applied, when set (tests), is called after each load is shown.
	applied func()
}

func newActivityView(g *gui) *activityView {
	v := &activityView{g: g}

	v.filter = widget.NewList(
		func() int { return 1 + len(v.agents) },
		func() fyne.CanvasObject {
			title := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			title.Truncation = fyne.TextTruncateEllipsis
			sub := widget.NewLabel("")
			sub.Truncation = fyne.TextTruncateEllipsis
			sub.Importance = widget.LowImportance
			sub.SizeName = theme.SizeNameCaptionText
			return container.NewBorder(nil, nil, widget.NewIcon(theme.ListIcon()), nil,
				container.New(&tightVBox{}, title, sub))
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			texts := c.Objects[0].(*fyne.Container)
			title, sub := texts.Objects[0].(*widget.Label), texts.Objects[1].(*widget.Label)
			icon := c.Objects[1].(*widget.Icon)
			if i == 0 {
				icon.SetResource(theme.ListIcon())
				title.SetText("All activity")
				sub.SetText("everything Spirit noted, live")
				return
			}
			t := v.agents[i-1]
			icon.SetResource(agentPhaseIcon(t.Phase))
			title.SetText(activityOneLine(t.Prompt))
			sub.SetText(agentPhaseText(t.Phase) + " · " + activityAgo(time.Now(), t.Created))
		},
	)
	v.filter.OnSelected = func(i widget.ListItemID) {
		if v.selecting {
			return
		}
		session := ""
		if i > 0 && i-1 < len(v.agents) {
			session = v.agents[i-1].Session
		}
		if session == v.selected {
			return
		}
		v.selected, v.detail = session, nil
		v.mu.Lock()
		v.want = session
		v.mu.Unlock()
		if session == "" {
			v.showPane(v.logPane)
		} else {
			v.agentHead.SetText("Loading…")
			v.agentBody.Objects = nil
			v.agentBody.Refresh()
			v.cancelBtn.Disable()
			v.showPane(v.agentPane)
		}
		v.reload()
	}

	v.log = widget.NewList(
		func() int { return len(v.entries) },
		func() fyne.CanvasObject {
			when := widget.NewLabel("")
			when.TextStyle = fyne.TextStyle{Monospace: true}
			when.Importance = widget.LowImportance
			text := widget.NewLabel("")
			text.TextStyle = fyne.TextStyle{Monospace: true}
			text.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, when, nil, text)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			e := v.entries[i]
			c.Objects[0].(*widget.Label).SetText(activityLine(e))
			c.Objects[1].(*widget.Label).SetText(activityTime(e.TS))
			c.Refresh() // the time's width differs between today and earlier days
		},
	)
	v.logNote = widget.NewLabel("Choose a line to read it in full.")
	v.logNote.Wrapping = fyne.TextWrapWord
	v.logNote.Importance = widget.LowImportance
	v.log.OnSelected = func(i widget.ListItemID) {
		if i < 0 || i >= len(v.entries) {
			return
		}
		v.logNote.Importance = widget.MediumImportance
		e := v.entries[i]
		v.logNote.SetText(e.TS.Local().Format("Mon Jan 2, 15:04:05") + "   " + activityLine(e))
		if id, ok := app.DocumentOf(e.Identifier); ok {
			v.openDocument(id) // a brief Spirit kept: readable, with Copy
		}
	}
	// A fixed height for the chosen line: a wrapped label alone would size
	// the pane by its first, narrowest layout.
	note := container.NewVScroll(v.logNote)
	note.SetMinSize(fyne.NewSize(0, 4*theme.TextSize()+5*theme.Padding()))
	v.logPane = container.NewBorder(nil,
		container.NewVBox(widget.NewSeparator(), note), nil, nil, v.log)

	v.agentHead = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	v.agentHead.Truncation = fyne.TextTruncateEllipsis
	v.cancelBtn = widget.NewButtonWithIcon("Cancel agent", theme.CancelIcon(), func() {
		if v.selected != "" {
			v.cancelAgent(v.selected)
		}
	})
	v.cancelBtn.Importance = widget.DangerImportance
	v.cancelBtn.Disable()
	v.agentBody = container.NewVBox()
	v.agentPane = container.NewBorder(
		container.NewVBox(container.NewBorder(nil, nil, nil, v.cancelBtn, v.agentHead), widget.NewSeparator()),
		nil, nil, nil, container.NewVScroll(container.NewPadded(v.agentBody)))

	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Importance = widget.DangerImportance
	v.status.Hide()
	v.right = container.NewStack(v.logPane)

	left := container.NewBorder(widget.NewLabelWithStyle("Show", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		nil, nil, nil, v.filter)
	split := container.NewHSplit(container.NewPadded(left),
		container.NewPadded(container.NewBorder(nil, v.status, nil, nil, v.right)))
	split.Offset = 0.3
	v.content = split
	v.filter.Select(0)
	return v
}

// showPane puts p on the right.
func (v *activityView) showPane(p fyne.CanvasObject) {
	if len(v.right.Objects) == 1 && v.right.Objects[0] == p {
		return
	}
	v.right.Objects = []fyne.CanvasObject{p}
	v.right.Refresh()
}

// activityData is one load of what the window shows.
type activityData struct {
	session string // what was loaded: "" for all activity
	lastID  int64
	agents  []api.Agent
	entries []store.Entry
	detail  *api.AgentDetail
	err     error
	note    string // a problem to show once loaded (a failed cancel)
}

// reload loads off the main thread, then shows the result.
func (v *activityView) reload() {
	go v.refresh(v.g.ctx, "")
}

// refresh loads what the window shows and shows it, with note as its
// status line. It blocks; call it off the main thread.
func (v *activityView) refresh(parent context.Context, note string) {
	v.loadMu.Lock()
	defer v.loadMu.Unlock()
	ctx, cancel := context.WithTimeout(parent, activityLoadTimeout)
	defer cancel()
	v.mu.Lock()
	session := v.want
	v.mu.Unlock()
	d := v.load(ctx, session)
	d.note = note
	if d.err != nil && parent.Err() != nil {
		return // the window closed or Spirit is stopping
	}
	if d.err == nil {
		v.mu.Lock()
		v.lastID = d.lastID
		v.mu.Unlock()
	}
	v.g.do(func() { v.apply(d) })
}

func (v *activityView) load(ctx context.Context, session string) activityData {
	d := activityData{session: session}
	core := v.g.core
	var err error
	// The id first: whatever is written while loading shows on the next
	// tick, never goes missing.
	if d.lastID, err = core.LastEventID(ctx); err != nil {
		d.err = err
		return d
	}
	if d.agents, err = core.Agents(ctx); err != nil {
		d.err = fmt.Errorf("could not read the agents: %w", err)
		return d
	}
	if len(d.agents) > activityAgentsShown {
		d.agents = d.agents[:activityAgentsShown]
	}
	if session == "" {
		if d.entries, err = core.Recent(ctx, activityLogEntries); err != nil {
			d.err = fmt.Errorf("could not read the world log: %w", err)
		}
		return d
	}
	det, err := core.Agent(ctx, session)
	if err != nil {
		d.err = fmt.Errorf("could not read agent %s: %w", session, err)
		return d
	}
	d.detail = &det
	return d
}

// apply shows a load; on the main thread.
func (v *activityView) apply(d activityData) {
	defer func() {
		if v.applied != nil {
			v.applied()
		}
	}()
	if d.err != nil {
		v.g.log.Error("activity window", "err", d.err)
		v.setStatus(activityErr(d.err))
		return
	}
	v.setStatus(d.note)
	v.agents = d.agents
	// Keep the filter on the agent shown: new agents shift it down.
	row := 0
	if v.selected != "" {
		row = -1
		for i, t := range v.agents {
			if t.Session == v.selected {
				row = i + 1
			}
		}
	}
	v.filter.Refresh()
	if row >= 0 {
		v.selecting = true
		v.filter.Select(row)
		v.selecting = false
	}
	if d.session != v.selected {
		return // the lawyer chose something else meanwhile; its load follows
	}
	if d.session == "" {
		// Follow the log unless the lawyer has scrolled up to read.
		follow := v.log.GetScrollOffset() >= v.logBottom-1
		v.entries = d.entries
		v.log.Refresh()
		if follow {
			v.log.ScrollToBottom()
			v.logBottom = v.log.GetScrollOffset()
		}
		v.showPane(v.logPane)
		return
	}
	v.detail = d.detail
	v.showAgent(*d.detail)
	v.showPane(v.agentPane)
}

func (v *activityView) setStatus(s string) {
	v.status.SetText(s)
	if s == "" {
		v.status.Hide()
	} else {
		v.status.Show()
	}
}

// showAgent fills the agent pane: what it was asked, where it stands, its
// plan and what it did.
func (v *activityView) showAgent(d api.AgentDetail) {
	t := d.Agent
	v.agentHead.SetText(t.Session + " · " + agentPhaseText(t.Phase))
	if t.Phase.Open() {
		v.cancelBtn.Enable()
	} else {
		v.cancelBtn.Disable()
	}
	v.cancelBtn.SetText("Cancel agent")

	prompt := widget.NewLabelWithStyle(activityOneLine(t.Prompt), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	prompt.Wrapping = fyne.TextWrapWord
	state := fmt.Sprintf("%s (lifecycle: %s) · %d run(s)", agentPhaseText(t.Phase), t.Status, t.Runs)
	if t.Waiting > 0 {
		state += " · waiting for your answer"
	}
	// A form layout rather than a widget.Form: its rows grow with their
	// wrapped values once the pane knows its width.
	facts := container.New(layout.NewFormLayout())
	fact := func(key, value string) {
		k := widget.NewLabelWithStyle(key, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		facts.Add(k)
		facts.Add(activityWrapped(value))
	}
	fact("Need", t.Need)
	fact("Status", state)
	fact("Started", activityWhen(t.Created)+activityOrigin(t.Origin))
	fact("Updated", activityWhen(t.Updated))
	if t.Context.Subject != "" {
		fact("About", t.Context.Subject)
	}
	if t.Result != "" && len(d.Documents) == 0 { // a document shows it rendered, below
		fact("Result", t.Result)
	}
	if s := t.State.Summary; s != "" && s != t.Result {
		fact("Summary", s)
	}
	objs := []fyne.CanvasObject{prompt, facts}
	for _, doc := range d.Documents {
		objs = append(objs, widget.NewSeparator(), documentBlock(doc))
	}
	objs = append(objs, widget.NewSeparator(), activityHeading("Plan"))

	if len(t.State.Plan) == 0 {
		objs = append(objs, activityFaint("No plan yet: the agent makes one on its first run."))
	}
	for i, step := range t.State.Plan {
		l := activityWrapped(fmt.Sprintf("%d. %s", i+1, step))
		switch {
		case i < t.State.Step:
			l.Importance = widget.LowImportance
		case i == t.State.Step && t.Phase.Open():
			l.TextStyle = fyne.TextStyle{Bold: true}
		}
		objs = append(objs, container.NewBorder(nil, nil, widget.NewIcon(planIcon(t, i)), nil, l))
	}

	objs = append(objs, widget.NewSeparator(), activityHeading(fmt.Sprintf("History (%d)", len(d.Entries))))
	if len(d.Entries) == 0 {
		objs = append(objs, activityFaint("Nothing in the world log yet."))
	}
	for _, e := range d.Entries {
		when := widget.NewLabel(activityTime(e.TS))
		when.TextStyle = fyne.TextStyle{Monospace: true}
		when.Importance = widget.LowImportance
		text := activityWrapped(agentEntryText(e))
		text.TextStyle = fyne.TextStyle{Monospace: true}
		text.Importance = agentEntryImportance(e)
		objs = append(objs, container.NewBorder(nil, nil, when, nil, text))
	}
	v.agentBody.Objects = objs
	v.agentBody.Refresh()
}

// cancelAgent stops the agent off the main thread, then reloads.
func (v *activityView) cancelAgent(session string) {
	v.cancelBtn.Disable()
	v.cancelBtn.SetText("Cancelling…")
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 10*time.Second)
		_, err := v.g.core.CancelAgent(ctx, session)
		cancel()
		note := ""
		if err != nil {
			v.g.log.Error("cancel agent", "session", session, "err", err)
			note = "Could not cancel the agent: " + activityErr(err)
		}
		v.refresh(v.g.ctx, note)
	}()
}

// startLive refreshes the window once a second while it is shown, and
// only when the world log has news. Each look schedules the next, so
// nothing runs between looks and nothing is left running once stopped.
func (v *activityView) startLive() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.live != nil {
		return
	}
	v.gen++
	gen := v.gen
	current := func() bool { return v.live != nil && v.gen == gen } // under mu
	var look func()
	look = func() {
		ctx := v.g.ctx
		if id, err := v.g.core.LastEventID(ctx); err == nil {
			v.mu.Lock()
			news := id != v.lastID && current()
			v.mu.Unlock()
			if news {
				v.refresh(ctx, "")
			}
		}
		v.mu.Lock()
		defer v.mu.Unlock()
		if current() && ctx.Err() == nil {
			v.live = time.AfterFunc(activityPoll, look)
		}
	}
	v.live = time.AfterFunc(activityPoll, look)
}

// stopLive ends the live refresh.
func (v *activityView) stopLive() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.live != nil {
		v.live.Stop()
		v.live = nil
	}
}

// tightVBox stacks its objects with no space between them: a title and
// its caption.
type tightVBox struct{}

func (tightVBox) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := float32(0)
	for _, o := range objs {
		h := o.MinSize().Height
		o.Move(fyne.NewPos(0, y))
		o.Resize(fyne.NewSize(size.Width, h))
		y += h - theme.Padding()
	}
}

func (tightVBox) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		m := o.MinSize()
		s.Width = max(s.Width, m.Width)
		s.Height += m.Height - theme.Padding()
	}
	return s.AddWidthHeight(0, theme.Padding())
}

func activityWrapped(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

func activityHeading(s string) *widget.Label {
	return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

func activityFaint(s string) *widget.Label {
	l := activityWrapped(s)
	l.Importance = widget.LowImportance
	return l
}

func activityOrigin(origin string) string {
	if origin == "" {
		return ""
	}
	return " · from " + origin
}

// activityErr drops the API's sentinel suffix (": not found") for the lawyer.
func activityErr(err error) string {
	s := err.Error()
	for _, suffix := range []string{": " + api.ErrNotFound.Error(), ": " + api.ErrConflict.Error()} {
		s = strings.TrimSuffix(s, suffix)
	}
	return s
}

// agentPhaseText says where an agent stands, for the lawyer.
func agentPhaseText(p task.Phase) string {
	switch p {
	case task.PhaseQueued:
		return "queued"
	case task.PhaseRunning:
		return "working"
	case task.PhaseWaiting:
		return "waiting for you"
	case task.PhaseFinished:
		return "done"
	case task.PhaseCancelled:
		return "cancelled"
	case task.PhaseFailed:
		return "needs help"
	}
	return string(p)
}

func agentPhaseIcon(p task.Phase) fyne.Resource {
	switch p {
	case task.PhaseQueued:
		return theme.HistoryIcon()
	case task.PhaseRunning:
		return theme.MediaPlayIcon()
	case task.PhaseWaiting:
		return theme.QuestionIcon()
	case task.PhaseFinished:
		return theme.ConfirmIcon()
	case task.PhaseCancelled:
		return theme.CancelIcon()
	case task.PhaseFailed:
		return theme.ErrorIcon()
	}
	return theme.InfoIcon()
}

// planIcon marks plan step i: done, under way, or not reached.
func planIcon(t api.Agent, i int) fyne.Resource {
	switch {
	case i < t.State.Step:
		return theme.ConfirmIcon()
	case i == t.State.Step && t.Phase.Open():
		return theme.MediaPlayIcon()
	}
	return theme.RadioButtonIcon()
}

// activityLine is an entry without its time, for the log's list.
func activityLine(e store.Entry) string {
	if e.Kind == store.KindAgent {
		line := fmt.Sprintf("%-6s %s  %s", "agent:"+string(e.Status), e.Session, activityOneLine(e.Text))
		if e.Need != "" {
			line += " | need: " + activityOneLine(e.Need)
		}
		return line
	}
	return fmt.Sprintf("%-6s %s  %s", e.Source, e.Identifier, activityOneLine(e.Text))
}

// agentEntryText is one line of an agent's history.
func agentEntryText(e api.Entry) string {
	if e.Kind == store.KindAgent {
		return string(e.Status) + ": " + activityOneLine(e.Text)
	}
	return activityOneLine(e.Text)
}

func agentEntryImportance(e api.Entry) widget.Importance {
	switch {
	case e.Kind == store.KindAgent && e.Status == store.StatusFailed:
		return widget.DangerImportance
	case e.Kind == store.KindAgent && e.Status == store.StatusVerified:
		return widget.SuccessImportance
	case e.Kind == store.KindAgent:
		return widget.HighImportance
	case strings.HasPrefix(e.Text, "question:"), strings.HasPrefix(e.Text, "approval requested"):
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

func activityOneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// activityTime is a log line's time: the clock today, the day before.
func activityTime(t time.Time) string {
	t = t.Local()
	now := time.Now()
	if y, m, d := now.Date(); t.Year() == y && t.Month() == m && t.Day() == d {
		return t.Format("15:04:05")
	}
	return t.Format("Jan _2 15:04")
}

// activityWhen is a readable date and time with how long ago it was.
func activityWhen(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.Local().Format("Mon Jan 2, 15:04") + " (" + activityAgo(time.Now(), t) + ")"
}

// activityAgo says how long ago at was: "just now", "5 min ago", …
func activityAgo(now, at time.Time) string {
	d := now.Sub(at)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	case d < 48*time.Hour:
		return "yesterday"
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

// documentBlock is a kept document in Activity: its title and when it was
// written, the Markdown rendered, and Copy.
func documentBlock(doc store.Document) fyne.CanvasObject {
	view, copyBtn := widgets.DocumentView(doc.Markdown, 0)
	head := container.NewBorder(nil, nil, nil, copyBtn,
		container.NewVBox(activityHeading(doc.Title), activityFaint("Kept "+activityWhen(doc.Created))))
	return container.NewVBox(head, view)
}

// openDocument shows kept document id in a dialog over Activity: rendered,
// with Copy.
func (v *activityView) openDocument(id int64) {
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, activityLoadTimeout)
		defer cancel()
		doc, err := v.g.core.Document(ctx, id)
		v.g.do(func() {
			if err != nil {
				v.status.SetText("Could not open the document: " + err.Error())
				v.status.Show()
				return
			}
			if v.g.activity == nil {
				return
			}
			view, copyBtn := widgets.DocumentView(doc.Markdown, 420)
			d := dialog.NewCustom(doc.Title, "Close", container.NewBorder(nil, container.NewHBox(layout.NewSpacer(), copyBtn), nil, nil, view), v.g.activity)
			d.Resize(fyne.NewSize(560, 520))
			d.Show()
			v.shownDocument.Store(doc.ID) // after Show: a test reads the dialog once it sees this
		})
	}()
}
