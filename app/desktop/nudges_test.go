package desktop

import (
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/desktop/widgets"
)

func choiceIDs(cs []widgets.Choice) string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID+"="+c.Label)
	}
	return strings.Join(ids, "|")
}

func TestPromptForAgentKinds(t *testing.T) {
	now := time.Now()
	q, err := buildPrompt(store.Nudge{Kind: nudge.KindQuestion, Message: "Which one?",
		Detail: `{"options":["Short","Long","Neither","Ask Priya","Fifth"]}`}, now)
	if err != nil {
		t.Fatalf("question prompt: %v", err)
	}
	if q.Title != "Question" {
		t.Errorf("question title = %q, want Question", q.Title)
	}
	if q.Message != "Which one?" {
		t.Errorf("question message = %q, want %q", q.Message, "Which one?")
	}
	if !q.NoDefault {
		t.Error("question NoDefault = false, want true")
	}
	if got, want := choiceIDs(q.Options), "answer:Short=Short|answer:Long=Long|answer:Neither=Neither|answer:Ask Priya=Ask Priya"; got != want {
		t.Errorf("question options = %s, want %s", got, want)
	}
	if got, want := choiceIDs(q.Choices), "dismiss=Dismiss"; got != want {
		t.Errorf("question buttons = %s, want %s", got, want)
	}
	if q.Cancel != api.ActionDismiss {
		t.Errorf("question cancel = %s, want %s", q.Cancel, api.ActionDismiss)
	}

	if g, _ := buildPrompt(store.Nudge{Kind: nudge.KindGlance, Message: "Marcy Howard is waiting on your reply. Draft one?"}, now); g.Title != "Email" {
		t.Errorf("glance title = %q, want Email", g.Title)
	}

	a, err := buildPrompt(store.Nudge{Kind: nudge.KindApproval, Message: "Save this reply in Drafts?",
		Detail: `{"tool":"create_draft","title":"Draft reply","fields":[{"label":"To","value":"Marcy Howard <marcy@x.com>"},{"label":"Cc","value":""},{"label":"Subject","value":"Re: SNDA"}],"body":"Hi Marcy,\n\nAgreed.\n\nDana"}`}, now)
	if err != nil {
		t.Fatalf("approval prompt: %v", err)
	}
	if a.Title != "Approval" {
		t.Errorf("approval title = %q, want %q", a.Title, "Approval")
	}
	if want := "Hi Marcy,\n\nAgreed.\n\nDana"; a.Body != want {
		t.Errorf("approval body = %q, want %q", a.Body, want)
	}
	if len(a.Fields) != 3 {
		t.Fatalf("approval fields = %d, want 3: %+v", len(a.Fields), a.Fields)
	}
	if want := (widgets.Field{Label: "To", Value: "Marcy Howard <marcy@x.com>"}); a.Fields[0] != want {
		t.Errorf("approval first field = %+v, want %+v", a.Fields[0], want)
	}
	if got, want := choiceIDs(a.Choices), "accept=Approve|edit=Edit|dismiss=Deny"; got != want {
		t.Errorf("approval buttons = %s, want %s", got, want)
	}
	if !a.NoDefault {
		t.Error("approval NoDefault = false, want true")
	}

	h, _ := buildPrompt(store.Nudge{Kind: nudge.KindHelp, Message: "The draft failed twice."}, now)
	if h.Title != "Need help" {
		t.Errorf("help title = %q, want %q", h.Title, "Need help")
	}
	if got, want := choiceIDs(h.Choices), "accept=Try again|dismiss=Stop"; got != want {
		t.Errorf("help buttons = %s, want %s", got, want)
	}
	if want := "Tell Spirit how to go on…"; h.Placeholder != want {
		t.Errorf("help placeholder = %q, want %q", h.Placeholder, want)
	}
	r, _ := buildPrompt(store.Nudge{Kind: nudge.KindResult, Message: "Drafted the reply."}, now)
	if r.Title != "Done" {
		t.Errorf("result title = %q, want Done", r.Title)
	}
	if got, want := choiceIDs(r.Choices), "accept=OK|open_activity=Show activity"; got != want {
		t.Errorf("result buttons = %s, want %s", got, want)
	}

	bad, err := buildPrompt(store.Nudge{Kind: nudge.KindQuestion, Message: "Garbled", Detail: `{"options": [1,`}, now)
	if err == nil {
		t.Error("question with bad detail: no error, want one")
	}
	if bad.Message != "Garbled" {
		t.Errorf("question with bad detail: message = %q, want Garbled", bad.Message)
	}
	if got, want := choiceIDs(bad.Choices), choiceIDs(nudge.DefaultChoices()); got != want {
		t.Errorf("question with bad detail: buttons = %s, want the defaults %s", got, want)
	}
	if len(bad.Options) != 0 {
		t.Errorf("question with bad detail: options = %+v, want none", bad.Options)
	}
	if bad.Body != "" {
		t.Errorf("question with bad detail: body = %q, want none", bad.Body)
	}
	// An approval the lawyer cannot see in full can only be denied.
	for _, tc := range []struct{ name, detail string }{
		{"truncated JSON", `{"options": [1,`},
		{"no detail", ``},
		{"empty detail", `{}`},
	} {
		t.Run("approval with "+tc.name, func(t *testing.T) {
			bad, err := buildPrompt(store.Nudge{Kind: nudge.KindApproval, Message: "Garbled", Detail: tc.detail}, now)
			if err == nil {
				t.Errorf("detail %q: no error, want one", tc.detail)
			}
			if !strings.HasPrefix(bad.Message, "Garbled") {
				t.Errorf("message = %q, want prefix Garbled", bad.Message)
			}
			if got, want := choiceIDs(bad.Choices), "dismiss=Deny"; got != want {
				t.Errorf("buttons = %s, want only %s", got, want)
			}
			if bad.Body != "" {
				t.Errorf("body = %q, want none", bad.Body)
			}
		})
	}
}

func TestOpensExpanded(t *testing.T) {
	for _, tc := range []struct {
		kind string
		want bool
	}{
		{nudge.KindQuestion, true},        // a running task asks back
		{nudge.KindApproval, true},        // a task waits for the go-ahead
		{nudge.KindHelp, true},            // a task is stuck
		{nudge.KindReminder, true},        // a reminder fell due
		{nudge.KindReminderConfirm, true}, // the lawyer just asked for a reminder
		{nudge.KindReminderTrigger, true}, // … or one tied to a moment
		{nudge.KindReminderWhen, true},
		{nudge.KindReminderList, true},
		{nudge.KindGlance, false}, // a proposal about the email on screen
		{nudge.KindInfo, false},
		{nudge.KindResult, false},
		{"proposal", false}, // a kind raised through the local API
	} {
		t.Run(tc.kind, func(t *testing.T) {
			if got := opensExpanded(tc.kind); got != tc.want {
				t.Errorf("opensExpanded(%q) = %v, want %v", tc.kind, got, tc.want)
			}
		})
	}
}

func TestFoldsBack(t *testing.T) {
	left := formState{hovered: true, outFor: pointerGrace}
	for _, tc := range []struct {
		name string
		s    formState
		want bool
	}{
		{"the pointer left a moment ago", left, true},
		{"the pointer left long ago", formState{hovered: true, outFor: time.Minute}, true},
		{"the pointer just slipped off", formState{hovered: true, outFor: pointerGrace - time.Millisecond}, false},
		{"the pointer is over it", formState{hovered: true, pointerIn: true}, false},
		{"never pointed at: opened whole, it stays whole", formState{outFor: time.Minute}, false},
		{"text typed: never lost", formState{hovered: true, outFor: time.Minute, typed: true}, false},
		{"clicked into, it has the keyboard", formState{hovered: true, outFor: time.Minute, hasKeys: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := foldsBack(tc.s); got != tc.want {
				t.Errorf("foldsBack(%+v) = %v, want %v", tc.s, got, tc.want)
			}
		})
	}
}

func TestGlanceSummary(t *testing.T) {
	for _, tc := range []struct{ name, message, want string }{
		{"the glance's own words", "Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens. Draft a reply?",
			"Marcy Howard: SNDA – Brooklyn Gardens"},
		{"a subject cut short", "Priya Shah is waiting on your reply about Estoppel certificate for the Brooklyn Gardens closing, second round of comm… Draft a reply?",
			"Priya Shah: Estoppel certificate for the Brooklyn Gardens closing, second round of comm…"},
		{"a subject with a full stop inside", "Owen Park is waiting on your reply about Acme Inc. merger. Draft a reply?",
			"Owen Park: Acme Inc. merger"},
		{"a model's own wording: the first sentence instead", "Marcy asked whether §4.2(b) survives foreclosure. Want me to draft a reply?", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := glanceSummary(tc.message); got != tc.want {
				t.Errorf("glanceSummary(%q) = %q, want %q", tc.message, got, tc.want)
			}
		})
	}
	p := promptFor(store.Nudge{Kind: nudge.KindGlance, Message: "Marcy Howard is waiting on your reply about SNDA – Brooklyn Gardens. Draft a reply?"}, time.Now())
	if want := "Marcy Howard: SNDA – Brooklyn Gardens"; p.Summary != want {
		t.Errorf("glance prompt summary = %q, want %q", p.Summary, want)
	}
	if p := promptFor(store.Nudge{Kind: nudge.KindInfo, Message: "Marcy Howard is waiting on your reply about SNDA. Draft a reply?"}, time.Now()); p.Summary != "" {
		t.Errorf("info prompt summary = %q, want none (its first sentence)", p.Summary)
	}
}

func TestWithSnoozeLength(t *testing.T) {
	reminder := nudge.SpecFor(nudge.KindReminder).Choices
	for _, tc := range []struct {
		name    string
		minutes int
		want    string
	}{
		{"the default", 10, "accept=Done|snooze=Snooze 10 min|dismiss=Dismiss"},
		{"minutes", 25, "accept=Done|snooze=Snooze 25 min|dismiss=Dismiss"},
		{"whole hours", 120, "accept=Done|snooze=Snooze 2 h|dismiss=Dismiss"},
		{"hours and minutes", 90, "accept=Done|snooze=Snooze 1 h 30 min|dismiss=Dismiss"},
		{"not a length: unchanged", 0, "accept=Done|snooze=Snooze 10 min|dismiss=Dismiss"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := choiceIDs(withSnoozeLength(reminder, tc.minutes)); got != tc.want {
				t.Errorf("withSnoozeLength(%d) = %s, want %s", tc.minutes, got, tc.want)
			}
		})
	}
	if got := choiceIDs(nudge.SpecFor(nudge.KindReminder).Choices); got != "accept=Done|snooze=Snooze 10 min|dismiss=Dismiss" {
		t.Errorf("the spec's choices changed: %s", got)
	}
}
