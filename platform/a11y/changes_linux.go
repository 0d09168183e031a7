//go:build linux

package a11y

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// AT-SPI's event names: the registry's, which applications read to know
// what to send, and the D-Bus signal the application then emits.
const (
	registryPath        = "/org/a11y/atspi/registry"
	ifaceRegistry       = "org.a11y.atspi.Registry"
	ifaceEventObject    = "org.a11y.atspi.Event.Object"
	eventSelection      = "object:selection-changed"
	signalSelection     = ifaceEventObject + ".SelectionChanged"
	maxPendingSelection = 1
)

// Changes reports, on the channel it returns, when the application of
// window w said a selection in it changed: a message chosen in the
// list with the mouse or the arrow keys, a folder opened. Thunderbird 153
// sends object:selection-changed the moment the list's selection moves,
// and the header's fields follow a few hundred milliseconds later, so the
// caller learns of a new message in the reading pane before a pixel of it
// is drawn, and with nothing sampled while the lawyer reads: the channel
// costs no wake-up until the application speaks.
//
// Reports are coalesced: one waits while the caller is busy (the time of
// the first), the rest are dropped, since the caller reads the pane anew
// either way. The
// channel is closed when ctx ends, or when the application leaves the
// bus (it quit); the registration is withdrawn then.
//
// The application only sends events that some listener registered with
// the registry: Changes registers object:selection-changed for this
// application alone where the registry knows how (at-spi2-core 2.46 and
// later), else for all; at-spi's bridge in every application then emits
// it, which is what any screen reader asks too.
//
// Errors: ErrUnavailable (wrapped) when the bus, the application or its
// window is not in the tree, and ctx's error when it ends first.
func (r *Reader) Changes(ctx context.Context, w Window) (<-chan time.Time, error) {
	fctx, cancel := context.WithTimeout(ctx, defaultTimeout)
	frame, err := r.findFrame(fctx, w)
	cancel()
	if err != nil {
		return nil, err
	}
	app := frame.Name
	match := []dbus.MatchOption{
		dbus.WithMatchSender(app),
		dbus.WithMatchInterface(ifaceEventObject),
		dbus.WithMatchMember("SelectionChanged"),
	}
	if err := r.bus.AddMatchSignalContext(ctx, match...); err != nil {
		return nil, fmt.Errorf("%w: listen for %s: %v", ErrUnavailable, eventSelection, err)
	}
	gone := []dbus.MatchOption{
		dbus.WithMatchInterface("org.freedesktop.DBus"),
		dbus.WithMatchMember("NameOwnerChanged"),
		dbus.WithMatchArg(0, app),
	}
	if err := r.bus.AddMatchSignalContext(ctx, gone...); err != nil {
		_ = r.bus.RemoveMatchSignal(match...)
		return nil, fmt.Errorf("%w: watch %s: %v", ErrUnavailable, app, err)
	}
	deregister, err := r.register(ctx, eventSelection, app)
	if err != nil {
		_ = r.bus.RemoveMatchSignal(match...)
		_ = r.bus.RemoveMatchSignal(gone...)
		return nil, err
	}
	// godbus hands every signal of the connection to every channel: this
	// one's are filtered below. Its buffer only has to cover a burst
	// while this goroutine is scheduled; godbus queues beyond it.
	in := make(chan *dbus.Signal, 16)
	r.bus.Signal(in)
	out := make(chan time.Time, maxPendingSelection)
	go func() {
		defer func() {
			r.bus.RemoveSignal(in)
			// Withdrawn on a context of its own: ctx has ended.
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultTimeout)
			defer cancel()
			deregister(dctx)
			_ = r.bus.RemoveMatchSignal(match...)
			_ = r.bus.RemoveMatchSignal(gone...)
			close(out)
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case s, ok := <-in:
				if !ok {
					return // the bus connection closed
				}
				switch selectionEvent(s, app) {
				case eventSelected:
					select {
					case out <- time.Now():
					default: // one is waiting already
					}
				case eventAppGone:
					return
				}
			}
		}
	}()
	return out, nil
}

// eventKind is what a signal on the accessibility bus means to Changes.
type eventKind int

const (
	eventOther    eventKind = iota
	eventSelected           // app's selection changed
	eventAppGone            // app left the bus
)

// selectionEvent says what signal s means for a watch of application app
// (its unique bus name): a selection of app's that changed, app leaving
// the bus, or anything else (another application's event, another kind).
func selectionEvent(s *dbus.Signal, app string) eventKind {
	switch {
	case s == nil:
		return eventOther
	case s.Name == signalSelection && s.Sender == app:
		return eventSelected
	case s.Name == "org.freedesktop.DBus.NameOwnerChanged" && len(s.Body) == 3:
		name, _ := s.Body[0].(string)
		owner, _ := s.Body[2].(string)
		if name == app && owner == "" {
			return eventAppGone
		}
	}
	return eventOther
}

// register asks the registry to have app send event, and returns what
// withdraws the request. at-spi2-core's registry took the application's
// bus name from 2.46 on (RegisterEvent(s, as, s)); older ones take the
// event alone, for every application.
func (r *Reader) register(ctx context.Context, event, app string) (func(context.Context), error) {
	reg := r.bus.Object(registryName, registryPath)
	err := reg.CallWithContext(ctx, ifaceRegistry+".RegisterEvent", 0, event, []string{}, app).Err
	if err == nil {
		return func(ctx context.Context) {
			_ = reg.CallWithContext(ctx, ifaceRegistry+".DeregisterEvent", 0, event, app).Err
		}, nil
	}
	var de dbus.Error
	if !errors.As(err, &de) || !strings.Contains(de.Name, "InvalidArgs") && !strings.Contains(de.Name, "UnknownMethod") {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: register %s: %v", ErrUnavailable, event, err)
	}
	if err := reg.CallWithContext(ctx, ifaceRegistry+".RegisterEvent", 0, event).Err; err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: register %s: %v", ErrUnavailable, event, err)
	}
	return func(ctx context.Context) {
		_ = reg.CallWithContext(ctx, ifaceRegistry+".DeregisterEvent", 0, event).Err
	}, nil
}
