package platform

import (
	"context"
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// keysym returns the X keysym for a Hotkey key name.
func keysym(key string) (xproto.Keysym, error) {
	switch {
	case key == "Space":
		return 0x20, nil
	case len(key) == 1 && key[0] >= 'A' && key[0] <= 'Z':
		return xproto.Keysym(key[0] + ('a' - 'A')), nil // lower-case letter keysyms
	case len(key) == 1 && key[0] >= '0' && key[0] <= '9':
		return xproto.Keysym(key[0]), nil
	case functionKey(key) > 0:
		return xproto.Keysym(0xffbe + functionKey(key) - 1), nil
	}
	return 0, fmt.Errorf("unsupported hotkey key %q", key)
}

// GrabHotkey makes h a global shortcut: pressed calls fn (on its own
// goroutine) until ctx ends. It fails when another program owns the combination.
func (d *Desktop) GrabHotkey(ctx context.Context, h Hotkey, fn func()) error {
	sym, err := keysym(h.Key)
	if err != nil {
		return err
	}
	conn, err := xgb.NewConn()
	if err != nil {
		return fmt.Errorf("connect to X display: %w", err)
	}
	setup := xproto.Setup(conn)
	root := setup.DefaultScreen(conn).Root
	code, err := keycodeFor(conn, setup, sym)
	if err != nil {
		conn.Close()
		return err
	}
	var mods uint16
	if h.Ctrl {
		mods |= xproto.ModMaskControl
	}
	if h.Alt {
		mods |= xproto.ModMask1
	}
	if h.Shift {
		mods |= xproto.ModMaskShift
	}
	if h.Super {
		mods |= xproto.ModMask4
	}
	// Grab with and without Caps Lock and Num Lock, which X counts as modifiers.
	for _, extra := range []uint16{0, xproto.ModMaskLock, xproto.ModMask2, xproto.ModMaskLock | xproto.ModMask2} {
		err := xproto.GrabKeyChecked(conn, true, root, mods|extra, code,
			xproto.GrabModeAsync, xproto.GrabModeAsync).Check()
		if err != nil {
			conn.Close()
			return fmt.Errorf("hotkey %s is taken by another program: %w", h, err)
		}
	}
	go func() {
		<-ctx.Done()
		conn.Close()
	}()
	go func() {
		for {
			ev, xerr := conn.WaitForEvent()
			if ev == nil && xerr == nil {
				return
			}
			if k, ok := ev.(xproto.KeyPressEvent); ok && k.Detail == code {
				fn()
			}
		}
	}()
	return nil
}

func keycodeFor(conn *xgb.Conn, setup *xproto.SetupInfo, sym xproto.Keysym) (xproto.Keycode, error) {
	count := byte(setup.MaxKeycode - setup.MinKeycode + 1)
	m, err := xproto.GetKeyboardMapping(conn, setup.MinKeycode, count).Reply()
	if err != nil {
		return 0, fmt.Errorf("read keyboard map: %w", err)
	}
	per := int(m.KeysymsPerKeycode)
	for i := 0; i < int(count); i++ {
		for j := 0; j < per && j < 2; j++ {
			if m.Keysyms[i*per+j] == sym {
				return setup.MinKeycode + xproto.Keycode(i), nil
			}
		}
	}
	return 0, fmt.Errorf("no key produces keysym %#x on this keyboard", sym)
}
