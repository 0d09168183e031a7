package desktop

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/mail/index"
)

// cloudCalendarKinds are the calendars that come with a mail account's
// sign-in: Microsoft 365 (Outlook) and Google Calendar. Their form picks
// the signed-in mail account and one of its calendars.
func cloudCalendarKinds() []calendarKind {
	return []calendarKind{
		{label: "Microsoft 365 calendar…", title: "Add a Microsoft 365 calendar", cloud: index.KindGraph,
			intro: "The Outlook calendar of one of your Microsoft 365 mail accounts, read with the account's sign-in."},
		{label: "Google Calendar…", title: "Add a Google calendar", cloud: index.KindGmail,
			intro: "A calendar of one of your Gmail accounts, read with the account's sign-in."},
	}
}

// noCloudAccountText is what the form says when the lawyer has no mail
// account of kind yet.
func noCloudAccountText(kind string) string {
	if kind == index.KindGmail {
		return "Add your Gmail account first, under Mail accounts: Spirit reads its calendars with the account's sign-in."
	}
	return "Add your Microsoft 365 (Outlook) mail account first, under Mail accounts: Spirit reads its calendar with the account's sign-in."
}

// cloudAccounts are the accounts of kind among as, in their order.
func cloudAccounts(as []index.Account, kind string) []index.Account {
	var out []index.Account
	for _, a := range as {
		if a.Kind == kind {
			out = append(out, a)
		}
	}
	return out
}

// accountChoice is how the account field names a, so two accounts of one
// name stay apart.
func accountChoice(a index.Account) string {
	if a.Address != "" && a.Address != a.Name {
		return a.Name + " <" + a.Address + ">"
	}
	return a.Name
}

// calendarChoices are the calendar field's options, and the one chosen at
// first: the main calendar, else the first.
func calendarChoices(cs []calendar.CloudCalendar) (names []string, chosen int) {
	for i, c := range cs {
		name := c.Name
		if c.Primary {
			name += " (main calendar)"
			chosen = i
		}
		names = append(names, name)
	}
	return names, chosen
}

// cloudForm is a Microsoft 365 or Google form on screen.
type cloudForm struct {
	kind     calendarKind
	dlg      dialog.Dialog
	account  *widget.Select
	calendar *widget.Select
	// accountProblem is under the account field: no calendar access.
	accountProblem *widget.Label
	general        *widget.Label // any other problem
	missing        *widget.Label // no mail account of this kind
	openMail       *widget.Button
	fields         fyne.CanvasObject
	progress       *widget.ProgressBarInfinite
	note           *widget.Label
	add            *widget.Button
	content        fyne.CanvasObject
	accounts       []index.Account
	calendars      []calendar.CloudCalendar
	// reading counts calendar reads, so an old one's answer is dropped
	// when the lawyer chose another account meanwhile.
	reading int
	cancel  context.CancelFunc
}

// fit sizes the form to what it shows now. Twice: a wrapped sentence
// knows its height only once laid out at the form's width.
func (f *cloudForm) fit() {
	f.fields.Refresh() // its labels grey with a disabled field, and back
	for range 2 {
		f.dlg.Resize(fyne.NewSize(520, f.content.MinSize().Height+80))
	}
}

// working shows the form's progress with what runs, or hides it.
func (f *cloudForm) working(what string) {
	if what == "" {
		f.progress.Stop()
		f.progress.Hide()
		f.note.Hide()
	} else {
		f.note.SetText(what)
		f.note.Show()
		f.progress.Show()
		f.progress.Start()
	}
	f.fit()
}

// asSentence starts msg with a capital and ends it with a full stop, as
// the form's other sentences are: errors are written to follow a colon.
func asSentence(msg string) string {
	r, n := utf8.DecodeRuneInString(msg)
	msg = string(unicode.ToUpper(r)) + msg[n:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// showCloudAdd opens kind's form: it reads the mail accounts, then the
// chosen account's calendars, each off the main thread.
func (v *calendarsView) showCloudAdd(kind calendarKind) {
	ctx, cancel := context.WithCancel(v.g.ctx)
	f := &cloudForm{kind: kind, cancel: cancel, accountProblem: problemLabel(), general: problemLabel(),
		missing: widget.NewLabel(noCloudAccountText(kind.cloud)), progress: widget.NewProgressBarInfinite(), note: widget.NewLabel("")}
	f.missing.Wrapping = fyne.TextWrapWord
	f.missing.Hide()
	f.openMail = widget.NewButtonWithIcon("Open Mail accounts", theme.MailComposeIcon(), func() {
		f.dlg.Hide()
		v.openMail()
	})
	f.openMail.Hide()
	f.account = widget.NewSelect(nil, nil)
	f.account.PlaceHolder = "Choose a mail account"
	f.calendar = widget.NewSelect(nil, nil)
	f.calendar.PlaceHolder = "Choose the account first"
	f.calendar.Disable()
	form := widget.NewForm(
		widget.NewFormItem("Mail account", container.NewVBox(f.account, f.accountProblem)),
		widget.NewFormItem("Calendar", f.calendar))
	f.fields = form
	f.fields.Hide()
	f.add = widget.NewButton("Add", func() { v.addCloud(ctx, f) })
	f.add.Importance = widget.HighImportance
	f.add.Disable()
	cancelB := widget.NewButton("Cancel", func() { f.dlg.Hide() })
	intro := widget.NewLabel(kind.intro)
	intro.Wrapping = fyne.TextWrapWord
	f.content = container.NewVBox(intro, f.missing, container.NewHBox(f.openMail), form, f.general, f.progress, f.note,
		container.NewHBox(layout.NewSpacer(), cancelB, f.add))
	f.dlg = dialog.NewCustomWithoutButtons(kind.title, f.content, v.w)
	f.dlg.SetOnClosed(func() {
		cancel()
		if v.cloud == f {
			v.cloud = nil
		}
	})
	f.account.OnChanged = func(string) { v.readCloudCalendars(ctx, f) }
	v.cloud = f
	f.working("Reading your mail accounts…")
	f.dlg.Show()

	go func() {
		rctx, done := context.WithTimeout(ctx, 5*time.Second)
		defer done()
		m, err := v.g.core.MailAccounts(rctx)
		v.g.do(func() {
			f.working("")
			if err != nil {
				f.general.SetText("Could not read your mail accounts: " + err.Error())
				f.general.Show()
				f.fit()
				return
			}
			f.accounts = cloudAccounts(m.Accounts, kind.cloud)
			if len(f.accounts) == 0 {
				f.missing.Show()
				if v.openMail != nil {
					f.openMail.Show()
				}
				f.fit()
				return
			}
			var names []string
			for _, a := range f.accounts {
				names = append(names, accountChoice(a))
			}
			f.fields.Show()
			f.account.SetOptions(names)
			f.account.SetSelectedIndex(0) // reads its calendars
		})
	}()
}

// readCloudCalendars lists the chosen account's calendars, the main one
// chosen; an account without calendar access says so under its field.
func (v *calendarsView) readCloudCalendars(ctx context.Context, f *cloudForm) {
	i := f.account.SelectedIndex()
	if i < 0 || i >= len(f.accounts) {
		return
	}
	a := f.accounts[i]
	f.reading++
	n := f.reading
	f.calendars = nil
	f.calendar.ClearSelected()
	f.calendar.SetOptions(nil)
	f.calendar.Disable()
	f.add.Disable()
	f.accountProblem.Hide()
	f.general.Hide()
	f.working("Reading the calendars of " + a.Name + "…")
	go func() {
		rctx, done := context.WithTimeout(ctx, time.Minute)
		defer done()
		cs, err := v.g.core.CloudCalendars(rctx, a.ID)
		v.g.do(func() {
			if n != f.reading {
				return // another account was chosen meanwhile
			}
			f.working("")
			switch {
			case errors.Is(err, calendar.ErrNoCalendarAccess):
				f.accountProblem.SetText(asSentence(err.Error()))
				f.accountProblem.Show()
			case err != nil:
				f.general.SetText("Could not read the calendars of " + a.Name + ": " + err.Error())
				f.general.Show()
			case len(cs) == 0:
				f.general.SetText(a.Name + " has no calendars to read.")
				f.general.Show()
			default:
				f.calendars = cs
				names, chosen := calendarChoices(cs)
				f.calendar.PlaceHolder = "Choose a calendar"
				f.calendar.SetOptions(names)
				f.calendar.SetSelectedIndex(chosen)
				f.calendar.Enable()
				f.add.Enable()
			}
			f.fit()
		})
	}()
}

// addCloud adds the chosen calendar and reads it once; a problem keeps
// the form open.
func (v *calendarsView) addCloud(ctx context.Context, f *cloudForm) {
	ai, ci := f.account.SelectedIndex(), f.calendar.SelectedIndex()
	if ai < 0 || ai >= len(f.accounts) || ci < 0 || ci >= len(f.calendars) {
		return
	}
	a, c := f.accounts[ai], f.calendars[ci]
	id := c.ID
	if c.Primary {
		id = "" // the main calendar, as Spirit names it
	}
	f.add.Disable()
	f.account.Disable()
	f.calendar.Disable()
	f.accountProblem.Hide()
	f.general.Hide()
	f.working("Adding ‘" + c.Name + "’ and reading its events…")
	go func() {
		actx, done := context.WithTimeout(ctx, calendarAddWait)
		defer done()
		cal, err := v.g.core.AddCloudCalendar(actx, a.ID, id)
		v.g.do(func() {
			f.working("")
			f.account.Enable()
			f.calendar.Enable()
			f.add.Enable()
			switch {
			case cal.ID != 0:
				f.dlg.Hide()
				if err != nil {
					v.done("Added ‘"+cal.Name+"’, but it could not be read yet: "+errText(err), true)
					return
				}
				v.done("Added ‘"+cal.Name+"’.", false)
			case ctx.Err() != nil:
				// the form was closed
			case errors.Is(err, calendar.ErrNoCalendarAccess):
				f.accountProblem.SetText(asSentence(err.Error()))
				f.accountProblem.Show()
			case err != nil:
				f.general.SetText("Could not add it: " + err.Error())
				f.general.Show()
			}
			f.fit()
		})
	}()
}
