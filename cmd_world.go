package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform"
)

const worldUsage = `usage:
  spirit world tail [-n N] [-f]            print the world log (-f: keep following)
  spirit world query active|pending|failed|recent [N]
                                           agents working, finished awaiting verification,
                                           failed; or the last N entries (default 20)
  spirit world check CONSUMER [-n N]       entries since CONSUMER last checked (at most N,
                                           default 200); moves its cursor past them
  spirit world respond SESSION "text"      your answer to an agent waiting on you (its
                                           question, or its call for help); it goes on with it
  spirit world event SOURCE ID "text"      log a fact (e.g. a script: bash backup.sh "done")`

// Defaults of the world verbs.
const (
	defaultRecent = 20
	defaultCheck  = 200
)

// worldWriter is where check, respond and event write: the running
// Spirit's API, so it sees the change at once, or the database when Spirit
// is not running.
type worldWriter interface {
	Check(ctx context.Context, consumer string, limit int) ([]store.Entry, error)
	Event(ctx context.Context, source, id, text string) (store.Entry, error)
	// Waiting returns the open nudge the agent waits on: errNoAgent for
	// an unknown session, errNotWaiting when it waits on nothing.
	Waiting(ctx context.Context, session string) (api.Nudge, error)
	// Respond answers that nudge with the lawyer's words.
	Respond(ctx context.Context, n api.Nudge, text string) error
}

var errNotWaiting = errors.New("agent is not waiting for you")

// runWorldVerb runs the world subcommands other than tail.
func runWorldVerb(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, worldUsage)
		return errUsage
	}
	sub, rest := args[0], args[1:]
	fs, dataDir := flags("world "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, worldUsage) }
	n := 0
	if sub == "check" {
		fs.IntVar(&n, "n", defaultCheck, "the most entries to print")
	}
	maxArgs := map[string]int{"query": 2, "check": 1, "respond": 2, "event": 3}
	want, ok := maxArgs[sub]
	if !ok {
		fmt.Fprintf(stderr, "spirit: unknown world command %q\n%s\n", sub, worldUsage)
		return errUsage
	}
	pos, err := parse(fs, rest, want)
	if err != nil {
		return err
	}
	if err := checkWorldArgs(sub, pos, n); err != nil {
		fmt.Fprintf(stderr, "spirit: %v\n%s\n", err, worldUsage)
		return errUsage
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	if sub == "query" {
		return worldQuery(ctx, dir, pos, stdout)
	}
	ctx = store.WaitOnce(ctx) // writes: wait once for another program's lock
	w, closeW, err := openWorld(ctx, dir)
	if err != nil {
		return err
	}
	defer closeW()
	switch sub {
	case "check":
		return worldCheck(ctx, w, pos[0], n, stdout)
	case "respond":
		return worldRespond(ctx, w, pos[0], pos[1], stdout)
	default:
		return worldEvent(ctx, w, pos[0], pos[1], pos[2], stdout)
	}
}

// checkWorldArgs says what is wrong with a command's arguments.
func checkWorldArgs(sub string, pos []string, n int) error {
	switch sub {
	case "query":
		if len(pos) == 0 {
			return errors.New("world query needs what to show: active, pending, failed or recent")
		}
		switch pos[0] {
		case "active", "pending", "failed":
			if len(pos) > 1 {
				return fmt.Errorf("world query %s takes no number", pos[0])
			}
		case "recent":
			if len(pos) > 1 {
				if v, err := strconv.Atoi(pos[1]); err != nil || v < 1 {
					return fmt.Errorf("world query recent N: N must be a positive number, not %q", pos[1])
				}
			}
		default:
			return fmt.Errorf("world query %q: use active, pending, failed or recent", pos[0])
		}
	case "check":
		if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
			return errors.New("world check needs a consumer name (e.g. supervisor)")
		}
		if n < 1 {
			return errors.New("world check -n must be 1 or more")
		}
	case "respond":
		if len(pos) != 2 || strings.TrimSpace(pos[1]) == "" {
			return errors.New(`world respond needs an agent's session and your words: spirit world respond SESSION "text"`)
		}
	case "event":
		if len(pos) != 3 {
			return errors.New(`world event needs a source, an identifier and the text: spirit world event SOURCE ID "text"`)
		}
	}
	return nil
}

// worldQuery reads the database, read-only, whether Spirit runs or not
// (as world tail does): the answer is the same either way and nothing is
// written.
func worldQuery(ctx context.Context, dir string, pos []string, w io.Writer) error {
	st, err := store.OpenDirReadOnly(ctx, dir, store.ReadOnlyOptions{})
	if err != nil {
		return err
	}
	defer st.Close()
	if pos[0] == "recent" {
		n := defaultRecent
		if len(pos) > 1 {
			n, _ = strconv.Atoi(pos[1]) // checked by checkWorldArgs
		}
		es, err := st.Recent(ctx, n)
		if err != nil {
			return err
		}
		if len(es) == 0 {
			fmt.Fprintln(w, "The world log is empty.")
		}
		for _, e := range es {
			fmt.Fprintln(w, e)
		}
		return nil
	}
	statuses := map[string][]store.AgentStatus{
		"active":  {store.StatusStart, store.StatusActive, store.StatusRetry},
		"pending": {store.StatusFinish},
		"failed":  {store.StatusFailed},
	}[pos[0]]
	as, err := st.AgentsByStatus(ctx, statuses...)
	if err != nil {
		return err
	}
	if len(as) == 0 {
		fmt.Fprintf(w, "No %s agents.\n", pos[0])
		return nil
	}
	now := time.Now()
	for _, a := range as {
		line := fmt.Sprintf("%-17s  %-8s  %8s  %s", a.Session, a.Status, age(now, a.Updated), oneLine(a.Text, 80))
		if a.Need != "" {
			line += " | need: " + oneLine(a.Need, 60)
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// worldCheck prints what the consumer has not seen and moves its cursor.
func worldCheck(ctx context.Context, w worldWriter, consumer string, n int, out io.Writer) error {
	// Checked here too: with Spirit stopped, the database is written
	// straight, and the heartbeat's cursor is not a script's either.
	if err := api.ValidConsumer(consumer); err != nil {
		return err
	}
	es, err := w.Check(ctx, consumer, n)
	if err != nil {
		return err
	}
	if len(es) == 0 {
		fmt.Fprintf(out, "Nothing new for %s.\n", consumer)
		return nil
	}
	for _, e := range es {
		fmt.Fprintln(out, e)
	}
	return nil
}

// worldRespond hands the lawyer's words to the agent waiting on them.
func worldRespond(ctx context.Context, w worldWriter, session, text string, out io.Writer) error {
	n, err := w.Waiting(ctx, session)
	switch {
	case errors.Is(err, errNoAgent):
		return notFound(session)
	case err != nil:
		return err
	}
	if nudge.Kind(n.Kind) == nudge.KindApproval {
		// Words are not a yes: an approval is given in the bubble, where
		// the exact action is shown.
		return fmt.Errorf("agent %s waits for your approval of an action, not for words: answer it in Spirit's bubble", session)
	}
	if err := w.Respond(ctx, n, strings.TrimSpace(text)); err != nil {
		return err
	}
	fmt.Fprintf(out, "Sent to %s: %s\n", session, oneLine(text, 70))
	if nudge.Kind(n.Kind) == nudge.KindHelp {
		fmt.Fprintln(out, "It will try again with your words.")
	} else {
		fmt.Fprintln(out, "It goes on with your answer.")
	}
	return nil
}

// worldEvent logs a fact.
func worldEvent(ctx context.Context, w worldWriter, source, id, text string, out io.Writer) error {
	ev := api.WorldEvent{Source: source, Identifier: id, Text: text}
	if err := api.ValidWorldEvent(ev); err != nil {
		return err
	}
	e, err := w.Event(ctx, source, id, strings.TrimSpace(text))
	if err != nil {
		return err
	}
	fmt.Fprintln(out, e)
	return nil
}

// openWorld talks to the running Spirit when there is one; otherwise it
// opens the database.
func openWorld(ctx context.Context, dir string) (worldWriter, func(), error) {
	c, st, err := runningOrStore(ctx, dir, false)
	switch {
	case err != nil:
		return nil, nil, err
	case c != nil:
		return apiWorld{c}, func() {}, nil
	}
	return newStoreWorld(st), func() { st.Close() }, nil
}

// apiWorld writes through the running Spirit.
type apiWorld struct{ c *api.Client }

func (a apiWorld) Check(ctx context.Context, consumer string, limit int) ([]store.Entry, error) {
	es, err := a.c.CheckWorld(ctx, consumer, limit)
	return storeEntries(es), badWords(err)
}

func (a apiWorld) Event(ctx context.Context, source, id, text string) (store.Entry, error) {
	e, err := a.c.LogWorldEvent(ctx, api.WorldEvent{Source: source, Identifier: id, Text: text})
	return storeEntry(e), badWords(err)
}

func (a apiWorld) Waiting(ctx context.Context, session string) (api.Nudge, error) {
	d, err := a.c.Agent(ctx, session)
	if errors.Is(err, api.ErrNotFound) {
		return api.Nudge{}, fmt.Errorf("%w: %s", errNoAgent, session)
	}
	if err != nil {
		return api.Nudge{}, err
	}
	if d.Waiting == 0 {
		return api.Nudge{}, notWaiting(session, string(d.Phase))
	}
	ns, err := a.c.Nudges(ctx)
	if err != nil {
		return api.Nudge{}, err
	}
	for _, n := range ns {
		if n.ID == d.Waiting {
			return n, nil
		}
	}
	return api.Nudge{}, notWaiting(session, string(d.Phase))
}

func (a apiWorld) Respond(ctx context.Context, n api.Nudge, text string) error {
	_, err := a.c.Respond(ctx, n.ID, api.ActionAccept, text)
	if errors.Is(err, api.ErrConflict) {
		return fmt.Errorf("%w: it was answered meanwhile", errNotWaiting)
	}
	return err
}

// badWords keeps what the API said was wrong with a request, without the
// status code around it.
func badWords(err error) error {
	var se *api.StatusError
	if errors.As(err, &se) && se.Code == 400 {
		return errors.New(se.Message)
	}
	return err
}

func notWaiting(session, phase string) error {
	return fmt.Errorf("%w: %s is %s; nothing to respond to (spirit agents show %s)", errNotWaiting, session, phase, session)
}

// storeWorld writes to the database, as the running Spirit would: an
// answer is recorded on its nudge and handed to the agent, which the next
// Spirit to run picks up.
type storeWorld struct {
	st *store.Store
	r  *task.Runner
}

func newStoreWorld(st *store.Store) storeWorld {
	r := task.NewRunner(task.Options{Store: st, Provider: func(context.Context) (llm.Provider, string, error) {
		return nil, "", task.ErrNoProvider
	}})
	return storeWorld{st: st, r: r}
}

func (s storeWorld) Check(ctx context.Context, consumer string, limit int) ([]store.Entry, error) {
	return s.st.Check(ctx, consumer, limit)
}

func (s storeWorld) Event(ctx context.Context, source, id, text string) (store.Entry, error) {
	return s.st.AppendEvent(ctx, store.Event{Source: source, Identifier: id, Text: text})
}

func (s storeWorld) Waiting(ctx context.Context, session string) (api.Nudge, error) {
	t, err := task.Get(ctx, s.st, session)
	if errors.Is(err, task.ErrNotFound) {
		return api.Nudge{}, fmt.Errorf("%w: %s", errNoAgent, session)
	}
	if err != nil {
		return api.Nudge{}, err
	}
	if t.Waiting == 0 {
		return api.Nudge{}, notWaiting(session, string(t.Phase))
	}
	n, err := s.st.Nudge(ctx, t.Waiting)
	if err != nil {
		return api.Nudge{}, err
	}
	if n.State != store.NudgeShown && n.State != store.NudgeSnoozed {
		return api.Nudge{}, notWaiting(session, string(t.Phase))
	}
	return api.NudgeOf(n), nil
}

// Respond records the answer the way the running Spirit's Answer does:
// on the nudge, in the world log, then to the agent.
func (s storeWorld) Respond(ctx context.Context, v api.Nudge, text string) error {
	n, err := s.st.RespondNudge(ctx, v.ID, store.NudgeAccepted, text)
	if errors.Is(err, store.ErrNudgeClosed) {
		return fmt.Errorf("%w: it was answered meanwhile", errNotWaiting)
	}
	if err != nil {
		return err
	}
	if _, err := s.st.AppendEvent(ctx, store.Event{Source: "user", Identifier: fmt.Sprintf("nudge-%d", n.ID),
		Text: nudge.Accept + ": " + text}); err != nil {
		return err
	}
	return s.r.Answer(ctx, n, nudge.Accept, text)
}

func storeEntry(e api.Entry) store.Entry {
	return store.Entry{ID: e.ID, TS: e.TS, Kind: e.Kind, Source: e.Source, Identifier: e.Identifier,
		Status: e.Status, Session: e.Session, Text: e.Text, Need: e.Need}
}

func storeEntries(es []api.Entry) []store.Entry {
	out := make([]store.Entry, len(es))
	for i, e := range es {
		out[i] = storeEntry(e)
	}
	return out
}
