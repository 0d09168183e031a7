//go:build linux

package xtest

import (
	"context"
	"fmt"
	"image"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

func TestParseService(t *testing.T) {
	tests := []struct {
		service  string
		wantName string
		wantPath dbus.ObjectPath
	}{
		{"/StatusNotifierItem", ":1.7", "/StatusNotifierItem"}, // fyne.io/systray
		{"org.kde.StatusNotifierItem-42-1", "org.kde.StatusNotifierItem-42-1", "/StatusNotifierItem"},
		{":1.9/org/ayatana/NotificationItem/x", ":1.9", "/org/ayatana/NotificationItem/x"},
		{"", ":1.7", "/StatusNotifierItem"},
	}
	for _, tt := range tests {
		name, path := parseService(":1.7", tt.service)
		if name != tt.wantName || path != tt.wantPath {
			t.Errorf("parseService(%q) = %q, %q; want %q, %q", tt.service, name, path, tt.wantName, tt.wantPath)
		}
	}
}

func TestChildEnv(t *testing.T) {
	base := []string{"HOME=/root", "DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/0/bus", "XAUTHORITY=/x"}
	got := childEnv(base, []string{"DISPLAY=:12"})
	want := []string{"HOME=/root", "DISPLAY=:12", "DBUS_SESSION_BUS_ADDRESS=" + noBus}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
	got = childEnv(base, []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=/tmp/b"})
	want = []string{"HOME=/root", "DBUS_SESSION_BUS_ADDRESS=unix:path=/tmp/b"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q, want %q", got, want)
	}
}

// TestConvertLayout decodes a layout as godbus delivers fyne.io/systray's
// GetLayout reply: children are variants of generic structs and
// toggle-state is an int32.
func TestConvertLayout(t *testing.T) {
	child := func(id int32, props map[string]dbus.Variant) dbus.Variant {
		return dbus.MakeVariant([]any{id, props, []dbus.Variant{}})
	}
	root := layoutNode{
		ID: 0,
		Children: []dbus.Variant{
			child(1, map[string]dbus.Variant{
				"label":        dbus.MakeVariant("Pause listening"),
				"enabled":      dbus.MakeVariant(true),
				"toggle-type":  dbus.MakeVariant("checkmark"),
				"toggle-state": dbus.MakeVariant(int32(1)),
			}),
			child(2, map[string]dbus.Variant{"type": dbus.MakeVariant("separator")}),
			child(3, map[string]dbus.Variant{
				"label":   dbus.MakeVariant("Quit"),
				"enabled": dbus.MakeVariant(false),
				"visible": dbus.MakeVariant(false),
			}),
		},
	}
	m, err := (&TrayItem{}).convert(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := FormatMenu(m.Children), `[[x]"Pause listening" --- "Quit"(off)(hidden)]`; got != want {
		t.Errorf("FormatMenu = %s, want %s", got, want)
	}
	if p := m.Children[0]; p.ID != 1 || p.Toggle != "checkmark" || !p.Checked || !p.Enabled || !p.Visible {
		t.Errorf("pause item = %+v", p)
	}
	if _, ok := FindIn(m.Children, Label("")); ok {
		t.Error("Label(\"\") matched a separator")
	}
	if q, ok := FindIn(m.Children, LabelPrefix("Qu")); !ok || q.ID != 3 {
		t.Errorf("LabelPrefix(Qu) = %+v, %v", q, ok)
	}
}

// TestDisplaysDoNotCollide starts two displays in parallel while the first
// free display number is locked by someone else, and leaves a strut for
// cleanup to remove.
func TestDisplaysDoNotCollide(t *testing.T) {
	Require(t, "Xvfb", "openbox", "xdotool")
	var taken string
	for n := firstDisplay; n <= lastDisplay; n++ {
		release, err := lockDisplay(t, n)
		if err == nil {
			t.Cleanup(release)
			taken = fmt.Sprintf(":%d", n)
			break
		}
		if !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	names := make(chan string, 2)
	t.Run("group", func(t *testing.T) {
		for i := range 2 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				d := StartDisplay(t, 640, 480)
				names <- d.Name
				if _, err := d.AddStrut(40); err != nil {
					t.Fatal(err)
				}
				wa, err := d.WorkArea()
				if err != nil || wa != image.Rect(0, 0, 600, 480) {
					t.Errorf("WorkArea = %v, %v", wa, err)
				}
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				defer cancel()
				if _, err := d.WaitWindow(ctx, strutTitle, func(w WindowInfo) bool {
					return w.Viewable && w.Rect == image.Rect(600, 0, 640, 480)
				}); err != nil {
					t.Error(err)
				}
			})
		}
	})
	close(names)
	var got []string
	for n := range names {
		got = append(got, n)
	}
	if len(got) != 2 || got[0] == got[1] || slices.Contains(got, taken) {
		t.Errorf("displays %v, with %s locked beforehand", got, taken)
	}
}
