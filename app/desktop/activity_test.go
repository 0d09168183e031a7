package desktop

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/agents/task/tasktest"
)

// labels returns the texts of the labels under o, with the icon beside
// each one (nil if none): a plan step's mark.
func labels(o fyne.CanvasObject) map[string]fyne.Resource {
	out := map[string]fyne.Resource{}
	var walk func(o fyne.CanvasObject, icon fyne.Resource)
	walk = func(o fyne.CanvasObject, icon fyne.Resource) {
		switch w := o.(type) {
		case *widget.Label:
			out[w.Text] = icon
		case *widget.Form:
			for _, it := range w.Items {
				walk(it.Widget, nil)
			}
		case *fyne.Container:
			var ic fyne.Resource
			for _, c := range w.Objects {
				if i, ok := c.(*widget.Icon); ok {
					ic = i.Resource
				}
			}
			for _, c := range w.Objects {
				walk(c, ic)
			}
		}
	}
	walk(o, nil)
	return out
}

// hasLabel reports whether some label under o contains s, and its icon.
func hasLabel(o fyne.CanvasObject, s string) (fyne.Resource, bool) {
	for text, icon := range labels(o) {
		if strings.Contains(text, s) {
			return icon, true
		}
	}
	return nil, false
}

func TestActivityShowsAndCancelsAnAgent(t *testing.T) {
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	c, st := sp.core, sp.store
	g := &gui{core: c, fa: a, ctx: t.Context(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx := t.Context()
	if _, err := st.AppendEvent(ctx, store.Event{Source: "voice", Identifier: "s1", Text: "draft a reply to Marcy"}); err != nil {
		t.Fatal(err)
	}
	older := tasktest.Seed(t, st, "Find the Smith engagement letter")
	time.Sleep(5 * time.Millisecond)
	tk := tasktest.Seed(t, st, "Draft a reply to Marcy about the NDA term")

	v := newActivityView(g)
	applied := make(chan struct{}, 16)
	v.applied = func() { applied <- struct{}{} }
	wait := func(what string) {
		t.Helper()
		select {
		case <-applied:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the window did not refresh within 10 s", what)
		}
	}
	w := test.NewWindow(v.content)
	defer w.Close()
	w.Resize(fyne.NewSize(960, 560))

	// All activity: the world log, newest last, and the agents to filter by.
	v.reload()
	wait("first load")
	if v.status.Visible() {
		t.Fatalf("status shown: %q", v.status.Text)
	}
	if len(v.agents) != 2 {
		t.Fatalf("filter agents = %d, want 2: %+v", len(v.agents), v.agents)
	}
	if got := v.agents[0].Session; got != tk.Session {
		t.Fatalf("first filter agent = %q, want the newest %q", got, tk.Session)
	}
	if got := v.agents[1].Session; got != older.Session {
		t.Fatalf("second filter agent = %q, want the older %q", got, older.Session)
	}
	if n := v.filter.Length(); n != 3 {
		t.Errorf("filter has %d rows, want All activity + 2 agents", n)
	}
	// Spirit's own "started" line comes before what the test wrote.
	mine := slices.DeleteFunc(slices.Clone(v.entries), func(e store.Entry) bool { return e.Source == "system" })
	if len(mine) == 0 {
		t.Errorf("log entries = %+v, want the test's entries besides Spirit's own", v.entries)
	} else {
		if want := "draft a reply to Marcy"; mine[0].Text != want {
			t.Errorf("oldest entry = %q, want %q first (entries %+v)", mine[0].Text, want, v.entries)
		}
		if got, want := v.entries[len(v.entries)-1].Text, "step 2: draft the reply"; !strings.Contains(got, want) {
			t.Errorf("newest entry = %q, want one with %q last", got, want)
		}
	}
	if v.right.Objects[0] != v.logPane {
		t.Error("All activity does not show the log")
	}

	// Choose the newest agent.
	v.filter.Select(1)
	wait("agent load")
	if v.right.Objects[0] != v.agentPane {
		t.Fatal("the agent's pane is not shown")
	}
	if v.detail == nil {
		t.Fatalf("detail = nil, want agent %q", tk.Session)
	}
	if v.detail.Session != tk.Session {
		t.Fatalf("detail session = %q, want %q", v.detail.Session, tk.Session)
	}
	body := v.agentBody
	for _, want := range []string{
		"Draft a reply to Marcy about the NDA term",
		tk.Need,
		"waiting for you (lifecycle: active) · 1 run(s)",
		`tool search_email {"query":"Marcy NDA"} → 1 thread`,
		"question: Should the reply accept the 3-year term?",
		"start: Draft a reply to Marcy about the NDA term",
	} {
		if _, ok := hasLabel(body, want); !ok {
			t.Errorf("agent pane lacks %q; labels: %v", want, labels(body))
		}
	}
	for step, mark := range map[string]fyne.Resource{
		"1. find Marcy's thread": theme.ConfirmIcon(),
		"2. draft the reply":     theme.MediaPlayIcon(),
		"3. ask for approval":    theme.RadioButtonIcon(),
	} {
		icon, ok := hasLabel(body, step)
		if !ok {
			t.Errorf("plan step %q not shown", step)
		} else if icon == nil {
			t.Errorf("plan step %q has no mark, want %s", step, mark.Name())
		} else if icon.Name() != mark.Name() {
			t.Errorf("plan step %q marked %s, want %s", step, icon.Name(), mark.Name())
		}
	}
	if _, ok := hasLabel(body, "Find the Smith"); ok {
		t.Error("the agent pane shows another agent")
	}
	if v.cancelBtn.Disabled() {
		t.Fatal("Cancel agent is disabled for a waiting agent")
	}

	// Cancel: the task is cancelled, the pane says so, and Cancel is off.
	test.Tap(v.cancelBtn)
	wait("cancel")
	got, err := task.Get(ctx, st, tk.Session)
	if err != nil {
		t.Fatalf("after Cancel: %v", err)
	}
	if got.Phase != task.PhaseCancelled {
		t.Fatalf("after Cancel: phase %s, want %s", got.Phase, task.PhaseCancelled)
	}
	if v.status.Visible() {
		t.Errorf("status after cancel: %q", v.status.Text)
	}
	if !v.cancelBtn.Disabled() {
		t.Error("Cancel agent still enabled for a cancelled agent")
	}
	if !strings.Contains(v.agentHead.Text, "cancelled") {
		t.Errorf("header = %q", v.agentHead.Text)
	}
	if _, ok := hasLabel(body, "failed: cancelled by the lawyer"); !ok {
		t.Errorf("history lacks the cancel; labels: %v", labels(body))
	}
	if icon, _ := hasLabel(body, "2. draft the reply"); icon == nil {
		t.Errorf("a cancelled agent's step has no mark, want %s", theme.RadioButtonIcon().Name())
	} else if got, want := icon.Name(), theme.RadioButtonIcon().Name(); got != want {
		t.Errorf("a cancelled agent's step is marked %s, want %s, not under way", got, want)
	}
	if older, err := task.Get(ctx, st, older.Session); err != nil {
		t.Errorf("the other agent: %v", err)
	} else if older.Phase != task.PhaseWaiting {
		t.Errorf("the other agent's phase = %s, want %s", older.Phase, task.PhaseWaiting)
	}

	// Live: news in the log shows within a tick or two; nothing is redrawn
	// when nothing changes, nor once the window is closed.
	v.startLive()
	select {
	case <-applied:
		t.Fatal("the live view redrew with no news")
	case <-time.After(2500 * time.Millisecond):
	}
	if _, err := st.AppendEvent(ctx, store.Event{Source: "agent", Identifier: tk.Session, Text: "note: the lawyer will call Marcy"}); err != nil {
		t.Fatal(err)
	}
	wait("live news")
	if _, ok := hasLabel(body, "note: the lawyer will call Marcy"); !ok {
		t.Error("live news not shown in the agent's history")
	}
	v.stopLive()
	if _, err := st.AppendEvent(ctx, store.Event{Source: "agent", Identifier: tk.Session, Text: "after close"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-applied:
		t.Error("the view refreshed after the live refresh stopped")
	case <-time.After(2 * time.Second):
	}

	// Back to all activity.
	v.filter.Select(0)
	wait("back to all")
	if v.right.Objects[0] != v.logPane {
		t.Error("All activity after the agent does not show the log pane")
	}
	if got := v.entries[len(v.entries)-1].Text; got != "after close" {
		t.Errorf("All activity after the agent: last entry %q, want %q", got, "after close")
	}
}

func TestActivityCancelOfAnEndedAgentSaysSo(t *testing.T) {
	a := test.NewTempApp(t)
	sp := startSpirit(t, nil)
	c, st := sp.core, sp.store
	g := &gui{core: c, fa: a, ctx: t.Context(), log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	tk := tasktest.Seed(t, st, "Draft a reply to Marcy")

	v := newActivityView(g)
	// Each refresh says, from the goroutine that applied it, whether
	// Cancel was left disabled: the test never reads widgets while
	// another refresh may be writing them.
	applied := make(chan bool, 16)
	v.applied = func() { applied <- v.cancelBtn.Disabled() }
	w := test.NewWindow(v.content)
	defer w.Close()
	v.reload()
	<-applied
	v.filter.Select(1)
	// A refresh started before the selection (the agent's seeding is
	// an event too) can be the next one applied: wait for the one that
	// shows the agent.
	for disabled, shown := true, time.After(10*time.Second); disabled; {
		select {
		case disabled = <-applied:
		case <-shown:
			t.Fatal("Cancel disabled")
		}
	}
	// Cancelled elsewhere (the command line) while the window shows it.
	if _, err := c.CancelAgent(t.Context(), tk.Session); err != nil {
		t.Fatal(err)
	}
	test.Tap(v.cancelBtn)
	select {
	case <-applied:
	case <-time.After(10 * time.Second):
		t.Fatal("no refresh after Cancel")
	}
	if !v.status.Visible() {
		t.Error("no status after a failed cancel")
	}
	if !strings.Contains(v.status.Text, "already ended") {
		t.Errorf("status = %q, want one saying 'already ended'", v.status.Text)
	}
	if strings.Contains(v.status.Text, "conflict") {
		t.Errorf("status = %q, want a plain 'already ended' without 'conflict'", v.status.Text)
	}
	if !v.cancelBtn.Disabled() {
		t.Error("Cancel still enabled for an ended agent")
	}
}
