package reminders

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/voice/intent"
)

func TestDescribe(t *testing.T) {
	at := func(mo time.Month, d, h, m int) *time.Time { return tp(time.Date(2026, mo, d, h, m, 0, 0, est)) }
	oneShot := func(task string, due *time.Time) store.Reminder {
		return store.Reminder{Task: task, Due: due, Offset: -300, State: store.ReminderPending}
	}
	recurring := func(task string, every store.Recurrence, anchor *time.Time) store.Reminder {
		return store.Reminder{Task: task, Due: anchor, Anchor: anchor, Every: every, Offset: -300, State: store.ReminderPending}
	}
	for _, tc := range []struct {
		name string
		r    store.Reminder
		now  time.Time
		want string
	}{
		{"tomorrow", oneShot("call Marcy Howard", at(11, 21, 15, 0)), friday, "call Marcy Howard — tomorrow 3:00 PM"},
		{"today", oneShot("file the motion to compel", at(11, 20, 17, 0)), friday, "file the motion to compel — today 5:00 PM"},
		{"next week", oneShot("renew my bar membership", at(11, 27, 9, 0)), friday, "renew my bar membership — Fri Nov 27 9:00 AM"},
		{"yesterday", oneShot("call the court reporter", at(11, 19, 15, 0)), friday, "call the court reporter — yesterday 3:00 PM"},
		{"next year names the year", oneShot("order the title report", tp(time.Date(2027, 1, 4, 9, 0, 0, 0, est))), friday, "order the title report — Mon Jan 4 2027 9:00 AM"},
		{"every weekday", recurring("check the docket", store.EveryWeekday, at(11, 23, 9, 0)), friday, "check the docket — every weekday 9:00 AM"},
		{"every day", recurring("check my voicemail", store.EveryDay, at(11, 21, 8, 0)), friday, "check my voicemail — every day 8:00 AM"},
		{"every week names the weekday", recurring("send the weekly status report", store.EveryWeek, at(11, 23, 10, 0)), friday, "send the weekly status report — every Monday 10:00 AM"},
		{"no time yet", oneShot("call the clerk", nil), friday, "call the clerk — no time yet"},
		{"recurring without a time", store.Reminder{Task: "check the docket", Every: store.EveryWeekday, Offset: -300}, friday, "check the docket — every weekday, no time yet"},
		// The days are the reminder's: at 03:00 UTC on the 21st it is still
		// the 20th at -05:00, so 9:00 on the 21st there is tomorrow.
		{"days in the reminder's zone", oneShot("call Marcy Howard", at(11, 21, 9, 0)), time.Date(2026, 11, 21, 3, 0, 0, 0, time.UTC), "call Marcy Howard — tomorrow 9:00 AM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Describe(tc.r, tc.now); got != tc.want {
				t.Errorf("Describe = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFiringMessage(t *testing.T) {
	r := store.Reminder{Task: "call Marcy Howard", Due: tp(time.Date(2026, 11, 20, 15, 0, 0, 0, est)), Offset: -300}
	for _, tc := range []struct {
		name string
		now  time.Time
		when timing
		want string
	}{
		{"on time", time.Date(2026, 11, 20, 15, 0, 0, 0, est), onTime, "Reminder: call Marcy Howard"},
		{"missed earlier today", time.Date(2026, 11, 20, 17, 0, 0, 0, est), missedOff, "Missed while Spirit was off: call Marcy Howard (was due 3:00 PM)"},
		{"missed yesterday", time.Date(2026, 11, 21, 8, 0, 0, 0, est), missedOff, "Missed while Spirit was off: call Marcy Howard (was due yesterday 3:00 PM)"},
		{"missed days ago", time.Date(2026, 11, 23, 8, 0, 0, 0, est), missedOff, "Missed while Spirit was off: call Marcy Howard (was due Fri Nov 20 3:00 PM)"},
		{"late while running", time.Date(2026, 11, 20, 15, 30, 0, 0, est), late, "Late reminder: call Marcy Howard (was due 3:00 PM)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firingMessage(r, tc.now, tc.when); got != tc.want {
				t.Errorf("firingMessage at %v = %q, want %q", tc.now, got, tc.want)
			}
		})
	}
}

func TestParseNewTime(t *testing.T) {
	d := func(mo time.Month, day, h, m int) time.Time { return time.Date(2026, mo, day, h, m, 0, 0, est) }
	tomorrow3pm := d(11, 21, 15, 0)
	monday3pm := d(11, 23, 15, 0)
	thisMorning := d(11, 20, 9, 0)
	for _, tc := range []struct {
		text    string
		now     time.Time
		current *time.Time
		want    time.Time
	}{
		// A clock time alone: today if still ahead, else tomorrow...
		{"at 4 instead", friday, nil, d(11, 20, 16, 0)},
		{"4pm", friday, nil, d(11, 20, 16, 0)},
		{"4 p.m.", friday, nil, d(11, 20, 16, 0)},
		{"Make it 4:30.", friday, nil, d(11, 20, 16, 30)},
		{"at 9", friday, nil, d(11, 21, 9, 0)},
		{"at noon", friday, nil, d(11, 20, 12, 0)},
		{"at 12", friday, nil, d(11, 20, 12, 0)},
		{"at four instead", friday, nil, d(11, 20, 16, 0)},
		{"No, at 5 instead please", friday, nil, d(11, 20, 17, 0)},
		{"8 tonight", friday, nil, d(11, 20, 20, 0)},
		{"at 10am", friday, nil, d(11, 21, 10, 0)},
		// ...but on the reminder's own day when it has one still ahead.
		{"at 4 instead", friday, &tomorrow3pm, d(11, 21, 16, 0)},
		{"4pm", friday, &monday3pm, d(11, 23, 16, 0)},
		{"at 9", friday, &monday3pm, d(11, 23, 9, 0)},
		{"at 8", friday, &thisMorning, d(11, 21, 8, 0)},
		// Days.
		{"tomorrow at 10", friday, nil, d(11, 21, 10, 0)},
		{"tomorrow", friday, nil, d(11, 21, 9, 0)},
		{"tomorrow", friday, &monday3pm, d(11, 21, 15, 0)},
		{"make it Friday", friday, nil, d(11, 27, 9, 0)},
		{"make it Friday", friday, &tomorrow3pm, d(11, 27, 15, 0)},
		{"on thursday", friday, nil, d(11, 26, 9, 0)},
		{"monday at 2", friday, nil, d(11, 23, 14, 0)},
		{"friday at 10am", friday, nil, d(11, 27, 10, 0)},
		{"next monday", friday, nil, d(11, 23, 9, 0)},
		{"next friday", time.Date(2026, 6, 8, 9, 10, 0, 0, est), nil, time.Date(2026, 6, 19, 9, 0, 0, 0, est)},
		{"next tuesday at 2", time.Date(2026, 1, 15, 9, 0, 0, 0, est), nil, time.Date(2026, 1, 20, 14, 0, 0, 0, est)},
		// Parts of the day.
		{"tonight", friday, nil, d(11, 20, 20, 0)},
		{"this afternoon", friday, nil, d(11, 20, 14, 0)},
		{"this evening", friday, nil, d(11, 20, 18, 0)},
		{"tomorrow morning", friday, nil, d(11, 21, 9, 0)},
		{"tomorrow afternoon", friday, nil, d(11, 21, 14, 0)},
		{"by end of day", friday, nil, d(11, 20, 17, 0)},
		{"end of the day", friday, nil, d(11, 20, 17, 0)},
		// Relative times count from now truncated to the minute.
		{"in an hour", friday, nil, d(11, 20, 11, 15)},
		{"in half an hour", friday, nil, d(11, 20, 10, 45)},
		{"in an hour and a half", friday, nil, d(11, 20, 11, 45)},
		{"in 20 minutes", friday, &tomorrow3pm, d(11, 20, 10, 35)},
		{"in 2 hours", friday, nil, d(11, 20, 12, 15)},
		{"in 15 minutes", time.Date(2026, 9, 15, 14, 7, 42, 0, est), nil, time.Date(2026, 9, 15, 14, 22, 0, 0, est)},
		// The README's "at 8" late in the evening.
		{"at 8", time.Date(2026, 2, 3, 21, 30, 0, 0, time.FixedZone("", -8*3600)), nil,
			time.Date(2026, 2, 4, 8, 0, 0, 0, time.FixedZone("", -8*3600))},
	} {
		name := tc.text
		if tc.current != nil {
			name += " for a reminder due " + tc.current.Format("Mon 15:04")
		}
		t.Run(name, func(t *testing.T) {
			got, err := ParseNewTime(tc.text, tc.now, tc.current)
			if err != nil {
				t.Fatalf("ParseNewTime(%q, %v, current %v): %v; want %v", tc.text, tc.now, tc.current, err, tc.want)
			}
			if !got.Equal(tc.want) {
				t.Errorf("ParseNewTime(%q, %v, current %v) = %v, want %v", tc.text, tc.now, tc.current, got, tc.want)
			}
		})
	}
	for _, text := range []string{"", "  ", "hmm", "whenever", "at 25"} {
		t.Run(fmt.Sprintf("no time in %q", text), func(t *testing.T) {
			if got, err := ParseNewTime(text, friday, nil); !errors.Is(err, ErrNoTime) {
				t.Errorf("ParseNewTime(%q) = %v, %v; want ErrNoTime", text, got, err)
			}
		})
	}
	for _, text := range []string{"today at 9", "this morning"} {
		t.Run("past: "+text, func(t *testing.T) {
			if got, err := ParseNewTime(text, friday, nil); !errors.Is(err, ErrPast) {
				t.Errorf("ParseNewTime(%q) = %v, %v; want ErrPast", text, got, err)
			}
		})
	}
}

// TestParseNewTimeFallsBack: what this package's grammar leaves alone goes
// to the intent grammar, which is developed on its own; whatever that one
// makes of the phrase is the answer.
func TestParseNewTimeFallsBack(t *testing.T) {
	for _, text := range []string{"the day after tomorrow", "december 3rd at 2", "in ninety-five minutes"} {
		if _, ok := parseAbsolute(cleanAnswer(text), friday, nil); ok {
			t.Fatalf("%q is this package's after all; pick another phrase", text)
		}
		in := intent.Parse("remind me to do it "+text, friday)
		got, err := ParseNewTime(text, friday, nil)
		switch {
		case in.Kind == intent.Remind && in.Due != nil && in.Due.After(friday):
			if err != nil {
				t.Errorf("%q: %v; the intent grammar says %v", text, err, in.Due)
			} else if !got.Equal(*in.Due) {
				t.Errorf("%q: %v; want %v, as the intent grammar says", text, got, in.Due)
			}
		case in.Kind == intent.Remind && in.Due != nil:
			if !errors.Is(err, ErrPast) {
				t.Errorf("%q: %v, %v; want ErrPast for %v", text, got, err, in.Due)
			}
		default:
			if !errors.Is(err, ErrNoTime) {
				t.Errorf("%q: %v, %v; the intent grammar found no time", text, got, err)
			}
		}
		t.Logf("%q → %v %v", text, got, err)
	}
}

// TestTimeliness: only a reminder that fell due well before Spirit started
// was missed while Spirit was off; one due a moment before, or fired a few
// milliseconds late after a restart, is on time.
func TestTimeliness(t *testing.T) {
	started := time.Date(2026, 11, 20, 15, 0, 0, 0, est)
	for _, tc := range []struct {
		name     string
		due, now time.Time
		want     timing
	}{
		{"due now", started, started, onTime},
		{"due 74ms before a restart, fired at once", started.Add(-74 * time.Millisecond), started.Add(time.Millisecond), onTime},
		{"due seconds before the start", started.Add(-20 * time.Second), started, onTime},
		{"due just inside the grace", started.Add(-offGrace), started, onTime},
		{"due just before the grace", started.Add(-offGrace - time.Second), started, missedOff},
		{"due an hour before the start", started.Add(-time.Hour), started, missedOff},
		{"due the day before, fired after a failed first pass", started.Add(-24 * time.Hour), started.Add(5 * time.Minute), missedOff},
		{"fired 74ms late while running", started.Add(time.Hour), started.Add(time.Hour + 74*time.Millisecond), onTime},
		{"fired after a suspend while running", started.Add(time.Hour), started.Add(3 * time.Hour), late},
		{"due within the grace, fired late", started.Add(-30 * time.Second), started.Add(10 * time.Minute), late},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := timeliness(tc.due, tc.now, started); got != tc.want {
				t.Errorf("timeliness = %d, want %d", got, tc.want)
			}
		})
	}
}
