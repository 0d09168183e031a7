package desktop

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// exportWait bounds an export of the activity to a file.
const exportWait = 2 * time.Minute

// exportRow is Settings' "Export activity…": everything Spirit noted (the
// Activity window's log) as text, to a file the lawyer picks.
type exportRow struct {
	g       *gui
	win     fyne.Window
	button  *widget.Button
	status  *widget.Label
	content fyne.CanvasObject
	// bg counts the row's work off the main thread, so that a test can
	// wait for it to be shown.
	bg sync.WaitGroup
}

func newExportRow(g *gui, win fyne.Window) *exportRow {
	r := &exportRow{g: g, win: win, status: widget.NewLabel("")}
	r.status.Wrapping = fyne.TextWrapWord
	r.status.Importance = widget.LowImportance
	r.status.Hide()
	r.button = widget.NewButton("Export activity…", r.pick)
	r.content = container.NewVBox(container.NewHBox(r.button), r.status)
	return r
}

// pick asks where to save the activity, then writes it there.
func (r *exportRow) pick() {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		switch {
		case err != nil:
			showLabel(r.status, "Could not export: "+err.Error())
		case wc != nil: // nil: the lawyer cancelled
			r.write(wc, wc.URI().Path())
		}
	}, r.win)
	d.SetFileName("Spirit activity " + time.Now().Format("2006-01-02") + ".txt")
	d.Show()
}

// write exports the activity to wc off the main thread, closes it, and
// says how it went.
func (r *exportRow) write(wc io.WriteCloser, name string) {
	r.button.Disable()
	showLabel(r.status, "Exporting…")
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		ctx, cancel := context.WithTimeout(r.g.ctx, exportWait)
		defer cancel()
		n, err := r.g.core.ExportActivity(ctx, wc)
		if cerr := wc.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			r.g.log.Error("export activity", "file", name, "err", err)
		}
		r.g.do(func() {
			r.button.Enable()
			if err != nil {
				showLabel(r.status, "Could not export: "+err.Error())
				return
			}
			showLabel(r.status, fmt.Sprintf("Exported %d entries to %s.", n, name))
		})
	}()
}
