package widgets

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// DocumentView renders a kept document's Markdown (headings, lists,
// emphasis) in a box as tall as the text, up to maxHeight (longer text
// scrolls; 0: no cap), and returns it with a Copy button that puts the
// Markdown itself on the clipboard, for pasting into a note or an email.
func DocumentView(markdown string, maxHeight float32) (fyne.CanvasObject, *widget.Button) {
	rich := widget.NewRichTextFromMarkdown(markdown)
	rich.Wrapping = fyne.TextWrapWord
	// A title at heading size takes two lines of a bubble's width for a
	// meeting's name: the document's own title reads as a sub-heading.
	for _, seg := range rich.Segments {
		if t, ok := seg.(*widget.TextSegment); ok && t.Style.SizeName == theme.SizeNameHeadingText {
			t.Style.SizeName = theme.SizeNameSubHeadingText
		}
	}
	var copyBtn *widget.Button
	copyBtn = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		fyne.CurrentApp().Clipboard().SetContent(markdown)
		copyBtn.SetText("Copied")
	})
	if maxHeight <= 0 {
		return rich, copyBtn
	}
	return container.New(&capHeight{max: maxHeight, inner: rich}, container.NewVScroll(rich)), copyBtn
}
