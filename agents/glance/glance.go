// Package glance decides, when the user switches to a window, whether
// Spirit should offer help with the email on screen. It is the
// deterministic part of the glance: a triage cascade (exclusions, window
// title, screen text) finds the email, and an analyst reads its thread in
// the mail index and decides with a confident-match gate and rules. Every
// doubt ends in silence: a missed nudge costs little, a wrong one costs
// the user's trust.
package glance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// Reasons a Decision gives.
const (
	ReasonNeedsReply = "needs_reply"
	ReasonNotEmail   = "not_email"
	// ReasonNotMessage: a mail client's window that shows no message to
	// read (compose, a prompt, settings, calendar, contacts): no search.
	ReasonNotMessage     = "not_message"
	ReasonNoMatch        = "no_match"
	ReasonAmbiguous      = "ambiguous"
	ReasonAlreadyReplied = "already_replied"
	ReasonFYI            = "fyi"
	ReasonNewsletter     = "newsletter"
	ReasonExcluded       = "excluded"
	// ReasonOverBudget: the code stage ran out of CodeBudget before it
	// decided, so the glance stays silent.
	ReasonOverBudget = "over_budget"
)

// CodeBudget bounds the code stage of one glance (triage and analyst) by
// the wall clock, as Models.Timeout bounds each model stage. On any real
// window the code decides in milliseconds (see glance_decision_p95_ms in
// `make bench`) and its work is capped (index.MaxSubjectRunes, the
// title's head and tail, maxScreenRunes), so the budget is a backstop for
// what the caps do not bound (a huge index, a huge message body, a slow
// disk): a nudge that comes seconds after the switch is about a window the
// user has left, and a glance must never hold the next one up.
const CodeBudget = 2 * time.Second

// errOverBudget is the cause of the code stage's context when CodeBudget
// runs out, which tells it from the caller's cancellation.
var errOverBudget = errors.New("code stage over budget")

// Stages that decide.
const (
	StageGate    = "gate"
	StageTriage  = "triage"
	StageAnalyst = "analyst"
)

// Input is the window switch the glance looks at.
type Input struct {
	App, Title string
	// ScreenText is OCR of the window; it may be empty and may carry
	// misread letters.
	ScreenText string
	// ScreenLines is OCR of the reading pane's or message window's
	// header region with positions (HeaderReader, screen/ocr's
	// ReadLines). When set it is read by layout (ParseHeader) and
	// ScreenText is not used: quoted history in a body then never stands
	// for the open message's header.
	ScreenLines []layout.Line
	// Header is the open message's header as the application exposes it
	// to the OS (the accessibility tree): exact, so it is read before
	// ScreenLines and ScreenText, and its subject is matched exactly.
	Header *ScreenInfo
	// Excluded is set when the caller's exclusions already matched.
	Excluded bool
	// Now is the wall clock at the switch: mail after it is not yet seen.
	Now time.Time
	// Me holds the user's own addresses, MeName their display name.
	Me     []string
	MeName string
}

// Decision is the glance's verdict.
type Decision struct {
	Surface bool   `json:"surface"`
	Reason  string `json:"reason"`
	Stage   string `json:"stage"`
	// MessageID is the newest message of the thread the decision is
	// about, ThreadID its thread in the index.
	MessageID string `json:"message_id,omitempty"`
	ThreadID  int64  `json:"thread_id,omitempty"`
	Subject   string `json:"subject,omitempty"`
	Sender    string `json:"sender,omitempty"`
	// Message is the nudge shown to the user, ActionPrompt the task
	// handed to the assistant when the user accepts it.
	Message      string `json:"message,omitempty"`
	ActionPrompt string `json:"action_prompt,omitempty"`
	// ModelCalls counts calls to a model; always 0 in this package.
	ModelCalls int `json:"model_calls"`

	// ask is the newest message's asking sentence the code found, which
	// the reply's task quotes; wrote is what else the analyst model wrote
	// about the action. Both are outside text that the proposal's check
	// holds to its rules (checkProposal); neither is shown as it is.
	ask, wrote string
}

// Decide runs the triage and the analyst on one window switch. An error
// comes with a silent Decision that names the stage that failed. A code
// stage that runs out of CodeBudget is silent with ReasonOverBudget and
// no error: nothing failed, the glance gave up in time.
func Decide(ctx context.Context, ix *index.Index, in Input) (Decision, error) {
	return decide(ctx, ix, in, CodeBudget)
}

// decide is Decide with the code stage's budget.
func decide(ctx context.Context, ix *index.Index, in Input, budget time.Duration) (Decision, error) {
	if in.Excluded {
		return silent(StageGate, ReasonExcluded), nil
	}
	// The built-in exclusions are applied again here so that a caller
	// that forgot them still never reads a password manager.
	if ex, _ := screen.NewExclusions(nil, nil).Match(platform.Window{Title: in.Title, Name: in.App, Process: in.App}); ex {
		return silent(StageGate, ReasonExcluded), nil
	}
	if ParseTitle(in.App, in.Title).NotMessage != "" {
		return silent(StageTriage, ReasonNotMessage), nil
	}
	bctx, cancel := context.WithTimeoutCause(ctx, budget, errOverBudget)
	defer cancel()
	cand, ok := triage(in)
	if overBudget(ctx, bctx) {
		return silent(StageTriage, ReasonOverBudget), nil
	}
	if !ok {
		return silent(StageTriage, ReasonNotEmail), nil
	}
	return analyseBudgeted(ctx, bctx, ix, in, cand)
}

// analyseBudgeted runs the analyst under bctx, the code stage's budget
// derived from ctx, and turns running out of it into a silent decision.
func analyseBudgeted(ctx, bctx context.Context, ix *index.Index, in Input, cand candidate) (Decision, error) {
	d, err := analyse(bctx, ix, in, cand)
	if overBudget(ctx, bctx) {
		// Also when analyse finished just as time ran out: a verdict
		// reached after the budget is as late as one never reached.
		return silent(StageAnalyst, ReasonOverBudget), nil
	}
	if err != nil {
		return silent(StageAnalyst, d.Reason), fmt.Errorf("glance: %w", err)
	}
	return d, nil
}

// overBudget reports whether bctx ended because the code stage's budget
// ran out rather than because ctx, the caller's, was cancelled (which is
// an error for the caller to see).
func overBudget(ctx, bctx context.Context) bool {
	return ctx.Err() == nil && errors.Is(context.Cause(bctx), errOverBudget)
}

// candidate is what the triage found to look for.
type candidate struct {
	Subject string
	// FromScreen marks a subject read by OCR, which may be misspelt.
	FromScreen              bool
	SenderName, SenderEmail string
	// SenderFromScreen marks a sender read by OCR, whose letters may be
	// misread (matchSender tolerates a few).
	SenderFromScreen bool
}

// triage decides from the title and the screen text whether an inbound
// email is open, and which.
func triage(in Input) (candidate, bool) {
	ti := ParseTitle(in.App, in.Title)
	si := screenInfo(in)
	// What is matched is capped: every later step (normalising, titleAgrees,
	// the index's search) then does bounded work, however long the title.
	ti.Subject, si.Subject = index.CapSubject(ti.Subject), index.CapSubject(si.Subject)
	switch {
	case ti.Mail() && ti.Subject != "":
		c := candidate{Subject: ti.Subject}
		// The screen's sender narrows the search only when it belongs
		// to the titled message (no subject read, or the same one).
		if si.Email && (si.Subject == "" || titleAgrees(ti.Subject, si.Subject)) {
			c.SenderName, c.SenderEmail = si.SenderName, si.SenderEmail
			c.SenderFromScreen = in.Header == nil
		}
		return c, true
	case si.Email && si.Subject != "":
		// A list view of a mail client, or another app showing a
		// received email (a browser on an unknown webmail): the screen
		// text must carry the whole header block.
		// An exact header's subject is not misread: a near miss is
		// another thread, as for a title's.
		return candidate{Subject: si.Subject, FromScreen: in.Header == nil, SenderName: si.SenderName, SenderEmail: si.SenderEmail,
			SenderFromScreen: in.Header == nil}, true
	}
	return candidate{}, false
}

// screenInfo reads the screen: the exact header when the application
// gave one, by layout when lines with positions came, from the flat text
// otherwise.
func screenInfo(in Input) ScreenInfo {
	if in.Header != nil {
		return *in.Header
	}
	if len(in.ScreenLines) > 0 {
		return ParseHeader(in.ScreenLines)
	}
	return ParseScreen(in.ScreenText)
}

// titleAgrees reports whether the screen's subject is the title's, so
// that a sender read off the screen belongs to the titled message.
func titleAgrees(title, screenSubject string) bool {
	if screenSubject == "" {
		return false
	}
	a, b := index.NormalizeSubject(title), index.NormalizeSubject(screenSubject)
	return a == b || strings.HasPrefix(b, a) || strings.HasPrefix(a, b)
}

func silent(stage, reason string) Decision {
	return Decision{Stage: stage, Reason: reason}
}
