package desktop

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/voice/model"
)

// The first-run window: five steps, each of which can be skipped and done
// later in Settings. It opens at each start until the lawyer finishes it
// (setup.done), and from Settings → General → "Set up Spirit…".

// firstRunAction is what Spirit does about the first-run window as it
// starts.
type firstRunAction int

const (
	firstRunNothing  firstRunAction = iota // set up already
	firstRunMarkDone                       // set up before the window existed: mark it so, show nothing
	firstRunShow                           // not set up: show the window
)

// firstRunAtStart decides, from the setup.done setting, whether a speech
// model is downloaded and how many mail accounts there are: a Spirit with
// a model and a mail account is set up, window or not.
func firstRunAtStart(done, hasModel bool, accounts int) firstRunAction {
	switch {
	case done:
		return firstRunNothing
	case hasModel && accounts > 0:
		return firstRunMarkDone
	}
	return firstRunShow
}

// checkFirstRun acts on firstRunAtStart off the main thread; started calls
// it once the orb is up.
func (g *gui) checkFirstRun() {
	ctx, cancel := context.WithTimeout(g.ctx, 10*time.Second)
	defer cancel()
	set, err := g.core.Settings(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		g.log.Error("first run: settings unreadable; the setup window is not shown", "err", err)
		return
	}
	_, noModel := model.Find(g.dataDir(), set.VoiceModel)
	accounts := 0
	if m, err := g.core.MailAccounts(ctx); err == nil {
		accounts = len(m.Accounts)
	}
	switch firstRunAtStart(set.SetupDone, noModel == nil, accounts) {
	case firstRunMarkDone:
		if _, err := g.core.UpdateSettings(ctx, "setup", func(s *settings.Settings) { s.SetupDone = true }); err != nil {
			g.log.Error("first run: could not mark Spirit set up", "err", err)
		}
		g.log.Info("Spirit is set up already (a speech model and a mail account): no setup window")
	case firstRunShow:
		g.log.Info("Spirit is not set up yet: the setup window opens")
		g.do(g.showFirstRun)
	default:
		g.log.Debug("Spirit is set up: no setup window")
	}
}

// Step indexes of the first-run window.
const (
	stepWelcome = iota
	stepVoice
	stepMail
	stepProvider
	stepLogin
	setupSteps
)

// stepNames are the steps as the window's side lists them.
func stepNames() [setupSteps]string {
	return [setupSteps]string{"Your privacy", "Voice", "Mail", "AI service", "Start at login"}
}

// setupFooter is the first-run window's buttons for a step: the main
// button's text ("Next" once the step is done or has nothing to do,
// "Skip" while it is not done, "Finish" on the last), whether it is the
// highlighted one, and whether Back shows.
func setupFooter(step int, done bool) (primary string, important, back bool) {
	back = step > stepWelcome
	switch {
	case step == setupSteps-1:
		return "Finish", true, back
	case step == stepWelcome || done:
		return "Next", true, back
	}
	return "Skip", false, back
}

// firstRun is the first-run window.
type firstRun struct {
	g    *gui
	w    fyne.Window
	step int

	side     [setupSteps]*widget.Label
	sideIcon [setupSteps]*widget.Icon
	heading  *canvas.Text
	body     *fyne.Container
	pages    [setupSteps]fyne.CanvasObject
	back     *widget.Button
	next     *widget.Button
	later    *widget.Button

	models   *modelList
	mail     *mailView
	accounts int  // mail accounts, as the Mail step last showed them
	provider bool // a model provider is saved

	// Provider step.
	service            *widget.Select
	base               *widget.Entry
	triage, analyst    *widget.Entry
	key                *widget.Entry
	providerStatus     *widget.Label
	testBtn, saveBtn   *widget.Button
	providerForm       *widget.Form
	loginRow           *autostartRow
	finishProblem      *widget.Label
	finishing          bool
	bg                 sync.WaitGroup // work off the main thread, for tests
	providerRecommends setupChoice    // what the service choice filled in
}

// showFirstRun opens the first-run window, at the step it was left at.
func (g *gui) showFirstRun() {
	if g.setup == nil {
		g.setup = newFirstRun(g)
	}
	f := g.setup
	f.refresh()
	f.w.Show()
	f.w.RequestFocus()
}

func newFirstRun(g *gui) *firstRun {
	f := &firstRun{g: g}
	f.w = g.fa.NewWindow("Set up Spirit")
	f.w.SetCloseIntercept(f.closeLater)

	f.heading = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	f.heading.TextSize = theme.TextHeadingSize()
	f.heading.TextStyle = fyne.TextStyle{Bold: true}

	side := container.NewVBox()
	for i, name := range stepNames() {
		f.side[i] = widget.NewLabel(name)
		f.sideIcon[i] = widget.NewIcon(theme.RadioButtonIcon())
		side.Add(container.NewBorder(nil, nil, f.sideIcon[i], nil, f.side[i]))
	}
	sideBg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	// As wide as the widest step in bold, so the side keeps its width
	// from step to step.
	sideBg.SetMinSize(fyne.NewSize(180, 0))
	sidePane := container.NewStack(sideBg, container.NewPadded(container.NewVBox(
		widget.NewLabelWithStyle("Set up Spirit", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		widget.NewSeparator(), side)))

	f.pages[stepWelcome] = f.welcomePage()
	f.pages[stepVoice] = f.voicePage()
	f.pages[stepMail] = f.mailPage()
	f.pages[stepProvider] = f.providerPage()
	f.pages[stepLogin] = f.loginPage()
	f.body = container.NewStack()

	f.later = widget.NewButton("Later", f.closeLater)
	f.back = widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), func() { f.show(f.step - 1) })
	f.next = widget.NewButton("Next", f.forward)
	footer := container.NewBorder(nil, nil, f.later, container.NewHBox(f.back, f.next))

	main := container.NewBorder(container.NewVBox(f.heading, widget.NewSeparator()),
		container.NewVBox(widget.NewSeparator(), footer), nil, nil, f.body)
	f.w.SetContent(container.NewBorder(nil, nil, sidePane, nil, container.NewPadded(main)))
	f.w.Resize(fyne.NewSize(820, 580))
	f.w.CenterOnScreen()
	f.show(stepWelcome)
	return f
}

// para is a paragraph of the window's text.
func para(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// point is a paragraph led by a bold heading.
func point(title, text string) fyne.CanvasObject {
	t := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	body := para(text)
	return container.New(&tightVBox{}, t, body)
}

func (f *firstRun) welcomePage() fyne.CanvasObject {
	return container.NewVScroll(container.NewVBox(
		para("Spirit listens for what you ask it and notices which window you are working in, so that it can "+
			"offer one useful step at the right moment: a reminder, a draft reply, a note before a meeting. "+
			"Here is what that means for your privacy."),
		point("What Spirit hears", "Your microphone, to catch commands such as “remind me to call Dana at 3”. "+
			"Speech is turned into text on this computer. The sound is never saved or sent anywhere. "+
			"What was said is kept for 7 days, then deleted (you can change this)."),
		point("What Spirit sees", "The name of the window in front of you and, when that is not enough, the text "+
			"in it, read on this computer. Screen images stay in memory and are never saved. Password managers "+
			"and private browser windows are never looked at, and you can add apps to leave alone."),
		point("What never leaves this computer", "Your activity, reminders, the index of your mail, and everything "+
			"Spirit hears and sees. Only if you choose an AI service (step 4) does Spirit send it the one email "+
			"thread it is asked about. Nothing is sent or changed in your mail or calendar without your approval."),
		point("You stay in charge", "Pause listening or watching at any time from the tray or the small orb "+
			"at the edge of your screen. Every step here can be skipped and done later in Settings."),
	))
}

func (f *firstRun) voicePage() fyne.CanvasObject {
	f.models = newModelList(f.g, f.w)
	f.models.changed = f.refresh
	return container.NewBorder(
		container.NewVBox(
			para("For voice commands, Spirit needs a speech model: a file downloaded once, which turns your speech "+
				"into text on this computer. Choose one; the recommended one suits most people. The download is "+
				"checked before use, and can be cancelled and resumed."),
			widget.NewSeparator()),
		nil, nil, nil, container.NewVScroll(f.models.content))
}

func (f *firstRun) mailPage() fyne.CanvasObject {
	f.mail = newMailView(f.g, f.w)
	f.mail.shown = func(n int) {
		f.accounts = n
		f.refreshFooter()
	}
	return container.NewBorder(
		container.NewVBox(para("Add the mail account you work in, so Spirit can tell you which thread needs a "+
			"reply and draft one for you to approve. It is read on this computer; your mailbox is not changed."),
			widget.NewSeparator()),
		nil, nil, nil, f.mail.content)
}

// setupChoice is a service as the provider step offers it.
type setupChoice struct {
	label string
	kind  string
	other bool // another OpenAI-compatible service: a base URL, its own model names
}

func setupChoices() []setupChoice {
	return []setupChoice{
		{label: "Anthropic (Claude)", kind: setup.Anthropic},
		{label: "OpenAI (ChatGPT)", kind: setup.OpenAI},
		{label: "Another service or a model on this computer (OpenAI-compatible)", kind: setup.OpenAI, other: true},
	}
}

// providerSettings is what the provider step's fields say.
func (f *firstRun) providerSettings() (setup.Settings, bool) {
	var c setupChoice
	for _, x := range setupChoices() {
		if x.label == f.service.Selected {
			c = x
		}
	}
	if c.kind == "" {
		return setup.Settings{}, false
	}
	s := setup.Settings{Kind: c.kind}
	if c.other {
		s.BaseURL = strings.TrimSpace(f.base.Text)
	}
	s.Roles.Triage, s.Roles.Analyst = strings.TrimSpace(f.triage.Text), strings.TrimSpace(f.analyst.Text)
	s.Roles.Agent = s.Roles.Analyst
	return s, true
}

func (f *firstRun) providerPage() fyne.CanvasObject {
	labels := make([]string, 0, 3)
	for _, c := range setupChoices() {
		labels = append(labels, c.label)
	}
	f.base = widget.NewEntry()
	f.base.SetPlaceHolder("e.g. http://127.0.0.1:11434/v1 for Ollama")
	f.triage, f.analyst = widget.NewEntry(), widget.NewEntry()
	f.key = widget.NewPasswordEntry()
	f.key.SetPlaceHolder("the key your service gave you")
	f.providerStatus = widget.NewLabel("")
	f.providerStatus.Wrapping = fyne.TextWrapWord
	f.providerStatus.Hide()
	f.service = widget.NewSelect(labels, func(label string) {
		for _, c := range setupChoices() {
			if c.label != label {
				continue
			}
			// Fill in the service's recommended models, unless the
			// lawyer typed others.
			old := setup.Recommended(f.providerRecommends.kind)
			if f.providerRecommends.other {
				old = setup.Recommended("")
			}
			rec := setup.Recommended(c.kind)
			if c.other {
				rec = setup.Recommended("")
			}
			if f.triage.Text == "" || f.triage.Text == old.Triage {
				f.triage.SetText(rec.Triage)
			}
			if f.analyst.Text == "" || f.analyst.Text == old.Analyst {
				f.analyst.SetText(rec.Analyst)
			}
			f.providerRecommends = c
			f.providerForm.Items = f.providerItems(c.other)
			f.providerForm.Refresh()
		}
		f.testBtn.Enable()
		f.saveBtn.Enable()
	})
	f.service.PlaceHolder = "Choose a service"
	f.providerForm = widget.NewForm(f.providerItems(false)...)
	f.testBtn = widget.NewButtonWithIcon("Test", theme.MediaPlayIcon(), f.testProvider)
	f.saveBtn = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), f.saveProvider)
	f.saveBtn.Importance = widget.HighImportance
	f.testBtn.Disable()
	f.saveBtn.Disable()
	return container.NewVScroll(container.NewVBox(
		para("Optional. With an AI service, Spirit understands more of what it reads and hears, and can draft "+
			"replies and briefs. It sends the service only the email thread it is asked about; without one, "+
			"Spirit decides with its own rules on this computer. You pay the service for what it is asked."),
		f.providerForm,
		container.NewHBox(f.testBtn, f.saveBtn),
		f.providerStatus,
	))
}

// providerItems are the provider step's fields: the address only for
// another service.
func (f *firstRun) providerItems(other bool) []*widget.FormItem {
	items := []*widget.FormItem{widget.NewFormItem("Service", f.service)}
	if other {
		base := widget.NewFormItem("Address", f.base)
		base.HintText = "the service's OpenAI-compatible address"
		items = append(items, base)
	}
	triage := widget.NewFormItem("Fast model", f.triage)
	triage.HintText = "sorts what comes in; asked often"
	analyst := widget.NewFormItem("Strong model", f.analyst)
	analyst.HintText = "reads a thread and drafts; asked when needed"
	return append(items, triage, analyst, widget.NewFormItem("API key", f.key))
}

// testProvider tries the key just typed, saving nothing.
func (f *firstRun) testProvider() {
	s, ok := f.providerSettings()
	if !ok {
		return
	}
	key := f.key.Text
	showLabel(f.providerStatus, "Asking the service…")
	f.providerStatus.Importance = widget.MediumImportance
	f.testBtn.Disable()
	f.bg.Add(1)
	go func() {
		defer f.bg.Done()
		ctx, cancel := context.WithTimeout(f.g.ctx, time.Minute)
		defer cancel()
		msg, err := f.g.core.TestProvider(ctx, s, key)
		f.g.do(func() {
			f.testBtn.Enable()
			if err != nil {
				f.providerStatus.Importance = widget.DangerImportance
				showLabel(f.providerStatus, "It did not work: "+err.Error())
				return
			}
			f.providerStatus.Importance = widget.SuccessImportance
			showLabel(f.providerStatus, "It works: "+msg+".")
		})
	}()
}

// saveProvider keeps the service, its models and the key (in the
// keychain).
func (f *firstRun) saveProvider() {
	s, ok := f.providerSettings()
	if !ok {
		return
	}
	key := f.key.Text
	if strings.TrimSpace(key) == "" && !f.providerRecommends.other {
		f.providerStatus.Importance = widget.DangerImportance
		showLabel(f.providerStatus, "Type the API key your service gave you.")
		return
	}
	showLabel(f.providerStatus, "Saving…")
	f.providerStatus.Importance = widget.MediumImportance
	f.bg.Add(1)
	go func() {
		defer f.bg.Done()
		ctx, cancel := context.WithTimeout(f.g.ctx, 30*time.Second)
		defer cancel()
		err := f.g.core.SaveProviderSettings(ctx, s, key)
		f.g.do(func() {
			if err != nil {
				f.providerStatus.Importance = widget.DangerImportance
				showLabel(f.providerStatus, "Not saved: "+err.Error())
				return
			}
			f.key.SetText("")
			f.provider = true
			f.providerStatus.Importance = widget.SuccessImportance
			showLabel(f.providerStatus, "Saved. The key is kept in this computer's keychain.")
			f.refreshFooter()
		})
	}()
}

func (f *firstRun) loginPage() fyne.CanvasObject {
	f.loginRow = newAutostartRow(f.g)
	f.finishProblem = problemLabel()
	return container.NewVBox(
		para("Spirit is most useful when it is always there. It can start by itself when you log in to this computer."),
		f.loginRow.content,
		widget.NewSeparator(),
		para("Spirit lives in the small orb at the right edge of your screen and in the tray: click either for its "+
			"menu, Settings and what it noted. Everything chosen here can be changed in Settings."),
		f.finishProblem,
	)
}

// stepDone reports whether step i is done.
func (f *firstRun) stepDone(i int) bool {
	switch i {
	case stepVoice:
		return f.models.installed()
	case stepMail:
		return f.accounts > 0
	case stepProvider:
		return f.provider
	}
	return false
}

// show goes to step i.
func (f *firstRun) show(i int) {
	i = max(stepWelcome, min(i, setupSteps-1))
	f.step = i
	f.g.log.Debug("setup window", "step", stepNames()[i])
	f.heading.Text = stepTitles()[i]
	f.heading.Refresh()
	f.body.Objects = []fyne.CanvasObject{f.pages[i]}
	f.body.Refresh()
	if i == stepMail {
		f.mail.reload()
	}
	f.refresh()
}

// stepTitles head each step's page.
func stepTitles() [setupSteps]string {
	return [setupSteps]string{
		"Welcome to Spirit",
		"Voice commands",
		"Your mail",
		"An AI service (optional)",
		"Start Spirit when you log in",
	}
}

// refresh shows what is done; main thread.
func (f *firstRun) refresh() {
	f.models.refresh()
	f.refreshFooter()
}

func (f *firstRun) refreshFooter() {
	for i := range f.side {
		f.side[i].TextStyle = fyne.TextStyle{Bold: i == f.step}
		f.side[i].Refresh()
		switch {
		case f.stepDone(i):
			f.sideIcon[i].SetResource(theme.ConfirmIcon())
		case i == f.step:
			f.sideIcon[i].SetResource(theme.NavigateNextIcon())
		default:
			f.sideIcon[i].SetResource(theme.RadioButtonIcon())
		}
	}
	primary, important, back := setupFooter(f.step, f.stepDone(f.step))
	f.next.SetText(primary)
	f.next.Importance = widget.MediumImportance
	if important {
		f.next.Importance = widget.HighImportance
	}
	f.next.Refresh()
	setShown(f.back, back)
}

// forward is the main button: the next step, or Finish.
func (f *firstRun) forward() {
	if f.step < setupSteps-1 {
		f.show(f.step + 1)
		return
	}
	f.finish()
}

// finish marks Spirit set up, so the window no longer opens at start.
func (f *firstRun) finish() {
	if f.finishing {
		return
	}
	f.finishing = true
	f.next.Disable()
	f.bg.Add(1)
	go func() {
		defer f.bg.Done()
		ctx, cancel := context.WithTimeout(f.g.ctx, 5*time.Second)
		defer cancel()
		_, err := f.g.core.UpdateSettings(ctx, "setup", func(s *settings.Settings) { s.SetupDone = true })
		f.g.do(func() {
			f.finishing = false
			f.next.Enable()
			if err != nil {
				f.g.log.Error("first run: could not mark Spirit set up", "err", err)
				showLabel(f.finishProblem, "Could not save that Spirit is set up: "+problemText(err))
				return
			}
			showLabel(f.finishProblem, "")
			f.models.stopAll()
			f.w.Hide()
		})
	}()
}

// closeLater closes the window; it opens again at the next start until
// setup is finished. A download under way stops, keeping what it got.
func (f *firstRun) closeLater() {
	f.models.stopAll()
	f.w.Hide()
}
