package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/spirit-app/spirit/platform/a11y"
	"github.com/spirit-app/spirit/screen"
)

// paneEventsRest is how long the screen watcher goes back to pixels alone
// after the accessibility tree could not be had, or had no such window: a
// desktop without one (most, unless a screen reader ran) is not asked at
// every switch.
const paneEventsRest = time.Minute

// errPaneEventsResting says the tree is not asked again yet.
var errPaneEventsResting = errors.New("the accessibility tree was unavailable a moment ago")

// paneEvents follows a mail window's selection through the OS's
// accessibility tree for the screen watcher (screen.ServiceOptions
// PaneEvents): a connection of its own for each window it follows, closed
// when the watcher stops following it, so nothing outlives the switch.
type paneEvents struct {
	now func() time.Time

	mu     sync.Mutex
	failed time.Time // when the tree last could not be had
}

// Changes opens the tree and asks it to tell sw's window's selection
// changes, until ctx ends or the application leaves the tree.
func (p *paneEvents) Changes(ctx context.Context, sw screen.Switch) (<-chan time.Time, error) {
	p.mu.Lock()
	resting := !p.failed.IsZero() && p.now().Sub(p.failed) < paneEventsRest
	p.mu.Unlock()
	if resting {
		return nil, errPaneEventsResting
	}
	r, err := a11y.Open(ctx)
	if err != nil {
		p.fail(ctx)
		return nil, fmt.Errorf("pane events: %w", err)
	}
	in, err := r.Changes(ctx, a11y.Window{PID: sw.PID, Title: sw.Title})
	if err != nil {
		_ = r.Close()
		// A tree without this window (Thunderbird's accessibility off)
		// rests too: the pixels serve, and the window is asked for
		// again after the rest.
		p.fail(ctx)
		return nil, fmt.Errorf("pane events: %w", err)
	}
	p.mu.Lock()
	p.failed = time.Time{}
	p.mu.Unlock()
	out := make(chan time.Time, 1)
	go func() {
		defer close(out)
		defer r.Close() // once Changes has withdrawn its registration
		for at := range in {
			select {
			case out <- at:
			default: // one is waiting already
			}
		}
	}()
	return out, nil
}

// fail starts a rest, unless ctx ended (Spirit stopping, the lawyer moved
// on): that says nothing of the tree.
func (p *paneEvents) fail(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	p.mu.Lock()
	p.failed = p.now()
	p.mu.Unlock()
}
