package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
)

// calendarAddWait bounds adding a calendar: finding a CalDAV account's
// calendars and reading each once.
const calendarAddWait = 5 * time.Minute

// calendarField is one field of an Add form. Its key is the
// calendar.Field… name an add's *calendar.FieldError uses, so the error
// shows under it.
type calendarField struct {
	key, label, placeholder, hint string
	secret                        bool // a password entry
	file                          bool // a path with a "Choose…" file picker (.ics)
}

// calendarKind is one entry of the Add menu: its form and what adding
// does with the values typed, by field key.
type calendarKind struct {
	label  string // the menu entry
	title  string // the form's title
	intro  string // one line above the form
	fields []calendarField
	add    func(ctx context.Context, c Core, values map[string]string, progress func(string)) ([]app.CalendarAdded, error)
	// cloud is the mail account kind (index.Kind…) whose sign-in reads
	// the calendar; such a kind has no fields and no add: its form picks
	// the account and one of its calendars (cloud_calendar_settings.go).
	cloud string
}

var nameField = calendarField{key: calendar.FieldName, label: "Name", placeholder: "optional", hint: "how Spirit names it; the calendar's own name when empty"}

// addCalendarOf adds a calendar of kind from the form's values.
func addCalendarOf(kind string) func(context.Context, Core, map[string]string, func(string)) ([]app.CalendarAdded, error) {
	return func(ctx context.Context, c Core, v map[string]string, progress func(string)) ([]app.CalendarAdded, error) {
		nc := calendar.NewCalendar{Kind: kind, Name: v[calendar.FieldName], User: v[calendar.FieldUser], Password: v[calendar.FieldPassword]}
		for _, k := range []string{calendar.FieldFile, calendar.FieldURL, calendar.FieldServer} {
			if s := v[k]; s != "" {
				nc.Source = s
			}
		}
		return c.AddCalendar(ctx, nc, progress)
	}
}

// calendarKinds are the Add menu's entries, in order.
func calendarKinds() []calendarKind {
	kinds := []calendarKind{
		{label: "iCalendar file (.ics)…", title: "Add a calendar file",
			intro:  "A calendar exported to a file. Spirit reads it again every 5 minutes, so a file you export again is picked up.",
			fields: []calendarField{{key: calendar.FieldFile, label: "File", placeholder: "/home/you/Calendar.ics", file: true}, nameField},
			add:    addCalendarOf(store.CalendarFile)},
		{label: "Subscription (webcal:// or https:// address)…", title: "Subscribe to a calendar",
			intro:  "A calendar someone shares by address, such as court dates or the firm's holidays.",
			fields: []calendarField{{key: calendar.FieldURL, label: "Address", placeholder: "webcal://…  or  https://…/calendar.ics"}, nameField},
			add:    addCalendarOf(store.CalendarURL)},
		{label: "CalDAV account (iCloud, Fastmail, Nextcloud…)…", title: "Add a CalDAV account",
			intro: "Every calendar of the account is added; the address of one calendar adds only that one.",
			fields: []calendarField{
				{key: calendar.FieldServer, label: "Server", placeholder: "https://caldav.fastmail.com", hint: "your provider's CalDAV address"},
				{key: calendar.FieldUser, label: "User name", placeholder: "you@firm.com"},
				{key: calendar.FieldPassword, label: "Password", secret: true, hint: "an app password if your provider uses them; kept in the system keychain"},
				nameField},
			add: addCalendarOf(store.CalendarCalDAV)},
	}
	return append(kinds, cloudCalendarKinds()...)
}

// calendarKindName is a stored calendar's kind in the lawyer's words.
func calendarKindName(kind string) string {
	switch kind {
	case store.CalendarFile:
		return "iCalendar file"
	case store.CalendarURL:
		return "Subscription"
	case store.CalendarCalDAV:
		return "CalDAV"
	case store.CalendarMicrosoft:
		return "Microsoft 365"
	case store.CalendarGoogle:
		return "Google Calendar"
	}
	return kind
}

// calendarRowText is what a calendar's row says: its name and kind, then
// its events and last sync, then its problem in plain words ("" when it
// synced).
func calendarRowText(c app.CalendarInfo, loc *time.Location) (title, detail, problem string) {
	name := strings.TrimSpace(c.Name)
	if name == "" {
		name = c.Source
	}
	title = name + "  ·  " + calendarKindName(c.Kind)
	events := fmt.Sprintf("%d events", c.Events)
	if c.Events == 1 {
		events = "1 event"
	}
	switch {
	case !c.LastSync.IsZero():
		detail = events + " · synced " + c.LastSync.In(loc).Format("Jan 2 15:04")
	case c.LastError != "":
		detail = "never synced"
	default:
		detail = "not synced yet"
	}
	if c.Problem != "" {
		problem = "Last sync failed"
		if !c.ErrorAt.IsZero() {
			problem += " " + c.ErrorAt.In(loc).Format("Jan 2 15:04")
		}
		problem += ": " + c.Problem
	}
	return title, detail, problem
}

// fieldOf is the field of fields an add's error belongs under, or "" for
// an error of no one field (shown under the form).
func fieldOf(err error, fields []calendarField) string {
	var fe *calendar.FieldError
	if !errors.As(err, &fe) {
		return ""
	}
	for _, f := range fields {
		if f.key == fe.Field {
			return f.key
		}
	}
	return ""
}

// addedText says what an add did, for the page's status line.
func addedText(added []app.CalendarAdded) string {
	var parts []string
	for _, a := range added {
		name := "‘" + a.Calendar.Name + "’"
		switch {
		case a.Err != nil:
			parts = append(parts, "Could not read "+name+", so it was not added: "+calendar.Plain(errText(a.Err)))
		case a.Events == 1:
			parts = append(parts, "Added "+name+": 1 event.")
		default:
			parts = append(parts, fmt.Sprintf("Added %s: %d events.", name, a.Events))
		}
	}
	return strings.Join(parts, " ")
}

// errText is a sync error's own message, without the "sync calendar N: "
// Sync puts before it.
func errText(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "sync calendar ") {
		return rest
	}
	return msg
}

// calendarsView is Settings' "Calendars" page.
type calendarsView struct {
	g        *gui
	w        fyne.Window
	rows     *fyne.Container
	status   *widget.Label
	progress *widget.ProgressBarInfinite
	syncNow  *widget.Button
	content  fyne.CanvasObject
	// form is the Add form on screen, for tests; nil when none.
	form *calendarForm
	// cloud is the Microsoft 365 or Google form on screen; nil when none.
	cloud *cloudForm
	// openMail, when set, shows Settings' Mail accounts tab.
	openMail func()
	// loaded, when set (tests), runs after each list is shown.
	loaded func()
	// note is the tray's calendar note last seen (main thread only).
	note string
}

// statusChanged follows the tray's calendar note: when a round of the
// five-minute sync ends, or a calendar starts or stops failing, the list
// is read again so it shows what the tray says.
func (v *calendarsView) statusChanged(note string) {
	if note == v.note {
		return
	}
	v.note = note
	if note != app.CalendarsSyncing {
		v.reload()
	}
}

func newCalendarsView(g *gui, w fyne.Window) *calendarsView {
	v := &calendarsView{g: g, w: w, rows: container.NewVBox(), status: widget.NewLabel(""), progress: widget.NewProgressBarInfinite()}
	v.status.Wrapping = fyne.TextWrapWord
	v.progress.Stop()
	v.progress.Hide()
	add := widget.NewButtonWithIcon("Add calendar…", theme.ContentAddIcon(), nil)
	add.Importance = widget.HighImportance
	add.OnTapped = func() {
		var items []*fyne.MenuItem
		for _, k := range calendarKinds() {
			items = append(items, fyne.NewMenuItem(k.label, func() {
				if k.cloud != "" {
					v.showCloudAdd(k)
					return
				}
				v.showAdd(k)
			}))
		}
		widget.ShowPopUpMenuAtRelativePosition(fyne.NewMenu("", items...), w.Canvas(), fyne.NewPos(0, add.Size().Height), add)
	}
	v.syncNow = widget.NewButtonWithIcon("Sync now", theme.ViewRefreshIcon(), v.sync)
	note := widget.NewLabel("Spirit reads your calendars to prepare you for meetings with people whose mail waits on you. " +
		"It adds an event only when you approve one. Each is read again every 5 minutes.")
	note.Wrapping = fyne.TextWrapWord
	note.Importance = widget.LowImportance
	bottom := container.NewVBox(v.progress, v.status, container.NewHBox(add, v.syncNow))
	v.content = container.NewBorder(note, bottom, nil, nil, container.NewVScroll(v.rows))
	return v
}

// reload reads the calendars off the main thread and shows them.
func (v *calendarsView) reload() {
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, 5*time.Second)
		defer cancel()
		cs, err := v.g.core.Calendars(ctx)
		v.g.do(func() { v.show(cs, err) })
	}()
}

func (v *calendarsView) show(cs []app.CalendarInfo, err error) {
	v.rows.RemoveAll()
	switch {
	case err != nil:
		l := widget.NewLabel("Could not read the calendars: " + err.Error())
		l.Importance = widget.DangerImportance
		v.rows.Add(l)
	case len(cs) == 0:
		l := widget.NewLabel("No calendars yet. Add one below: a file, a subscription, a CalDAV account, or the calendar of your Microsoft 365 or Gmail account.")
		l.Wrapping = fyne.TextWrapWord
		v.rows.Add(l)
	}
	if len(cs) == 0 {
		v.syncNow.Disable()
	} else {
		v.syncNow.Enable()
	}
	for _, c := range cs {
		title, detail, problem := calendarRowText(c, time.Local)
		// Name, place, state and problem read as one block.
		box := container.New(&tightVBox{}, widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		src := c.Source
		if c.Username != "" {
			src += " as " + c.Username
		}
		where := widget.NewLabel(src)
		where.Importance = widget.LowImportance
		where.Truncation = fyne.TextTruncateEllipsis
		box.Add(where)
		box.Add(widget.NewLabel(detail))
		if problem != "" {
			p := widget.NewLabel(problem)
			p.Importance = widget.DangerImportance
			p.Wrapping = fyne.TextWrapWord
			box.Add(p)
		}
		remove := widget.NewButtonWithIcon("Remove…", theme.DeleteIcon(), func() { v.remove(c) })
		v.rows.Add(container.NewBorder(nil, nil, nil, container.NewVBox(remove), box))
		v.rows.Add(widget.NewSeparator())
	}
	v.rows.Refresh()
	if v.loaded != nil {
		v.loaded()
	}
}

// busy shows the page's progress bar and says what runs, or hides it.
func (v *calendarsView) busy(what string) {
	if what == "" {
		v.progress.Stop()
		v.progress.Hide()
		return
	}
	v.status.Importance = widget.MediumImportance
	v.status.SetText(what)
	v.progress.Show()
	v.progress.Start()
}

// done ends what busy started with a note (a problem when isErr).
func (v *calendarsView) done(note string, isErr bool) {
	v.busy("")
	v.status.Importance = widget.MediumImportance
	if isErr {
		v.status.Importance = widget.DangerImportance
	}
	v.status.SetText(note)
	v.reload()
}

// sync reads every calendar now; the tray says so too.
func (v *calendarsView) sync() {
	v.syncNow.Disable()
	v.busy(app.CalendarsSyncing)
	go func() {
		ctx, cancel := context.WithTimeout(v.g.ctx, calendarAddWait)
		defer cancel()
		err := v.g.core.SyncCalendarsNow(ctx)
		v.g.do(func() {
			v.syncNow.Enable()
			if err != nil {
				v.done("Could not sync: "+err.Error(), true)
				return
			}
			v.done("Synced "+time.Now().Format("15:04")+".", false)
		})
	}()
}

func (v *calendarsView) remove(c app.CalendarInfo) {
	events := fmt.Sprintf("its %d events go", c.Events)
	if c.Events == 1 {
		events = "its 1 event goes"
	}
	name := strings.TrimSpace(c.Name)
	if name == "" {
		name = c.Source
	}
	dialog.ShowConfirm("Remove calendar", "Remove ‘"+name+"’ from Spirit? "+strings.ToUpper(events[:1])+events[1:]+
		" from Spirit, and Spirit stops preparing its meetings. The calendar itself is not touched.", func(ok bool) {
		if !ok {
			return
		}
		v.busy("Removing ‘" + name + "’…")
		go func() {
			ctx, cancel := context.WithTimeout(v.g.ctx, 30*time.Second)
			defer cancel()
			err := v.g.core.RemoveCalendar(ctx, c.ID)
			v.g.do(func() {
				if err != nil {
					v.done("Could not remove ‘"+name+"’: "+err.Error(), true)
					return
				}
				v.done("Removed ‘"+name+"’ and its events.", false)
			})
		}()
	}, v.w)
}

// calendarForm is an Add form on screen: its entries and the labels under
// them, by field key.
type calendarForm struct {
	kind     calendarKind
	dlg      dialog.Dialog
	entries  map[string]*widget.Entry
	problems map[string]*widget.Label
	general  *widget.Label // an error of no one field
	progress *widget.ProgressBarInfinite
	note     *widget.Label
	add      *widget.Button
	cancel   context.CancelFunc // the add under way; nil when none
	content  fyne.CanvasObject
}

// fit sizes the form to what it shows now: a problem or the progress
// makes it taller, and their going shorter again.
func (f *calendarForm) fit() {
	f.dlg.Resize(fyne.NewSize(520, f.content.MinSize().Height+80))
}

// showAdd opens kind's form. It stays open until the calendars are added
// or the lawyer cancels; a problem shows under its field.
func (v *calendarsView) showAdd(kind calendarKind) {
	f := &calendarForm{kind: kind, entries: map[string]*widget.Entry{}, problems: map[string]*widget.Label{}}
	form := widget.NewForm()
	for _, fd := range kind.fields {
		e := widget.NewEntry()
		if fd.secret {
			e = widget.NewPasswordEntry()
		}
		e.SetPlaceHolder(fd.placeholder)
		f.entries[fd.key] = e
		problem := widget.NewLabel("")
		problem.Importance = widget.DangerImportance
		problem.Wrapping = fyne.TextWrapWord
		problem.Hide()
		f.problems[fd.key] = problem
		var input fyne.CanvasObject = e
		if fd.file {
			choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() {
				fd := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
					if err == nil && r != nil {
						e.SetText(r.URI().Path())
						r.Close()
					}
				}, v.w)
				fd.SetFilter(storage.NewExtensionFileFilter([]string{".ics", ".ICS"}))
				fd.Resize(fyne.NewSize(620, 440))
				fd.Show()
			})
			input = container.NewBorder(nil, nil, nil, choose, e)
		}
		item := widget.NewFormItem(fd.label, container.NewVBox(input, problem))
		item.HintText = fd.hint
		form.AppendItem(item)
	}
	intro := widget.NewLabel(kind.intro)
	intro.Wrapping = fyne.TextWrapWord
	f.general = widget.NewLabel("")
	f.general.Importance = widget.DangerImportance
	f.general.Wrapping = fyne.TextWrapWord
	f.general.Hide()
	f.progress = widget.NewProgressBarInfinite()
	f.progress.Stop()
	f.progress.Hide()
	f.note = widget.NewLabel("")
	f.note.Hide()
	f.add = widget.NewButton("Add", func() { v.submit(f) })
	f.add.Importance = widget.HighImportance
	cancel := widget.NewButton("Cancel", func() {
		if f.cancel != nil {
			f.cancel()
		}
		f.dlg.Hide()
	})
	buttons := container.NewHBox(layout.NewSpacer(), cancel, f.add)
	content := container.NewVBox(intro, form, f.general, f.progress, f.note, buttons)
	f.content = content
	f.dlg = dialog.NewCustomWithoutButtons(kind.title, content, v.w)
	f.dlg.SetOnClosed(func() {
		if v.form == f {
			v.form = nil
		}
	})
	f.fit()
	v.form = f
	f.dlg.Show()
	for _, fd := range kind.fields {
		v.w.Canvas().Focus(f.entries[fd.key])
		break
	}
}

// submit adds the form's calendars off the main thread, with progress; a
// problem goes under its field and the form stays open.
func (v *calendarsView) submit(f *calendarForm) {
	values := map[string]string{}
	for k, e := range f.entries {
		values[k] = e.Text
		f.problems[k].Hide()
	}
	f.general.Hide()
	f.add.Disable()
	f.progress.Show()
	f.progress.Start()
	f.note.SetText("Checking…")
	f.note.Show()
	f.fit()
	ctx, cancel := context.WithTimeout(v.g.ctx, calendarAddWait)
	f.cancel = cancel
	go func() {
		defer cancel()
		added, err := f.kind.add(ctx, v.g.core, values, func(msg string) {
			v.g.do(func() { f.note.SetText(msg) })
		})
		v.g.do(func() {
			f.cancel = nil
			f.progress.Stop()
			f.progress.Hide()
			f.note.Hide()
			f.add.Enable()
			defer f.fit()
			if err != nil {
				if ctx.Err() != nil && v.g.ctx.Err() == nil && errors.Is(err, context.Canceled) {
					return // the lawyer cancelled
				}
				if key := fieldOf(err, f.kind.fields); key != "" {
					f.problems[key].SetText(err.Error())
					f.problems[key].Show()
				} else {
					f.general.SetText("Could not add it: " + err.Error())
					f.general.Show()
				}
				return
			}
			f.dlg.Hide()
			failed := false
			for _, a := range added {
				failed = failed || a.Err != nil
			}
			v.done(addedText(added), failed)
		})
	}()
}
