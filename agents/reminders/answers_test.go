package reminders

import (
	"testing"
	"time"
)

func TestSnoozeMinutes(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.Local)
	tests := []struct {
		name string
		text string
		def  int // the lawyer's snooze length
		want int
	}{
		{"nothing typed", "", 10, 10},
		{"nothing typed, another length set", "", 25, 25},
		{"a number", "20", 25, 20},
		{"a number and min", "45min", 10, 45},
		{"spaces around", " 5 ", 10, 5},
		{"words", "half an hour", 10, 30},
		{"an hour", "an hour", 25, 60},
		{"zero is no snooze length", "0", 25, 25},
		{"nonsense", "purple elephants", 25, 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SnoozeMinutes(tt.text, now, tt.def); got != tt.want {
				t.Errorf("SnoozeMinutes(%q, default %d) = %d, want %d", tt.text, tt.def, got, tt.want)
			}
		})
	}
}

func TestQuickTimes(t *testing.T) {
	day := func(h, m int) time.Time { return time.Date(2026, 11, 25, h, m, 0, 0, time.Local) }
	tomorrow9 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.Local)
	tests := []struct {
		name string
		now  time.Time
		want []QuickTime
	}{
		{"morning: the evening is offered", day(9, 30), []QuickTime{{"In 1 hour", day(10, 30)}, {"Today 5 PM", day(17, 0)}, {"Tomorrow 9 AM", tomorrow9}}},
		{"late afternoon: too close to the evening", day(15, 45), []QuickTime{{"In 1 hour", day(16, 45)}, {"Tomorrow 9 AM", tomorrow9}}},
		{"seconds are dropped", day(9, 30).Add(42 * time.Second), []QuickTime{{"In 1 hour", day(10, 30)}, {"Today 5 PM", day(17, 0)}, {"Tomorrow 9 AM", tomorrow9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := QuickTimes(tt.now)
			if len(got) != len(tt.want) {
				t.Fatalf("QuickTimes = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i].Label != tt.want[i].Label || !got[i].At.Equal(tt.want[i].At) {
					t.Errorf("QuickTimes[%d] = %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
