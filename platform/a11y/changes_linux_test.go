//go:build linux

package a11y

import (
	"testing"

	"github.com/godbus/dbus/v5"
)

func TestSelectionEvent(t *testing.T) {
	const app = ":1.42"
	sel := func(sender string) *dbus.Signal {
		return &dbus.Signal{Sender: sender, Name: signalSelection, Path: "/org/a11y/atspi/accessible/7"}
	}
	owner := func(name, old, now string) *dbus.Signal {
		return &dbus.Signal{Sender: "org.freedesktop.DBus", Name: "org.freedesktop.DBus.NameOwnerChanged", Body: []any{name, old, now}}
	}
	for _, tc := range []struct {
		name string
		s    *dbus.Signal
		want eventKind
	}{
		{"the application's selection changed", sel(app), eventSelected},
		{"another application's selection", sel(":1.43"), eventOther},
		{"another event of the application", &dbus.Signal{Sender: app, Name: ifaceEventObject + ".StateChanged"}, eventOther},
		{"the application left the bus", owner(app, app, ""), eventAppGone},
		{"another application left", owner(":1.43", ":1.43", ""), eventOther},
		{"a name taken, not lost", owner(app, "", app), eventOther},
		{"a malformed NameOwnerChanged", &dbus.Signal{Name: "org.freedesktop.DBus.NameOwnerChanged", Body: []any{app}}, eventOther},
		{"the connection's end", nil, eventOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := selectionEvent(tc.s, app); got != tc.want {
				t.Errorf("selectionEvent = %d, want %d", got, tc.want)
			}
		})
	}
}
