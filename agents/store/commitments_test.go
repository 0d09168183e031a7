package store

import (
	"errors"
	"testing"
	"time"
)

func TestAddCommitmentOncePerKey(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	heard := clock.Now().Add(-time.Minute)
	friday := time.Date(2026, 3, 6, 9, 0, 0, 0, time.UTC)

	c, added, err := s.AddCommitment(ctx, NewCommitment{Key: "commit-a", Task: " send the revised redline ",
		Words: "okay I'll send you the revised redline by Friday", Heard: heard, Deadline: &friday})
	if err != nil || !added {
		t.Fatalf("first add: %+v, %v, %v", c, added, err)
	}
	if c.Task != "send the revised redline" || c.State != CommitmentOpen || !c.Heard.Equal(heard) ||
		c.Deadline == nil || !c.Deadline.Equal(friday) || c.Words != "okay I'll send you the revised redline by Friday" ||
		!c.Created.Equal(clock.Now()) || c.ReminderID != 0 || c.NudgeID != 0 {
		t.Fatalf("stored %+v", c)
	}
	clock.Advance(time.Hour)
	again, added, err := s.AddCommitment(ctx, NewCommitment{Key: "commit-a", Task: "send the redline", Words: "other words", Heard: clock.Now()})
	if err != nil || added || again.ID != c.ID || again.Words != c.Words || again.Deadline == nil {
		t.Fatalf("second add of the key: %+v, %v, %v", again, added, err)
	}
	open, added, err := s.AddCommitment(ctx, NewCommitment{Key: "commit-b", Task: "look into the estoppel question", Words: "I'll look into it"})
	if err != nil || !added || open.Deadline != nil || !open.Heard.Equal(clock.Now()) {
		t.Fatalf("open commitment: %+v, %v, %v", open, added, err)
	}
	byKey, err := s.CommitmentByKey(ctx, "commit-b")
	if err != nil || byKey.ID != open.ID {
		t.Fatalf("by key: %+v, %v", byKey, err)
	}
	if _, err := s.CommitmentByKey(ctx, "commit-zzz"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := s.Commitment(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}

	for _, tc := range []struct {
		name string
		nc   NewCommitment
	}{
		{"no key", NewCommitment{Task: "x"}},
		{"blank task", NewCommitment{Key: "k", Task: "  "}},
		{"zero deadline", NewCommitment{Key: "k", Task: "x", Deadline: &time.Time{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := s.AddCommitment(ctx, tc.nc); !errors.Is(err, ErrInvalid) {
				t.Fatalf("got %v, want ErrInvalid", err)
			}
		})
	}
}

func TestCommitmentStates(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	add := func(key string) Commitment {
		t.Helper()
		clock.Advance(time.Minute)
		c, _, err := s.AddCommitment(ctx, NewCommitment{Key: key, Task: "task " + key, Words: "I'll do " + key})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b, c, d := add("a"), add("b"), add("c"), add("d")

	// Offering makes the nudge and marks the commitment together.
	n, err := s.OfferCommitment(ctx, a.ID, Nudge{Kind: "commitment", Subject: "commitment:a", Message: "Remind you?"})
	if err != nil || n.ID == 0 || n.State != NudgeShown {
		t.Fatalf("offer: %+v, %v", n, err)
	}
	if got, _ := s.Commitment(ctx, a.ID); got.State != CommitmentOffered || got.NudgeID != n.ID {
		t.Fatalf("after offer: %+v", got)
	}
	if _, err := s.OfferCommitment(ctx, a.ID, Nudge{Kind: "commitment", Message: "again"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("second offer: %v", err)
	}
	nudges, _ := s.Nudges(ctx)
	if len(nudges) != 1 {
		t.Fatalf("%d nudges after a refused second offer", len(nudges))
	}
	// A nudge the store refuses leaves the commitment open.
	if _, err := s.OfferCommitment(ctx, b.ID, Nudge{Kind: "commitment"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("offer without a message: %v", err)
	}
	if got, _ := s.Commitment(ctx, b.ID); got.State != CommitmentOpen {
		t.Fatalf("after a failed offer: %+v", got)
	}

	r, err := s.CreateReminder(ctx, NewReminder{Task: "task a", Heard: clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		id       int64
		state    CommitmentState
		reminder int64
		want     error
	}{
		{"offered to reminded", a.ID, CommitmentReminded, r.ID, nil},
		{"reminded is settled", a.ID, CommitmentDone, 0, ErrCommitmentClosed},
		{"open to done", b.ID, CommitmentDone, 0, nil},
		{"open to dismissed", c.ID, CommitmentDismissed, 0, nil},
		{"dismissed is settled", c.ID, CommitmentDismissed, 0, ErrCommitmentClosed},
		{"reminded needs a reminder", d.ID, CommitmentReminded, 0, ErrInvalid},
		{"done takes no reminder", d.ID, CommitmentDone, r.ID, ErrInvalid},
		{"open is not a settlement", d.ID, CommitmentOpen, 0, ErrInvalid},
		{"unknown state", d.ID, "gone", 0, ErrInvalid},
		{"unknown id", 999, CommitmentDone, 0, ErrNotFound},
		{"open to superseded", d.ID, CommitmentSuperseded, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.CloseCommitment(ctx, tc.id, tc.state, tc.reminder)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("got %v, want %v", err, tc.want)
				}
				return
			}
			if err != nil || got.State != tc.state || got.ReminderID != tc.reminder {
				t.Fatalf("got %+v, %v", got, err)
			}
		})
	}
	// Deleting the reminder leaves the commitment as it was.
	if err := s.DeleteReminder(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Commitment(ctx, a.ID); err != nil || got.ReminderID != r.ID || got.State != CommitmentReminded {
		t.Fatalf("after deleting its reminder: %+v, %v", got, err)
	}
	if _, err := s.OfferCommitment(ctx, d.ID, Nudge{Kind: "commitment", Message: "x"}); !errors.Is(err, ErrCommitmentClosed) {
		t.Fatalf("offer of a superseded commitment: %v", err)
	}
}

func TestOpenCommitmentsLatestFirst(t *testing.T) {
	s, clock := openTest(t)
	ctx := t.Context()
	var ids []int64
	for _, k := range []string{"a", "b", "c", "d"} {
		clock.Advance(time.Minute)
		c, _, err := s.AddCommitment(ctx, NewCommitment{Key: k, Task: "task " + k, Heard: clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if _, err := s.CloseCommitment(ctx, ids[1], CommitmentDone, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OfferCommitment(ctx, ids[2], Nudge{Kind: "commitment", Message: "x"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		limit int
		want  []int64
	}{
		{"all", 0, []int64{ids[3], ids[0]}},
		{"limited", 1, []int64{ids[3]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.OpenCommitments(ctx, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var gotIDs []int64
			for _, c := range got {
				gotIDs = append(gotIDs, c.ID)
			}
			if len(gotIDs) != len(tc.want) {
				t.Fatalf("got %v, want %v", gotIDs, tc.want)
			}
			for i := range gotIDs {
				if gotIDs[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", gotIDs, tc.want)
				}
			}
		})
	}
}
