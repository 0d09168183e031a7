//go:build linux

package xtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Programs builds Go programs once per test binary and hands the same
// binary to every test that asks for it. Linking Spirit anew in each
// integration test cost 20–35 s a test on two cores, even with Go's build
// cache warm (the link is never cached).
//
// Declare one in a test file and remove its folder in TestMain:
//
//	var programs xtest.Programs
//
//	func TestMain(m *testing.M) { os.Exit(programs.Run(m)) }
//
// The zero value is ready to use; it is safe for parallel tests.
type Programs struct {
	mu     sync.Mutex
	dir    string            // made at the first build
	builds map[string]*build // by package and tags
}

// build is one program: its path once built, or why it failed.
type build struct {
	lock chan struct{} // held while a build runs; a waiter honours its ctx
	dir  string        // its own folder: two packages may share a name
	path string
	err  error // a failure that another try would repeat
}

// Run runs m's tests and then removes the built programs; it returns the
// exit code for os.Exit.
func (ps *Programs) Run(m *testing.M) int {
	code := m.Run()
	if err := ps.Remove(); err != nil {
		fmt.Fprintln(os.Stderr, "xtest:", err)
	}
	return code
}

// Remove deletes the built programs. Later calls to Build build again.
func (ps *Programs) Remove() error {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	dir := ps.dir
	ps.dir, ps.builds = "", nil
	if dir == "" {
		return nil
	}
	return os.RemoveAll(dir)
}

// Build returns the path of the main package pkg (as go build takes it,
// relative to the test's working directory or an import path) built with
// tags, building it if no test of this binary did. The first caller
// builds; others wait for it within their ctx. A build cut short by its
// caller's ctx is tried again by the next caller; a build that failed is
// not, and fails every test that asks for it with the compiler's output.
func (ps *Programs) Build(t testing.TB, ctx context.Context, pkg string, tags ...string) string {
	t.Helper()
	b, dir, err := ps.entry(pkg, tags)
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	select {
	case b.lock <- struct{}{}:
	case <-ctx.Done():
		t.Fatalf("xtest: waiting for another test's build of %s: %v", pkg, ctx.Err())
	}
	defer func() { <-b.lock }()
	if b.path != "" {
		return b.path
	}
	if b.err != nil {
		t.Fatalf("xtest: %v", b.err)
	}
	start := time.Now()
	path, err := goBuild(ctx, dir, pkg, tags)
	if err != nil {
		if ctx.Err() == nil {
			b.err = err
		}
		t.Fatalf("xtest: %v", err)
	}
	b.path = path
	t.Logf("built %s in %v (once for this test binary)", pkg, time.Since(start).Round(time.Millisecond))
	return path
}

// entry returns pkg's build record and the folder to build into, making
// both at the first call.
func (ps *Programs) entry(pkg string, tags []string) (*build, string, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.dir == "" {
		dir, err := os.MkdirTemp("", "xtest-programs-")
		if err != nil {
			return nil, "", fmt.Errorf("folder for built programs: %w", err)
		}
		ps.dir = dir
	}
	key := pkg + "\x00" + strings.Join(tags, ",")
	if ps.builds == nil {
		ps.builds = make(map[string]*build)
	}
	b, ok := ps.builds[key]
	if !ok {
		b = &build{lock: make(chan struct{}, 1), dir: filepath.Join(ps.dir, fmt.Sprint(len(ps.builds)))}
		ps.builds[key] = b
	}
	return b, b.dir, nil
}

// goBuild compiles pkg into dir. Its output is in the error if it fails.
// The go command and the compilers it starts end with ctx.
func goBuild(ctx context.Context, dir, pkg string, tags []string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go toolchain not found: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, pkg)
	cmd := exec.CommandContext(ctx, goBin, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	// go starts the compilers and the linker: end them all with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = pipeGrace
	if err := cmd.Run(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = errors.Join(err, ctxErr)
		}
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, log.Bytes())
	}
	return out, nil
}
