package platform

// The Desktop API through user32, so the GUI code that docks the orb and
// keeps the focus with the lawyer runs unchanged on Windows. Window ids
// are HWNDs: Windows keeps them within 32 bits so that 32- and 64-bit
// programs can share them (a handle is sign-extended, as LongToHandle
// does). Tested under Wine (wine_test.go in the main package); what Wine
// cannot show is listed in build/README.md.

import (
	"context"
	"errors"
	"fmt"
	"image"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Desktop answers window-manager questions through user32. Its methods are
// safe for concurrent use.
type Desktop struct {
	getSystemMetrics, systemParametersInfo, getWindowRect, setForegroundWindow,
	getWindowLongPtr, setWindowLongPtr, setWindowPos, showWindow, isWindowVisible,
	registerHotKey, unregisterHotKey, getMessage, peekMessage, dispatchMessage, postThreadMessage,
	registerClassEx, unregisterClass, createWindowEx, destroyWindow, defWindowProc,
	setWinEventHook, unhookWinEvent, getDC, releaseDC, getPixel *windows.LazyProc

	clicks inactiveClicks // see noactivate_windows.go

	// hotkeyIDs numbers the hotkeys RegisterHotKey is given.
	hotkeyIDs atomic.Int32

	// Callbacks given to Windows. Go never frees one and allows a
	// limited number per process, so each Desktop makes each once, on
	// first use.
	cbOnce         sync.Once
	wndProc, hook  uintptr
	watchMu        sync.Mutex
	watchFn        func(RootEvent) // the running WatchRoot's, nil when none
	watchWorkArea  chan struct{}
	watchActive    chan struct{}
	watchClassName string
}

// OpenDesktop loads user32's functions; it fails only on a Windows too
// old to have them.
func OpenDesktop() (*Desktop, error) {
	user32 := windows.NewLazySystemDLL("user32.dll")
	gdi32 := windows.NewLazySystemDLL("gdi32.dll")
	d := &Desktop{
		getSystemMetrics:     user32.NewProc("GetSystemMetrics"),
		systemParametersInfo: user32.NewProc("SystemParametersInfoW"),
		getWindowRect:        user32.NewProc("GetWindowRect"),
		setForegroundWindow:  user32.NewProc("SetForegroundWindow"),
		getWindowLongPtr:     user32.NewProc("GetWindowLongPtrW"),
		setWindowLongPtr:     user32.NewProc("SetWindowLongPtrW"),
		setWindowPos:         user32.NewProc("SetWindowPos"),
		showWindow:           user32.NewProc("ShowWindow"),
		isWindowVisible:      user32.NewProc("IsWindowVisible"),
		registerHotKey:       user32.NewProc("RegisterHotKey"),
		unregisterHotKey:     user32.NewProc("UnregisterHotKey"),
		getMessage:           user32.NewProc("GetMessageW"),
		dispatchMessage:      user32.NewProc("DispatchMessageW"),
		peekMessage:          user32.NewProc("PeekMessageW"),
		postThreadMessage:    user32.NewProc("PostThreadMessageW"),
		registerClassEx:      user32.NewProc("RegisterClassExW"),
		unregisterClass:      user32.NewProc("UnregisterClassW"),
		createWindowEx:       user32.NewProc("CreateWindowExW"),
		destroyWindow:        user32.NewProc("DestroyWindow"),
		defWindowProc:        user32.NewProc("DefWindowProcW"),
		setWinEventHook:      user32.NewProc("SetWinEventHook"),
		unhookWinEvent:       user32.NewProc("UnhookWinEvent"),
		getDC:                user32.NewProc("GetDC"),
		releaseDC:            user32.NewProc("ReleaseDC"),
		getPixel:             gdi32.NewProc("GetPixel"),
	}
	d.clicks.callWindowProc = user32.NewProc("CallWindowProcW")
	for _, p := range []*windows.LazyProc{d.clicks.callWindowProc, d.getSystemMetrics, d.systemParametersInfo, d.getWindowRect,
		d.setForegroundWindow, d.getWindowLongPtr, d.setWindowLongPtr, d.setWindowPos, d.showWindow,
		d.isWindowVisible, d.registerHotKey, d.unregisterHotKey, d.getMessage, d.peekMessage, d.dispatchMessage, d.postThreadMessage,
		d.registerClassEx, d.unregisterClass, d.createWindowEx, d.destroyWindow, d.defWindowProc,
		d.setWinEventHook, d.unhookWinEvent, d.getDC, d.releaseDC, d.getPixel} {
		if err := p.Find(); err != nil {
			return nil, fmt.Errorf("open the desktop: %w", err)
		}
	}
	return d, nil
}

// Close releases nothing: watches and hotkeys end with their contexts.
func (d *Desktop) Close() error { return nil }

// hwnd is the handle a 32-bit window id stands for.
func hwnd(id uint32) uintptr { return uintptr(int64(int32(id))) }

// ScreenRect is the primary monitor, where the taskbar and the work area
// SystemParametersInfo reports are.
func (d *Desktop) ScreenRect() (image.Rectangle, error) {
	const smCxScreen, smCyScreen = 0, 1
	w, _, _ := d.getSystemMetrics.Call(smCxScreen)
	h, _, _ := d.getSystemMetrics.Call(smCyScreen)
	if w == 0 || h == 0 {
		return image.Rectangle{}, errors.New("screen size: GetSystemMetrics returned 0")
	}
	return image.Rect(0, 0, int(w), int(h)), nil
}

// WorkArea is the primary monitor less the taskbar and docked app bars
// (SPI_GETWORKAREA).
func (d *Desktop) WorkArea() (image.Rectangle, error) {
	const spiGetWorkArea = 0x0030
	var r windows.Rect
	if ok, _, err := d.systemParametersInfo.Call(spiGetWorkArea, 0, uintptr(unsafe.Pointer(&r)), 0); ok == 0 {
		return image.Rectangle{}, fmt.Errorf("work area: %w", err)
	}
	wa := image.Rect(int(r.Left), int(r.Top), int(r.Right), int(r.Bottom))
	if wa.Empty() {
		return d.ScreenRect()
	}
	return wa, nil
}

func (d *Desktop) rect(id uint32) (image.Rectangle, error) {
	var r windows.Rect
	if ok, _, err := d.getWindowRect.Call(hwnd(id), uintptr(unsafe.Pointer(&r))); ok == 0 {
		return image.Rectangle{}, fmt.Errorf("window %#x: %w", id, err)
	}
	return image.Rect(int(r.Left), int(r.Top), int(r.Right), int(r.Bottom)), nil
}

// WindowSize is the window's outer size; Spirit's borderless windows have
// no frame, so it is their content's too.
func (d *Desktop) WindowSize(id uint32) (WindowSize, error) {
	r, err := d.rect(id)
	if err != nil {
		return WindowSize{}, err
	}
	return WindowSize{W: r.Dx(), H: r.Dy()}, nil
}

// ActiveWindow is the foreground window, or 0 (the desktop or a window
// closing has the focus).
func (d *Desktop) ActiveWindow() (uint32, error) {
	return uint32(windows.GetForegroundWindow()), nil
}

// Activate brings id to the foreground. Windows allows it to a process
// that has the foreground or was just used, which is when Spirit asks:
// handing the focus back after one of its windows got it, or a click.
func (d *Desktop) Activate(id uint32) error {
	if ok, _, _ := d.setForegroundWindow.Call(hwnd(id)); ok == 0 {
		return fmt.Errorf("bring window %#x to the front: refused by Windows", id)
	}
	return nil
}

// WindowPID is the process that owns the window.
func (d *Desktop) WindowPID(id uint32) (int, error) {
	var pid uint32
	if _, err := windows.GetWindowThreadProcessId(windows.HWND(hwnd(id)), &pid); err != nil {
		return 0, fmt.Errorf("window %#x: %w", id, err)
	}
	return int(pid), nil
}

const gwlExStyle = -20

func (d *Desktop) exStyle(id uint32) (uint32, error) {
	// GetWindowLongPtr's 0 may be a style or a failure: ask first.
	if !windows.IsWindow(windows.HWND(hwnd(id))) {
		return 0, fmt.Errorf("window %#x: no such window", id)
	}
	idx := gwlExStyle
	v, _, _ := d.getWindowLongPtr.Call(hwnd(id), uintptr(idx))
	return uint32(v), nil
}

// setExStyle sets the window's extended style and reads it back:
// SetWindowLongPtr's answer cannot tell a failure from an old style of 0.
func (d *Desktop) setExStyle(id uint32, s uint32) error {
	idx := gwlExStyle
	d.setWindowLongPtr.Call(hwnd(id), uintptr(idx), uintptr(s))
	got, err := d.exStyle(id)
	if err != nil {
		return err
	}
	if got != s {
		return fmt.Errorf("window %#x: extended style %#x asked, %#x set", id, s, got)
	}
	return nil
}

// SetWindowPos and ShowWindow arguments.
const (
	swpNoSize        = 0x0001
	swpNoMove        = 0x0002
	swpNoActivate    = 0x0010
	swpFrameChanged  = 0x0020
	swpNoOwnerZOrder = 0x0200
	hwndTopmost      = ^uintptr(0) // (HWND)-1
	swHide           = 0
	swShowNA         = 8 // shown as it was, not activated
)

// focusWait bounds how long Focus waits for a window to be shown.
const focusWait = time.Second

// PrepareFloating makes a shown window Spirit's floating chrome: topmost,
// a tool window (out of the taskbar and Alt+Tab), and unless focusable
// never activated, so that a click on it leaves the lawyer's window in
// front. The taskbar reads a window's style when the window is shown, so
// a visible window whose style changes is hidden and shown again, without
// activation. Call it after every show, as on X11.
func (d *Desktop) PrepareFloating(id uint32, focusable bool) error {
	cur, err := d.exStyle(id)
	if err != nil {
		return err
	}
	if want := floatingExStyle(cur, focusable); want != cur {
		visible, _, _ := d.isWindowVisible.Call(hwnd(id))
		if visible != 0 {
			d.showWindow.Call(hwnd(id), swHide)
		}
		if err := d.setExStyle(id, want); err != nil {
			return err
		}
		if visible != 0 {
			d.showWindow.Call(hwnd(id), swShowNA)
		}
	}
	if !focusable {
		if err := d.keepInactive(id); err != nil {
			return err
		}
	}
	// WS_EX_TOPMOST itself is set by SetWindowPos only.
	if ok, _, err := d.setWindowPos.Call(hwnd(id), hwndTopmost, 0, 0, 0, 0,
		swpNoMove|swpNoSize|swpNoActivate|swpNoOwnerZOrder|swpFrameChanged); ok == 0 {
		return fmt.Errorf("keep window %#x on top: %w", id, err)
	}
	return nil
}

// SetFocusable lets id be activated, or not: a click on a window that may
// not be activated leaves the focus where it was.
func (d *Desktop) SetFocusable(id uint32, focusable bool) error {
	cur, err := d.exStyle(id)
	if err != nil {
		return err
	}
	if want := focusableExStyle(cur, focusable); want != cur {
		if err := d.setExStyle(id, want); err != nil {
			return err
		}
	}
	if !focusable {
		return d.keepInactive(id)
	}
	return nil
}

// Focus gives id the keyboard because the lawyer asked for it (a click, a
// hotkey): it may be activated from now on, and once shown it is brought
// to the front. It waits up to a second for the window to be shown.
func (d *Desktop) Focus(ctx context.Context, id uint32) error {
	if err := d.SetFocusable(id, true); err != nil {
		return err
	}
	deadline := time.Now().Add(focusWait)
	for {
		if v, _, _ := d.isWindowVisible.Call(hwnd(id)); v != 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("window %#x is not shown", id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return d.Activate(id)
}

// CaptureProbe reads one pixel of the screen: it fails where the session
// has no screen to read (a service, a locked workstation).
func (d *Desktop) CaptureProbe() error {
	const clrInvalid = 0xFFFFFFFF
	dc, _, err := d.getDC.Call(0)
	if dc == 0 {
		return fmt.Errorf("read screen: %w", err)
	}
	defer d.releaseDC.Call(0, dc)
	if px, _, _ := d.getPixel.Call(dc, 0, 0); uint32(px) == clrInvalid {
		return errors.New("read screen: the screen cannot be read in this session")
	}
	return nil
}

// wmHotkey is the message a registered hotkey posts.
const wmHotkey = 0x0312

// msgLoop pumps the calling thread's message queue until WM_QUIT, handing
// each WM_HOTKEY's id to hotkey (nil: none expected). GetMessage itself
// hands sent messages (a broadcast by SendMessageTimeout) to the window
// procedure; posted ones (a broadcast by PostMessage) are dispatched.
func (d *Desktop) msgLoop(hotkey func(id uintptr)) error {
	var msg struct {
		hwnd    uintptr
		message uint32
		wParam  uintptr
		lParam  uintptr
		time    uint32
		pt      [2]int32
		private uint32
	}
	for {
		r, _, err := d.getMessage.Call(uintptr(unsafe.Pointer(&msg)), 0, 0, 0)
		switch int32(r) {
		case 0: // WM_QUIT
			return nil
		case -1:
			return fmt.Errorf("GetMessage: %w", err)
		}
		switch {
		case msg.message == wmHotkey && hotkey != nil:
			hotkey(msg.wParam)
		case msg.hwnd != 0:
			d.dispatchMessage.Call(uintptr(unsafe.Pointer(&msg)))
		}
	}
}

// lockedLoop runs setup and then a message loop on a thread of its own,
// which Windows ties hotkeys, hooks and windows to. It returns once setup
// is done: with setup's error, or with a function that ends the loop,
// runs cleanup on that thread and waits for it.
func (d *Desktop) lockedLoop(setup func() (cleanup func(), err error), hotkey func(id uintptr)) (stop func() error, err error) {
	type started struct {
		tid uint32
		err error
	}
	start := make(chan started, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// The thread's message queue, made now, as Windows advises
		// before PostThreadMessage. Wine 8 also needs it before
		// RegisterHotKey: a hotkey registered from a thread with no
		// queue yet crashed its wineserver when pressed.
		const pmNoRemove = 0
		var msg [48]byte // MSG, unread
		d.peekMessage.Call(uintptr(unsafe.Pointer(&msg[0])), 0, 0, 0, pmNoRemove)
		cleanup, err := setup()
		if err != nil {
			start <- started{err: err}
			return
		}
		defer cleanup()
		start <- started{tid: windows.GetCurrentThreadId()}
		done <- d.msgLoop(hotkey)
	}()
	s := <-start
	if s.err != nil {
		return nil, s.err
	}
	return func() error {
		if ok, _, err := d.postThreadMessage.Call(uintptr(s.tid), wmQuit, 0, 0); ok == 0 {
			return fmt.Errorf("stop the message loop: %w", err)
		}
		return <-done
	}, nil
}

// ErrWatchingRoot means WatchRoot was called while another watch of the
// same Desktop runs.
var ErrWatchingRoot = errors.New("the desktop is already being watched")

// WatchRoot calls fn, on a goroutine of its own, when the work area
// changes (a broadcast WM_SETTINGCHANGE for SPI_SETWORKAREA, or
// WM_DISPLAYCHANGE, which reach top-level windows only: a hidden one
// receives them) and when another window comes to the foreground
// (EVENT_SYSTEM_FOREGROUND), until ctx ends.
func (d *Desktop) WatchRoot(ctx context.Context, fn func(RootEvent)) error {
	d.watchMu.Lock()
	if d.watchFn != nil {
		d.watchMu.Unlock()
		return ErrWatchingRoot
	}
	workArea, active := make(chan struct{}, 1), make(chan struct{}, 1)
	d.watchFn, d.watchWorkArea, d.watchActive = fn, workArea, active
	d.watchMu.Unlock()
	d.cbOnce.Do(func() {
		d.wndProc = windows.NewCallback(d.windowProc)
		d.hook = windows.NewCallback(d.foregroundEvent)
	})
	stop, err := d.lockedLoop(d.watchWindow, nil)
	if err != nil {
		d.endWatch()
		return err
	}
	go func() {
		defer d.endWatch()
		for {
			select {
			case <-workArea:
				fn(WorkAreaChanged)
			case <-active:
				fn(ActiveChanged)
			case <-ctx.Done():
				_ = stop()
				return
			}
		}
	}()
	return nil
}

func (d *Desktop) endWatch() {
	d.watchMu.Lock()
	d.watchFn, d.watchWorkArea, d.watchActive = nil, nil, nil
	d.watchMu.Unlock()
}

// watchWindow makes the hidden window and the foreground hook, on the
// loop's thread; its cleanup removes them.
func (d *Desktop) watchWindow() (func(), error) {
	// A class per Desktop: its window procedure is this Desktop's.
	name, err := windows.UTF16PtrFromString(fmt.Sprintf("SpiritDesktopWatch%p", d))
	if err != nil {
		return nil, err
	}
	wc := struct {
		size                uint32
		style               uint32
		wndProc             uintptr
		clsExtra, wndExtra  int32
		instance, icon      uintptr
		cursor, background  uintptr
		menuName, className *uint16
		iconSm              uintptr
	}{wndProc: d.wndProc, className: name}
	wc.size = uint32(unsafe.Sizeof(wc))
	if atom, _, err := d.registerClassEx.Call(uintptr(unsafe.Pointer(&wc))); atom == 0 &&
		!errors.Is(err, windows.ERROR_CLASS_ALREADY_EXISTS) {
		return nil, fmt.Errorf("watch the desktop: register window class: %w", err)
	}
	unregister := func() { d.unregisterClass.Call(uintptr(unsafe.Pointer(name)), 0) }
	// A top-level window never shown: WS_POPUP, no WS_VISIBLE. A
	// message-only window would receive no broadcasts.
	const wsPopup = 0x80000000
	title, err := windows.UTF16PtrFromString("Spirit desktop watch")
	if err != nil {
		unregister()
		return nil, err
	}
	w, _, err := d.createWindowEx.Call(0, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(title)),
		wsPopup, 0, 0, 0, 0, 0, 0, 0, 0)
	if w == 0 {
		unregister()
		return nil, fmt.Errorf("watch the desktop: create window: %w", err)
	}
	h, _, err := d.setWinEventHook.Call(eventSystemForeground, eventSystemForeground, 0, d.hook, 0, 0, wineventOutOfContext)
	if h == 0 {
		d.destroyWindow.Call(w)
		unregister()
		return nil, fmt.Errorf("watch the foreground window: %w", err)
	}
	return func() {
		d.unhookWinEvent.Call(h)
		d.destroyWindow.Call(w)
		unregister()
	}, nil
}

// notify tells the running watch of ev without waiting: a change already
// waiting to be told covers this one.
func (d *Desktop) notify(ev RootEvent) {
	d.watchMu.Lock()
	ch := d.watchWorkArea
	if ev == ActiveChanged {
		ch = d.watchActive
	}
	d.watchMu.Unlock()
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// windowProc is the hidden window's WNDPROC, on the loop's thread.
func (d *Desktop) windowProc(w, msg, wparam, lparam uintptr) uintptr {
	if ev, ok := rootEventOf(uint32(msg), wparam); ok {
		d.notify(ev)
	}
	r, _, _ := d.defWindowProc.Call(w, msg, wparam, lparam)
	return r
}

// foregroundEvent is the WinEvent callback (WINEVENTPROC) for foreground
// changes, on the loop's thread.
func (d *Desktop) foregroundEvent(hook, event, w, idObject, idChild, thread, ms uintptr) uintptr {
	d.notify(ActiveChanged)
	return 0
}
