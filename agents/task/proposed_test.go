package task

import (
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
)

// TestProposedOnly: a task that drafts the reply the lawyer accepted may
// draft on that thread only, to and copying only the people code checked;
// any other task drafts as its approval says.
func TestProposedOnly(t *testing.T) {
	marcy := mail.Address{Name: "Marcy Howard", Email: "marcy@howardlaw.com"}
	evil := mail.Address{Email: "attacker@evil.example"}
	accepted := Context{ThreadID: 7, To: []string{"marcy@howardlaw.com"}}
	draft := func(thread int64, to, cc []mail.Address) draftAction {
		return draftAction{ThreadID: thread, draft: mail.Draft{To: to, Cc: cc}}
	}
	for _, tc := range []struct {
		name    string
		ctx     Context
		act     draftAction
		wantErr string
	}{
		{"the accepted reply", accepted, draft(7, []mail.Address{marcy}, nil), ""},
		{"the address in another case", accepted, draft(7, []mail.Address{{Email: "Marcy@HowardLaw.com"}}, nil), ""},
		{"an outsider as recipient", accepted, draft(7, []mail.Address{evil}, nil), "attacker@evil.example is not one the lawyer accepted"},
		{"an outsider copied", accepted, draft(7, []mail.Address{marcy}, []mail.Address{evil}), "attacker@evil.example is not one"},
		{"another thread", accepted, draft(8, []mail.Address{marcy}, nil), "on conversation_id 7 only"},
		{"a new email", accepted, draft(0, []mail.Address{marcy}, nil), "on conversation_id 7 only"},
		{"a task the lawyer asked for", Context{ThreadID: 7}, draft(9, []mail.Address{evil}, nil), ""},
		{"a task on no thread", Context{}, draft(0, []mail.Address{evil}, nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := proposedOnly(tc.ctx, tc.act)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("got %v, want the draft allowed", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("got %v, want an error saying %q", err, tc.wantErr)
			}
		})
	}
}
