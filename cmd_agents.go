package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform"
)

const agentsUsage = `usage:
  spirit agents list        the task agents, newest first
  spirit agents show ID     an agent's prompt, plan, result and history
  spirit agents cancel ID   stop an agent (its open question or approval is withdrawn)`

// cliCanceller names the lawyer in the world log when a cancel comes from
// the command line without a running Spirit.
const cliCanceller = "the lawyer (command line)"

// agentSource is where the agents commands read and cancel agents: the
// running Spirit's API, or the database when Spirit is not running.
type agentSource interface {
	List(ctx context.Context) ([]api.Agent, error)
	// Detail returns the agent and its world-log entries; an error
	// matching errNoAgent for an unknown id.
	Detail(ctx context.Context, id string) (api.AgentDetail, error)
	// Cancel stops the agent; errNoAgent or errAgentEnded.
	Cancel(ctx context.Context, id string) (api.Agent, error)
}

var (
	errNoAgent    = errors.New("no such agent")
	errAgentEnded = errors.New("agent has already ended")
)

func runAgents(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, agentsUsage)
		return errUsage
	}
	sub, rest := args[0], args[1:]
	fs, dataDir := flags("agents "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, agentsUsage) }
	pos, err := parse(fs, rest, 1)
	if err != nil {
		return err
	}
	var id string
	if len(pos) > 0 {
		id = pos[0]
	}
	switch sub {
	case "list":
		if id != "" {
			fmt.Fprintf(stderr, "spirit: agents list takes no id\n%s\n", agentsUsage)
			return errUsage
		}
	case "show", "cancel":
		if id == "" {
			fmt.Fprintf(stderr, "spirit: agents %s needs an agent id (see spirit agents list)\n", sub)
			return errUsage
		}
	default:
		fmt.Fprintln(stderr, agentsUsage)
		return errUsage
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	// A cancel writes several times: wait for another program's lock
	// once, then say the database is busy.
	ctx = store.WaitOnce(ctx)
	src, closeSrc, err := openAgents(ctx, dir, sub != "cancel")
	if err != nil {
		return err
	}
	defer closeSrc()

	now := time.Now()
	switch sub {
	case "list":
		return agentsList(ctx, src, stdout, now)
	case "show":
		return agentsShow(ctx, src, id, stdout, now)
	default:
		return agentsCancel(ctx, src, id, stdout)
	}
}

// openAgents talks to the running Spirit when there is one, so a cancel
// also stops its run at once; otherwise it opens the database, only to read
// it when readOnly (list and show work on a read-only data folder).
func openAgents(ctx context.Context, dir string, readOnly bool) (agentSource, func(), error) {
	c, st, err := runningOrStore(ctx, dir, readOnly)
	switch {
	case err != nil:
		return nil, nil, err
	case c != nil:
		return apiAgents{c}, func() {}, nil
	}
	return newStoreAgents(st), func() { st.Close() }, nil
}

// runningOrStore returns a client of the Spirit running on dir when one
// answers, else dir's database, opened only to read when readOnly: what a
// command changes then takes effect in the running Spirit at once, and
// without one the database is the command's own. A stale api.json (from a
// Spirit that did not shut down cleanly) answers nobody, so the database
// is used.
func runningOrStore(ctx context.Context, dir string, readOnly bool) (*api.Client, *store.Store, error) {
	if info, err := api.ReadInfo(dir); err == nil {
		c := api.NewClient(info)
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := c.Health(hctx)
		cancel()
		if err == nil {
			return c, nil, nil
		}
	}
	if readOnly {
		st, err := store.OpenDirReadOnly(ctx, dir, store.ReadOnlyOptions{})
		return nil, st, err
	}
	st, err := store.OpenDir(ctx, dir)
	return nil, st, err
}

// apiAgents reads and cancels agents through the running Spirit.
type apiAgents struct{ c *api.Client }

func (a apiAgents) List(ctx context.Context) ([]api.Agent, error) { return a.c.Agents(ctx) }

func (a apiAgents) Detail(ctx context.Context, id string) (api.AgentDetail, error) {
	d, err := a.c.Agent(ctx, id)
	return d, apiAgentErr(id, err)
}

func (a apiAgents) Cancel(ctx context.Context, id string) (api.Agent, error) {
	t, err := a.c.CancelAgent(ctx, id)
	return t, apiAgentErr(id, err)
}

func apiAgentErr(id string, err error) error {
	switch {
	case errors.Is(err, api.ErrNotFound):
		return fmt.Errorf("%w: %s", errNoAgent, id)
	case errors.Is(err, api.ErrConflict):
		return fmt.Errorf("%w: %s", errAgentEnded, id)
	}
	return err
}

// storeAgents reads agents from the database and cancels them with a
// runner that never runs them (it needs no model provider to cancel).
type storeAgents struct {
	st *store.Store
	r  *task.Runner
}

func newStoreAgents(st *store.Store) storeAgents {
	r := task.NewRunner(task.Options{Store: st, Provider: func(context.Context) (llm.Provider, string, error) {
		return nil, "", task.ErrNoProvider
	}})
	return storeAgents{st: st, r: r}
}

func (s storeAgents) List(ctx context.Context) ([]api.Agent, error) {
	ts, err := task.List(ctx, s.st, 200)
	if err != nil {
		return nil, err
	}
	return api.Views(ts, api.AgentOf), nil
}

func (s storeAgents) Detail(ctx context.Context, id string) (api.AgentDetail, error) {
	t, err := task.Get(ctx, s.st, id)
	if err != nil {
		return api.AgentDetail{}, storeAgentErr(id, err)
	}
	es, err := s.st.SessionEntries(ctx, id, 500)
	if err != nil {
		return api.AgentDetail{}, err
	}
	return api.AgentDetail{Agent: api.AgentOf(t), Entries: api.Views(es, api.EntryOf)}, nil
}

func (s storeAgents) Cancel(ctx context.Context, id string) (api.Agent, error) {
	t, err := s.r.Cancel(ctx, id, cliCanceller)
	return api.AgentOf(t), storeAgentErr(id, err)
}

func storeAgentErr(id string, err error) error {
	switch {
	case errors.Is(err, task.ErrNotFound):
		return fmt.Errorf("%w: %s", errNoAgent, id)
	case errors.Is(err, task.ErrClosed):
		return fmt.Errorf("%w: %s", errAgentEnded, id)
	}
	return err
}

// notFound is what the lawyer reads for an unknown id.
func notFound(id string) error {
	return fmt.Errorf("no agent %q (spirit agents list shows them)", id)
}

// agentsList prints one line per agent: session, phase, lifecycle status,
// age and prompt.
func agentsList(ctx context.Context, src agentSource, w io.Writer, now time.Time) error {
	ts, err := src.List(ctx)
	if err != nil {
		return err
	}
	if len(ts) == 0 {
		fmt.Fprintln(w, "No agents yet.")
		return nil
	}
	for _, t := range ts {
		fmt.Fprintf(w, "%-17s  %-9s  %-8s  %8s  %s\n", t.Session, t.Phase, t.Status, age(now, t.Created), oneLine(t.Prompt, 70))
	}
	return nil
}

// agentsShow prints one agent: what it was asked, where it stands, its
// plan, its result and its history in the world log.
func agentsShow(ctx context.Context, src agentSource, id string, w io.Writer, now time.Time) error {
	d, err := src.Detail(ctx, id)
	if errors.Is(err, errNoAgent) {
		return notFound(id)
	}
	if err != nil {
		return err
	}
	t := d.Agent
	origin := ""
	if t.Origin != "" {
		origin = " (from " + t.Origin + ")"
	}
	fmt.Fprintf(w, "Agent %s%s\n", t.Session, origin)
	fmt.Fprintf(w, "Prompt:  %s\n", oneLine(t.Prompt, 0))
	if t.Need != "" {
		fmt.Fprintf(w, "Need:    %s\n", oneLine(t.Need, 0))
	}
	if t.Context.Subject != "" {
		fmt.Fprintf(w, "About:   %s\n", oneLine(t.Context.Subject, 0))
	}
	fmt.Fprintf(w, "Phase:   %s (status %s), started %s ago, updated %s ago, %d run(s)\n",
		t.Phase, t.Status, age(now, t.Created), age(now, t.Updated), t.Runs)
	if t.Waiting > 0 {
		fmt.Fprintf(w, "Waiting: for your answer to nudge %d\n", t.Waiting)
	}
	if len(t.State.Plan) > 0 {
		fmt.Fprintln(w, "Plan:")
		for i, step := range t.State.Plan {
			fmt.Fprintf(w, "  %s %d. %s\n", planMark(t, i), i+1, oneLine(step, 0))
		}
	} else {
		fmt.Fprintln(w, "Plan:    (none yet)")
	}
	if t.Result != "" {
		fmt.Fprintf(w, "Result:  %s\n", oneLine(t.Result, 0))
	}
	if s := t.State.Summary; s != "" && s != t.Result {
		fmt.Fprintf(w, "Summary: %s\n", oneLine(s, 0))
	}
	if len(d.Entries) == 0 {
		fmt.Fprintln(w, "History: (nothing in the world log)")
		return nil
	}
	fmt.Fprintln(w, "History:")
	for _, e := range d.Entries {
		fmt.Fprintln(w, "  "+e.String())
	}
	return nil
}

// agentsCancel stops an agent and says what became of it.
func agentsCancel(ctx context.Context, src agentSource, id string, w io.Writer) error {
	t, err := src.Cancel(ctx, id)
	switch {
	case errors.Is(err, errNoAgent):
		return notFound(id)
	case errors.Is(err, errAgentEnded):
		phase := "ended"
		if d, derr := src.Detail(ctx, id); derr == nil {
			phase = string(d.Phase)
		}
		return fmt.Errorf("agent %s has already ended (%s); nothing to cancel", id, phase)
	case err != nil:
		return err
	}
	fmt.Fprintf(w, "Cancelled %s: %s\n", t.Session, oneLine(t.Prompt, 70))
	fmt.Fprintln(w, "Its run is stopped and any question or approval it was waiting on is withdrawn.")
	return nil
}

// planMark marks plan step i: [x] done, [>] under way, [ ] not reached.
func planMark(t api.Agent, i int) string {
	switch {
	case i < t.State.Step:
		return "[x]"
	case i == t.State.Step && t.Phase.Open():
		return "[>]"
	}
	return "[ ]"
}

// age says how long ago at was, briefly: "40s", "12m", "3h", "2d".
func age(now, at time.Time) string {
	if at.IsZero() {
		return "?"
	}
	d := now.Sub(at)
	switch {
	case d < time.Second:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// termLines is s for a terminal with its lines kept: every control and
// format character but the newline becomes a space (see oneLine).
func termLines(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			return ' '
		}
		return r
	}, s)
}

// oneLine puts s on one line, shortened to n characters when n > 0, for
// a terminal: text from outside (a calendar's name, a server's error, a
// prompt) may hold newlines and escape sequences that would rewrite what
// the lawyer sees, so control and format characters (C0, C1, DEL, bidi
// overrides) become spaces first.
func oneLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); n > 0 && len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
