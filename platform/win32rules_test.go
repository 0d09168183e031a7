package platform

import "testing"

func TestExStyles(t *testing.T) {
	floating, focusable := floatingExStyle, focusableExStyle
	for _, tc := range []struct {
		name      string
		f         func(uint32, bool) uint32
		cur       uint32
		focusable bool
		want      uint32
	}{
		// GLFW makes an undecorated window an app window: in the taskbar.
		{"orb from GLFW", floating, wsExAppWindow, false, wsExTopmost | wsExToolWindow | wsExNoActivate},
		{"menu from GLFW, focusable", floating, wsExAppWindow, true, wsExTopmost | wsExToolWindow},
		{"already floating", floating, wsExTopmost | wsExToolWindow | wsExNoActivate, false, wsExTopmost | wsExToolWindow | wsExNoActivate},
		{"floating, focusable again", floating, wsExTopmost | wsExToolWindow | wsExNoActivate, true, wsExTopmost | wsExToolWindow},
		// Other bits (WS_EX_LAYERED 0x80000 here) are kept.
		{"other bits kept", floating, 0x80000 | wsExAppWindow, false, 0x80000 | wsExTopmost | wsExToolWindow | wsExNoActivate},
		{"refuse activation only", focusable, wsExAppWindow, false, wsExAppWindow | wsExNoActivate},
		{"allow activation only", focusable, wsExToolWindow | wsExNoActivate, true, wsExToolWindow},
		{"allowed stays", focusable, wsExToolWindow, true, wsExToolWindow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f(tc.cur, tc.focusable); got != tc.want {
				t.Errorf("(%#x, focusable %v) = %#x, want %#x", tc.cur, tc.focusable, got, tc.want)
			}
		})
	}
}

func TestHotkeyWin32(t *testing.T) {
	for _, tc := range []struct {
		in       string
		mods, vk uint32
	}{
		{"Ctrl+Alt+P", modNoRepeat | modControl | modAlt, 'P'},
		{"Ctrl+Alt+Space", modNoRepeat | modControl | modAlt, 0x20},
		{"Super+Shift+F9", modNoRepeat | modWin | modShift, 0x78},
		{"Alt+F1", modNoRepeat | modAlt, 0x70},
		{"Ctrl+F12", modNoRepeat | modControl, 0x7B},
		{"Ctrl+7", modNoRepeat | modControl, '7'},
	} {
		t.Run(tc.in, func(t *testing.T) {
			h, err := ParseHotkey(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			mods, vk, err := hotkeyWin32(h)
			if err != nil || mods != tc.mods || vk != tc.vk {
				t.Errorf("hotkeyWin32(%s) = %#x, %#x, %v; want %#x, %#x", tc.in, mods, vk, err, tc.mods, tc.vk)
			}
		})
	}
	for _, bad := range []string{"Ctrl+F13", "Ctrl+F0", "Ctrl+F01", "Ctrl+Tab", "Ctrl+é"} {
		t.Run(bad, func(t *testing.T) {
			h, err := ParseHotkey(bad)
			if err != nil {
				t.Fatal(err)
			}
			if mods, vk, err := hotkeyWin32(h); err == nil {
				t.Errorf("hotkeyWin32(%s) = %#x, %#x; want an error", bad, mods, vk)
			}
		})
	}
}

func TestRootEventOf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		msg    uint32
		wparam uintptr
		want   bool
	}{
		{"work area changed", wmSettingChange, spiSetWorkArea, true},
		{"display changed", wmDisplayChange, 32, true},
		{"another setting (wallpaper)", wmSettingChange, 0x0014, false},
		{"policy or locale change", wmSettingChange, 0, false},
		{"an unrelated message", 0x0010, spiSetWorkArea, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev, ok := rootEventOf(tc.msg, tc.wparam)
			if ok != tc.want || (ok && ev != WorkAreaChanged) {
				t.Errorf("rootEventOf(%#x, %#x) = %v, %v; want %v", tc.msg, tc.wparam, ev, ok, tc.want)
			}
		})
	}
}

func TestCaptureRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		aff  uint32
		want bool
	}{
		{"none", wdaNone, false},
		{"monitor only", wdaMonitor, true},
		{"excluded from capture", wdaExcludeFromCapture, true},
		{"a value Windows may add", 0x21, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := captureRefused(tc.aff); got != tc.want {
				t.Errorf("captureRefused(%#x) = %v, want %v", tc.aff, got, tc.want)
			}
		})
	}
}
