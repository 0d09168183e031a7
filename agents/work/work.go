// Package work is the one runner for "Spirit does something outside a
// conversation": a heartbeat, a routine the lawyer scheduled, a local
// webhook, a meeting about to start (the calendar). Every request has the same shape —
// input gate, work, output gate — and ends in exactly one outcome,
// recorded in the work_runs table and as one line of the world log: done
// (delivered or not), skip with a reason, or error, each with its
// duration, tokens and cost.
//
// The model reaches the lawyer only by calling notify_user, a tool without
// side effect; the runner's output gate decides whether that message is
// delivered. Text the model writes that merely looks like a notification
// is never delivered. The work itself can only read: mail, reminders, the
// world log. Anything that needs a write becomes the delivered nudge's
// action, which starts a task agent if the lawyer accepts it.
package work

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/agents/work/pace"
)

// Source says what asked for the work: Spirit's own parts ("heartbeat",
// "routine:3", "calendar"), or a local program through the webhook, in
// its own namespace ("webhook", "webhook:efile"; WebhookSource).
type Source string

// Sources the app uses.
const (
	SourceHeartbeat Source = "heartbeat"
	SourceWebhook   Source = "webhook"
	SourceCalendar  Source = "calendar"
)

// routinePrefix begins a routine's source.
const routinePrefix = "routine:"

// RoutineSource is the source of routine id's runs.
func RoutineSource(id int64) Source { return Source(routinePrefix + strconv.FormatInt(id, 10)) }

// Routine returns the routine id of a routine's source.
func (s Source) Routine() (int64, bool) {
	rest, ok := strings.CutPrefix(string(s), routinePrefix)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}

var (
	sourceRE = regexp.MustCompile(`^[a-z][a-z0-9._-]*(:[a-z0-9._-]+)?$`)
	// nameRE is a local program's own name for itself, as the webhook's
	// caller gives it ("efile", "script:backup").
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(:[a-z0-9._-]+)?$`)
)

// webhookPrefix begins the source of every request from outside but the
// plain webhook's.
const webhookPrefix = string(SourceWebhook) + ":"

// Valid reports whether s can name a source, up to 64 bytes: lower-case
// letters, digits, '.', '_', '-', and at most one ':' before a sub-name;
// in the webhook's namespace, a name as WebhookSource takes it.
func (s Source) Valid() bool {
	if len(s) > 64 {
		return false
	}
	if name, ok := strings.CutPrefix(string(s), webhookPrefix); ok {
		return nameRE.MatchString(name)
	}
	return sourceRE.MatchString(string(s))
}

// Outside reports whether s is a local program's, through the webhook,
// rather than one of Spirit's own parts.
func (s Source) Outside() bool {
	return s == SourceWebhook || strings.HasPrefix(string(s), webhookPrefix)
}

// WebhookSource is the source of a request from outside whose caller
// named itself name: "" and "webhook" are the webhook itself, any other
// name is "webhook:"+name (once), so that no caller can pass for one of
// Spirit's own parts, whatever it calls itself ("calendar" is
// "webhook:calendar"). A name that cannot be used is an error matching
// store.ErrInvalid that says what a name may be.
func WebhookSource(name string) (Source, error) {
	if name == "" || name == string(SourceWebhook) {
		return SourceWebhook, nil
	}
	s := Source(name)
	if !s.Outside() {
		s = Source(webhookPrefix + name)
	}
	if !s.Valid() {
		return "", fmt.Errorf(`work: %w: source must be lower-case letters, digits, ".", "_" or "-", with at most one ":", up to %d characters`,
			store.ErrInvalid, 64-len(webhookPrefix))
	}
	return s, nil
}

// Reason is why a request was skipped.
type Reason string

// Skip reasons.
const (
	ReasonOutsideActiveHours Reason = "outside-active-hours" // the request's input gate (the heartbeat's hours)
	ReasonPaused             Reason = "paused"               // Spirit is paused
	ReasonNoProvider         Reason = "no-provider"          // the work needs a model and none is set
	ReasonBusy               Reason = "busy"                 // the same source is still running
	ReasonDuplicate          Reason = "duplicate"            // same text or dedup key delivered within the window
	ReasonQuietHours         Reason = pace.QuietHours        // the lawyer's quiet hours
	ReasonHourlyCap          Reason = pace.HourlyCap         // enough unasked-for nudges this hour
	ReasonAck                Reason = "ack"                  // the model chose not to notify
)

// Status is an outcome's kind: store.WorkDone, store.WorkSkip or
// store.WorkError.
type Status = store.WorkState

// InputGate decides before the work whether it runs: "" lets it, a reason
// skips it. It must not call the model.
type InputGate func(ctx context.Context, now time.Time) Reason

// OutputGate may hold back a notice the runner's own gate would deliver:
// "" lets it through, a reason skips it.
type OutputGate func(ctx context.Context, now time.Time, n Notice) Reason

// Notice is what the model asked, through notify_user, to tell the lawyer.
type Notice struct {
	Message string `json:"message"`
	// Action, if set, is a task Spirit would do if the lawyer accepts
	// (the nudge's action prompt): the only way work leads to a write.
	Action string `json:"action,omitempty"`
	// Thread and To, for a reply that proposal.Check built: the lawyer's
	// thread it answers and its recipients, the thread's people. Do it
	// drafts exactly there, to exactly them: the task agent may not pick
	// others (task.Context.To).
	Thread int64    `json:"conversation_id,omitempty"`
	To     []string `json:"to,omitempty"`
}

// Usage is what a run cost.
type Usage struct {
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Tokens is input and output tokens together.
func (u Usage) Tokens() int { return u.InputTokens + u.OutputTokens }

// Result is what work found: a notice, or nil to stay quiet.
type Result struct {
	Notice *Notice
	Usage  Usage
}

// Work does a request's work. The Usage of a failed run is still counted
// when it comes with the error in a non-zero Result.
type Work func(ctx context.Context, req Request) (Result, error)

// Request is one piece of work.
type Request struct {
	Source Source
	Prompt string
	// DedupKey marks requests that must not deliver twice (a routine's
	// scheduled time, a webhook's own key) within the window.
	DedupKey string
	// InputGate runs after the runner's own (busy, paused) and before the
	// work; nil lets everything through.
	InputGate InputGate
	// Work does the work; nil is the model with the read-only tools and
	// notify_user (Runner.ModelWork).
	Work Work
	// OutputGate runs before the runner's own (duplicate, quiet hours,
	// hourly cap); nil lets everything through.
	OutputGate OutputGate
	// Deliver, if set, shows this request's delivery instead of
	// Options.Deliver: code's work with a nudge of its own kind (the
	// calendar's meeting offer, with its own subject).
	Deliver Deliver
	// Done, if set, hears the outcome once it is recorded and before the
	// source may run again.
	Done func(ctx context.Context, o Outcome)
	// Unstored is appended to Prompt, as is, in what the model is sent,
	// and never written to work_runs: what the lawyer's screen showed (the
	// heartbeat's digest of the last minutes) stays in memory.
	Unstored string
	// late says the routine's time passed while Spirit was off.
	late time.Time
}

// Outcome is how one request ended.
type Outcome struct {
	ID        int64         `json:"id"`
	Source    Source        `json:"source"`
	Status    Status        `json:"status"`
	Reason    Reason        `json:"reason,omitempty"` // a skip's reason
	Err       string        `json:"error,omitempty"`  // an error's text, or why a delivery failed
	Delivered bool          `json:"delivered"`
	Notice    *Notice       `json:"notice,omitempty"` // what notify_user asked for, delivered or not
	NudgeID   int64         `json:"nudge_id,omitempty"`
	Duration  time.Duration `json:"-"` // as duration_ms in JSON
	Usage     Usage         `json:"usage"`
}

// MarshalJSON writes the duration in milliseconds, as the store keeps it.
func (o Outcome) MarshalJSON() ([]byte, error) {
	type plain Outcome
	return json.Marshal(struct {
		plain
		DurationMS int64 `json:"duration_ms"`
	}{plain(o), o.Duration.Milliseconds()})
}

// OutcomeOf reads a stored run as an Outcome; ok is false while it has
// none yet (queued or running).
func OutcomeOf(r store.WorkRun) (Outcome, bool) {
	o := Outcome{ID: r.ID, Source: Source(r.Source), Status: r.State, NudgeID: r.NudgeID,
		Duration: time.Duration(r.DurationMS) * time.Millisecond,
		Usage:    Usage{InputTokens: r.TokensIn, OutputTokens: r.TokensOut, CostUSD: r.CostUSD}}
	if r.Message != "" {
		o.Notice = &Notice{Message: r.Message, Action: r.Action}
	}
	switch r.State {
	case store.WorkSkip:
		o.Reason = Reason(r.Reason)
	case store.WorkError:
		o.Err = r.Reason
	case store.WorkDone:
		o.Delivered = r.Delivered != nil
		o.Err = r.Reason
	default:
		return o, false
	}
	return o, true
}

// Delivery is a notice the output gate let through, for the app to show.
type Delivery struct {
	RunID   int64
	Source  Source
	Message string
	Action  string // the nudge's action prompt, if any
	// Thread and To are a checked reply's thread and recipients (Notice).
	Thread int64
	To     []string
	// Subject is the nudge's subject (store.WorkIdentifier): the hourly
	// cap and the glance count nudges by it (pace.Unasked).
	Subject string
}

// Deliver shows a delivery to the lawyer (the app makes it a nudge) and
// returns the nudge's id, 0 if none was stored.
type Deliver func(ctx context.Context, d Delivery) (nudgeID int64, err error)

// Budget bounds one model run.
type Budget struct {
	Steps     int           // model calls
	Wall      time.Duration // wall-clock time for the work
	MaxTokens int           // output tokens per call
}

// DefaultBudget: a few searches and reads, then a word or silence.
var DefaultBudget = Budget{Steps: 8, Wall: 2 * time.Minute, MaxTokens: 1024}

// DefaultDedupWindow is how long a delivered text or dedup key blocks the
// same again.
const DefaultDedupWindow = 24 * time.Hour

// Bounds on the runs in flight, so that a flood of requests from outside
// costs neither a model call each nor a goroutine and a row each.
const (
	// DefaultMaxRunning is how many runs may do their work (a model's
	// steps) at once; the others wait for a slot.
	DefaultMaxRunning = 4
	// DefaultMaxQueued is how many requests from outside (Source.Outside)
	// may be accepted and not yet ended; Start refuses more (ErrTooMany).
	DefaultMaxQueued = 64
)

// ErrTooMany is returned (wrapped) by Start for a request from outside
// while Options.MaxQueued of them are in flight: nothing is recorded, and
// the caller may try again once some have ended.
var ErrTooMany = errors.New("too many requests are in flight")

// ErrNoProvider, returned (wrapped) by Options.Provider, skips a request
// with ReasonNoProvider; so does a nil provider. task.ErrNoProvider is
// recognised too.
var ErrNoProvider = errors.New("no model provider is configured")

// Options configure a Runner.
type Options struct {
	Store *store.Store
	// Index backs the mail tools; nil offers none.
	Index *index.Index
	// Provider returns the provider and model for the work; a nil
	// provider or ErrNoProvider skips with ReasonNoProvider.
	Provider func(ctx context.Context) (llm.Provider, string, error)
	// Deliver shows a notice the gates let through.
	Deliver Deliver
	// Policy is the lawyer's pacing, the glance's: quiet hours and the
	// hourly cap. An error ends the request in an error.
	Policy func(ctx context.Context) (pace.Policy, error)
	// Paused reports that Spirit is paused; nil: never.
	Paused func(ctx context.Context) bool
	// Tools are more read-only tools for the model (open commitments).
	Tools       []Tool
	DedupWindow time.Duration // zero: DefaultDedupWindow
	Budget      Budget        // zero fields: DefaultBudget's
	// MaxRunning bounds the runs doing their work at once; zero:
	// DefaultMaxRunning.
	MaxRunning int
	// MaxQueued bounds the requests from outside in flight; zero:
	// DefaultMaxQueued.
	MaxQueued int
	// Prices estimate cost; nil: llm.DefaultPrices().
	Prices map[string]llm.Price
	// Now is the clock; its location is the lawyer's time zone.
	Now func() time.Time
	Log *slog.Logger
}

// Runner runs work requests. Apart from which sources are running now, it
// keeps nothing between requests: what a gate needs is in the store. It
// is safe for concurrent use.
type Runner struct {
	opt Options

	mu       sync.Mutex
	inflight map[Source]held // source → the run holding it
	stats    Stats           // outcomes recorded since New
	outside  int             // requests from outside accepted and not ended

	// slots bounds the runs doing their work at once: a run puts a token
	// in for its work and takes it out after.
	slots chan struct{}
	gate  gate

	life   context.Context // background runs (Start, RunDue) end with it
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New checks the options and returns a runner; Close stops its
// background runs.
func New(opt Options) (*Runner, error) {
	if opt.Store == nil || opt.Deliver == nil || opt.Policy == nil {
		return nil, errors.New("work runner: store, deliver and policy are required")
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.DedupWindow <= 0 {
		opt.DedupWindow = DefaultDedupWindow
	}
	if opt.Budget.Steps <= 0 {
		opt.Budget.Steps = DefaultBudget.Steps
	}
	if opt.Budget.Wall <= 0 {
		opt.Budget.Wall = DefaultBudget.Wall
	}
	if opt.Budget.MaxTokens <= 0 {
		opt.Budget.MaxTokens = DefaultBudget.MaxTokens
	}
	if opt.MaxRunning <= 0 {
		opt.MaxRunning = DefaultMaxRunning
	}
	if opt.MaxQueued <= 0 {
		opt.MaxQueued = DefaultMaxQueued
	}
	r := &Runner{opt: opt, inflight: map[Source]held{}, stats: Stats{Skips: map[Reason]int64{}},
		slots: make(chan struct{}, opt.MaxRunning), gate: newGate()}
	r.life, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

// Close cancels the background runs and waits for their outcomes.
func (r *Runner) Close() {
	r.cancel()
	r.wg.Wait()
}

// Wait waits for the background runs started so far.
func (r *Runner) Wait() { r.wg.Wait() }

// Run runs req now and returns its outcome, which is also recorded. The
// error is for a request that cannot be accepted or an outcome that could
// not be recorded; everything else is an outcome.
func (r *Runner) Run(ctx context.Context, req Request) (Outcome, error) {
	run, err := r.accept(ctx, req)
	if err != nil {
		return Outcome{}, err
	}
	return r.execute(ctx, run, req)
}

// Start accepts req, records it as queued and runs it in the background,
// under the runner's life rather than ctx (a webhook's request ends long
// before its work). The run's id finds its outcome (Runner.Outcome). A
// request from outside while Options.MaxQueued of them are in flight is
// refused with ErrTooMany.
func (r *Runner) Start(ctx context.Context, req Request) (store.WorkRun, error) {
	var ended func()
	if req.Source.Outside() {
		if !r.enqueue() {
			return store.WorkRun{}, fmt.Errorf("work: %w: %d requests from local programs are still in flight", ErrTooMany, r.opt.MaxQueued)
		}
		ended = r.dequeue
	}
	run, err := r.accept(ctx, req)
	if err != nil {
		if ended != nil {
			ended()
		}
		return store.WorkRun{}, err
	}
	r.background(run, req, ended)
	return run, nil
}

// enqueue counts one more request from outside in flight; false, and not
// counted, when MaxQueued already are.
func (r *Runner) enqueue() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.outside >= r.opt.MaxQueued {
		return false
	}
	r.outside++
	return true
}

func (r *Runner) dequeue() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outside--
}

// background executes run under the runner's life; ended, if set, is
// called once it has its outcome.
func (r *Runner) background(run store.WorkRun, req Request, ended func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if ended != nil {
			defer ended()
		}
		if _, err := r.execute(r.life, run, req); err != nil {
			r.opt.Log.Error("work: outcome not recorded", "run", run.ID, "source", req.Source, "err", err)
		}
	}()
}

// Outcome returns run id's outcome; ok is false while it has none yet.
func (r *Runner) Outcome(ctx context.Context, id int64) (Outcome, bool, error) {
	run, err := r.opt.Store.WorkRun(ctx, id)
	if err != nil {
		return Outcome{}, false, err
	}
	o, ok := OutcomeOf(run)
	return o, ok, nil
}

// Recover gives the runs a stopped Spirit left without an outcome theirs:
// an error. Call it once at start, before any request. A delivery such a
// run had claimed stays claimed, so that the same message or key is not
// delivered again (a routine's catch-up after a crash).
func (r *Runner) Recover(ctx context.Context) (int, error) {
	open, err := r.opt.Store.OpenWorkRuns(ctx)
	if err != nil {
		return 0, err
	}
	for _, run := range open {
		o := Outcome{ID: run.ID, Source: Source(run.Source), Status: store.WorkError,
			Err: "interrupted: Spirit stopped before the work ended"}
		if run.Delivered != nil {
			o.Notice = &Notice{Message: run.Message, Action: run.Action}
		}
		if _, _, err := r.opt.Store.FinishWorkRun(ctx, run.ID, stored(o, false)); err != nil && !errors.Is(err, store.ErrWorkFinished) {
			return 0, err
		}
	}
	return len(open), nil
}

// accept checks and records a request.
func (r *Runner) accept(ctx context.Context, req Request) (store.WorkRun, error) {
	if !req.Source.Valid() {
		return store.WorkRun{}, fmt.Errorf("work: %w: source %q", store.ErrInvalid, req.Source)
	}
	if req.Work == nil && strings.TrimSpace(req.Prompt) == "" {
		return store.WorkRun{}, fmt.Errorf("work: %w: empty prompt", store.ErrInvalid)
	}
	return r.opt.Store.CreateWorkRun(ctx, store.NewWorkRun{Source: string(req.Source), Prompt: req.Prompt, DedupKey: req.DedupKey})
}

// held is a running source's run and its dedup key.
type held struct {
	run int64
	key string
}

// claim marks source as running for run; false if it already is.
func (r *Runner) claim(source Source, run int64, key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, busy := r.inflight[source]; busy {
		return false
	}
	r.inflight[source] = held{run, key}
	return true
}

func (r *Runner) release(source Source, run int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inflight[source].run == run {
		delete(r.inflight, source)
	}
}

// runningKey is the dedup key of source's running run; ok is false when
// none runs.
func (r *Runner) runningKey(source Source) (key string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ok := r.inflight[source]
	return h.key, ok
}

// Running reports whether source is running now.
func (r *Runner) Running(source Source) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.inflight[source]
	return ok
}

// execute takes an accepted run to its one outcome.
func (r *Runner) execute(ctx context.Context, run store.WorkRun, req Request) (Outcome, error) {
	start := time.Now()
	o := Outcome{ID: run.ID, Source: req.Source}
	if !r.claim(req.Source, run.ID, req.DedupKey) {
		o.Status, o.Reason = store.WorkSkip, ReasonBusy
		return r.finish(ctx, o, start, req, false)
	}
	defer r.release(req.Source, run.ID)
	// After the outcome is recorded, which counts a delivery from then on.
	defer r.gate.leave(run.ID)
	if _, err := r.opt.Store.StartWorkRun(ctx, run.ID); err != nil {
		if errors.Is(err, store.ErrWorkFinished) {
			run, rerr := r.opt.Store.WorkRun(ctx, run.ID)
			if rerr != nil {
				return Outcome{}, rerr
			}
			o, _ := OutcomeOf(run)
			return o, nil
		}
		return Outcome{}, err
	}
	o, undeliver := r.steps(ctx, o, req)
	return r.finish(ctx, o, start, req, undeliver)
}

// steps runs the gates and the work; undeliver is set when a claimed
// delivery failed.
func (r *Runner) steps(ctx context.Context, o Outcome, req Request) (out Outcome, undeliver bool) {
	defer func() {
		// A work or gate that panics still ends in an outcome.
		if p := recover(); p != nil {
			r.opt.Log.Error("work: panic", "source", req.Source, "panic", p)
			out, undeliver = o, false
			out.Status, out.Reason, out.Err = store.WorkError, "", fmt.Sprintf("internal error: %v", p)
		}
	}()
	skip := func(why Reason) Outcome { o.Status, o.Reason = store.WorkSkip, why; return o }
	fail := func(err error) Outcome { o.Status, o.Err = store.WorkError, err.Error(); return o }

	now := r.opt.Now()
	if r.opt.Paused != nil && r.opt.Paused(ctx) {
		return skip(ReasonPaused), false
	}
	if req.InputGate != nil {
		if why := req.InputGate(ctx, now); why != "" {
			return skip(why), false
		}
	}
	// Pacing and the dedup key are known before the work: a message that
	// could not be shown is not worth a model call. The runs already past
	// this point count as if they had delivered (Runner.enter).
	pol, err := r.opt.Policy(ctx)
	if err != nil {
		return fail(fmt.Errorf("cannot read the pacing settings: %w", err)), false
	}
	if why, err := r.enter(ctx, o.ID, req, pol); err != nil {
		return fail(err), false
	} else if why != "" {
		return skip(why), false
	}
	work := req.Work
	if work == nil {
		p, model, err := r.provider(ctx)
		if errors.Is(err, ErrNoProvider) {
			return skip(ReasonNoProvider), false
		}
		if err != nil {
			return fail(fmt.Errorf("model provider: %w", err)), false
		}
		work = r.modelWork(p, model)
	}

	free, err := r.slot(ctx, req.Source)
	if err != nil {
		return fail(err), false
	}
	defer free()
	wctx, cancel := context.WithTimeout(ctx, r.opt.Budget.Wall)
	res, err := work(wctx, req)
	cancel()
	o.Usage = res.Usage
	if errors.Is(err, ErrDropped) {
		return skip(ReasonDropped), false // proposal.Check said no; logged where it did
	}
	if err != nil {
		return fail(err), false
	}
	if res.Notice == nil || strings.TrimSpace(res.Notice.Message) == "" {
		return skip(ReasonAck), false
	}
	n := *res.Notice
	n.Message, n.Action = strings.TrimSpace(n.Message), strings.TrimSpace(n.Action)
	o.Notice = &n

	now = r.opt.Now()
	if req.OutputGate != nil {
		if why := req.OutputGate(ctx, now, n); why != "" {
			return skip(why), false
		}
	}
	why, err := r.opt.Store.ClaimWorkDelivery(ctx, o.ID, store.DeliveryClaim{
		Message: n.Message, Action: n.Action,
		RunsSince: now.Add(-r.opt.DedupWindow), NudgesSince: now.Add(-time.Hour),
		Decide: func(delivered []store.WorkRun, nudges []store.Nudge) string {
			return string(After(now, n, req.DedupKey, delivered, nudges, pol, r.opt.DedupWindow))
		},
	})
	if err != nil {
		return fail(err), false
	}
	if why != "" {
		return skip(Reason(why)), false
	}
	o.Status = store.WorkDone
	deliver := r.opt.Deliver
	if req.Deliver != nil {
		deliver = req.Deliver
	}
	d := Delivery{RunID: o.ID, Source: req.Source, Message: n.Message, Action: n.Action,
		Subject: store.WorkIdentifier(o.ID)}
	if n.Action != "" && n.Thread > 0 && len(n.To) > 0 {
		d.Thread, d.To = n.Thread, n.To
	}
	id, err := deliver(ctx, d)
	if err != nil {
		o.Err = "delivery failed: " + err.Error()
		return o, true
	}
	o.Delivered, o.NudgeID = true, id
	return o, false
}

// recent reads what the gates look at: deliveries within the dedup window
// and nudges within the last hour.
func (r *Runner) recent(ctx context.Context, now time.Time) ([]store.WorkRun, []store.Nudge, error) {
	delivered, err := r.opt.Store.DeliveredWorkRuns(ctx, now.Add(-max(r.opt.DedupWindow, time.Hour)))
	if err != nil {
		return nil, nil, err
	}
	nudges, err := r.opt.Store.NudgesSince(ctx, now.Add(-time.Hour))
	if err != nil {
		return nil, nil, err
	}
	return delivered, nudges, nil
}

func (r *Runner) provider(ctx context.Context) (llm.Provider, string, error) {
	if r.opt.Provider == nil {
		return nil, "", ErrNoProvider
	}
	p, model, err := r.opt.Provider(ctx)
	switch {
	case err != nil && isNoProvider(err):
		return nil, "", fmt.Errorf("%w: %w", ErrNoProvider, err)
	case err != nil:
		return nil, "", err
	case p == nil:
		return nil, "", ErrNoProvider
	}
	return p, model, nil
}

// isNoProvider recognises both packages' "no provider" errors: the app's
// provider function is the task agents'.
func isNoProvider(err error) bool {
	return errors.Is(err, ErrNoProvider) || errors.Is(err, task.ErrNoProvider)
}

// finish records the outcome and its world log line.
func (r *Runner) finish(ctx context.Context, o Outcome, start time.Time, req Request, undeliver bool) (Outcome, error) {
	o.Duration = time.Since(start)
	// The outcome is recorded even when the caller's context ended (Spirit
	// quitting): a run without one would be left for Recover.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, _, err := r.opt.Store.FinishWorkRun(rctx, o.ID, stored(o, undeliver)); err != nil {
		return o, err
	}
	r.count(o)
	level := slog.LevelInfo
	if o.Status == store.WorkError {
		level = slog.LevelWarn
	}
	r.opt.Log.Log(ctx, level, "work", "run", o.ID, "source", o.Source, "status", o.Status, "reason", o.Reason,
		"error", o.Err, "delivered", o.Delivered, "ms", o.Duration.Milliseconds(), "tokens", o.Usage.Tokens())
	if req.Done != nil {
		req.Done(rctx, o)
	}
	return o, nil
}

// Stats are the runner's counters since Spirit started, for /health: the
// outcomes it recorded (a run recovered from a previous start is not
// counted again) and what their model calls cost.
type Stats struct {
	Runs      int64 `json:"runs"`
	Delivered int64 `json:"delivered"`
	// Skips counts skipped runs by reason ("ack" is the model choosing
	// silence, the usual outcome of a heartbeat).
	Skips     map[Reason]int64 `json:"skips"`
	Errors    int64            `json:"errors"`
	TokensIn  int64            `json:"tokens_in"`
	TokensOut int64            `json:"tokens_out"`
	// CostUSD is estimated from agents/llm's price table; a model without
	// a known price adds nothing.
	CostUSD float64   `json:"estimated_cost_usd"`
	LastRun time.Time `json:"last_run,omitzero"`
}

// Stats returns a copy of the counters.
func (r *Runner) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	s.Skips = make(map[Reason]int64, len(r.stats.Skips))
	for k, v := range r.stats.Skips {
		s.Skips[k] = v
	}
	return s
}

// count adds a recorded outcome to the counters.
func (r *Runner) count(o Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats.Runs++
	switch {
	case o.Status == store.WorkSkip:
		r.stats.Skips[o.Reason]++
	case o.Status == store.WorkError:
		r.stats.Errors++
	case o.Delivered:
		r.stats.Delivered++
	}
	r.stats.TokensIn += int64(o.Usage.InputTokens)
	r.stats.TokensOut += int64(o.Usage.OutputTokens)
	r.stats.CostUSD += o.Usage.CostUSD
	r.stats.LastRun = r.opt.Now()
}

// stored is o as the store keeps it.
func stored(o Outcome, undeliver bool) store.WorkOutcome {
	w := store.WorkOutcome{State: o.Status, NudgeID: o.NudgeID, Undeliver: undeliver,
		DurationMS: o.Duration.Milliseconds(), TokensIn: o.Usage.InputTokens, TokensOut: o.Usage.OutputTokens,
		CostUSD: o.Usage.CostUSD, Text: LogLine(o)}
	switch o.Status {
	case store.WorkSkip:
		w.Reason = string(o.Reason)
	default:
		w.Reason = o.Err
	}
	if o.Notice != nil {
		w.Message, w.Action = o.Notice.Message, o.Notice.Action
	}
	return w
}

// LogLine is an outcome's line in the world log:
//
//	heartbeat: done, delivered “Marcy asked for the redline by 3” · 2.1 s · 1840 tokens · $0.004200
//	routine:3: skip busy · 0.0 s
//	webhook: error: the provider is unavailable (HTTP 500) · 0.4 s · 0 tokens
func LogLine(o Outcome) string {
	var b strings.Builder
	b.WriteString(string(o.Source))
	b.WriteString(": ")
	switch o.Status {
	case store.WorkDone:
		if o.Delivered {
			b.WriteString("done, delivered")
		} else {
			b.WriteString("done, not delivered")
		}
	case store.WorkSkip:
		b.WriteString("skip " + string(o.Reason))
	default:
		b.WriteString("error: " + oneLine(o.Err, 300))
	}
	if o.Notice != nil && o.Notice.Message != "" {
		b.WriteString(" “" + oneLine(o.Notice.Message, 200) + "”")
	}
	if o.Status == store.WorkDone && !o.Delivered && o.Err != "" {
		b.WriteString(" (" + oneLine(o.Err, 200) + ")")
	}
	fmt.Fprintf(&b, " · %.1f s", o.Duration.Seconds())
	if o.Usage.Tokens() > 0 || o.Status != store.WorkSkip {
		fmt.Fprintf(&b, " · %d tokens", o.Usage.Tokens())
	}
	if o.Usage.CostUSD > 0 {
		fmt.Fprintf(&b, " · $%.6f", o.Usage.CostUSD)
	}
	return b.String()
}

// oneLine flattens s and cuts it at n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}
