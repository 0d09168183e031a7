package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestTranscriptsRetention(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i, age := range []time.Duration{10 * 24 * time.Hour, 8 * 24 * time.Hour, 6 * 24 * time.Hour, time.Minute} {
		if _, err := s.AddTranscript(ctx, Transcript{TS: now.Add(-age), Text: "utterance " + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.AddTranscript(ctx, Transcript{Text: "  "}); err == nil {
		t.Error("empty transcript accepted")
	}
	n, err := s.PurgeTranscripts(ctx, now.Add(-7*24*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("purged %d, %v; want 2", n, err)
	}
	ts, err := s.Transcripts(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].Text != "utterance c" || ts[1].Text != "utterance d" || ts[0].Source != "voice" {
		t.Fatalf("kept %+v", ts)
	}
}

func TestNudgeSubject(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.CreateNudge(ctx, Nudge{Kind: "reminder_confirm", Message: "Remind you?", Subject: "reminder:7"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Nudge(ctx, n.ID)
	if err != nil || got.Subject != "reminder:7" {
		t.Fatalf("nudge %+v, %v", got, err)
	}
}
