package app

import (
	"context"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/spirit-app/spirit/platform"
)

// releaseImageAfter is how long after start Spirit gives back the pages of
// its binary that start-up used (platform.ReleaseImage): by then the
// parts have started, the first syncs are under way and the orb is shown.
// Whatever runs later comes back a page at a time, so once is enough.
const releaseImageAfter = 30 * time.Second

// releaseAtRest waits after, then gives back the Go heap's start-up
// garbage and the binary's start-up pages, and logs what that gave back.
// It returns at once if ctx ends first.
func releaseAtRest(ctx context.Context, log *slog.Logger, after time.Duration) {
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	// Start-up's garbage first, returned to the system rather than kept
	// for a heap that will not grow at rest; the collection touches much
	// of the binary's tables, so it goes before they are paged out.
	start := time.Now()
	debug.FreeOSMemory()
	r, err := platform.ReleaseImage()
	if err != nil {
		log.Warn("memory at rest: could not release the start-up pages of Spirit's program", "err", err)
		return
	}
	if r != (platform.ImageRelease{}) {
		log.Info("memory at rest: released the start-up pages of Spirit's program",
			"rss_before_mb", r.Before/1024, "rss_after_mb", r.After/1024, "took_ms", time.Since(start).Milliseconds())
	}
}
