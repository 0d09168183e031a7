package platform

// UNTESTED HERE: see capture_robotgo.go. The foreground window is read
// through user32 directly, by handle: title, PID and frame of one HWND are
// then one window's by construction, unlike robotgo's GetTitle/GetPid,
// which each look up the foreground window again. robotgo supplies the
// monitors and the pixels (capture_robotgo.go).
//
// Coordinates assume a per-monitor DPI-aware process; an unaware one sees
// GetWindowRect and the capture scaled differently on high-DPI monitors.

import (
	"context"
	"fmt"
	"image"
	"path/filepath"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

type osDisplay struct {
	getWindowTextLength, getWindowText, getWindowRect *windows.LazyProc
}

func (o *osDisplay) init() error {
	user32 := windows.NewLazySystemDLL("user32.dll")
	o.getWindowTextLength = user32.NewProc("GetWindowTextLengthW")
	o.getWindowText = user32.NewProc("GetWindowTextW")
	o.getWindowRect = user32.NewProc("GetWindowRect")
	for _, p := range []*windows.LazyProc{o.getWindowTextLength, o.getWindowText, o.getWindowRect} {
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
		var pid uint32
		if _, err := windows.GetWindowThreadProcessId(hwnd, &pid); err != nil {
			continue // the window closed
		}
		title := d.os.text(hwnd)
		frame := d.os.rect(hwnd)
		if windows.GetForegroundWindow() != hwnd {
			continue
		}
		w := Window{ID: uint64(hwnd), Title: title, PID: int(pid), Frame: frame}
		if path := processImage(pid); path != "" {
			w.Process = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
			w.Name = fileDescription(path)
		}
		return w, nil
	}
	return Window{}, fmt.Errorf("foreground window: %w", ErrWindowChanged)
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
