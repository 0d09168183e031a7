package settings_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/settings"
)

func days(ds ...time.Weekday) [7]bool {
	var a [7]bool
	for _, d := range ds {
		a[d] = true
	}
	return a
}

func TestParseActiveHours(t *testing.T) {
	weekdays := days(time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday)
	for _, tc := range []struct {
		name, in string
		want     settings.ActiveHours
		wantStr  string // String() of the result; "" for an error
	}{
		{"default", "mon-fri 08:00-19:00", settings.ActiveHours{Days: weekdays, From: 480, To: 1140}, "mon-fri 08:00-19:00"},
		{"capitals and spaces", "  Mon-Fri   8:00-19:00 ", settings.ActiveHours{Days: weekdays, From: 480, To: 1140}, "mon-fri 08:00-19:00"},
		{"list", "mon,wed,fri 09:30-17:15", settings.ActiveHours{Days: days(time.Monday, time.Wednesday, time.Friday), From: 570, To: 1035}, "mon,wed,fri 09:30-17:15"},
		{"daily to midnight", "daily 07:00-24:00", settings.ActiveHours{Days: days(0, 1, 2, 3, 4, 5, 6), From: 420, To: 1440}, "daily 07:00-24:00"},
		{"range over the weekend", "sat-sun 10:00-12:00", settings.ActiveHours{Days: days(time.Saturday, time.Sunday), From: 600, To: 720}, "sat-sun 10:00-12:00"},
		{"past midnight", "fri 22:00-02:00", settings.ActiveHours{Days: days(time.Friday), From: 1320, To: 120}, "fri 22:00-02:00"},
		{"one day", "tue 08:00-09:00", settings.ActiveHours{Days: days(time.Tuesday), From: 480, To: 540}, "tue 08:00-09:00"},
		{"empty", "", settings.ActiveHours{}, ""},
		{"no days", "08:00-19:00", settings.ActiveHours{}, ""},
		{"unknown day", "monday-friday 08:00-19:00", settings.ActiveHours{}, ""},
		{"hour 25", "mon-fri 08:00-25:00", settings.ActiveHours{}, ""},
		{"minute 60", "mon-fri 08:60-19:00", settings.ActiveHours{}, ""},
		{"24:30", "mon-fri 08:00-24:30", settings.ActiveHours{}, ""},
		{"empty span", "mon-fri 08:00-08:00", settings.ActiveHours{}, ""},
		{"no minutes", "mon-fri 8-19", settings.ActiveHours{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := settings.ParseActiveHours(tc.in)
			if tc.wantStr == "" {
				if !errors.Is(err, settings.ErrInvalid) {
					t.Fatalf("ParseActiveHours(%q) = %+v, %v; want an error matching ErrInvalid", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseActiveHours(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			if s := got.String(); s != tc.wantStr {
				t.Errorf("String() = %q, want %q", s, tc.wantStr)
			}
		})
	}
}

// TestWorkSettingsRoundTrip: the heartbeat and its hours are saved and
// read back; a stored value that is not valid reads as the default and
// names itself.
func TestWorkSettingsRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, err := store.OpenDir(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := settings.Defaults()
	s.WorkHeartbeat = false
	s.WorkActiveHours, _ = settings.ParseActiveHours("mon,thu 07:00-12:30")
	changed, err := settings.Save(ctx, st, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 2 || changed[0] != settings.KeyWorkHeartbeat || changed[1] != settings.KeyWorkActiveHours {
		t.Errorf("changed = %q", changed)
	}
	got, err := settings.Load(ctx, st)
	if err != nil || got.WorkHeartbeat || got.WorkActiveHours != s.WorkActiveHours {
		t.Fatalf("loaded %+v, %v", got, err)
	}
	if err := st.SetSetting(ctx, settings.KeyWorkActiveHours, "weekdays 9 to 5"); err != nil {
		t.Fatal(err)
	}
	got, err = settings.Load(ctx, st)
	fes := settings.FieldErrors(err)
	if len(fes) != 1 || fes[0].Key != settings.KeyWorkActiveHours || got.WorkActiveHours != settings.DefaultActiveHours() {
		t.Fatalf("loaded %+v, %v", got.WorkActiveHours, err)
	}
	bad := settings.Defaults()
	bad.WorkActiveHours = settings.ActiveHours{From: 60, To: 120} // no day
	if fes := settings.FieldErrors(bad.Validate()); len(fes) != 1 || fes[0].Key != settings.KeyWorkActiveHours {
		t.Errorf("Validate without a day = %v", fes)
	}
}
