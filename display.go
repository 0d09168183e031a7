package main

// hasDisplay reports whether a desktop session is there for the tray and
// the orb. On Linux and the BSDs that is an X11 or Wayland display named
// in the environment; without one the toolkit panics at start-up, so
// Spirit runs headless instead. Windows and macOS always have one.
func hasDisplay(goos string, getenv func(string) string) bool {
	switch goos {
	case "windows", "darwin", "ios", "android":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}
