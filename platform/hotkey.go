package platform

import (
	"fmt"
	"strings"
)

// Hotkey is a global key combination such as "Ctrl+Alt+P".
type Hotkey struct {
	Ctrl, Alt, Shift, Super bool
	Key                     string // a letter, digit, "Space" or "F1"…"F12"
}

// ParseHotkey reads "Ctrl+Alt+P"-style text.
func ParseHotkey(s string) (Hotkey, error) {
	var h Hotkey
	parts := strings.Split(s, "+")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if i == len(parts)-1 {
			h.Key = strings.ToUpper(p)
			if h.Key == "SPACE" {
				h.Key = "Space"
			}
			break
		}
		switch strings.ToLower(p) {
		case "ctrl", "control":
			h.Ctrl = true
		case "alt":
			h.Alt = true
		case "shift":
			h.Shift = true
		case "super", "win", "cmd":
			h.Super = true
		default:
			return Hotkey{}, fmt.Errorf("hotkey %q: unknown modifier %q", s, p)
		}
	}
	if h.Key == "" || !(h.Ctrl || h.Alt || h.Super) {
		return Hotkey{}, fmt.Errorf("hotkey %q: needs Ctrl, Alt or Super and a key", s)
	}
	return h, nil
}

func (h Hotkey) String() string {
	var parts []string
	for _, m := range []struct {
		on   bool
		name string
	}{{h.Ctrl, "Ctrl"}, {h.Alt, "Alt"}, {h.Shift, "Shift"}, {h.Super, "Super"}} {
		if m.on {
			parts = append(parts, m.name)
		}
	}
	return strings.Join(append(parts, h.Key), "+")
}

// functionKey is n for the key "Fn", n from 1 to 12, and 0 for any other.
func functionKey(key string) int {
	var n int
	if len(key) < 2 || key[0] != 'F' {
		return 0
	}
	if _, err := fmt.Sscanf(key[1:], "%d", &n); err != nil || n < 1 || n > 12 || fmt.Sprint(n) != key[1:] {
		return 0
	}
	return n
}
