package calendar

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/emersion/go-ical"

	"github.com/spirit-app/spirit/agents/store"
)

// openCalendarFile opens path if it is a regular file no larger than
// maxCalendarBytes. Anything else is refused before a byte is read: a
// device (/dev/zero, or a link to it) never ends, and opening a FIFO for
// reading waits for a writer that may never come.
func openCalendarFile(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read calendar: %w", err)
	}
	if err := regularCalendar(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read calendar: %w", err)
	}
	// What was opened is checked again: the path may have changed since.
	if st, err = f.Stat(); err == nil {
		err = regularCalendar(path, st)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func regularCalendar(path string, st os.FileInfo) error {
	switch {
	case st.IsDir():
		return fmt.Errorf("read calendar %s: a folder, not a calendar file", path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("read calendar %s: not a regular file (%v), so not a calendar file", path, st.Mode().Type())
	case st.Size() > maxCalendarBytes:
		return fmt.Errorf("read calendar %s: larger than %d MiB: %w", path, maxCalendarBytes>>20, ErrTooLarge)
	}
	return nil
}

// ReadFile reads an .ics file: a regular file, within the bounds of
// decode.go.
func ReadFile(path string) (*ical.Calendar, error) {
	f, err := openCalendarFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(io.LimitReader(f, maxCalendarBytes))
}

// isCalendarFile reports whether path is a regular file that holds an
// iCalendar object, reading it without building any of it.
func isCalendarFile(path string) error {
	f, err := openCalendarFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = decodeLimited(f, maxCalendarBytes, func(string) bool { return false }, func(ical.Prop) {},
		func(*ical.Component) error { return nil })
	return err
}

// eventsFrom reads the events of a calendar as EventsOf does, without the
// whole calendar in memory at once: a first pass keeps only its zones, a
// second turns each event into its row as soon as it is read. open gives
// the calendar from its start, each time it is called.
func eventsFrom(open func() (io.ReadCloser, error)) ([]store.CalendarEvent, DecodeStats, error) {
	zonesOnly := ical.NewCalendar()
	pass := func(want string, top func(*ical.Component) error) (DecodeStats, error) {
		r, err := open()
		if err != nil {
			return DecodeStats{}, err
		}
		defer r.Close()
		stats, err := decodeLimited(r, maxCalendarBytes, func(name string) bool { return name == want },
			func(ical.Prop) {}, top)
		if err != nil {
			return stats, fmt.Errorf("parse calendar: %w", err)
		}
		return stats, nil
	}
	if _, err := pass(ical.CompTimezone, func(c *ical.Component) error {
		zonesOnly.Children = append(zonesOnly.Children, c)
		return nil
	}); err != nil {
		return nil, DecodeStats{}, err
	}
	x := &expander{z: newZones(zonesOnly), loc: time.UTC}
	var out []store.CalendarEvent
	stats, err := pass(ical.CompEvent, func(c *ical.Component) error {
		e, err := x.row(c, "", "")
		if err != nil {
			slog.Warn("calendar: event not stored", "uid", clip(propText(c, ical.PropUID), 200), "err", err)
			return nil
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, stats, err
	}
	if stats.Skipped > 0 || stats.Dropped > 0 {
		slog.Warn("calendar: parts of the calendar could not be read and were left out", "stats", stats.String())
	}
	return out, stats, nil
}

// fileEvents reads the events of the .ics file at path.
func fileEvents(path string) ([]store.CalendarEvent, error) {
	evs, _, err := eventsFrom(func() (io.ReadCloser, error) { return openCalendarFile(path) })
	return evs, err
}

// bytesEvents reads the events of a calendar held in b.
func bytesEvents(b []byte) ([]store.CalendarEvent, error) {
	evs, _, err := eventsFrom(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil })
	return evs, err
}
