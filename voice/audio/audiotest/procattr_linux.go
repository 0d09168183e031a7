package audiotest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes a child process get SIGKILL when the test process
// dies, so a crashed test leaves no jackd behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
