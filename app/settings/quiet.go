package settings

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// QuietHours is a daily span of local hours, stored as "20-8": from 20:00
// up to (not including) 08:00 the next morning. A span whose From is after
// its To wraps past midnight; one whose From equals its To is empty, never
// quiet (as Spirit has always read it). To may be 24, meaning midnight.
type QuietHours struct {
	From, To int  // hours: From 0-23, To 0-24
	On       bool // false: no quiet hours, stored as ""
}

const quietHoursRule = "Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none."

// ParseQuietHours reads quiet hours as stored: "20-8", spaces allowed
// around each hour, or "" (only spaces) for none. Anything else is an
// error matching ErrInvalid, and the QuietHours returned are off.
func ParseQuietHours(s string) (QuietHours, error) {
	spec := strings.TrimSpace(s)
	if spec == "" {
		return QuietHours{}, nil
	}
	bad := &FieldError{Key: KeyGlanceQuietHours, Value: s, Reason: quietHoursRule}
	from, to, ok := strings.Cut(spec, "-")
	if !ok {
		return QuietHours{}, bad
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(from))
	b, err2 := strconv.Atoi(strings.TrimSpace(to))
	q := QuietHours{From: a, To: b, On: true}
	if err1 != nil || err2 != nil || !q.valid() {
		return QuietHours{}, bad
	}
	return q, nil
}

// String is q as stored: "20-8", or "" when off.
func (q QuietHours) String() string {
	if !q.On {
		return ""
	}
	return fmt.Sprintf("%d-%d", q.From, q.To)
}

// Contains says whether t's hour (in t's location, so pass local time) is
// inside q: From <= hour < To, or, wrapping past midnight when From > To,
// hour >= From or hour < To. Always false when q is off.
func (q QuietHours) Contains(t time.Time) bool {
	if !q.On {
		return false
	}
	h := t.Hour()
	if q.From <= q.To {
		return h >= q.From && h < q.To
	}
	return h >= q.From || h < q.To
}

// valid: off, or hours in range.
func (q QuietHours) valid() bool {
	return !q.On || q.From >= 0 && q.From <= 23 && q.To >= 0 && q.To <= 24
}
