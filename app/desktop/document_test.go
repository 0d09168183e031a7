package desktop

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task/tasktest"
	"github.com/spirit-app/spirit/app/desktop/widgets"
)

const briefMarkdown = "# Brief: SNDA call\n\nTue 16 Jun 10:30–11:00\n\n## Open threads\n\n" +
	"- “SNDA - Brooklyn Gardens” — Marcy Howard: “Can you take a first pass?”"

// richTextIn is the document's RichText under o: the one with the most
// segments (labels are RichTexts of one segment).
func richTextIn(o fyne.CanvasObject) *widget.RichText {
	var best *widget.RichText
	for _, x := range test.LaidOutObjects(o) {
		if r, ok := x.(*widget.RichText); ok && (best == nil || len(r.Segments) > len(best.Segments)) {
			best = r
		}
	}
	return best
}

// TestBriefDocumentInBubble: a nudge bringing a kept document shows its
// Markdown rendered (a heading, a list) with Copy, which puts the Markdown
// itself on the clipboard; a detail that is not a document shows none.
func TestBriefDocumentInBubble(t *testing.T) {
	for _, tc := range []struct {
		name, kind, detail string
		want               string // the prompt's document
	}{
		{"brief without a model", nudge.KindInfo, mustDetail(t, nudge.DocumentRef{Document: 3, Title: "Brief: SNDA call", Markdown: briefMarkdown}), briefMarkdown},
		{"agent's brief", nudge.KindResult, mustDetail(t, nudge.DocumentRef{Document: 4, Title: "Brief: SNDA call", Markdown: briefMarkdown}), briefMarkdown},
		{"plain result", nudge.KindResult, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := buildPrompt(store.Nudge{Kind: tc.kind, Message: "Your brief for “SNDA call” is ready.", Detail: tc.detail}, time.Now())
			if err != nil || p.Document != tc.want {
				t.Fatalf("prompt document %q, %v; want %q", p.Document, err, tc.want)
			}
		})
	}

	a := test.NewTempApp(t)
	p, _ := buildPrompt(store.Nudge{Kind: nudge.KindInfo, Message: "Your brief for “SNDA call” is ready.",
		Detail: mustDetail(t, nudge.DocumentRef{Document: 3, Title: "Brief: SNDA call", Markdown: briefMarkdown})}, time.Now())
	b := widgets.NewBubble(p, func(widgets.Answer) {})
	w := test.NewWindow(b)
	defer w.Close()
	w.Resize(fyne.NewSize(widgets.BubbleWidth, 600))
	rich := richTextIn(w.Content())
	if rich == nil {
		t.Fatal("the bubble renders no document")
	}
	checkRendered(t, rich)
	test.Tap(b.CopyButton())
	if got := a.Clipboard().Content(); got != briefMarkdown {
		t.Errorf("clipboard %q, want the brief's Markdown", got)
	}
	if b.CopyButton().Text != "Copied" {
		t.Errorf("Copy says %q after copying", b.CopyButton().Text)
	}
}

// checkRendered: the Markdown is rendered, not shown as typed: a heading
// and a bullet list, no "#" or "- " marks left in the text.
func checkRendered(t *testing.T, rich *widget.RichText) {
	t.Helper()
	var heading, list bool
	for _, s := range rich.Segments {
		switch s := s.(type) {
		case *widget.TextSegment:
			if s.Style.SizeName != "" && strings.Contains(s.Text, "Brief: SNDA call") {
				heading = true
			}
			if strings.HasPrefix(s.Text, "#") {
				t.Errorf("a heading mark is left: %q", s.Text)
			}
		case *widget.ListSegment:
			list = true
		}
	}
	if !heading || !list {
		t.Errorf("rendered heading %v, list %v; segments %d", heading, list, len(rich.Segments))
	}
}

func mustDetail(t *testing.T, v any) string {
	t.Helper()
	d, err := nudge.Detail(v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestActivityShowsAgentDocument: an agent's kept document is in its
// Activity pane, rendered, with Copy.
func TestActivityShowsAgentDocument(t *testing.T) {
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	g := &gui{core: sp.core, fa: a, ctx: t.Context(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	tk := tasktest.Seed(t, sp.store, "Write a short brief for the SNDA call")
	if _, err := sp.store.AddDocument(t.Context(), store.Document{Title: "Brief: SNDA call", Markdown: briefMarkdown, Agent: tk.Session}); err != nil {
		t.Fatal(err)
	}
	v := newActivityView(g)
	applied := make(chan struct{}, 16)
	v.applied = func() { applied <- struct{}{} }
	w := test.NewWindow(v.content)
	defer w.Close()
	w.Resize(fyne.NewSize(960, 560))
	v.reload()
	<-applied
	v.filter.Select(1)
	select {
	case <-applied:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent's pane did not load within 10 s")
	}
	if v.detail == nil || len(v.detail.Documents) != 1 {
		t.Fatalf("detail %+v, want the agent with its document", v.detail)
	}
	if !contains(labelsIn(v.agentBody), "Brief: SNDA call") {
		t.Errorf("the pane does not name the document: %q", labelsIn(v.agentBody))
	}
	rich := richTextIn(v.agentBody)
	if rich == nil {
		t.Fatal("the pane renders no document")
	}
	checkRendered(t, rich)
	copyBtn := buttonIn(v.agentBody, "Copy")
	if copyBtn == nil {
		t.Fatal("no Copy beside the document")
	}
	test.Tap(copyBtn)
	if got := a.Clipboard().Content(); got != briefMarkdown {
		t.Errorf("clipboard %q, want the brief's Markdown", got)
	}
}

// TestActivityOpensKeptBrief: a brief kept without an agent is named in
// the activity log; choosing that line opens it, rendered, with Copy.
func TestActivityOpensKeptBrief(t *testing.T) {
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	g := &gui{core: sp.core, fa: a, ctx: t.Context(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	doc, err := sp.store.AddDocument(t.Context(), store.Document{Title: "Brief: SNDA call", Markdown: briefMarkdown, Origin: "nudge-2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.store.AppendEvent(t.Context(), store.Event{Source: "calendar", Identifier: fmt.Sprintf("document-%d", doc.ID),
		Text: "brief kept: Brief: SNDA call"}); err != nil {
		t.Fatal(err)
	}
	v := newActivityView(g)
	applied := make(chan struct{}, 16)
	v.applied = func() { applied <- struct{}{} }
	w := test.NewWindow(v.content)
	defer w.Close()
	g.activity = w
	w.Resize(fyne.NewSize(960, 560))
	v.reload()
	<-applied
	i := slices.IndexFunc(v.entries, func(e store.Entry) bool { return strings.Contains(e.Text, "brief kept") })
	if i < 0 {
		t.Fatalf("the log does not name the brief: %+v", v.entries)
	}
	v.log.Select(i)
	deadline := time.Now().Add(10 * time.Second)
	for v.shownDocument.Load() != doc.ID {
		if time.Now().After(deadline) {
			t.Fatal("the brief did not open within 10 s")
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronisation
	}
	top := w.Canvas().Overlays().Top()
	if top == nil || buttonIn(top, "Copy") == nil && overlayButton(w, "Copy") == nil {
		t.Fatal("no document dialog with Copy")
	}
	rich := richTextIn(top)
	if rich == nil {
		t.Fatal("the dialog renders no document")
	}
	checkRendered(t, rich)
}
