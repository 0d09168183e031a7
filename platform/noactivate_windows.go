package platform

import (
	"fmt"
	"sync"

	"golang.org/x/sys/windows"
)

// inactiveClicks makes a click on Spirit's windows that refuse activation
// leave the lawyer's window in front. Windows' DefWindowProc answers
// WM_MOUSEACTIVATE with MA_NOACTIVATE for a WS_EX_NOACTIVATE window; Wine
// 8's does not, and a click on the orb made it the foreground window (seen
// under Wine). So the window procedure is subclassed and answers itself,
// as long as the window has the style: Focus clears it, and a click
// activates again.
type inactiveClicks struct {
	callWindowProc *windows.LazyProc

	once sync.Once
	proc uintptr // the subclass procedure, made once: Go never frees a callback

	mu   sync.Mutex
	orig map[uintptr]uintptr // window → the procedure it had (GLFW's)
}

const (
	gwlpWndProc     = -4
	wmMouseActivate = 0x0021
	wmNCDestroy     = 0x0082
	maNoActivate    = 3
)

// keepInactive subclasses the window once.
func (d *Desktop) keepInactive(id uint32) error {
	c := &d.clicks
	c.once.Do(func() {
		c.proc = windows.NewCallback(d.inactiveProc)
		c.orig = map[uintptr]uintptr{}
	})
	w := hwnd(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.orig[w]; ok {
		return nil
	}
	idx := gwlpWndProc
	// Set on the window's own thread or not, SetWindowLongPtr answers
	// with the old procedure; 0 is a failure.
	old, _, err := d.setWindowLongPtr.Call(w, uintptr(idx), c.proc)
	if old == 0 {
		return fmt.Errorf("window %#x: subclass: %w", id, err)
	}
	c.orig[w] = old
	return nil
}

// inactiveProc is the subclassed windows' procedure, on their thread.
func (d *Desktop) inactiveProc(w, msg, wparam, lparam uintptr) uintptr {
	c := &d.clicks
	c.mu.Lock()
	orig := c.orig[w]
	if msg == wmNCDestroy {
		delete(c.orig, w) // the last message a window gets
	}
	c.mu.Unlock()
	if msg == wmMouseActivate {
		idx := gwlExStyle
		if s, _, _ := d.getWindowLongPtr.Call(w, uintptr(idx)); uint32(s)&wsExNoActivate != 0 {
			return maNoActivate
		}
	}
	r, _, _ := c.callWindowProc.Call(orig, w, msg, wparam, lparam)
	return r
}
