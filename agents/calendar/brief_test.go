package calendar

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestBrief(t *testing.T) {
	now := time.Date(2026, 6, 18, 10, 16, 0, 0, time.FixedZone("EDT", -4*3600))
	me := Me{Name: "Dana Whitfield", Addresses: []string{"dana@hr.com", "dw@hr.com"}}
	at := func(min int) time.Time { return now.Add(time.Duration(min) * time.Minute) }
	marcy := Person{Email: "marcy@gl.com", Name: "Marcy Howard", PartStat: PartStatAccepted}
	grant := Person{Email: "grant@em.com", Name: "Grant Ellison", PartStat: PartStatAccepted}
	meAccepted := Person{Email: "dana@hr.com", PartStat: PartStatAccepted}
	meDeclined := Person{Email: "DW@hr.com", PartStat: PartStatDeclined}
	meeting := func(uid string, start int, people ...Person) Occurrence {
		return Occurrence{UID: uid, Start: at(start), End: at(start + 30), Attendees: people}
	}
	// Mail waiting on the lawyer, by sender.
	open := map[string][]OpenThread{
		"marcy@gl.com": {{MessageID: "<m1>", Subject: "SNDA", From: Person{Email: "marcy@gl.com"}, Date: at(-60)},
			{MessageID: "<m2>", Subject: "Estoppel", From: Person{Email: "marcy@gl.com"}, Date: at(-30)}},
	}
	tests := []struct {
		name    string
		occs    []Occurrence
		nudge   bool
		reason  string
		uid     string
		threads []string
	}{
		{"meeting in 14 min with open mail", []Occurrence{meeting("a", 14, meAccepted, marcy)}, true, ReasonOpenThreads, "a", []string{"<m2>", "<m1>"}},
		{"exactly 15 min ahead counts", []Occurrence{meeting("a", 15, marcy)}, true, ReasonOpenThreads, "a", []string{"<m2>", "<m1>"}},
		{"16 min ahead is too early", []Occurrence{meeting("a", 16, marcy)}, false, ReasonNoMeeting, "", nil},
		{"starting now is too late", []Occurrence{meeting("a", 0, marcy)}, false, ReasonNoMeeting, "", nil},
		{"declined by one of my addresses", []Occurrence{meeting("a", 5, meDeclined, marcy)}, false, ReasonNoMeeting, "", nil},
		{"cancelled", []Occurrence{func() Occurrence { o := meeting("a", 5, marcy); o.Status = StatusCancelled; return o }()}, false, ReasonNoMeeting, "", nil},
		{"free", []Occurrence{func() Occurrence { o := meeting("a", 5, marcy); o.Transparent = true; return o }()}, false, ReasonNoMeeting, "", nil},
		{"all day", []Occurrence{func() Occurrence { o := meeting("a", 5, marcy); o.AllDay = true; return o }()}, false, ReasonNoMeeting, "", nil},
		{"only me on it", []Occurrence{meeting("a", 5, meAccepted, Person{Email: "DANA@hr.com"})}, false, ReasonNoMeeting, "", nil},
		{"organizer is the other person", []Occurrence{func() Occurrence {
			o := meeting("a", 5, meAccepted)
			o.Organizer = &Person{Email: "marcy@gl.com", Name: "Marcy Howard"}
			return o
		}()}, true, ReasonOpenThreads, "a", []string{"<m2>", "<m1>"}},
		{"earliest qualifying meeting has no mail", []Occurrence{meeting("b", 10, marcy), meeting("g", 5, grant)}, false, ReasonNoThreads, "g", nil},
		{"a skipped earlier meeting does not hide the next", []Occurrence{meeting("b", 10, marcy), meeting("g", 5, meDeclined, grant)}, true, ReasonOpenThreads, "b", []string{"<m2>", "<m1>"}},
		{"same start: the one with mail wins", []Occurrence{meeting("g", 10, grant), meeting("b", 10, marcy)}, true, ReasonOpenThreads, "b", []string{"<m2>", "<m1>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked [][]string
			find := func(_ context.Context, addrs []string) ([]OpenThread, error) {
				asked = append(asked, addrs)
				var out []OpenThread
				for _, a := range addrs {
					out = append(out, open[a]...)
				}
				return out, nil
			}
			d, err := Brief(context.Background(), now, me, tt.occs, find)
			if err != nil {
				t.Fatal(err)
			}
			if d.Nudge != tt.nudge || d.Reason != tt.reason {
				t.Fatalf("got nudge=%v reason=%s, want nudge=%v reason=%s", d.Nudge, d.Reason, tt.nudge, tt.reason)
			}
			gotUID := ""
			if d.Meeting != nil {
				gotUID = d.Meeting.UID
			}
			if gotUID != tt.uid {
				t.Errorf("meeting %q, want %q", gotUID, tt.uid)
			}
			var ids []string
			for _, th := range d.Threads {
				ids = append(ids, th.MessageID)
			}
			if !slices.Equal(ids, tt.threads) {
				t.Errorf("threads %v, want %v", ids, tt.threads)
			}
			for _, addrs := range asked {
				for _, a := range addrs {
					if me.Is(a) {
						t.Errorf("asked for the lawyer's own mail: %v", addrs)
					}
				}
			}
			if d.Nudge && (!strings.Contains(d.Message, "Marcy Howard") || !strings.Contains(d.Message, "min")) {
				t.Errorf("message %q does not name who and when", d.Message)
			}
		})
	}
}

func TestBriefError(t *testing.T) {
	now := time.Date(2026, 6, 18, 10, 0, 0, 0, time.UTC)
	occ := Occurrence{UID: "a", Start: now.Add(5 * time.Minute), Attendees: []Person{{Email: "x@y.com"}}}
	boom := errors.New("index closed")
	_, err := Brief(context.Background(), now, Me{Addresses: []string{"me@z.com"}}, []Occurrence{occ},
		func(context.Context, []string) ([]OpenThread, error) { return nil, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the lookup's error", err)
	}
}

func TestOccurrenceKey(t *testing.T) {
	rid := time.Date(2026, 6, 24, 9, 5, 0, 0, time.FixedZone("", -4*3600))
	a := Occurrence{UID: "u", RecurrenceID: rid, Start: rid.Add(2 * time.Hour)}
	b := Occurrence{UID: "u", RecurrenceID: rid.UTC(), Start: rid}
	if a.Key() != b.Key() || a.Key() != "u/20260624T130500Z" {
		t.Errorf("keys %q and %q: a moved occurrence must keep its key", a.Key(), b.Key())
	}
	if (Occurrence{UID: "u"}).Key() != "u" {
		t.Error("one-off key")
	}
}

func TestRecheckAndNextWindow(t *testing.T) {
	now := time.Date(2026, 6, 18, 10, 0, 0, 0, time.UTC)
	me := Me{Addresses: []string{"dana@hr.com"}}
	rid := now.Add(30 * time.Minute)
	other := []Person{{Email: "marcy@gl.com", PartStat: PartStatAccepted}}
	series := Occurrence{UID: "s", RecurrenceID: rid, Start: rid, Attendees: other}
	moved := series
	moved.Start = rid.Add(2 * time.Hour)
	cancelled := series
	cancelled.Status = StatusCancelled
	declined := series
	declined.Attendees = append([]Person{{Email: "Dana@hr.com", PartStat: PartStatDeclined}}, other...)
	tests := []struct {
		name      string
		occs      []Occurrence
		ok        bool
		wantStart time.Time
	}{
		{"unchanged", []Occurrence{series}, true, rid},
		{"moved keeps its key", []Occurrence{moved}, true, moved.Start},
		{"cancelled", []Occurrence{cancelled}, false, rid},
		{"declined", []Occurrence{declined}, false, rid},
		{"deleted", nil, false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := Recheck(series.Key(), me, tt.occs)
			if ok != tt.ok || !o.Start.Equal(tt.wantStart) {
				t.Errorf("Recheck = %s, %v; want %s, %v", o.Start, ok, tt.wantStart, tt.ok)
			}
		})
	}
	free := Occurrence{UID: "f", Start: now.Add(5 * time.Minute), Transparent: true, Attendees: other}
	soon := Occurrence{UID: "n", Start: now.Add(10 * time.Minute), Attendees: other}
	if at, ok := NextWindow(now, me, []Occurrence{series, free}); !ok || !at.Equal(rid.Add(-Lead)) {
		t.Errorf("NextWindow = %s, %v; want %s", at, ok, rid.Add(-Lead))
	}
	if at, ok := NextWindow(now, me, []Occurrence{series, soon}); !ok || !at.Equal(now) {
		t.Errorf("NextWindow with a meeting in its window = %s, %v; want now", at, ok)
	}
	if _, ok := NextWindow(now, me, []Occurrence{free}); ok {
		t.Error("NextWindow found a window for a free event only")
	}
}

func TestBusy(t *testing.T) {
	me := Me{Addresses: []string{"nadia@firm.com"}}
	marcy := Person{Email: "marcy@howardlaw.com", PartStat: PartStatAccepted}
	mine := func(ps string) []Person { return []Person{marcy, {Email: "nadia@firm.com", PartStat: ps}} }
	for _, tc := range []struct {
		name string
		occ  Occurrence
		want bool
	}{
		{"an ordinary meeting", Occurrence{Attendees: mine(PartStatAccepted)}, true},
		{"not yet answered", Occurrence{Attendees: mine(PartStatNeedsAction)}, true},
		{"tentative", Occurrence{Status: StatusTentative, Attendees: mine(PartStatTentative)}, true},
		{"marked free", Occurrence{Transparent: true}, false},
		{"cancelled", Occurrence{Status: StatusCancelled}, false},
		{"declined by the lawyer", Occurrence{Attendees: mine(PartStatDeclined)}, false},
		{"declined by someone else", Occurrence{Attendees: []Person{{Email: "marcy@howardlaw.com", PartStat: PartStatDeclined}}}, true},
		{"all day, not free", Occurrence{AllDay: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Busy(tc.occ, me); got != tc.want {
				t.Errorf("Busy = %v, want %v", got, tc.want)
			}
		})
	}
}
