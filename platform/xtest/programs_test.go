//go:build linux

package xtest_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
)

// programs holds what this test binary built; TestMain removes it.
var programs xtest.Programs

func TestMain(m *testing.M) { os.Exit(programs.Run(m)) }

// TestProgramsBuildOnce: tests asking for the same program at the same
// time get one build, the same file, and it runs.
func TestProgramsBuildOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var ps xtest.Programs
	defer ps.Remove()
	paths := make([]string, 3)
	var wg sync.WaitGroup
	for i := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			paths[i] = ps.Build(t, ctx, "./testdata/stuck")
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	st, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		if p != paths[0] {
			t.Errorf("build %d: %s, want the first's %s", i, p, paths[0])
		}
	}
	// Asked again later: the same file, not linked anew.
	again := ps.Build(t, ctx, "./testdata/stuck")
	st2, err := os.Stat(again)
	if err != nil {
		t.Fatal(err)
	}
	if again != paths[0] || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("second Build: %s (modified %v), want %s unchanged (%v)", again, st2.ModTime(), paths[0], st.ModTime())
	}
	// Other tags are another program.
	other := ps.Build(t, ctx, "./testdata/stuck", "sqlite_fts5")
	if other == paths[0] {
		t.Errorf("a build with other tags shares the path %s", other)
	}

	if err := ps.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Errorf("after Remove: %s still there (%v)", paths[0], err)
	}
}

// TestProgramsBuildFails: a program that does not compile fails each test
// asking for it with the compiler's words, and is not built again.
func TestProgramsBuildFails(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var ps xtest.Programs
	defer ps.Remove()
	for try := 0; try < 2; try++ {
		ft := &fatalTB{TB: t}
		start := time.Now()
		ft.run(func() { ps.Build(ft, ctx, "./testdata/broken") })
		if !strings.Contains(ft.msg, "cannot use") || !strings.Contains(ft.msg, "broken") {
			t.Errorf("try %d: failure %q, want the compiler's error naming the package", try, ft.msg)
		}
		t.Logf("try %d failed as it should in %v", try, time.Since(start).Round(time.Millisecond))
	}
}

// TestRunDumpsGoroutinesWhenTimeIsUp: a Go program still running when its
// test's context reaches its deadline prints where its goroutines were.
func TestRunDumpsGoroutinesWhenTimeIsUp(t *testing.T) {
	bctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	bin := programs.Build(t, bctx, "./testdata/stuck")

	// The deadline passes only once the program said it is ready: before
	// the Go runtime is up, SIGQUIT would kill it without a dump.
	ctx := &timeUp{Context: t.Context(), done: make(chan struct{})}
	p := xtest.Run(t, ctx, bin, nil, nil)
	if err := xtest.Poll(bctx, func() (bool, error) { return strings.Contains(p.Stdout(), "ready"), nil }); err != nil {
		t.Fatalf("stuck never said ready: %v\n%s", err, p.Output())
	}
	close(ctx.done)
	select {
	case <-p.Done():
	case <-bctx.Done():
		t.Fatal("the program outlived its deadline")
	}
	out := p.Stderr()
	for _, want := range []string{"SIGQUIT", "main.waitForever"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q: no goroutine dump?\n%s", want, out)
		}
	}
}

// timeUp is a context whose deadline passes when done is closed.
type timeUp struct {
	context.Context
	done chan struct{}
}

func (c *timeUp) Done() <-chan struct{} { return c.done }

func (c *timeUp) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// fatalTB records a Fatalf instead of failing the real test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls fn on its own goroutine, so that Fatalf's Goexit ends only it.
func (f *fatalTB) run(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}
