package app

import (
	"context"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
)

// TestReleaseAtRest: once the wait is over, the start-up pages of the
// program (here the test's) are released and the log says how much the
// process held before and after; a Spirit that stops first releases
// nothing.
func TestReleaseAtRest(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the program's pages are released on Linux only")
	}
	t.Run("stopped before", func(t *testing.T) {
		var logs xtest.LockedBuffer
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		releaseAtRest(ctx, slog.New(slog.NewTextHandler(&logs, nil)), time.Hour)
		if got := logs.String(); got != "" {
			t.Errorf("a stopped Spirit logged %q", got)
		}
	})
	t.Run("at rest", func(t *testing.T) {
		var logs xtest.LockedBuffer
		releaseAtRest(t.Context(), slog.New(slog.NewTextHandler(&logs, nil)), time.Millisecond)
		if got := logs.String(); !strings.Contains(got, "released the start-up pages") || !strings.Contains(got, "rss_after_mb=") {
			t.Errorf("log %q does not say the pages were released", got)
		}
		if !codeMappedRandom(t) {
			t.Error("the program's code is not marked for reading page by page (VmFlags rr)")
		}
	})
}

// codeMappedRandom says whether the running program's code mapping is
// marked random in /proc/self/smaps.
func codeMappedRandom(t *testing.T) bool {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range xtest.Smaps(t, 0) {
		if m.Path == exe && m.Perms == "r-xp" {
			return slices.Contains(m.Flags, "rr")
		}
	}
	return false
}
