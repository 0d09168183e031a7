package calendar

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/spirit-app/spirit/agents/store"
)

// Added is a calendar AddAndSync added and read once. Err is that first
// read's failure: the calendar was then removed again.
type Added struct {
	Calendar store.Calendar
	Events   int
	Err      error
}

// AddAndSync adds nc's calendars (Add) and reads each once. A calendar
// whose first read fails is removed again, password and all: a calendar
// that was never read is only a name that looks like it works. When none
// could be read, nothing is added and the error is a *FieldError on the
// field the lawyer gave its address in, saying why. progress hears of
// each read before it starts.
func AddAndSync(ctx context.Context, st *store.Store, keys SecretSetter, hc *http.Client, nc NewCalendar, opt SyncOptions,
	progress func(c store.Calendar, i, n int)) ([]Added, error) {
	added, err := Add(ctx, st, keys, hc, nc)
	if err != nil {
		return nil, err
	}
	if opt.HTTP == nil {
		opt.HTTP = hc
	}
	out := make([]Added, 0, len(added))
	kept := 0
	for i, c := range added {
		if progress != nil {
			progress(c, i+1, len(added))
		}
		res, err := Sync(ctx, st, c, opt)
		if err != nil {
			if rerr := Remove(context.WithoutCancel(ctx), st, keys, c); rerr != nil && !errors.Is(rerr, store.ErrNotFound) {
				err = errors.Join(err, fmt.Errorf("and it could not be removed again: %w", rerr))
			}
			out = append(out, Added{Calendar: c, Err: err})
			continue
		}
		kept++
		out = append(out, Added{Calendar: c, Events: res.Events})
	}
	if kept == 0 && len(out) > 0 {
		return out, &FieldError{Field: sourceField(nc.Kind),
			Err: fmt.Errorf("Spirit could not read it, so it was not added. %s", Plain(SyncErrorText(out[0].Err)))}
	}
	return out, nil
}

// SyncErrorText is a sync error's own message, without the "sync calendar
// N: " that Sync puts before it.
func SyncErrorText(err error) string {
	if in := errors.Unwrap(err); in != nil {
		if _, ok := err.(interface{ Unwrap() []error }); !ok {
			return in.Error()
		}
	}
	return err.Error()
}

// sourceField is the field a calendar of kind takes its address in.
func sourceField(kind string) string {
	switch kind {
	case store.CalendarURL:
		return FieldURL
	case store.CalendarCalDAV:
		return FieldServer
	}
	return FieldFile
}

// leftover reports whether c is what an add that never finished left
// behind (the program was killed during the first read): a calendar never
// read whole. Adding its source again replaces it.
func leftover(c store.Calendar) bool { return c.LastSync.IsZero() && !store.CloudCalendar(c.Kind) }

// replaceLeftover removes the leftover of source from have, if there is
// one, so that the same source can be added again.
func replaceLeftover(ctx context.Context, st *store.Store, keys SecretSetter, have []store.Calendar, kind, source string) error {
	for _, c := range have {
		if c.Kind == kind && c.Source == source && leftover(c) {
			if err := Remove(ctx, st, keys, c); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}
