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
	if err != nil || q.Title != "Question" || q.Message != "Which one?" || !q.NoDefault {
		t.Fatalf("question prompt %+v, %v", q, err)
	}
	if got := choiceIDs(q.Options); got != "answer:Short=Short|answer:Long=Long|answer:Neither=Neither|answer:Ask Priya=Ask Priya" {
		t.Errorf("question options %s", got)
	}
	if got := choiceIDs(q.Choices); got != "dismiss=Dismiss" || q.Cancel != api.ActionDismiss {
		t.Errorf("question buttons %s cancel %s", got, q.Cancel)
	}

	a, err := buildPrompt(store.Nudge{Kind: nudge.KindApproval, Message: "Save this reply in Drafts?",
		Detail: `{"tool":"create_draft","title":"Draft reply","fields":[{"label":"To","value":"Marcy Howard <marcy@x.com>"},{"label":"Cc","value":""},{"label":"Subject","value":"Re: SNDA"}],"body":"Hi Marcy,\n\nAgreed.\n\nDana"}`}, now)
	if err != nil || a.Title != "Approve?" || a.Body != "Hi Marcy,\n\nAgreed.\n\nDana" || len(a.Fields) != 3 || a.Fields[0] != (widgets.Field{Label: "To", Value: "Marcy Howard <marcy@x.com>"}) {
		t.Fatalf("approval prompt %+v, %v", a, err)
	}
	if got := choiceIDs(a.Choices); got != "accept=Approve|edit=Edit|dismiss=Deny" || !a.NoDefault {
		t.Errorf("approval buttons %s", got)
	}

	h, _ := buildPrompt(store.Nudge{Kind: nudge.KindHelp, Message: "The draft failed twice."}, now)
	if got := choiceIDs(h.Choices); h.Title != "Need help" || got != "accept=Try again|dismiss=Stop" || h.Placeholder != "Tell Spirit how to go on…" {
		t.Errorf("help prompt %+v", h)
	}
	r, _ := buildPrompt(store.Nudge{Kind: nudge.KindResult, Message: "Drafted the reply."}, now)
	if got := choiceIDs(r.Choices); r.Title != "Done" || got != "accept=OK|open_activity=Show activity" {
		t.Errorf("result prompt %+v", r)
	}

	bad, err := buildPrompt(store.Nudge{Kind: nudge.KindQuestion, Message: "Garbled", Detail: `{"options": [1,`}, now)
	if err == nil || bad.Message != "Garbled" || choiceIDs(bad.Choices) != choiceIDs(nudge.DefaultChoices()) || len(bad.Options) != 0 || bad.Body != "" {
		t.Errorf("question with bad detail: %+v, %v", bad, err)
	}
	// An approval the lawyer cannot see in full can only be denied.
	for _, detail := range []string{`{"options": [1,`, ``, `{}`} {
		bad, err := buildPrompt(store.Nudge{Kind: nudge.KindApproval, Message: "Garbled", Detail: detail}, now)
		if err == nil || !strings.HasPrefix(bad.Message, "Garbled") || choiceIDs(bad.Choices) != "dismiss=Deny" || bad.Body != "" {
			t.Errorf("approval with detail %q: %+v, %v", detail, bad, err)
		}
	}
}
