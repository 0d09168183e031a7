//go:build !linux

package platform

import "context"

// SessionBusAddress is a Linux notion; other systems have a native tray.
func SessionBusAddress() (string, bool) { return "", false }

// ProbeTray: macOS and Windows always have a menu bar or notification area.
func ProbeTray(context.Context) (TrayState, error) { return TrayNative, nil }
