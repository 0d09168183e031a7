package reminders

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
)

// The crash tests run a real Spirit-like process: TestHelperScheduler opens
// the database and runs a Scheduler on the real clock. The parent kills it
// at chosen moments and then restarts, in process, on the same file.
const (
	helperEnv     = "SPIRIT_REMINDERS_CRASH_HELPER"
	helperDBEnv   = "SPIRIT_REMINDERS_CRASH_DB"
	helperModeEnv = "SPIRIT_REMINDERS_CRASH_MODE"
)

// Helper modes.
const (
	// modeKillInFired: on the Nth Fired, die before the app gets to show
	// anything: the firing is recorded, the lawyer has not seen it.
	modeKillInFired = "kill-in-fired"
	// modeKillAfterFired: die right after the Nth Fired returned, before the
	// next firing's transaction.
	modeKillAfterFired = "kill-after-fired"
	// modePrint: fire everything; the parent kills whenever it likes.
	modePrint = "print"
)

// lineNotifier prints "fired <reminder> <nudge>" once Fired has done its
// work, which stands for the bubble having been shown.
type lineNotifier struct {
	mode  string
	n     int64
	count atomic.Int64
}

func (l *lineNotifier) Fired(_ context.Context, r store.Reminder, n store.Nudge, _ bool) {
	k := l.count.Add(1)
	if l.mode == modeKillInFired && k == l.n {
		killSelf()
	}
	// os.Stdout is unbuffered: once this returns the parent can read it.
	fmt.Printf("fired %d %d\n", r.ID, n.ID)
	if l.mode == modeKillAfterFired && k == l.n {
		killSelf()
	}
}

// killSelf is SIGKILL: no deferred function, no cleanup, like a power cut
// as far as the process is concerned.
func killSelf() {
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		_ = p.Kill()
	}
	select {} // the signal may take a moment
}

// TestHelperScheduler is not a test: it is the child process of the crash
// tests.
func TestHelperScheduler(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for the crash tests")
	}
	// Never outlive a parent that forgot us.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := store.Open(ctx, os.Getenv(helperDBEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	mode, arg, _ := strings.Cut(os.Getenv(helperModeEnv), "=")
	n, _ := strconv.ParseInt(arg, 10, 64)
	err = New(st, &lineNotifier{mode: mode, n: n}, Options{}).Run(ctx)
	fmt.Fprintln(os.Stderr, "helper: Run returned", err)
	os.Exit(3)
}

// runHelper starts the helper on path and returns the (reminder, nudge)
// pairs it reported as shown. killAfter > 0 kills it after that many lines;
// otherwise it is expected to kill itself, or is killed once it reported
// want lines.
func runHelper(t *testing.T, path, mode string, killAfter, want int) map[int64]int64 {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperScheduler$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperDBEnv+"="+path, helperModeEnv+"="+mode)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shown := make(map[int64]int64)
	sc := bufio.NewScanner(out)
	killed := false
	for sc.Scan() {
		var rid, nid int64
		if _, err := fmt.Sscanf(sc.Text(), "fired %d %d", &rid, &nid); err != nil {
			t.Fatalf("bad helper line %q", sc.Text())
		}
		if _, dup := shown[rid]; dup {
			t.Fatalf("helper showed reminder %d twice", rid)
		}
		shown[rid] = nid
		if !killed && (killAfter > 0 && len(shown) == killAfter || len(shown) == want) {
			// The helper never pauses between firings: the kill lands in
			// whatever it is doing next.
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
		// Keep reading: lines already in the pipe were shown too.
	}
	err = cmd.Wait()
	if !strings.Contains(fmt.Sprint(err), "killed") {
		t.Fatalf("helper ended with %v, not killed\n%s", err, stderr.String())
	}
	return shown
}

// seedDue writes n reminders that are all due, a minute apart, every third
// one recurring daily.
func seedDue(t *testing.T, path string, n int) {
	t.Helper()
	ctx := t.Context()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := time.Now().Add(-2 * time.Hour).Truncate(time.Minute)
	for i := range n {
		every := store.Once
		if i%3 == 2 {
			every = store.EveryDay
		}
		due := base.Add(time.Duration(i) * time.Minute)
		if _, err := st.CreateReminder(ctx, store.NewReminder{Task: fmt.Sprintf("task %d", i), Due: &due, Every: every}); err != nil {
			t.Fatal(err)
		}
	}
}

// firedEvents counts the "fired" world log events per reminder.
func firedEvents(t *testing.T, st *store.Store) map[int64]int {
	t.Helper()
	es, err := st.Since(t.Context(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[int64]int)
	for _, e := range es {
		if e.Source == store.ReminderEventSource && strings.HasPrefix(e.Text, "fired") {
			id, err := strconv.ParseInt(strings.TrimPrefix(e.Identifier, "reminder-"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			out[id]++
		}
	}
	return out
}

// checkConsistent checks that each recorded firing is whole: its nudge
// exists, its log event exists, and nothing fired twice.
func checkConsistent(t *testing.T, st *store.Store, n int) (firedIDs map[int64]bool) {
	t.Helper()
	ctx := t.Context()
	if err := st.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	rs, err := st.Reminders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != n {
		t.Fatalf("%d reminders, want %d", len(rs), n)
	}
	ns, err := st.Nudges(ctx)
	if err != nil {
		t.Fatal(err)
	}
	events := firedEvents(t, st)
	firedIDs = make(map[int64]bool)
	for _, r := range rs {
		if r.FireCount > 1 {
			t.Errorf("reminder %d fired %d times", r.ID, r.FireCount)
		}
		if events[r.ID] != r.FireCount {
			t.Errorf("reminder %d: fire count %d, %d fired events", r.ID, r.FireCount, events[r.ID])
		}
		if r.FireCount == 1 {
			firedIDs[r.ID] = true
			if r.NudgeID == 0 {
				t.Errorf("reminder %d fired without a nudge", r.ID)
			}
		}
	}
	if len(ns) != len(firedIDs) {
		t.Errorf("%d nudges for %d firings: a firing was recorded in part", len(ns), len(firedIDs))
	}
	return firedIDs
}

// restartAndFinish runs a Scheduler in process on the file, as Spirit
// restarting would, and checks that exactly the unfired reminders fire.
func restartAndFinish(t *testing.T, path string, n int, firedBefore map[int64]bool) {
	t.Helper()
	clk := newFakeClock(time.Now())
	st := openStore(t, path, clk)
	open, err := New(st, nil, Options{Clock: clk}).OpenFirings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != len(firedBefore) {
		t.Errorf("%d open firings for %d recorded firings", len(open), len(firedBefore))
	}
	for _, f := range open {
		if !firedBefore[f.Reminder.ID] {
			t.Errorf("open firing for reminder %d, which had not fired before the crash: %+v", f.Reminder.ID, f)
		}
		if f.Nudge.State != store.NudgeShown {
			t.Errorf("open firing for reminder %d: nudge state %s, want %s", f.Reminder.ID, f.Nudge.State, store.NudgeShown)
		}
	}
	rec := &recorder{}
	run := newRunner(t, st, clk, rec, long)
	run.start()
	for _, f := range rec.Firings() {
		if firedBefore[f.r.ID] {
			t.Errorf("reminder %d fired again after the restart", f.r.ID)
		}
		if !f.missed {
			t.Errorf("reminder %d caught up after a restart not marked missed", f.r.ID)
		}
	}
	if got := len(rec.Firings()) + len(firedBefore); got != n {
		t.Errorf("%d firings before and %d after the restart, want %d in all", len(firedBefore), len(rec.Firings()), n)
	}
	run.stop()
	if all := checkConsistent(t, st, n); len(all) != n {
		t.Errorf("%d of %d reminders fired in the end", len(all), n)
	}
}

// TestCrashAfterRecordingBeforeShowing kills Spirit inside Fired: the
// third firing is recorded and never shown. A restart must not fire it
// again, must hand it back through OpenFirings, and must fire the rest once.
func TestCrashAfterRecordingBeforeShowing(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := tempDB(t)
	const n = 8
	seedDue(t, path, n)
	shown := runHelper(t, path, modeKillInFired+"=3", 0, n)
	if len(shown) != 2 {
		t.Fatalf("helper showed %d before dying, want 2", len(shown))
	}
	clk := newFakeClock(time.Now())
	st := openStore(t, path, clk)
	fired := checkConsistent(t, st, n)
	if len(fired) != 3 {
		t.Fatalf("%d firings recorded, want 3 (two shown, one not)", len(fired))
	}
	var unseen []int64
	for id := range fired {
		if _, ok := shown[id]; !ok {
			unseen = append(unseen, id)
		}
	}
	if len(unseen) != 1 {
		t.Fatalf("recorded but not shown: %v", unseen)
	}
	open, err := New(st, nil, Options{Clock: clk}).OpenFirings(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range open {
		found = found || f.Reminder.ID == unseen[0]
	}
	if !found {
		t.Fatalf("the firing the lawyer never saw (reminder %d) is not among the open ones: %+v", unseen[0], open)
	}
	restartAndFinish(t, path, n, fired)
}

// TestCrashAfterShowingBeforeNextRecord kills Spirit after the third Fired
// returned, before the fourth firing's transaction: the fourth must fire
// after the restart, once, and the first three must not.
func TestCrashAfterShowingBeforeNextRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := tempDB(t)
	const n = 8
	seedDue(t, path, n)
	shown := runHelper(t, path, modeKillAfterFired+"=3", 0, n)
	if len(shown) != 3 {
		t.Fatalf("helper showed %d, want 3", len(shown))
	}
	clk := newFakeClock(time.Now())
	st := openStore(t, path, clk)
	fired := checkConsistent(t, st, n)
	if len(fired) != 3 {
		t.Fatalf("%d firings recorded, want 3", len(fired))
	}
	for id, nid := range shown {
		if r := mustReminder(t, st, id); r.NudgeID != nid {
			t.Errorf("reminder %d shown with nudge %d, recorded with %d", id, nid, r.NudgeID)
		}
	}
	restartAndFinish(t, path, n, fired)
}

// TestCrashAtRandomMoments kills Spirit while it fires a backlog, at a
// different moment each round, often inside a firing's transaction.
// Whatever the moment: no firing is half recorded, none is lost, none is
// repeated.
func TestCrashAtRandomMoments(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const n, rounds = 40, 4
	for round := range rounds {
		t.Run(fmt.Sprintf("round %d", round), func(t *testing.T) {
			path := tempDB(t)
			seedDue(t, path, n)
			shown := runHelper(t, path, modePrint, 5+9*round, n)
			clk := newFakeClock(time.Now())
			st := openStore(t, path, clk)
			fired := checkConsistent(t, st, n)
			for id, nid := range shown {
				if !fired[id] {
					t.Errorf("reminder %d was shown but its firing is not recorded", id)
				}
				if r := mustReminder(t, st, id); r.NudgeID != nid {
					t.Errorf("reminder %d shown with nudge %d, recorded with %d", id, nid, r.NudgeID)
				}
			}
			t.Logf("killed after %d shown, %d recorded", len(shown), len(fired))
			restartAndFinish(t, path, n, fired)
		})
	}
}
