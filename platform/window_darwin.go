package platform

// UNTESTED HERE: see capture_robotgo.go. robotgo reads the focused window
// through the Accessibility API, which needs the user's permission (System
// Settings → Privacy & Security → Accessibility); without it titles come
// back empty and robotgo prints a warning on each call.

import (
	"context"
	"fmt"
	"time"

	"github.com/go-vgo/robotgo"
)

// robotgoInvalid is what robotgo returns as a "title" when it found no
// valid focused window.
const robotgoInvalid = "is_valid failed."

type osDisplay struct{}

func (o *osDisplay) init() error { return nil }

// VisibleWindows is not available through robotgo.
func (d *Display) VisibleWindows(context.Context) ([]Window, error) {
	return nil, ErrUnsupported
}

// Foreground returns the focused window of the frontmost application, or a
// zero Window when there is none.
//
// robotgo re-reads the focused window in every call, so handle, PID and
// title are read, then handle and PID again; a change in between starts
// over, so the fields describe one window.
func (d *Display) Foreground(ctx context.Context) (Window, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for range snapshotAttempts {
		if err := ctx.Err(); err != nil {
			return Window{}, err
		}
		h := robotgo.GetHandle()
		if h == 0 {
			return Window{}, nil
		}
		pid := robotgo.GetPid()
		title := robotgo.GetTitle()
		if robotgo.GetHandle() != h || robotgo.GetPid() != pid {
			continue
		}
		if title == robotgoInvalid {
			title = ""
		}
		w := Window{ID: uint64(h), Title: title, PID: pid}
		if pid > 0 {
			// On macOS the process name is the application's name,
			// e.g. "Microsoft Outlook".
			if name, err := robotgo.FindName(pid); err == nil {
				w.Process, w.Name = name, name
			}
			x, y, width, height := robotgo.GetBounds(pid)
			w.Frame.Min.X, w.Frame.Min.Y = x, y
			w.Frame.Max.X, w.Frame.Max.Y = x+width, y+height
		}
		return w, nil
	}
	return Window{}, fmt.Errorf("foreground window: %w", ErrWindowChanged)
}

// peek returns the foreground handle and title for change detection.
func (d *Display) peek() (uint64, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return uint64(robotgo.GetHandle()), robotgo.GetTitle()
}

// pollInterval is how often WatchForeground looks at the foreground window
// (robotgo has no change notification). Reading handle and title costs
// well under a millisecond, so 4 Hz is cheap and below the watcher's
// debounce.
const pollInterval = 250 * time.Millisecond

// WatchForeground polls the foreground window's handle and title and calls
// changed when either differs, and once at the start, until ctx ends.
func (d *Display) WatchForeground(ctx context.Context, changed func()) error {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	lastID, lastTitle := d.peek()
	changed()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		id, title := d.peek()
		if id != lastID || title != lastTitle {
			lastID, lastTitle = id, title
			changed()
		}
	}
}
