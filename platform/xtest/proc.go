//go:build linux

package xtest

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// pipeGrace bounds how long Wait keeps reading a child's output after the
// child exited, in case a grandchild inherited the pipes.
const pipeGrace = 2 * time.Second

// stopGrace is how long cleanup waits after SIGTERM before SIGKILL.
const stopGrace = 3 * time.Second

// quitGrace is how long a Go program is given to print its goroutines and
// exit after SIGQUIT before it is killed.
const quitGrace = 10 * time.Second

// timeoutMargin is how long before the test binary's -timeout a Go child
// still running is asked for its goroutines.
const timeoutMargin = quitGrace + 5*time.Second

// noBus is a session bus address that fails immediately: without it libdbus
// and godbus would autolaunch a stray dbus-daemon.
const noBus = "disabled:"

// Proc is a child process whose output is captured. It is killed, together
// with its process group, and reaped when the test ends.
type Proc struct {
	// Name is used to label the captured output in test logs.
	Name string

	cmd  *exec.Cmd
	out  LockedBuffer // stdout and stderr interleaved
	sout LockedBuffer
	serr LockedBuffer

	done    chan struct{} // closed once the child has been reaped
	waitErr error         // valid after done is closed

	goProgram bool         // a Go binary: SIGQUIT makes it print its goroutines
	endOnce   sync.Once    // the first way to end it (ctx, cleanup) wins
	ended     atomic.Value // string: why ctx's end ended it (EndedByTest)
}

// Run starts binary with args in a new process group. The child inherits
// the test's environment minus DISPLAY, WAYLAND_DISPLAY, XAUTHORITY,
// XDG_SESSION_TYPE and DBUS_SESSION_BUS_ADDRESS, with env appended (later
// entries win). If env does not set DBUS_SESSION_BUS_ADDRESS, the child gets
// an address that fails fast instead of autolaunching a bus, so pass
// bus.Env() for anything that uses DBus.
//
// The process is killed when ctx is done and at test cleanup; its output is
// logged if the test failed. A Go program still running when ctx's deadline
// passes, when the test failed, or just before the test binary's -timeout
// gets SIGQUIT first, so the log shows where each of its goroutines was.
func Run(t testing.TB, ctx context.Context, binary string, args []string, env []string) *Proc {
	t.Helper()
	// Not exec.CommandContext: ending on ctx is done below, with the dump.
	cmd := exec.Command(binary, args...)
	cmd.Env = childEnv(os.Environ(), env)
	p, err := startProc(t, filepath.Base(binary), cmd)
	if err != nil {
		t.Fatalf("xtest: %v", err)
	}
	_, err = buildinfo.ReadFile(cmd.Path)
	p.goProgram = err == nil
	stop := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			p.ended.Store("the test's time ran out: it was sent SIGQUIT for its stacks")
			p.end(endQuit) // the test's time is up: where is it stuck?
			return
		}
		p.ended.Store("the test's context was cancelled: it was killed")
		p.end(endKill)
	})
	// Runs before startProc's cleanup (cleanups run last first).
	t.Cleanup(func() { stop() })
	if dl, ok := testDeadline(t); ok && p.goProgram {
		// go test panics at its -timeout and the child dies with it
		// (Pdeathsig), its output unlogged: dump it to stderr before.
		if wait := time.Until(dl) - timeoutMargin; wait > 0 {
			timer := time.AfterFunc(wait, func() {
				select {
				case <-p.done:
					return
				default:
				}
				p.end(endQuit)
				fmt.Fprintf(os.Stderr, "xtest: %s (pid %d) still running as the test binary times out; its output:\n%s\n",
					p.Name, p.Pid(), p.Output())
			})
			t.Cleanup(func() { timer.Stop() })
		}
	}
	return p
}

// testDeadline is when go test's -timeout ends the test binary (testing.TB
// has no Deadline; *testing.T has).
func testDeadline(t testing.TB) (time.Time, bool) {
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		return d.Deadline()
	}
	return time.Time{}, false
}

// FakeApp starts a sleeping process named name (its /proc comm) with args
// on its command line, to own test windows through _NET_WM_PID, and returns
// its pid. It is killed at cleanup.
func FakeApp(t testing.TB, name string, args ...string) int {
	t.Helper()
	// A symlink to sh named after the app: comm is the name exec'd. The
	// trailing ": done" keeps dash from exec'ing sleep in its place.
	bin := filepath.Join(t.TempDir(), name)
	if err := os.Symlink("/bin/sh", bin); err != nil {
		t.Fatalf("xtest: %v", err)
	}
	cmd := exec.Command(bin, append([]string{"-c", "sleep 3600; : done", name}, args...)...)
	cmd.Env = childEnv(os.Environ(), nil)
	p, err := startProc(t, name, cmd)
	if err != nil {
		t.Fatalf("xtest: start fake app %s: %v", name, err)
	}
	return p.Pid()
}

// childEnv builds a child's environment: base without the session variables,
// then extra, then a dead bus address if extra did not provide one.
func childEnv(base, extra []string) []string {
	env := make([]string, 0, len(base)+len(extra)+1)
	for _, kv := range base {
		if !isSessionVar(kv) {
			env = append(env, kv)
		}
	}
	env = append(env, extra...)
	for _, kv := range extra {
		if strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			return env
		}
	}
	return append(env, "DBUS_SESSION_BUS_ADDRESS="+noBus)
}

// isSessionVar reports whether kv is stripped from the inherited
// environment, so a child never reaches the developer's real desktop or
// session bus by accident.
func isSessionVar(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	switch name {
	case "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_SESSION_TYPE", "DBUS_SESSION_BUS_ADDRESS":
		return true
	}
	return false
}

// startProc starts cmd with output capture, its own process group and a
// parent-death signal, and registers cleanup. cmd.Stdout/Stderr must be unset.
func startProc(t testing.TB, name string, cmd *exec.Cmd) (*Proc, error) {
	p := &Proc{Name: name, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout = io.MultiWriter(&p.sout, &p.out)
	cmd.Stderr = io.MultiWriter(&p.serr, &p.out)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true,
		// If the test binary dies (e.g. go test's timeout panic) the
		// child must not outlive it.
		Pdeathsig: syscall.SIGKILL,
	}
	if cmd.Cancel != nil { // only set by exec.CommandContext
		cmd.Cancel = func() error { return killGroup(cmd.Process) }
	}
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		how := endTerm
		if t.Failed() {
			how = endQuit
		}
		p.end(how)
		if t.Failed() {
			t.Logf("--- output of %s (pid %d, %s):\n%s", p.Name, cmd.Process.Pid, p.status(), p.Output())
		}
	})
	return p, nil
}

// killGroup SIGKILLs the whole process group led by proc.
func killGroup(proc *os.Process) error {
	if proc == nil {
		return nil
	}
	err := syscall.Kill(-proc.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// How end stops a process.
const (
	endTerm = iota // SIGTERM to the group, SIGKILL after stopGrace
	endKill        // SIGKILL to the group at once
	endQuit        // SIGQUIT to a Go program first, then as endTerm
)

// end stops the process once and waits until it is reaped. endQuit gives
// a Go program SIGQUIT first: it prints every goroutine's stack to its
// stderr (captured in Output) and exits. SIGTERM first lets servers such
// as Xvfb remove their sockets. What is left of the process group is
// killed. A second caller waits for the first.
func (p *Proc) end(how int) {
	p.endOnce.Do(func() {
		defer func() { _ = killGroup(p.cmd.Process) }() // grandchildren
		select {
		case <-p.done:
			return
		default:
		}
		if how == endQuit && p.goProgram {
			_ = p.cmd.Process.Signal(syscall.SIGQUIT)
			if p.waitDone(quitGrace) {
				return
			}
		}
		if how != endKill {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
			if p.waitDone(stopGrace) {
				return
			}
		}
		_ = killGroup(p.cmd.Process)
		<-p.done
	})
}

// waitDone reports whether the process was reaped within d.
func (p *Proc) waitDone(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.done:
		return true
	case <-timer.C:
		return false
	}
}

func (p *Proc) status() string {
	select {
	case <-p.done:
		return p.cmd.ProcessState.String()
	default:
		return "running"
	}
}

// Pid returns the child's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// EndedByTest says why the harness ended the process when it did so
// because the context given to Run ended, or "" if it did not: a clean
// exit is then no longer the process's to give.
func (p *Proc) EndedByTest() string {
	why, _ := p.ended.Load().(string)
	return why
}

// Done is closed once the process has exited and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait waits for the process to exit or ctx to be done. exitCode is the
// process's exit status; if it was killed by a signal, exitCode is -1 and
// err says which signal. If ctx ends first, the process keeps running and
// err wraps ctx.Err().
func (p *Proc) Wait(ctx context.Context) (exitCode int, err error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return -1, fmt.Errorf("waiting for %s to exit: %w", p.Name, ctx.Err())
	}
	st := p.cmd.ProcessState
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, fmt.Errorf("%s killed by signal %v", p.Name, ws.Signal())
	}
	var exitErr *exec.ExitError
	if p.waitErr != nil && !errors.As(p.waitErr, &exitErr) {
		// The status is known, but output may have been cut short.
		return st.ExitCode(), fmt.Errorf("waiting for %s: %w", p.Name, p.waitErr)
	}
	return st.ExitCode(), nil
}

// Signal sends sig to the process (not its group).
func (p *Proc) Signal(sig os.Signal) error {
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("signal %s: %w", p.Name, err)
	}
	return nil
}

// Stdout returns what the process has written to stdout so far.
func (p *Proc) Stdout() string { return p.sout.String() }

// Stderr returns what the process has written to stderr so far.
func (p *Proc) Stderr() string { return p.serr.String() }

// Output returns stdout and stderr interleaved, as written so far.
func (p *Proc) Output() string { return p.out.String() }

// LockedBuffer is a bytes.Buffer safe for concurrent Write and String:
// a child's output, or a log that several goroutines write to.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// readLineFD reads one line from r, which a child writes to (used for
// Xvfb -displayfd and dbus-daemon --print-address). It gives up when ctx is
// done or the child closes its end, e.g. by exiting.
func readLineFD(ctx context.Context, r *os.File) (string, error) {
	if dl, ok := ctx.Deadline(); ok {
		if err := r.SetReadDeadline(dl); err != nil {
			return "", err
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = r.SetReadDeadline(time.Now()) })
	defer stop()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", err
	}
	return strings.TrimSpace(line), nil
}
