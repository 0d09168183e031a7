package commit

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"
)

// TestBenchCommitmentDetect measures what the listen path will pay per
// ambient utterance: Hear on each utterance of every case (both files),
// with the case's earlier utterances as the recent ones, many rounds; the
// figure is the 95th percentile.
func TestBenchCommitmentDetect(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs benchmarks")
	}
	var cases []Case
	for _, path := range []string{publicCases, ownCases} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, readCases(t, f)...)
		f.Close()
	}
	const rounds = 50
	var took []time.Duration
	for range rounds {
		for _, c := range cases {
			now, err := time.Parse(time.RFC3339, c.Now)
			if err != nil {
				t.Fatal(err)
			}
			var recent []Utterance
			for i, text := range c.Utterances {
				u := Utterance{Text: text, End: now.Add(time.Duration(i-len(c.Utterances)+1) * 10 * time.Second)}
				start := time.Now()
				Hear(u, recent, nil)
				took = append(took, time.Since(start))
				recent = append(recent, u)
			}
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	p95 := took[len(took)*95/100]
	t.Logf("%d utterances: p50 %v, p95 %v, max %v", len(took), took[len(took)/2], p95, took[len(took)-1])
	fmt.Printf("BENCH commitment_detect_us %.0f us\n", float64(p95.Nanoseconds())/1000)
}
