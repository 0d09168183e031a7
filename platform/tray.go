package platform

// TrayState says whether Spirit's tray icon can be shown.
type TrayState string

const (
	TrayReady     TrayState = "ok"             // a tray host is there to show the icon
	TrayNoHost    TrayState = "no tray host"   // the desktop has no StatusNotifier host
	TrayNoBus     TrayState = "no session bus" // no DBus session bus: the tray cannot start
	TrayNative    TrayState = "native"         // the OS always has a tray (macOS, Windows)
	TrayHeadless  TrayState = "headless"       // Spirit runs without a GUI
	TrayWatcherID           = "org.kde.StatusNotifierWatcher"
)
