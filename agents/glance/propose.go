package glance

import (
	"context"
	"fmt"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/proposal"
)

// checkProposal holds surfaced decision d to the rule for what Spirit may
// propose (package proposal), against the thread it is about as the index
// has it: whoever wrote the mail — and the model that read it — may have
// put anything into the sentence, the subject, the sender's name or the
// question quoted. What passes is shown as Check built it: the message,
// and the reply's task written by code for the thread's sender. me is
// the lawyer. An error that is not a *proposal.Dropped means
// the thread could not be read; either way the glance stays silent.
func checkProposal(ctx context.Context, ix *index.Index, d Decision, me mail.Me) (proposal.Checked, error) {
	f := proposal.Facts{Me: me.Addresses}
	if d.ThreadID > 0 {
		t, err := ix.ReadEmailThread(ctx, d.ThreadID)
		if err != nil {
			return proposal.Checked{}, fmt.Errorf("read thread %d: %w", d.ThreadID, err)
		}
		th := proposal.ThreadOf(t, d.MessageID, me)
		if d.Subject != "" {
			th.Subject = d.Subject // as the nudge names it, without "Re:"
		}
		f.Thread = &th
	}
	return proposal.Check(proposal.Proposed{Message: d.Message, Action: proposal.Reply, Thread: d.ThreadID,
		Quote: d.ask, Also: []string{d.wrote}, ByModel: d.Stage == StageAnalystModel}, f)
}
