// Package assets holds Spirit's bundled resources.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

//go:embed tray.png
var trayPNG []byte

// Icon is the application icon (256×256 PNG).
func Icon() fyne.Resource { return fyne.NewStaticResource("spirit.png", iconPNG) }

// TrayIcon is the tray icon (64×64 PNG).
func TrayIcon() fyne.Resource { return fyne.NewStaticResource("spirit-tray.png", trayPNG) }
