package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/agents/work/pace"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/secrets"
)

const workUsage = `usage:
  spirit work list                               the routines: when each runs, its prompt, its last run
  spirit work add --cron "30 8 * * 1-5" --prompt "What is waiting on me today?"
                                                 a routine, in cron's five fields (minute hour
                                                 day-of-month month day-of-week), in your time zone
  spirit work remove ID                          delete a routine
  spirit work run ID                             run a routine now and show what came of it`

// workRunWait bounds how long "spirit work run" waits for the outcome.
const workRunWait = 3 * time.Minute

// routineSource is where the work commands keep and run routines: the
// running Spirit's API, or the database when Spirit is not running.
type routineSource interface {
	List(ctx context.Context) ([]api.Routine, error)
	Add(ctx context.Context, spec, prompt string) (api.Routine, error)
	Remove(ctx context.Context, id int64) error
	// Run runs routine id now and returns its outcome.
	Run(ctx context.Context, id int64) (api.WorkRun, error)
}

var errNoRoutine = errors.New("no such routine")

func runWork(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, workUsage)
		return errUsage
	}
	sub, rest := args[0], args[1:]
	fs, dataDir := flags("work "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, workUsage) }
	spec := fs.String("cron", "", `when to run, e.g. "30 8 * * 1-5" (weekdays at 8:30)`)
	prompt := fs.String("prompt", "", "what Spirit should do then")
	pos, err := parse(fs, rest, 1)
	if err != nil {
		return err
	}
	var id int64
	switch sub {
	case "list", "add":
		if len(pos) > 0 {
			fmt.Fprintf(stderr, "spirit: work %s takes no id\n%s\n", sub, workUsage)
			return errUsage
		}
		if sub == "add" {
			if strings.TrimSpace(*spec) == "" || strings.TrimSpace(*prompt) == "" {
				fmt.Fprintf(stderr, "spirit: work add needs --cron and --prompt\n%s\n", workUsage)
				return errUsage
			}
			// Said here, in plain words, before anything is opened.
			if _, err := work.ParseSchedule(*spec); err != nil {
				return cronError(*spec, err)
			}
		}
	case "remove", "run":
		if len(pos) == 0 {
			fmt.Fprintf(stderr, "spirit: work %s needs a routine id (see spirit work list)\n", sub)
			return errUsage
		}
		if id, err = strconv.ParseInt(pos[0], 10, 64); err != nil || id <= 0 {
			fmt.Fprintf(stderr, "spirit: %q is not a routine id: ids are whole numbers (see spirit work list)\n", pos[0])
			return errUsage
		}
	default:
		fmt.Fprintln(stderr, workUsage)
		return errUsage
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	ctx = store.WaitOnce(ctx)
	src, closeSrc, err := openRoutines(ctx, dir, sub == "list")
	if err != nil {
		return err
	}
	defer closeSrc()

	now := time.Now()
	switch sub {
	case "list":
		rs, err := src.List(ctx)
		if err != nil {
			return err
		}
		return workList(rs, stdout, now)
	case "add":
		rt, err := src.Add(ctx, *spec, *prompt)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Added routine %d: %s.\n", rt.ID, routineWhen(rt, now))
		return nil
	case "remove":
		if err := src.Remove(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "Removed routine %d.\n", id)
		return nil
	default:
		run, err := src.Run(ctx, id)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, app.WorkRunWords(run))
		return nil
	}
}

// cronError says what is wrong with a cron spec in the lawyer's words.
func cronError(spec string, err error) error {
	why := app.RoutineError(err)
	if _, after, ok := strings.Cut(why, ": "); ok {
		why = after
	}
	return fmt.Errorf("%q is not a schedule Spirit can read: %s.\n"+
		"Write five fields: minute, hour, day of the month, month, day of the week (0 or 7 is Sunday), "+
		`e.g. "30 8 * * 1-5" for weekdays at 8:30, or "0 17 * * 5" for Fridays at 17:00.`, spec, strings.TrimSuffix(why, "."))
}

// openRoutines talks to the running Spirit when there is one, so that a
// routine added or removed takes effect at once and a run is its own;
// otherwise it opens the database, only to read it when readOnly.
func openRoutines(ctx context.Context, dir string, readOnly bool) (routineSource, func(), error) {
	c, st, err := runningOrStore(ctx, dir, readOnly)
	switch {
	case err != nil:
		return nil, nil, err
	case c != nil:
		return apiRoutines{c}, func() {}, nil
	}
	return storeRoutines{st: st, dir: dir}, func() { st.Close() }, nil
}

// apiRoutines keeps and runs routines through the running Spirit.
type apiRoutines struct{ c *api.Client }

func (a apiRoutines) List(ctx context.Context) ([]api.Routine, error) { return a.c.Routines(ctx) }

func (a apiRoutines) Add(ctx context.Context, spec, prompt string) (api.Routine, error) {
	rt, err := a.c.AddRoutine(ctx, api.NewRoutine{Cron: spec, Prompt: prompt})
	if errors.Is(err, api.ErrBadRequest) {
		var se *api.StatusError
		if errors.As(err, &se) {
			return rt, errors.New(strings.TrimSuffix(se.Message, ": "+api.ErrBadRequest.Error()))
		}
	}
	return rt, err
}

func (a apiRoutines) Remove(ctx context.Context, id int64) error {
	return routineErr(id, a.c.RemoveRoutine(ctx, id))
}

func (a apiRoutines) Run(ctx context.Context, id int64) (api.WorkRun, error) {
	run, err := a.c.RunRoutine(ctx, id)
	if err != nil {
		return run, routineErr(id, err)
	}
	deadline := time.Now().Add(workRunWait)
	for !run.Ended() {
		if time.Now().After(deadline) {
			return run, fmt.Errorf("routine %d is still running after %v: see spirit world tail (run %d)", id, workRunWait, run.ID)
		}
		select {
		case <-ctx.Done():
			return run, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		if run, err = a.c.WorkRun(ctx, run.ID); err != nil {
			return run, err
		}
	}
	return run, nil
}

func routineErr(id int64, err error) error {
	if errors.Is(err, api.ErrNotFound) || errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: %d (see spirit work list)", errNoRoutine, id)
	}
	return err
}

// storeRoutines keeps routines in the database of a Spirit that is not
// running, and runs one here, with the same runner, provider and gates.
type storeRoutines struct {
	st  *store.Store
	dir string
}

func (s storeRoutines) List(ctx context.Context) ([]api.Routine, error) {
	rs, err := s.st.Routines(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return api.Views(rs, func(r store.Routine) api.Routine { return app.RoutineView(r, now) }), nil
}

func (s storeRoutines) Add(ctx context.Context, spec, prompt string) (api.Routine, error) {
	rt, err := work.AddRoutine(ctx, s.st, spec, prompt)
	if errors.Is(err, store.ErrInvalid) {
		return api.Routine{}, cronError(spec, err)
	}
	if err != nil {
		return api.Routine{}, err
	}
	return app.RoutineView(rt, time.Now()), nil
}

func (s storeRoutines) Remove(ctx context.Context, id int64) error {
	return routineErr(id, s.st.DeleteRoutine(ctx, id))
}

// Run runs the routine here. What it finds is kept as a nudge that the
// tray shows when Spirit starts.
func (s storeRoutines) Run(ctx context.Context, id int64) (api.WorkRun, error) {
	rt, err := s.st.Routine(ctx, id)
	if err != nil {
		return api.WorkRun{}, routineErr(id, err)
	}
	r, err := work.New(work.Options{
		Store: s.st,
		Index: index.New(s.st),
		Provider: func(ctx context.Context) (llm.Provider, string, error) {
			ps, err := setup.Load(ctx, s.st)
			if err != nil || !ps.Configured() {
				return nil, "", err
			}
			sec, err := secrets.Open(s.dir)
			if err != nil {
				return nil, "", fmt.Errorf("keychain: %w", err)
			}
			p, err := setup.Provider(ctx, ps, sec, nil)
			return p, ps.Roles.Agent, err
		},
		Deliver: func(ctx context.Context, d work.Delivery) (int64, error) {
			// The nudge the running Spirit would show, its action a Do it.
			n, err := s.st.CreateNudge(ctx, app.WorkNudge(d))
			return n.ID, err
		},
		Policy: func(ctx context.Context) (pace.Policy, error) {
			set, err := settings.Load(ctx, s.st)
			if err != nil && !errors.Is(err, settings.ErrInvalid) {
				return pace.Policy{}, err
			}
			return pace.Policy{MaxPerHour: set.GlanceMaxPerHour, Quiet: set.GlanceQuietHours.Contains}, nil
		},
		Log: slog.Default(),
	})
	if err != nil {
		return api.WorkRun{}, err
	}
	defer r.Close()
	rctx, cancel := context.WithTimeout(ctx, workRunWait)
	defer cancel()
	o, err := r.Run(rctx, work.Request{Source: work.RoutineSource(rt.ID), Prompt: rt.Prompt})
	if err != nil {
		return api.WorkRun{}, err
	}
	run, err := s.st.WorkRun(ctx, o.ID)
	if err != nil {
		return api.WorkRun{}, err
	}
	v := api.WorkRun{ID: run.ID, Source: run.Source, State: string(run.State), Reason: string(o.Reason), Error: o.Err,
		Delivered: o.Delivered, Message: run.Message, Action: run.Action, NudgeID: run.NudgeID, Created: run.Created,
		DurationMS: run.DurationMS, InputTokens: run.TokensIn, OutputTokens: run.TokensOut, CostUSD: run.CostUSD}
	return v, nil
}

// workList prints one routine a line.
func workList(rs []api.Routine, w io.Writer, now time.Time) error {
	if len(rs) == 0 {
		fmt.Fprintln(w, `No routines. Add one: spirit work add --cron "30 8 * * 1-5" --prompt "What is waiting on me today?"`)
		return nil
	}
	for _, r := range rs {
		last := "never run"
		if r.LastRun != nil {
			last = "last " + r.LastRun.In(now.Location()).Format("Mon 2 Jan 15:04")
		}
		fmt.Fprintf(w, "%d  %s  %s  %s\n", r.ID, routineWhen(r, now), last, oneLine(r.Prompt, 80))
	}
	return nil
}

// routineWhen is "weekdays at 8:30 (30 8 * * 1-5), next Thu 26 Nov 08:30",
// or "off".
func routineWhen(r api.Routine, now time.Time) string {
	words := app.ScheduleWords(r.Cron)
	if words != r.Cron {
		words += " (" + r.Cron + ")"
	}
	switch {
	case !r.Enabled:
		return words + ", off"
	case r.Next != nil:
		return words + ", next " + r.Next.In(now.Location()).Format("Mon 2 Jan 15:04")
	}
	return words
}
