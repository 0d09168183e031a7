//go:build !linux && !darwin && !windows

package platform

// Other systems (the BSDs) have no start-at-login Spirit knows how to set.

func enableAutostart([]string) error      { return ErrUnsupported }
func disableAutostart() error             { return ErrUnsupported }
func autostartStatus() (Autostart, error) { return Autostart{}, ErrUnsupported }
