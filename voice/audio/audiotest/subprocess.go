package audiotest

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

const subprocessEnv = "SPIRIT_AUDIOTEST_SUBPROCESS"

// InSubprocess runs the calling test again, alone, in a fresh test process
// and reports whether the caller is that process. Tests that open PortAudio
// streams in process use it, for two reasons: PortAudio's state is
// process-wide and a stream whose JACK server died wedges it for minutes;
// and the Go binding passes stream numbers to C as pointers, which the race
// detector's checkptr rejects for every stream after a process's first.
//
//	if !audiotest.InSubprocess(t) {
//		return
//	}
func InSubprocess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(subprocessEnv) == t.Name() {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), subprocessEnv+"="+t.Name())
	dieWithParent(cmd)
	out, err := cmd.CombinedOutput()
	var keep []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "---") {
			keep = append(keep, l)
		}
	}
	report := strings.Join(keep, "\n")
	switch {
	case err != nil:
		t.Fatalf("in a subprocess: %v\n%s", err, out)
	case strings.Contains(report, "--- SKIP"):
		t.Skipf("in a subprocess:\n%s", report)
	case !strings.Contains(report, "--- PASS"):
		t.Fatalf("in a subprocess, no PASS:\n%s", out)
	}
	t.Logf("in a subprocess:\n%s", report)
	return false
}
