package desktop

import (
	"context"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/voice/model"
)

// deleteAllText is the confirmation's text: what "Delete all Spirit
// data…" deletes.
func deleteAllText() string {
	return "This deletes, from this computer:\n" +
		"  •  everything Spirit noted: activity, transcripts and what agents did\n" +
		"  •  your reminders and the commitments Spirit heard\n" +
		"  •  the index of your mail (your mailboxes are not touched)\n" +
		"  •  your calendars in Spirit, and events it saved for your calendar\n" +
		"  •  your routines\n" +
		"  •  every setting\n" +
		"  •  your mail passwords and sign-ins\n" +
		"  •  your AI service's key\n" +
		"  •  the key Spirit kept in this computer's keychain to protect those passwords\n\n" +
		"Spirit then starts again and asks you to set it up as on the first day. This cannot be undone."
}

// deleteAllRow is Settings' "Delete all Spirit data…": after a
// confirmation that names what goes, Spirit stops, deletes its data and
// starts again as on the first day.
type deleteAllRow struct {
	g       *gui
	win     fyne.Window
	button  *widget.Button
	status  *widget.Label
	content fyne.CanvasObject
	// models is the confirmation's "also the speech models" tick; set
	// while it is shown.
	models *widget.Check
}

func newDeleteAllRow(g *gui, win fyne.Window) *deleteAllRow {
	r := &deleteAllRow{g: g, win: win, status: problemLabel()}
	r.button = widget.NewButtonWithIcon("Delete all Spirit data…", theme.DeleteIcon(), r.ask)
	r.button.Importance = widget.DangerImportance
	note := widget.NewLabel("Spirit starts again as on its first day. Your mailboxes, calendars and files are not touched.")
	note.Wrapping = fyne.TextWrapWord
	note.Importance = widget.LowImportance
	r.content = container.NewVBox(container.NewHBox(r.button), note, r.status)
	return r
}

// modelsSize is the size of the downloaded speech models, "" for none.
func modelsSize(dataDir string, catalog []model.Model) string {
	var n int64
	for _, s := range model.Statuses(dataDir, catalog) {
		n += s.Size + s.Partial
	}
	if n == 0 {
		return ""
	}
	return mib(n)
}

// ask shows the confirmation.
func (r *deleteAllRow) ask() {
	what := widget.NewLabel(deleteAllText())
	what.Wrapping = fyne.TextWrapWord
	label := "Also delete the speech models"
	if size := modelsSize(r.g.dataDir(), r.g.models.catalog); size != "" {
		label += " (" + size + "; they would be downloaded again)"
	}
	r.models = widget.NewCheck(label, nil)
	content := container.NewVBox(what, r.models)
	d := dialog.NewCustomConfirm("Delete all Spirit data?", "Delete everything and start again", "Cancel", content,
		func(ok bool) {
			if ok {
				r.confirm(r.models.Checked)
			}
		}, r.win)
	d.SetConfirmImportance(widget.DangerImportance)
	d.Resize(fyne.NewSize(520, 0))
	d.Show()
}

// confirm asks the core to stop, delete and start again; it quits the
// windows itself.
func (r *deleteAllRow) confirm(models bool) {
	r.button.Disable()
	showLabel(r.status, "Deleting… Spirit starts again in a moment.")
	go func() {
		ctx, cancel := context.WithTimeout(r.g.ctx, 5*time.Second)
		defer cancel()
		if err := r.g.core.DeleteAllData(ctx, app.DeleteAll{Models: models}); err != nil {
			r.g.log.Error("delete all data", "err", err)
			r.g.do(func() {
				r.button.Enable()
				showLabel(r.status, "Nothing was deleted: "+err.Error())
			})
		}
	}()
}
