package caltools

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/work"
)

// Span is a stretch of time, [Start, End).
type Span struct {
	Start, End time.Time
}

// Windows are the working hours h between from and to, read on the wall
// clock of loc: one span per working day (a span past midnight belongs to
// the day it starts on, as work.ActiveHours has it), clipped to [from, to).
func Windows(h work.ActiveHours, from, to time.Time, loc *time.Location) []Span {
	if loc == nil {
		loc = time.UTC
	}
	if h.From == h.To || !to.After(from) {
		return nil
	}
	var out []Span
	f := from.In(loc)
	// The day before from: its span may run past midnight into from.
	day := time.Date(f.Year(), f.Month(), f.Day()-1, 0, 0, 0, 0, loc)
	for ; day.Before(to); day = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc) {
		if !h.Days[day.Weekday()] {
			continue
		}
		// time.Date reads the wall clock, so a DST day keeps its hours.
		s := time.Date(day.Year(), day.Month(), day.Day(), 0, h.From, 0, 0, loc)
		endDay := day.Day()
		if h.From > h.To {
			endDay++
		}
		e := time.Date(day.Year(), day.Month(), endDay, 0, h.To, 0, 0, loc)
		if s.Before(from) {
			s = from
		}
		if e.After(to) {
			e = to
		}
		if e.After(s) {
			out = append(out, Span{s, e})
		}
	}
	return out
}

// Free is what of windows busy leaves, in stretches of at least min, in
// order. busy need not be sorted and may overlap.
func Free(windows, busy []Span, min time.Duration) []Span {
	busy = slices.Clone(busy)
	slices.SortFunc(busy, func(a, b Span) int { return a.Start.Compare(b.Start) })
	var out []Span
	keep := func(s, e time.Time) {
		if e.Sub(s) >= min && e.After(s) {
			out = append(out, Span{s, e})
		}
	}
	for _, w := range windows {
		cur := w.Start
		for _, b := range busy {
			if !b.End.After(cur) || !b.Start.Before(w.End) {
				continue
			}
			if b.Start.After(cur) {
				keep(cur, b.Start)
			}
			if b.End.After(cur) {
				cur = b.End
			}
			if !cur.Before(w.End) {
				break
			}
		}
		if cur.Before(w.End) {
			keep(cur, w.End)
		}
	}
	return out
}

// CeilQuarter rounds t up to the next quarter hour of its wall clock: a
// free slot found at 10:07 is offered from 10:15.
func CeilQuarter(t time.Time) time.Time {
	q := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute()/15*15, 0, 0, t.Location())
	if q.Before(t) {
		q = q.Add(15 * time.Minute)
	}
	return q
}

// ParseLocal reads a date and time as a model writes one: "2026-12-01
// 10:00" or "2026-12-01T10:00" in loc, RFC 3339, or a date "2026-12-01"
// (dateOnly set, at midnight in loc).
func ParseLocal(s string, loc *time.Location) (t time.Time, dateOnly bool, err error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02T15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, false, nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.In(loc), false, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, loc); err == nil {
		return t, true, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is not a date and time like 2026-12-01 10:00", s)
}
