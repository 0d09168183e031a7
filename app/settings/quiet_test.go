package settings

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseQuietHours(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want QuietHours
		ok   bool
	}{
		{"empty is none", "", QuietHours{}, true},
		{"spaces are none", "   ", QuietHours{}, true},
		{"evening to morning", "20-8", QuietHours{From: 20, To: 8, On: true}, true},
		{"spaces around hours", " 20 - 8 ", QuietHours{From: 20, To: 8, On: true}, true},
		{"within a day", "9-17", QuietHours{From: 9, To: 17, On: true}, true},
		{"whole day", "0-24", QuietHours{From: 0, To: 24, On: true}, true},
		{"equal from and to", "8-8", QuietHours{From: 8, To: 8, On: true}, true},
		{"zero padded", "08-07", QuietHours{From: 8, To: 7, On: true}, true},
		{"one hour only", "20", QuietHours{}, false},
		{"no to", "20-", QuietHours{}, false},
		{"no from", "-8", QuietHours{}, false},
		{"words", "evening-morning", QuietHours{}, false},
		{"from past 23", "24-8", QuietHours{}, false},
		{"to past 24", "20-25", QuietHours{}, false},
		{"negative from", "-1-5", QuietHours{}, false},
		{"three hours", "20-8-3", QuietHours{}, false},
		{"clock times", "20:00-08:00", QuietHours{}, false},
		{"dash that is not a hyphen", "20–8", QuietHours{}, false},
		{"off is not a format", "off", QuietHours{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseQuietHours(tc.in)
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if tc.ok {
				if err != nil {
					t.Errorf("err = %v, want nil", err)
				}
				return
			}
			var fe *FieldError
			if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError matching ErrInvalid", err)
			}
			if want := (FieldError{Key: "glance.quiet_hours", Value: tc.in, Reason: "Quiet hours must look like 20-8 (from hour to hour, 0 to 24), or be empty for none."}); *fe != want {
				t.Errorf("got %+v, want %+v", *fe, want)
			}
		})
	}
}

func TestQuietHoursString(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   QuietHours
		want string
	}{
		{"off", QuietHours{}, ""},
		{"off ignores hours", QuietHours{From: 20, To: 8}, ""},
		{"wrap-around", QuietHours{From: 20, To: 8, On: true}, "20-8"},
		{"midnight start", QuietHours{From: 0, To: 7, On: true}, "0-7"},
		{"whole day", QuietHours{From: 0, To: 24, On: true}, "0-24"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in.String()
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			back, err := ParseQuietHours(got)
			if err != nil {
				t.Fatal(err)
			}
			if tc.in.On && back != tc.in || !tc.in.On && back.On {
				t.Fatalf("%q read back as %+v, want %+v", got, back, tc.in)
			}
		})
	}
}

func at(hour int) time.Time { return time.Date(2026, 3, 2, hour, 30, 0, 0, time.Local) }

func TestQuietHoursContains(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  string
		quiet []int // hours that are quiet; every other hour is not
	}{
		{"none", "", nil},
		{"wrap-around 20-8", "20-8", []int{20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7}},
		{"office hours 9-17", "9-17", []int{9, 10, 11, 12, 13, 14, 15, 16}},
		{"equal from and to is never", "8-8", nil},
		{"zero to zero is never", "0-0", nil},
		{"whole day 0-24", "0-24", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
		{"to midnight 22-24", "22-24", []int{22, 23}},
		{"to midnight 22-0", "22-0", []int{22, 23}},
		{"from midnight 0-6", "0-6", []int{0, 1, 2, 3, 4, 5}},
		{"one hour 23-0", "23-0", []int{23}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := ParseQuietHours(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			quiet := map[int]bool{}
			for _, h := range tc.quiet {
				quiet[h] = true
			}
			for h := range 24 {
				if got := q.Contains(at(h)); got != quiet[h] {
					t.Errorf("%02d:30: got %v, want %v", h, got, quiet[h])
				}
			}
		})
	}
}

// oldInQuietHours is app/glance.go's inQuietHours as it was before this
// package: Contains must agree with it on every value ParseQuietHours takes.
func oldInQuietHours(spec string, now time.Time) bool {
	from, to, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return false
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(from))
	b, err2 := strconv.Atoi(strings.TrimSpace(to))
	if err1 != nil || err2 != nil {
		return false
	}
	h := now.Hour()
	if a <= b {
		return h >= a && h < b
	}
	return h >= a || h < b
}

func TestQuietHoursContainsKeepsOldSemantics(t *testing.T) {
	for from := range 24 {
		for to := range 25 {
			spec := fmt.Sprintf("%d-%d", from, to)
			q, err := ParseQuietHours(spec)
			if err != nil {
				t.Fatalf("%s: %v", spec, err)
			}
			for h := range 24 {
				if got, want := q.Contains(at(h)), oldInQuietHours(spec, at(h)); got != want {
					t.Errorf("%s at %02d:30: got %v, old code said %v", spec, h, got, want)
				}
			}
		}
	}
}

func TestQuietHoursContainsUsesTheTimesOwnZone(t *testing.T) {
	q := QuietHours{From: 20, To: 8, On: true}
	utc := time.Date(2026, 3, 2, 21, 0, 0, 0, time.UTC) // quiet in UTC
	tokyo := utc.In(time.FixedZone("JST", 9*3600))      // 06:00 next day: quiet
	ny := utc.In(time.FixedZone("EST", -5*3600))        // 16:00: not quiet
	for _, tc := range []struct {
		name string
		t    time.Time
		want bool
	}{{"UTC 21:00", utc, true}, {"JST 06:00", tokyo, true}, {"EST 16:00", ny, false}} {
		if got := q.Contains(tc.t); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
