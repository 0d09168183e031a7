package platform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/godbus/dbus/v5"
)

// SessionBusAddress returns the session bus address without ever launching a
// bus: godbus would otherwise autolaunch a stray daemon when none is set.
func SessionBusAddress() (string, bool) {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a, true
	}
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		p := filepath.Join(rt, "bus")
		if st, err := os.Stat(p); err == nil && st.Mode()&os.ModeSocket != 0 {
			return "unix:path=" + p, true
		}
	}
	return "", false
}

// ProbeTray reports whether the session bus answers and a StatusNotifier
// host (watcher) owns its name there.
func ProbeTray(ctx context.Context) (TrayState, error) {
	addr, ok := SessionBusAddress()
	if !ok {
		return TrayNoBus, nil
	}
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return TrayNoBus, fmt.Errorf("connect session bus: %w", err)
	}
	defer conn.Close()
	var has bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, TrayWatcherID).Store(&has); err != nil {
		return TrayNoBus, fmt.Errorf("ask session bus: %w", err)
	}
	if !has {
		return TrayNoHost, nil
	}
	return TrayReady, nil
}
