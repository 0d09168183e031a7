package platform

import (
	"context"
	"fmt"
)

// GrabHotkey makes h a global shortcut (RegisterHotKey): pressed calls fn
// on a goroutine of its own until ctx ends, when it is unregistered. It
// fails when another program holds the combination.
func (d *Desktop) GrabHotkey(ctx context.Context, h Hotkey, fn func()) error {
	mods, vk, err := hotkeyWin32(h)
	if err != nil {
		return err
	}
	// An id of its own although each hotkey has its own thread: Wine
	// keeps one hotkey per id for all windowless ones, and a second
	// hotkey with the same id took the first's place.
	id := uintptr(d.hotkeyIDs.Add(1))
	pressed := make(chan struct{}, 1)
	stop, err := d.lockedLoop(func() (func(), error) {
		if ok, _, err := d.registerHotKey.Call(0, id, uintptr(mods), uintptr(vk)); ok == 0 {
			return nil, fmt.Errorf("hotkey %s is taken by another program: %w", h, err)
		}
		return func() { d.unregisterHotKey.Call(0, id) }, nil
	}, func(uintptr) {
		select {
		case pressed <- struct{}{}:
		default: // a press waits to be handled: one is enough
		}
	})
	if err != nil {
		return err
	}
	go func() {
		for {
			select {
			case <-pressed:
				fn()
			case <-ctx.Done():
				_ = stop() // the thread is ending: an error could go nowhere
				return
			}
		}
	}()
	return nil
}
