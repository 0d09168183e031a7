package platform

import (
	"image"
	"testing"
)

func TestParseHotkey(t *testing.T) {
	for in, want := range map[string]string{
		"Ctrl+Alt+P":        "Ctrl+Alt+P",
		"ctrl + alt + p":    "Ctrl+Alt+P",
		"Super+Shift+F9":    "Shift+Super+F9",
		"Control+Alt+space": "Ctrl+Alt+Space",
	} {
		h, err := ParseHotkey(in)
		if err != nil || h.String() != want {
			t.Errorf("ParseHotkey(%q) = %v, %v; want %s", in, h, err, want)
		}
	}
	for _, bad := range []string{"", "P", "Shift+P", "Hyper+P", "Ctrl+"} {
		if _, err := ParseHotkey(bad); err == nil {
			t.Errorf("ParseHotkey(%q) accepted", bad)
		}
	}
}

func TestDockPosition(t *testing.T) {
	wa := image.Rect(0, 27, 1220, 800)
	p := DockPosition(wa, WindowSize{44, 44}, 6)
	if p.X != 1220-44-6 || p.Y != 27+(773-44)/2 {
		t.Errorf("DockPosition = %v", p)
	}
	// A window taller than the work area stays inside it.
	p = DockPosition(wa, WindowSize{44, 900}, 6)
	if p.Y != 27 {
		t.Errorf("tall window at y=%d, want 27", p.Y)
	}
}
