package app

import (
	"context"
	"errors"
	"fmt"
	"github.com/spirit-app/spirit/agents/digest"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/settings"
)

// partWork is the work runner's part: routines, the heartbeat, and the
// webhook's runs (issue 14).
const partWork = "work"

// HeartbeatEvery is how often the heartbeat looks over the day inside the
// active hours: on the hour and the half hour.
const HeartbeatEvery = 30 * time.Minute

// Limits on what the heartbeat's prompt quotes.
const (
	heartbeatWorldLines = 60  // world-log lines since the last heartbeat
	heartbeatLineRunes  = 300 // per line
	heartbeatItems      = 20  // per kind of open item
	// maxWorkWait bounds a sleep, so that a changed setting (the
	// heartbeat turned on, other hours) or a clock that jumped is seen
	// within one heartbeat period.
	maxWorkWait = HeartbeatEvery
)

// workPart runs the work runner inside Spirit: at start it gives the runs
// a stopped Spirit left their outcome, then wakes for the next routine or
// heartbeat, whichever comes first. It keeps no state a restart needs:
// routines' last runs and every outcome are in the store.
type workPart struct {
	runner *work.Runner
	store  *store.Store
	load   func(context.Context) (settings.Settings, error)
	now    func() time.Time
	log    *slog.Logger
	// configured reports whether a model provider is set: without one the
	// heartbeat is not asked for at all, so the world log is not filled
	// with a skip every half hour on the default setup.
	configured func(context.Context) bool
	// digest is the latest digest of what the lawyer is doing (the digest
	// loop's), the heartbeat's view of the last minutes; ok false when
	// there is none yet.
	digest func() (digest.Analysis, bool)
	// ix is the mail index: who the lawyer is, for their meetings.
	ix *index.Index

	wake      chan struct{} // routines changed: look again
	recovered sync.Once
}

// newWork builds the work part on the core: its nudges, its pacing, its
// pause, its commitments.
func newWork(c *Core, ix *index.Index, load func(context.Context) (settings.Settings, error), log *slog.Logger) (*workPart, error) {
	r, err := work.New(work.Options{
		Store:    c.store,
		Index:    ix,
		Provider: c.keys.agent,
		Deliver:  c.deliverWork,
		Policy:   c.pacing,
		Paused:   c.spiritPaused,
		// The calendar's read tools too: the heartbeat may look ahead.
		Tools: append(asTools[work.Tool](c.commitmentTools()), calendarWorkTools(c.store, ix, c.now)...),
		Now:   c.now,
		Log:   log,
	})
	if err != nil {
		return nil, err
	}
	configured := func(ctx context.Context) bool {
		_, _, err := c.keys.agent(ctx)
		return err == nil
	}
	return &workPart{runner: r, store: c.store, load: load, now: c.now, log: log, configured: configured, digest: c.LatestDigest, ix: ix, wake: make(chan struct{}, 1)}, nil
}

// deliverWork shows what work's output gate let through: a nudge, the
// core's one way to propose something (WorkNudge). Its action, if any,
// starts a task agent when the lawyer accepts; work itself never writes.
func (c *Core) deliverWork(ctx context.Context, d work.Delivery) (int64, error) {
	n, err := c.nudge(ctx, WorkNudge(d))
	return n.ID, err
}

// WorkNudge is the nudge a work delivery becomes: a plain info nudge,
// with only OK; one with an action is a suggestion, whose Do it runs the
// action as a task agent, and which says what Do it would do, so that the
// lawyer knows what they accept.
func WorkNudge(d work.Delivery) store.Nudge {
	n := store.Nudge{Kind: nudge.KindInfo, Message: d.Message, Subject: d.Subject}
	if d.Action != "" {
		n.Kind, n.ActionPrompt = nudge.KindSuggestion, d.Action
		n.Message = d.Message + "\n\nDo it: " + d.Action
		if d.Thread > 0 && len(d.To) > 0 {
			n.Detail, _ = nudge.Detail(nudge.Suggestion{Thread: d.Thread, To: d.To})
		}
	}
	return n
}

// spiritPaused: the lawyer paused Spirit, both listening and watching
// (the tray's "Paused" line); work then does nothing unasked.
func (c *Core) spiritPaused(context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status.ListeningPaused && c.status.WatchingPaused
}

// Run implements supervisor.Service.
func (w *workPart) Run(ctx context.Context) error {
	w.recovered.Do(func() {
		// Once per Spirit, not per restart of this part: a restart must
		// not end the runs still going in the background.
		n, err := w.runner.Recover(ctx)
		if err != nil {
			w.log.Warn("work: recover interrupted runs", "err", err)
		} else if n > 0 {
			w.log.Info("work: runs interrupted by the last stop ended in an error", "runs", n)
		}
	})
	var beatAt time.Time
	for {
		now := w.now()
		s := w.settings(ctx)
		switch {
		case !s.WorkHeartbeat:
			beatAt = time.Time{}
		case beatAt.IsZero():
			beatAt = NextHeartbeat(now, s.WorkActiveHours)
		case !now.Before(beatAt):
			if !w.configured(ctx) {
				beatAt = NextHeartbeat(now, s.WorkActiveHours)
				break
			}
			if _, err := w.startHeartbeat(ctx, s); err != nil {
				w.log.Warn("work: heartbeat not started", "err", err)
			}
			beatAt = NextHeartbeat(now, s.WorkActiveHours)
		}
		next, err := w.runner.RunDue(ctx)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			w.log.Warn("work: routines", "err", err)
		}
		wait := maxWorkWait
		for _, t := range []time.Time{next, beatAt} {
			if !t.IsZero() {
				wait = min(wait, t.Sub(now))
			}
		}
		timer := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			timer.Stop()
			// Spirit is stopping: background runs end now, and a routine
			// cut short stays due for the next start.
			w.runner.Close()
			return nil
		case <-w.wake:
			timer.Stop()
		case <-timer.C:
		}
	}
	w.runner.Close()
	return nil
}

// changed wakes the loop: routines were added, removed or run.
func (w *workPart) changed() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *workPart) settings(ctx context.Context) settings.Settings {
	s, err := w.load(ctx)
	if err != nil && !errors.Is(err, settings.ErrInvalid) {
		w.log.Warn("work: settings unreadable, defaults used", "err", err)
	}
	return s
}

// NextHeartbeat is the first half hour (hh:00 or hh:30 on the wall clock
// of now's location) after now inside the active hours; zero if none
// comes within eight days.
func NextHeartbeat(now time.Time, hours settings.ActiveHours) time.Time {
	ah := activeHours(hours)
	t := time.Date(now.Year(), now.Month(), now.Day(), now.Hour(), 0, 0, 0, now.Location())
	for t = t.Add(HeartbeatEvery); !t.After(now); t = t.Add(HeartbeatEvery) {
	}
	for end := now.AddDate(0, 0, 8); t.Before(end); t = t.Add(HeartbeatEvery) {
		if ah.Contains(t) {
			return t
		}
	}
	return time.Time{}
}

// activeHours are the settings' active hours as package work reads them.
func activeHours(a settings.ActiveHours) work.ActiveHours {
	return work.ActiveHours{Days: a.Days, From: a.From, To: a.To}
}

// heartbeatCursor is the world log's cursor of the heartbeat: the last
// entry a heartbeat's model has read. Scripts cannot move it (POST
// /world/check refuses it).
const heartbeatCursor = store.HeartbeatCursor

// heartbeatRequest is a heartbeat at now: its prompt, built by code from
// the world log since the last heartbeat and the open items, and its input
// gate, the active hours, so that outside them the model is never called.
// The world log's cursor moves only once the model has read the lines, so
// a heartbeat that was skipped or failed leaves them to the next.
func (w *workPart) heartbeatRequest(ctx context.Context, s settings.Settings, now time.Time) work.Request {
	prompt, doing, last := w.heartbeatPrompt(ctx, now)
	return work.Request{
		Source:    work.SourceHeartbeat,
		Prompt:    prompt,
		Unstored:  doing,
		InputGate: activeHours(s.WorkActiveHours).Gate(now.Location()),
		Done: func(ctx context.Context, o work.Outcome) {
			// A dropped notice was read too: the lines that steered it must
			// not be read again at every heartbeat.
			read := o.Status == store.WorkDone || o.Reason == work.ReasonAck || o.Reason == work.ReasonDuplicate ||
				o.Reason == work.ReasonDropped
			if !read || last == 0 {
				return
			}
			if err := w.store.SetCursor(ctx, heartbeatCursor, last); err != nil {
				w.log.Warn("work: heartbeat cursor", "err", err)
			}
		},
	}
}

// startHeartbeat queues a heartbeat in the background.
func (w *workPart) startHeartbeat(ctx context.Context, s settings.Settings) (store.WorkRun, error) {
	return w.runner.Start(ctx, w.heartbeatRequest(ctx, s, w.now()))
}

// heartbeat runs one heartbeat now and returns its outcome.
func (w *workPart) heartbeat(ctx context.Context) (work.Outcome, error) {
	return w.runner.Run(ctx, w.heartbeatRequest(ctx, w.settings(ctx), w.now()))
}

// heartbeatPrompt is what the heartbeat reviews, and the id of the last
// world-log entry in it. Every part is read by code; one that cannot be
// read says so rather than failing the beat. The digest of what the lawyer
// is doing comes apart, as doing: it may quote the window in front, so it
// goes to the model (work.Request.Unstored) and is never stored.
func (w *workPart) heartbeatPrompt(ctx context.Context, now time.Time) (prompt, doing string, last int64) {
	var b strings.Builder
	loc := now.Location()
	clock := func(t time.Time) string { return t.In(loc).Format("Mon 2 Jan 15:04") }
	fmt.Fprintf(&b, "Heartbeat, %s. Look over what happened since the last heartbeat and the open items below. "+
		"Call notify_user only if the lawyer must act on something now that they may otherwise miss, "+
		"and say who, what and by when; an open nudge already says what it says. Otherwise end without it: most heartbeats do.\n",
		clock(now))
	section := func(title string, lines []string, err error) {
		fmt.Fprintf(&b, "\n%s:\n", title)
		switch {
		case err != nil:
			b.WriteString("(could not be read)\n")
		case len(lines) == 0:
			b.WriteString("(none)\n")
		}
		for _, l := range lines {
			b.WriteString("- " + l + "\n")
		}
	}

	var (
		world []string
		es    []store.Entry
	)
	cursor, err := w.store.Cursor(ctx, heartbeatCursor)
	switch {
	case err != nil:
	case cursor == 0: // the first heartbeat: the latest lines only
		es, err = w.store.Recent(ctx, heartbeatWorldLines)
	default:
		es, err = w.store.Since(ctx, cursor, 5000)
	}
	for _, e := range es {
		last = e.ID
		// Work's own outcomes are not news; the nudges it raised are.
		if e.Source != store.WorkEventSource {
			world = append(world, oneLine(e.String(), heartbeatLineRunes))
		}
	}
	if len(world) > heartbeatWorldLines {
		world = append([]string{fmt.Sprintf("(%d earlier lines left out)", len(world)-heartbeatWorldLines)},
			world[len(world)-heartbeatWorldLines:]...)
	}
	section("World log since the last heartbeat, oldest first", world, err)

	var waiting []string
	ns, err := w.store.Nudges(ctx, store.NudgeShown, store.NudgeSnoozed)
	for _, n := range ns[:min(len(ns), heartbeatItems)] {
		waiting = append(waiting, fmt.Sprintf("nudge %d (%s, %s, since %s): %s", n.ID, n.Kind, n.State, clock(n.Created),
			oneLine(n.Message, heartbeatLineRunes)))
	}
	section("Nudges waiting for the lawyer", waiting, err)

	var help []string
	as, err := w.store.FailedAgents(ctx)
	for _, a := range as[:min(len(as), heartbeatItems)] {
		help = append(help, fmt.Sprintf("%s failed (%s): %s", a.Session, clock(a.Updated), oneLine(a.Text, heartbeatLineRunes)))
	}
	section("Task agents that need help", help, err)

	var due []string
	rs, err := w.store.Reminders(ctx, store.ReminderPending, store.ReminderFired)
	y, m, d := now.In(loc).Date()
	for _, r := range rs {
		if r.Due == nil {
			continue
		}
		if ry, rm, rd := r.Due.In(loc).Date(); ry == y && rm == m && rd == d && len(due) < heartbeatItems {
			due = append(due, fmt.Sprintf("%s (%s): %s", r.Due.In(loc).Format("15:04"), r.State, oneLine(r.Task, heartbeatLineRunes)))
		}
	}
	section("Reminders due today", due, err)

	var open []string
	cs, err := w.store.OpenCommitments(ctx, heartbeatItems)
	for _, c := range cs {
		l := fmt.Sprintf("%q, heard %s", oneLine(c.Task, heartbeatLineRunes), clock(c.Heard))
		if c.Deadline != nil {
			l += ", by " + clock(*c.Deadline)
		}
		open = append(open, l)
	}
	section("Open commitments (said on calls, no reminder yet)", open, err)

	var meetings []string
	occs, err := calendar.Upcoming(ctx, w.store, now, endOfDay(now), loc)
	if err == nil {
		var me calendar.Me
		if me, err = lawyer(ctx, w.ix); err == nil {
			meetings = todaysMeetings(occs, me, now)
		}
	}
	section("Meetings still to come today (from the lawyer's calendars)", meetings, err)

	var recent []string
	if w.digest != nil {
		// Only a recent digest says what the lawyer is doing now.
		if a, ok := w.digest(); ok && now.Sub(a.At) < HeartbeatEvery {
			text := a.Digest
			if text == "" {
				text = a.HUD
			}
			recent = append(recent, fmt.Sprintf("%s (at %s)", oneLine(text, 4*heartbeatLineRunes), a.At.In(loc).Format("15:04")))
		}
	}
	prompt = b.String()
	b.Reset()
	section("What the lawyer is doing (the latest digest)", recent, nil)
	return prompt, b.String(), last
}

// endOfDay is the midnight that ends now's day, on its wall clock.
func endOfDay(now time.Time) time.Time {
	y, m, d := now.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
}

// todaysMeetings words the rest of the lawyer's day for the heartbeat,
// one line per occurrence that takes their time (calendar.Busy), in
// order: "14:00–15:00 “Call re SNDA” with Marcy Howard, at Zoom", all-day
// ones first, one under way marked so. occs end after now and start
// before the day ends.
func todaysMeetings(occs []calendar.Occurrence, me calendar.Me, now time.Time) []string {
	var allDay, timed []string
	for _, o := range occs {
		if !calendar.Busy(o, me) || !o.End.After(now) || len(allDay)+len(timed) >= heartbeatItems {
			continue
		}
		l := quoteTitle(oneLine(o.Summary, heartbeatLineRunes))
		var with []string
		for _, p := range calendar.Others(o, me) {
			with = append(with, p.Display())
		}
		if len(with) > 0 {
			l += " with " + strings.Join(with, ", ")
		}
		if o.Location != "" {
			l += ", at " + oneLine(o.Location, 80)
		}
		if o.AllDay {
			allDay = append(allDay, "all day: "+l)
			continue
		}
		when := o.Start.In(now.Location()).Format("15:04") + "–" + o.End.In(now.Location()).Format("15:04") + " "
		if !o.Start.After(now) {
			when += "(under way) "
		}
		timed = append(timed, when+l)
	}
	return append(allDay, timed...)
}

// oneLine is s on one line, at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}

// The local API's work routes (api.WorkBackend).

var _ api.WorkBackend = (*Core)(nil)

// errNoWork answers the work routes of a core built without its work
// part.
var errNoWork = errors.New("work runner is not running")

func (c *Core) workPart() (*workPart, error) {
	if c.work == nil {
		return nil, errNoWork
	}
	return c.work, nil
}

// StartWork implements api.WorkBackend: a webhook's request, run in the
// background. A caller's source is its name in the webhook's namespace
// (work.WebhookSource); while too many such requests are in flight, a new
// one is refused (api.ErrTooMany).
func (c *Core) StartWork(ctx context.Context, nw api.NewWork) (api.WorkRun, error) {
	w, err := c.workPart()
	if err != nil {
		return api.WorkRun{}, err
	}
	// Whatever the caller calls itself, its work is in the webhook's
	// namespace: "calendar" is "webhook:calendar", never the calendar's.
	src, err := work.WebhookSource(nw.Source)
	if err != nil {
		return api.WorkRun{}, fmt.Errorf("%s: %w", strings.TrimPrefix(err.Error(), "work: "+store.ErrInvalid.Error()+": "), api.ErrBadRequest)
	}
	run, err := w.runner.Start(ctx, work.Request{Source: src, Prompt: nw.Prompt, DedupKey: nw.DedupKey})
	switch {
	case errors.Is(err, work.ErrTooMany):
		return api.WorkRun{}, fmt.Errorf("Spirit is still working on earlier requests from local programs; try again in a minute: %w", api.ErrTooMany)
	case errors.Is(err, store.ErrInvalid):
		return api.WorkRun{}, fmt.Errorf("%w: %w", api.ErrBadRequest, err)
	case err != nil:
		return api.WorkRun{}, err
	}
	return workRunView(run), nil
}

// WorkRun implements api.WorkBackend.
func (c *Core) WorkRun(ctx context.Context, id int64) (api.WorkRun, error) {
	run, err := c.store.WorkRun(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.WorkRun{}, fmt.Errorf("work %d: %w", id, api.ErrNotFound)
	}
	if err != nil {
		return api.WorkRun{}, err
	}
	return workRunView(run), nil
}

// workRunView is a stored run as the API shows it.
func workRunView(r store.WorkRun) api.WorkRun {
	v := api.WorkRun{ID: r.ID, Source: r.Source, State: string(r.State), Message: r.Message, Action: r.Action,
		NudgeID: r.NudgeID, Created: r.Created, DurationMS: r.DurationMS, InputTokens: r.TokensIn,
		OutputTokens: r.TokensOut, CostUSD: r.CostUSD}
	if o, ok := work.OutcomeOf(r); ok {
		v.Reason, v.Error, v.Delivered = string(o.Reason), o.Err, o.Delivered
	}
	return v
}

// Routines implements api.WorkBackend.
func (c *Core) Routines(ctx context.Context) ([]api.Routine, error) {
	rs, err := c.store.Routines(ctx)
	if err != nil {
		return nil, err
	}
	now := c.now()
	return api.Views(rs, func(r store.Routine) api.Routine { return RoutineView(r, now) }), nil
}

// RoutineView is a stored routine as the API shows it, with its next time
// after now in now's location.
func RoutineView(r store.Routine, now time.Time) api.Routine {
	v := api.Routine{ID: r.ID, Cron: r.Cron, Prompt: r.Prompt, Enabled: r.Enabled, Created: r.Created, LastRun: r.LastRun}
	if s, err := work.ParseSchedule(r.Cron); err == nil && r.Enabled {
		if n := s.Next(now, now.Location()); !n.IsZero() {
			v.Next = &n
		}
	}
	return v
}

// AddRoutine implements api.WorkBackend.
func (c *Core) AddRoutine(ctx context.Context, nr api.NewRoutine) (api.Routine, error) {
	rt, err := work.AddRoutine(ctx, c.store, nr.Cron, nr.Prompt)
	if errors.Is(err, store.ErrInvalid) {
		return api.Routine{}, fmt.Errorf("%s: %w", RoutineError(err), api.ErrBadRequest)
	}
	if err != nil {
		return api.Routine{}, err
	}
	c.workChanged()
	return RoutineView(rt, c.now()), nil
}

// RoutineError says in the lawyer's words what is wrong with a routine
// that was refused: `cron "70 8 * * *": the minute must be 0 to 59`.
func RoutineError(err error) string {
	msg := err.Error()
	// work's errors read `cron "x": invalid argument: why`; keep the why.
	prefix, why, ok := strings.Cut(msg, ": "+store.ErrInvalid.Error()+": ")
	if !ok {
		return msg
	}
	return prefix + ": " + cronWords(why)
}

// cronFields name cron's fields by the largest value each takes, as the
// cron library's range errors give it.
var cronFields = map[string]string{"59": "the minute must be 0 to 59", "23": "the hour must be 0 to 23",
	"31": "the day of the month must be 1 to 31", "12": "the month must be 1 to 12",
	"6": "the day of the week must be 0 to 7 (0 and 7 are Sunday)", "7": "the day of the week must be 0 to 7 (0 and 7 are Sunday)"}

// cronWords rewords the cron library's errors.
func cronWords(why string) string {
	switch {
	case strings.HasPrefix(why, "want 5 fields"):
		_, got, _ := strings.Cut(why, "; got ")
		return "it has " + got + " fields, not 5"
	case strings.Contains(why, "above maximum ("):
		_, rest, _ := strings.Cut(why, "above maximum (")
		if w, ok := cronFields[strings.SplitN(rest, ")", 2)[0]]; ok {
			return w
		}
	case strings.Contains(why, "failed to parse int from "):
		_, rest, _ := strings.Cut(why, "failed to parse int from ")
		word, _, _ := strings.Cut(rest, ":")
		return fmt.Sprintf("%q is not a number or a day or month name", word)
	case strings.Contains(why, "below minimum"):
		return "a day or month cannot be 0 (days of the month and months start at 1)"
	}
	return why
}

// RemoveRoutine implements api.WorkBackend.
func (c *Core) RemoveRoutine(ctx context.Context, id int64) error {
	err := c.store.DeleteRoutine(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("routine %d: %w", id, api.ErrNotFound)
	}
	if err == nil {
		c.workChanged()
	}
	return err
}

// RunRoutine implements api.WorkBackend: routine id now, in the
// background, whatever its schedule; its last run does not move.
func (c *Core) RunRoutine(ctx context.Context, id int64) (api.WorkRun, error) {
	w, err := c.workPart()
	if err != nil {
		return api.WorkRun{}, err
	}
	rt, err := c.store.Routine(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return api.WorkRun{}, fmt.Errorf("routine %d: %w", id, api.ErrNotFound)
	}
	if err != nil {
		return api.WorkRun{}, err
	}
	run, err := w.runner.Start(ctx, work.Request{Source: work.RoutineSource(rt.ID), Prompt: rt.Prompt})
	if err != nil {
		return api.WorkRun{}, err
	}
	return workRunView(run), nil
}

// workChanged wakes the work part after routines changed.
func (c *Core) workChanged() {
	if c.work != nil {
		c.work.changed()
	}
}

// ScheduleWords says a routine's cron spec in words when it is one of the
// common shapes ("weekdays at 8:30", "every day at 17:00", "Mondays at
// 9:00"), else returns the spec itself.
func ScheduleWords(spec string) string {
	f := strings.Fields(spec)
	if len(f) != 5 || f[2] != "*" || f[3] != "*" {
		return spec
	}
	m, errM := strconv.Atoi(f[0])
	h, errH := strconv.Atoi(f[1])
	if errM != nil || errH != nil || m < 0 || m > 59 || h < 0 || h > 23 {
		return spec
	}
	at := fmt.Sprintf("at %d:%02d", h, m)
	days := map[string]string{"*": "every day", "1-5": "weekdays", "mon-fri": "weekdays", "0,6": "weekends", "6,0": "weekends",
		"sat,sun": "weekends", "0": "Sundays", "7": "Sundays", "1": "Mondays", "2": "Tuesdays", "3": "Wednesdays",
		"4": "Thursdays", "5": "Fridays", "6": "Saturdays", "sun": "Sundays", "mon": "Mondays", "tue": "Tuesdays",
		"wed": "Wednesdays", "thu": "Thursdays", "fri": "Fridays", "sat": "Saturdays"}
	if d, ok := days[strings.ToLower(f[4])]; ok {
		return d + " " + at
	}
	return spec
}

// WorkRunWords says how a run ended, for the lawyer (spirit work run,
// Settings → Routines' Run now).
func WorkRunWords(r api.WorkRun) string {
	switch {
	case !r.Ended():
		return fmt.Sprintf("Still running (run %d).", r.ID)
	case r.State == string(store.WorkDone) && r.Delivered:
		return fmt.Sprintf("Spirit told you: %s (run %d)", r.Message, r.ID)
	case r.State == string(store.WorkDone):
		return fmt.Sprintf("Spirit had something to say but could not show it: %s (run %d)", r.Error, r.ID)
	case r.State == string(store.WorkSkip) && r.Reason == string(work.ReasonAck):
		return fmt.Sprintf("Nothing needs you now (run %d).", r.ID)
	case r.State == string(store.WorkSkip) && r.Reason == string(work.ReasonDropped):
		return fmt.Sprintf("Spirit kept back what the model proposed: it named people, links or instructions "+
			"that are not from your own mail (run %d).", r.ID)
	case r.State == string(store.WorkSkip):
		return fmt.Sprintf("Not run: %s (run %d).", skipWords(work.Reason(r.Reason)), r.ID)
	}
	return fmt.Sprintf("The run failed: %s (run %d).", r.Error, r.ID)
}

func skipWords(reason work.Reason) string {
	switch reason {
	case work.ReasonNoProvider:
		return "no model provider is set (Settings → Model provider, or spirit provider set)"
	case work.ReasonBusy:
		return "this routine is already running"
	case work.ReasonDuplicate:
		return "Spirit said the same lately"
	case work.ReasonQuietHours:
		return "it is your quiet hours"
	case work.ReasonHourlyCap:
		return "Spirit has spoken up enough this hour"
	case work.ReasonPaused:
		return "Spirit is paused"
	case work.ReasonOutsideActiveHours:
		return "it is outside your active hours"
	}
	return string(reason)
}
