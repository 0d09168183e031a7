package work

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/nudge"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work/pace"
)

func TestAfter(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	run := func(msg, key string, d time.Duration) store.WorkRun {
		return store.WorkRun{Message: msg, DedupKey: key, Delivered: ago(d)}
	}
	open := pace.Policy{MaxPerHour: 4}
	quiet := pace.Policy{MaxPerHour: 4, Quiet: func(time.Time) bool { return true }}
	msg := Notice{Message: "Marcy asked for the SNDA by Friday."}
	cases := []struct {
		name      string
		n         Notice
		key       string
		delivered []store.WorkRun
		nudges    []store.Nudge
		p         pace.Policy
		want      Reason
	}{
		{"first time", msg, "", nil, nil, open, ""},
		{"empty message is an ack", Notice{Message: "  \n "}, "", nil, nil, open, ReasonAck},
		{"same text an hour ago", msg, "", []store.WorkRun{run(msg.Message, "", time.Hour)}, nil, open, ReasonDuplicate},
		{"same text, other case and spacing", Notice{Message: " marcy  asked for the SNDA\nby friday. "}, "",
			[]store.WorkRun{run(msg.Message, "", time.Hour)}, nil, open, ReasonDuplicate},
		{"same text outside the window", msg, "", []store.WorkRun{run(msg.Message, "", 25*time.Hour)}, nil, open, ""},
		{"other text", msg, "", []store.WorkRun{run("The closing moved to Monday.", "", time.Hour)}, nil, open, ""},
		{"same dedup key, other text", msg, "routine:3@x", []store.WorkRun{run("Something else.", "routine:3@x", 2*time.Hour)}, nil, open, ReasonDuplicate},
		{"same key outside the window", msg, "k", []store.WorkRun{run("Something else.", "k", 30*time.Hour)}, nil, open, ""},
		{"other key", msg, "k1", []store.WorkRun{run("Something else.", "k2", time.Hour)}, nil, open, ""},
		{"duplicate before quiet hours", msg, "", []store.WorkRun{run(msg.Message, "", time.Hour)}, nil, quiet, ReasonDuplicate},
		{"quiet hours", msg, "", nil, nil, quiet, ReasonQuietHours},
		{"cap reached by glances", msg, "", nil, []store.Nudge{
			{Kind: nudge.KindGlance, Created: now.Add(-time.Minute)}, {Kind: nudge.KindGlance, Created: now.Add(-2 * time.Minute)}},
			pace.Policy{MaxPerHour: 2}, ReasonHourlyCap},
		{"cap reached by glances and work together", msg, "", []store.WorkRun{run("Other.", "", 10*time.Minute)},
			[]store.Nudge{{Kind: nudge.KindGlance, Created: now.Add(-time.Minute)}}, pace.Policy{MaxPerHour: 2}, ReasonHourlyCap},
		{"work counted once, not again by its nudge", msg, "", []store.WorkRun{run("Other.", "", 10*time.Minute)},
			[]store.Nudge{{Kind: nudge.KindInfo, Subject: "work-1", Created: now.Add(-10 * time.Minute)}}, pace.Policy{MaxPerHour: 2}, ""},
		{"a delivery with a subject of its own counted once, by its run", msg, "",
			[]store.WorkRun{{Message: "Other.", NudgeID: 7, Delivered: ago(10 * time.Minute)}},
			[]store.Nudge{{ID: 7, Kind: nudge.KindMeeting, Subject: "meeting:call@x", Created: now.Add(-10 * time.Minute)}}, pace.Policy{MaxPerHour: 2}, ""},
		{"a meeting nudge of no run counts", msg, "", []store.WorkRun{run("Other.", "", 10*time.Minute)},
			[]store.Nudge{{ID: 8, Kind: nudge.KindMeeting, Subject: "meeting:call@x", Created: now.Add(-10 * time.Minute)}}, pace.Policy{MaxPerHour: 2}, ReasonHourlyCap},
		{"deliveries older than an hour do not count to the cap", msg, "", []store.WorkRun{run("Other.", "", 61*time.Minute)},
			nil, pace.Policy{MaxPerHour: 1}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := After(now, c.n, c.key, c.delivered, c.nudges, c.p, DefaultDedupWindow); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestBefore(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	hourAgo := now.Add(-time.Hour)
	cases := []struct {
		name      string
		key       string
		delivered []store.WorkRun
		p         pace.Policy
		want      Reason
	}{
		{"nothing known against it", "k", nil, pace.Policy{MaxPerHour: 4}, ""},
		{"key delivered already", "k", []store.WorkRun{{DedupKey: "k", Message: "x", Delivered: &hourAgo}}, pace.Policy{MaxPerHour: 4}, ReasonDuplicate},
		{"no key: text is not known yet", "", []store.WorkRun{{Message: "x", Delivered: &hourAgo}}, pace.Policy{MaxPerHour: 4}, ""},
		{"quiet hours: no model call", "", nil, pace.Policy{MaxPerHour: 4, Quiet: func(time.Time) bool { return true }}, ReasonQuietHours},
		{"cap reached: no model call", "", nil, pace.Policy{MaxPerHour: 0}, ReasonHourlyCap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Before(now, c.key, c.delivered, nil, c.p, DefaultDedupWindow); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestActiveHours(t *testing.T) {
	ny := zone(t, "America/New_York")
	night := ActiveHours{Days: [7]bool{time.Friday: true}, From: 22 * 60, To: 2 * 60}
	cases := []struct {
		name string
		a    ActiveHours
		at   string // New York wall clock; 2026-11-23 is a Monday
		want bool
	}{
		{"weekday morning", DefaultActiveHours, "2026-11-23 08:00", true},
		{"a minute before", DefaultActiveHours, "2026-11-23 07:59", false},
		{"last minute", DefaultActiveHours, "2026-11-27 18:59", true},
		{"at the end", DefaultActiveHours, "2026-11-27 19:00", false},
		{"Saturday", DefaultActiveHours, "2026-11-28 10:00", false},
		{"Sunday", DefaultActiveHours, "2026-11-29 10:00", false},
		{"past midnight belongs to the day it started", night, "2026-11-28 01:00", true},
		{"the start day's evening", night, "2026-11-27 23:00", true},
		{"the next evening is another day", night, "2026-11-28 23:00", false},
		{"before the span on its own day", night, "2026-11-27 01:00", false},
		{"empty span", ActiveHours{Days: DefaultActiveHours.Days, From: 9 * 60, To: 9 * 60}, "2026-11-23 09:00", false},
		{"to midnight", ActiveHours{Days: DefaultActiveHours.Days, From: 20 * 60, To: 24 * 60}, "2026-11-23 23:59", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			when := at(t, ny, c.at, "")
			if got := c.a.Contains(when); got != c.want {
				t.Fatalf("Contains(%s) = %v, want %v", c.at, got, c.want)
			}
			// The gate reads the time in the lawyer's zone, whatever zone
			// the clock gives.
			want := Reason("")
			if !c.want {
				want = ReasonOutsideActiveHours
			}
			if got := c.a.Gate(ny)(context.Background(), when.UTC()); got != want {
				t.Fatalf("Gate = %q, want %q", got, want)
			}
		})
	}
}

func TestSourceValid(t *testing.T) {
	cases := []struct {
		s    Source
		want bool
	}{
		{SourceHeartbeat, true}, {SourceWebhook, true}, {RoutineSource(12), true}, {"webhook:ci-nightly", true},
		{"", false}, {"Heartbeat", false}, {"a b", false}, {"routine:", false}, {"a:b:c", false}, {":x", false},
		{Source("x" + string(make([]byte, 64))), false},
	}
	for _, c := range cases {
		t.Run(string(c.s), func(t *testing.T) {
			if got := c.s.Valid(); got != c.want {
				t.Fatalf("Valid(%q) = %v, want %v", c.s, got, c.want)
			}
		})
	}
}

func TestOutcomeJSON(t *testing.T) {
	o := Outcome{ID: 7, Source: SourceWebhook, Status: store.WorkSkip, Reason: ReasonQuietHours,
		Notice: &Notice{Message: "m"}, Duration: 1500 * time.Millisecond, Usage: Usage{InputTokens: 10, OutputTokens: 5}}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":7,"source":"webhook","status":"skip","reason":"quiet-hours","delivered":false,"notice":{"message":"m"},` +
		`"usage":{"input_tokens":10,"output_tokens":5,"cost_usd":0},"duration_ms":1500}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}
