package platform

// The foreground window is read through user32 directly, by handle: title,
// class, PID and frame of one HWND are then one window's by construction,
// unlike robotgo's GetTitle/GetPid, which each look up the foreground
// window again. robotgo supplies the monitors and the pixels
// (capture_robotgo.go). A change of foreground window or of its title is
// told by a WinEvent hook, not polled. Tested under Wine (wine_test.go in
// the main package); Windows itself may differ (see build/README.md).
//
// Coordinates assume a per-monitor DPI-aware process; an unaware one sees
// GetWindowRect and the capture scaled differently on high-DPI monitors.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

type osDisplay struct {
	getWindowTextLength, getWindowText, getWindowRect, getClassName *windows.LazyProc
	setWinEventHook, unhookWinEvent, getMessage, postThreadMessage  *windows.LazyProc
	getWindowDisplayAffinity, isIconic                              *windows.LazyProc

	// hook is the WinEvent callback. Go never frees a callback and allows
	// a limited number per process, so each Display makes one, on its
	// first watch, and every watch shares it.
	hookOnce sync.Once
	hook     uintptr
	enumOnce sync.Once
	enum     uintptr
	// watching is where the hook tells of a change: the running watch's
	// channel, nil when none runs.
	watching atomic.Pointer[chan struct{}]
}

func (o *osDisplay) init() error {
	user32 := windows.NewLazySystemDLL("user32.dll")
	o.getWindowTextLength = user32.NewProc("GetWindowTextLengthW")
	o.getWindowText = user32.NewProc("GetWindowTextW")
	o.getWindowRect = user32.NewProc("GetWindowRect")
	o.getClassName = user32.NewProc("GetClassNameW")
	o.setWinEventHook = user32.NewProc("SetWinEventHook")
	o.unhookWinEvent = user32.NewProc("UnhookWinEvent")
	o.getMessage = user32.NewProc("GetMessageW")
	o.postThreadMessage = user32.NewProc("PostThreadMessageW")
	o.getWindowDisplayAffinity = user32.NewProc("GetWindowDisplayAffinity")
	o.isIconic = user32.NewProc("IsIconic")
	for _, p := range []*windows.LazyProc{o.getWindowTextLength, o.getWindowText, o.getWindowRect,
		o.getClassName, o.setWinEventHook, o.unhookWinEvent, o.getMessage, o.postThreadMessage,
		o.getWindowDisplayAffinity, o.isIconic} {
		if err := p.Find(); err != nil {
			return fmt.Errorf("user32: %w", err)
		}
	}
	return nil
}

// Foreground returns the foreground window, or a zero Window when there is
// none (the desktop or a closing window has the focus).
func (d *Display) Foreground(ctx context.Context) (Window, error) {
	for range snapshotAttempts {
		if err := ctx.Err(); err != nil {
			return Window{}, err
		}
		hwnd := windows.GetForegroundWindow()
		if hwnd == 0 {
			return Window{}, nil
		}
		w, ok := d.os.describe(hwnd)
		if !ok {
			continue // the window closed
		}
		if windows.GetForegroundWindow() != hwnd {
			continue
		}
		return w, nil
	}
	return Window{}, fmt.Errorf("foreground window: %w", ErrWindowChanged)
}

// describe reads one window, all fields of the same HWND; false if it
// closed while being read.
func (o *osDisplay) describe(hwnd windows.HWND) (Window, bool) {
	var pid uint32
	if _, err := windows.GetWindowThreadProcessId(hwnd, &pid); err != nil {
		return Window{}, false
	}
	w := Window{ID: uint64(hwnd), Title: o.text(hwnd), Class: o.class(hwnd), PID: int(pid),
		Frame: o.rect(hwnd), NoCapture: o.noCapture(hwnd)}
	if path := processImage(pid); path != "" {
		w.Process = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		// Without a FileDescription the program's name is the
		// executable's, never the window class ("rctrl_renwnd32"),
		// which App would fall back to.
		w.Name = cmp.Or(fileDescription(path), w.Process)
	}
	return w, windows.IsWindow(hwnd)
}

// noCapture reports whether the window's display affinity keeps it out of
// captures. A window whose affinity cannot be read is taken as refusing:
// its title is then kept out, and a glance misses one window at most.
func (o *osDisplay) noCapture(hwnd windows.HWND) bool {
	var aff uint32
	if ok, _, _ := o.getWindowDisplayAffinity.Call(uintptr(hwnd), uintptr(unsafe.Pointer(&aff))); ok == 0 {
		return windows.IsWindow(hwnd) // a closed window is nothing to refuse
	}
	return captureRefused(aff)
}

// VisibleWindows returns the top-level windows that are shown and not
// minimised, bottom to top (EnumWindows lists them top to bottom).
// Windows that close while being listed are left out.
func (d *Display) VisibleWindows(ctx context.Context) ([]Window, error) {
	var hwnds []windows.HWND
	cb := d.os.enumCallback()
	if err := windows.EnumWindows(cb, unsafe.Pointer(&hwnds)); err != nil && len(hwnds) == 0 {
		return nil, fmt.Errorf("list windows: %w", err)
	}
	out := make([]Window, 0, len(hwnds))
	for i := len(hwnds) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h := hwnds[i]
		if !windows.IsWindowVisible(h) {
			continue
		}
		if iconic, _, _ := d.os.isIconic.Call(uintptr(h)); iconic != 0 {
			continue
		}
		w, ok := d.os.describe(h)
		if !ok || w.Frame.Empty() {
			continue
		}
		out = append(out, w)
	}
	return out, nil
}

// enumCallback is the EnumWindows callback, made once per Display: Go
// never frees a callback. It appends each handle to the slice its
// parameter points to.
func (o *osDisplay) enumCallback() uintptr {
	o.enumOnce.Do(func() {
		o.enum = windows.NewCallback(func(h windows.HWND, p unsafe.Pointer) uintptr {
			list := (*[]windows.HWND)(p)
			*list = append(*list, h)
			return 1 // go on
		})
	})
	return o.enum
}

// peek returns the foreground handle and title for change detection.
func (d *Display) peek() (uint64, string) {
	hwnd := windows.GetForegroundWindow()
	if hwnd == 0 {
		return 0, ""
	}
	return uint64(hwnd), d.os.text(hwnd)
}

func (o *osDisplay) text(hwnd windows.HWND) string {
	n, _, _ := o.getWindowTextLength.Call(uintptr(hwnd))
	if n == 0 {
		return ""
	}
	buf := make([]uint16, n+1)
	got, _, _ := o.getWindowText.Call(uintptr(hwnd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf[:got])
}

// class is the window's class name ("Notepad", "rctrl_renwnd32" for
// Outlook), which the exclusion rules can match.
func (o *osDisplay) class(hwnd windows.HWND) string {
	buf := make([]uint16, 256) // a class name has at most 256 characters
	n, _, _ := o.getClassName.Call(uintptr(hwnd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	return windows.UTF16ToString(buf[:n])
}

func (o *osDisplay) rect(hwnd windows.HWND) (r image.Rectangle) {
	var wr windows.Rect
	if ok, _, _ := o.getWindowRect.Call(uintptr(hwnd), uintptr(unsafe.Pointer(&wr))); ok == 0 {
		return r
	}
	r.Min.X, r.Min.Y, r.Max.X, r.Max.Y = int(wr.Left), int(wr.Top), int(wr.Right), int(wr.Bottom)
	return r
}

// processImage returns the executable's full path, "" if unreadable
// (an elevated process seen from an unelevated Spirit).
func processImage(pid uint32) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return ""
	}
	return windows.UTF16ToString(buf[:n])
}

// fileDescription reads the executable's FileDescription version string,
// the name Windows shows in Task Manager ("Microsoft Outlook").
func fileDescription(path string) string {
	size, err := windows.GetFileVersionInfoSize(path, nil)
	if err != nil || size == 0 {
		return ""
	}
	data := make([]byte, size)
	if err := windows.GetFileVersionInfo(path, 0, size, unsafe.Pointer(&data[0])); err != nil {
		return ""
	}
	var trans unsafe.Pointer
	var n uint32
	if err := windows.VerQueryValue(unsafe.Pointer(&data[0]), `\VarFileInfo\Translation`, unsafe.Pointer(&trans), &n); err != nil || n < 4 {
		return ""
	}
	lang, cp := *(*uint16)(trans), *(*uint16)(unsafe.Add(trans, 2))
	var desc unsafe.Pointer
	sub := fmt.Sprintf(`\StringFileInfo\%04x%04x\FileDescription`, lang, cp)
	if err := windows.VerQueryValue(unsafe.Pointer(&data[0]), sub, unsafe.Pointer(&desc), &n); err != nil || n == 0 {
		return ""
	}
	return strings.TrimSpace(windows.UTF16PtrToString((*uint16)(desc)))
}

// WinEvent constants (winuser.h).
const (
	eventSystemForeground = 0x0003
	eventObjectNameChange = 0x800C
	wineventOutOfContext  = 0x0000
	objidWindow           = 0
	wmQuit                = 0x0012
)

// hookBackupInterval is how often WatchForeground looks at the foreground
// window whatever the hook says: one handle and title read a second.
const hookBackupInterval = time.Second

// resyncEvery is how many backup looks pass before WatchForeground calls
// changed even though its own look saw nothing new. Under Wine 8 a switch
// between two Notepads once went unreported for good (TestWindowsUnderWine,
// cold run of issue 28): the look saw the new window and said so, but the
// watcher's snapshots, 0.4 and 1.4 s later, both still read the old one,
// and nothing after that was a change to this loop. The watcher compares
// each snapshot with what it reported, so an extra call costs one
// snapshot and reports nothing unless the foreground really moved.
const resyncEvery = 5

// ErrWatching means WatchForeground was called while another watch of the
// same Display runs: the hook tells one watch.
var ErrWatching = errors.New("the foreground window is already being watched")

// WatchForeground calls changed once at the start and whenever the
// foreground window or its title changes, until ctx ends. Windows tells
// it (SetWinEventHook: EVENT_SYSTEM_FOREGROUND, and EVENT_OBJECT_NAMECHANGE
// of the foreground window for a new tab or document in the same window),
// and it looks once a second in case the hook missed one; every
// resyncEvery looks it calls changed anyway, so that a switch the caller's
// own snapshot missed is not lost for good.
func (d *Display) WatchForeground(ctx context.Context, changed func()) error {
	events := make(chan struct{}, 1)
	if !d.os.watching.CompareAndSwap(nil, &events) {
		return ErrWatching
	}
	defer d.os.watching.Store(nil)
	d.os.hookOnce.Do(func() { d.os.hook = windows.NewCallback(d.os.winEvent) })

	started := make(chan uint32, 1) // the hook thread's id, 0 if it failed
	done := make(chan error, 1)
	go func() { done <- d.os.hookLoop(started) }()
	tid := <-started
	if tid == 0 {
		return <-done
	}

	// The hook is backed by a slow look: under Wine 8 it was seen to tell
	// of the first foreground change only (Windows itself is untested).
	tick := time.NewTicker(hookBackupInterval)
	defer tick.Stop()
	lastID, lastTitle := d.peek()
	changed()
	looks := 0
	for {
		select {
		case <-tick.C:
			if looks++; looks%resyncEvery == 0 {
				lastID, lastTitle = d.peek()
				changed()
				continue
			}
		case <-ctx.Done():
			// WM_QUIT ends GetMessage; the thread unhooks and returns.
			if ok, _, err := d.os.postThreadMessage.Call(uintptr(tid), wmQuit, 0, 0); ok == 0 {
				return fmt.Errorf("stop watching the foreground window: %w", err)
			}
			<-done
			return nil
		case err := <-done:
			return fmt.Errorf("foreground window hook: %w", err)
		case <-events:
		}
		id, title := d.peek()
		if id != lastID || title != lastTitle {
			lastID, lastTitle = id, title
			changed()
		}
	}
}

// hookLoop installs the hooks on a thread of its own and pumps its message
// queue, where Windows delivers out-of-context WinEvents, until WM_QUIT.
// It sends the thread's id on started once the hooks are in, or 0.
func (o *osDisplay) hookLoop(started chan<- uint32) error {
	// The hooks and the queue they are delivered to belong to this thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var hooks []uintptr
	defer func() {
		for _, h := range hooks {
			o.unhookWinEvent.Call(h)
		}
	}()
	for _, ev := range []uintptr{eventSystemForeground, eventObjectNameChange} {
		h, _, err := o.setWinEventHook.Call(ev, ev, 0, o.hook, 0, 0, wineventOutOfContext)
		if h == 0 {
			started <- 0
			return fmt.Errorf("SetWinEventHook(%#x): %w", ev, err)
		}
		hooks = append(hooks, h)
	}
	started <- windows.GetCurrentThreadId()
	var msg [48]byte // MSG: its fields are not needed, only the pumping
	for {
		r, _, err := o.getMessage.Call(uintptr(unsafe.Pointer(&msg[0])), 0, 0, 0)
		switch int32(r) {
		case 0: // WM_QUIT
			return nil
		case -1:
			return fmt.Errorf("GetMessage: %w", err)
		}
	}
}

// winEvent is the WinEvent callback (WINEVENTPROC). It runs on the hook
// thread for every foreground change and for every title change of any
// window; only the foreground window's own title matters.
func (o *osDisplay) winEvent(hook, event, hwnd, idObject, idChild, thread, ms uintptr) uintptr {
	if event == eventObjectNameChange &&
		(int32(idObject) != objidWindow || windows.HWND(hwnd) != windows.GetForegroundWindow()) {
		return 0
	}
	if ch := o.watching.Load(); ch != nil {
		select {
		case *ch <- struct{}{}:
		default: // a change is already waiting to be read
		}
	}
	return 0
}
