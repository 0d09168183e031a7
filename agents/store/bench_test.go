package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func BenchmarkAppendEvent(b *testing.B) {
	for _, mode := range []string{"FULL", "NORMAL"} {
		b.Run(mode, func(b *testing.B) {
			opt := defaultOptions()
			opt.synchronous = mode
			s, err := open(b.Context(), filepath.Join(b.TempDir(), FileName), opt)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ev := Event{Source: "bench", Identifier: "b", Text: benchText}
			for b.Loop() {
				if _, err := s.AppendEvent(b.Context(), ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckNearEnd times a Check returning the newest 100 of a
// 1,000,000-entry log.
func BenchmarkCheckNearEnd(b *testing.B) {
	ctx := b.Context()
	s, err := OpenDir(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.bulkFill(ctx, 1_000_000); err != nil {
		b.Fatal(err)
	}
	last, err := s.LastID(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		if err := s.SetCursor(ctx, "bench", last-100); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		es, err := s.Check(ctx, "bench", 1000)
		if err != nil || len(es) != 100 {
			b.Fatalf("%d entries, %v", len(es), err)
		}
	}
}

// TestReportBenchNumbers prints the numbers a bench command would show. It
// runs only with SPIRIT_STORE_BENCH=1 (the 1M-row fill takes a while);
// SPIRIT_STORE_BENCH_DIR picks the disk to measure on.
func TestReportBenchNumbers(t *testing.T) {
	if os.Getenv("SPIRIT_STORE_BENCH") != "1" {
		t.Skip("set SPIRIT_STORE_BENCH=1 to measure")
	}
	ctx := t.Context()
	base := os.Getenv("SPIRIT_STORE_BENCH_DIR")
	if base == "" {
		base = t.TempDir()
	}
	dir := func(name string) string {
		d, err := os.MkdirTemp(base, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	const n = 3000
	for _, mode := range []string{"FULL", "NORMAL"} {
		rate, err := BenchAppendSynchronous(ctx, dir("append"), n, mode)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("append, synchronous=%s: %.0f acknowledged appends/s (%d appends)", mode, rate, n)
	}
	d := dir("check")
	start := time.Now()
	ms, err := BenchCheckAt(ctx, d, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fill 1,000,000 + check: %v total; Check of newest 100 at 1M: %.3f ms (median)", time.Since(start), ms)

	s, err := OpenDir(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, f := range map[string]func() error{
		"Counts":        func() error { _, err := s.Counts(ctx); return err },
		"Recent(100)":   func() error { _, err := s.Recent(ctx, 100); return err },
		"Since(tail)":   func() error { _, err := s.Since(ctx, 999_900, 0); return err },
		"AppendEvent":   func() error { _, err := s.AppendEvent(ctx, Event{Source: "bench", Text: benchText}); return err },
		"RecentEvents5": func() error { _, err := s.RecentEvents(ctx, 5); return err },
	} {
		start := time.Now()
		const reps = 20
		for range reps {
			if err := f(); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s at 1M: %.3f ms", name, float64(time.Since(start).Microseconds())/1000/reps)
	}
	if st, err := os.Stat(filepath.Join(d, FileName)); err == nil {
		t.Logf("database size at 1M: %.1f MB", float64(st.Size())/1e6)
	}
}

// TestBenchWorldLog prints the world log's figures for `make bench`.
func TestBenchWorldLog(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 (make bench) to measure")
	}
	ctx := t.Context()
	rate, err := BenchAppend(ctx, t.TempDir(), 5000)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("BENCH worldlog_append_per_s %.0f appends/s\n", rate)
	ms, err := BenchCheckAt(ctx, t.TempDir(), 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("BENCH worldlog_check_ms_1m %.3f ms\n", ms)
}
