package platform

// The decisions behind the Win32 code (desktop_windows.go,
// window_windows.go), kept free of system calls and built on every system
// so that their tests run wherever Spirit's tests do. The constants are
// winuser.h's.

import "fmt"

// Extended window styles (GWL_EXSTYLE).
const (
	wsExTopmost    = 0x00000008
	wsExToolWindow = 0x00000080
	wsExAppWindow  = 0x00040000
	wsExNoActivate = 0x08000000
)

// floatingExStyle is the extended style of one of Spirit's floating
// windows made from cur: topmost, a tool window, so out of the taskbar and
// Alt+Tab (which WS_EX_APPWINDOW, set by GLFW, would put it back in), and,
// unless focusable, never activated: a click on it leaves the lawyer's
// window in front with the keyboard.
func floatingExStyle(cur uint32, focusable bool) uint32 {
	s := (cur | wsExTopmost | wsExToolWindow) &^ wsExAppWindow
	if focusable {
		return s &^ wsExNoActivate
	}
	return s | wsExNoActivate
}

// focusableExStyle is cur with activation allowed or refused, nothing else
// changed.
func focusableExStyle(cur uint32, focusable bool) uint32 {
	if focusable {
		return cur &^ wsExNoActivate
	}
	return cur | wsExNoActivate
}

// RegisterHotKey modifiers.
const (
	modAlt      = 0x0001
	modControl  = 0x0002
	modShift    = 0x0004
	modWin      = 0x0008
	modNoRepeat = 0x4000 // one WM_HOTKEY per press, not one per auto-repeat
)

// hotkeyWin32 is h as RegisterHotKey takes it: modifiers and virtual key.
func hotkeyWin32(h Hotkey) (mods, vk uint32, err error) {
	switch k := h.Key; {
	case k == "Space":
		vk = 0x20 // VK_SPACE
	case len(k) == 1 && (k[0] >= 'A' && k[0] <= 'Z' || k[0] >= '0' && k[0] <= '9'):
		vk = uint32(k[0]) // the virtual keys of letters and digits are their ASCII
	case functionKey(k) > 0:
		vk = 0x70 + uint32(functionKey(k)) - 1 // VK_F1…VK_F12
	}
	if vk == 0 {
		return 0, 0, fmt.Errorf("unsupported hotkey key %q", h.Key)
	}
	mods = modNoRepeat
	for _, m := range []struct {
		on  bool
		bit uint32
	}{{h.Ctrl, modControl}, {h.Alt, modAlt}, {h.Shift, modShift}, {h.Super, modWin}} {
		if m.on {
			mods |= m.bit
		}
	}
	return mods, vk, nil
}

// Window messages and parameters that change the work area.
const (
	wmSettingChange = 0x001A
	wmDisplayChange = 0x007E
	spiSetWorkArea  = 0x002F
)

// rootEventOf says whether a message broadcast to top-level windows
// changes where the orb docks: the work area changed (a taskbar moved,
// resized or set to hide) or the displays did (resolution, a monitor
// added or removed).
func rootEventOf(msg uint32, wparam uintptr) (RootEvent, bool) {
	switch {
	case msg == wmSettingChange && wparam == spiSetWorkArea:
		return WorkAreaChanged, true
	case msg == wmDisplayChange:
		return WorkAreaChanged, true
	}
	return 0, false
}

// Display affinities (SetWindowDisplayAffinity).
const (
	wdaNone               = 0x00
	wdaMonitor            = 0x01 // shown on the monitor only: captures get black
	wdaExcludeFromCapture = 0x11 // left out of captures altogether (Windows 10 2004+)
)

// captureRefused reports whether a window with display affinity aff has
// asked not to be captured. Any affinity but none counts: a value a later
// Windows adds is a refusal too, on the safe side.
func captureRefused(aff uint32) bool { return aff != wdaNone }
