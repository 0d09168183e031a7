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

	a, err := buildPrompt(store.Nudge{Kind: nudge.KindApproval, Message: "Save this reply in Drafts?",
		Detail: `{"tool":"create_draft","title":"Draft reply","fields":[{"label":"To","value":"Marcy Howard <marcy@x.com>"},{"label":"Cc","value":""},{"label":"Subject","value":"Re: SNDA"}],"body":"Hi Marcy,\n\nAgreed.\n\nDana"}`}, now)
	if err != nil {
		t.Fatalf("approval prompt: %v", err)
	}
	if a.Title != "Approve?" {
		t.Errorf("approval title = %q, want %q", a.Title, "Approve?")
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
