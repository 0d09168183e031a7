package platform

// UNTESTED HERE: checked by cross-compiling only. The command line is
// composed and split by x/sys/windows (CommandLineToArgvW's rules), the
// value lives in the current user's Run key, which Explorer reads at each
// login. Task Manager's Startup tab turns an entry off without removing
// it, by a value under Explorer\StartupApproved\Run whose first byte is
// odd; status reports that as off, and turning Spirit's entry on clears it.

import (
	"errors"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

const (
	runKey         = `Software\Microsoft\Windows\CurrentVersion\Run`
	approvedKey    = `Software\Microsoft\Windows\CurrentVersion\Explorer\StartupApproved\Run`
	autostartValue = "Spirit"
)

func enableAutostart(command []string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	if err := k.SetStringValue(autostartValue, windows.ComposeCommandLine(command)); err != nil {
		return err
	}
	// A "disabled" mark left by Task Manager would keep the new entry off.
	if a, err := registry.OpenKey(registry.CURRENT_USER, approvedKey, registry.SET_VALUE); err == nil {
		defer a.Close()
		if err := a.DeleteValue(autostartValue); err != nil && !errors.Is(err, registry.ErrNotExist) {
			return err
		}
	}
	return nil
}

func disableAutostart() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer k.Close()
	if err := k.DeleteValue(autostartValue); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return err
	}
	return nil
}

func autostartStatus() (Autostart, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return Autostart{}, nil
	}
	if err != nil {
		return Autostart{}, err
	}
	defer k.Close()
	line, _, err := k.GetStringValue(autostartValue)
	if errors.Is(err, registry.ErrNotExist) {
		return Autostart{}, nil
	}
	if err != nil {
		return Autostart{}, err
	}
	cmd, err := windows.DecomposeCommandLine(line)
	if err != nil {
		return Autostart{}, err
	}
	a := Autostart{On: true, Command: cmd, Where: `HKEY_CURRENT_USER\` + runKey + `\` + autostartValue}
	if ak, err := registry.OpenKey(registry.CURRENT_USER, approvedKey, registry.QUERY_VALUE); err == nil {
		defer ak.Close()
		if b, _, err := ak.GetBinaryValue(autostartValue); err == nil && len(b) > 0 && b[0]&1 == 1 {
			a.On, a.Note = false, "Turned off in Task Manager's Startup apps."
		}
	}
	return a, nil
}
