package platform

import (
	"errors"
	"image"
)

// Types shared by the Display implementations, which are split by file
// suffix: X11 over xgb on Linux (window_linux.go, capture_linux.go),
// robotgo on macOS and Windows (capture_robotgo.go, window_darwin.go,
// window_windows.go), ErrUnsupported elsewhere (window_other.go).

// Window is one consistent snapshot of a top-level window: every field
// describes the same window, read while it was the one asked about.
type Window struct {
	// ID is the X11 window id, the Windows HWND or the macOS window
	// number; 0 means no window (nothing has the focus).
	ID    uint64
	Title string
	// PID is the owning process as the window declares it (X11
	// _NET_WM_PID), 0 if unknown.
	PID int
	// Class and Instance are the two halves of X11's WM_CLASS, e.g.
	// "Google-chrome" and "google-chrome". On Windows Class is the window
	// class ("rctrl_renwnd32" for Outlook) and Instance is empty; on
	// macOS both are.
	Class, Instance string
	// Name is the application's display name where the OS keeps one
	// (Windows: the executable's FileDescription, "Microsoft Outlook");
	// empty on X11, which has none.
	Name string
	// Process is the executable's name: /proc/PID/comm on Linux, the
	// process name the OS reports elsewhere.
	Process string
	// Args is the process's command line where it can be read (Linux,
	// same host only); nil otherwise. It may hold private data (file
	// names, URLs): use it for decisions, never store or log it.
	Args []string
	// Frame is the window's outer rectangle, decorations included, in
	// screen coordinates; empty when unknown.
	Frame image.Rectangle
	// NoCapture means the application asked the system to keep the
	// window out of screen captures (Windows: a display affinity such as
	// WDA_EXCLUDEFROMCAPTURE, set by password managers, banking and DRM
	// players). Spirit honours it like its own exclusions.
	NoCapture bool
}

// App is a human name for the window's application: the display name where
// the OS has one ("Microsoft Outlook"), else the WM_CLASS class
// ("Google-chrome", "thunderbird"), which is what X11 desktops show, else
// the process name.
func (w Window) App() string {
	if w.Name != "" {
		return w.Name
	}
	if w.Class != "" {
		return w.Class
	}
	return w.Process
}

// ErrWindowChanged means the window being read closed, or the foreground
// kept changing, while a snapshot was taken; asking again later is right.
var ErrWindowChanged = errors.New("window changed while being read")
