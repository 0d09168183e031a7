package digest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/spirit-app/spirit/app/events"
)

// TestBenchDigest prints the digest loop's figures: the p95 of a code-only
// tick with a full window, and the share of ticks skipped as idle over a
// synthetic quiet hour (a lawyer reading one long document: a handful of
// switches and a few words heard).
func TestBenchDigest(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1")
	}
	ctx := t.Context()
	titles := []string{"RE: SNDA - Message (HTML)", "SNDA v3.docx - Word", "Westlaw Edge - Google Chrome", "Inbox - dana@firm.com - Outlook"}
	procs := []string{"OUTLOOK.EXE", "WINWORD.EXE", "chrome.exe", "OUTLOOK.EXE"}

	// A busy tick: every tick has news, the window holds many switches
	// and utterances.
	clk := &clock{t: t0}
	l := New(Options{Now: clk.now})
	var samples []time.Duration
	for i := range 2000 {
		clk.t = clk.t.Add(2 * time.Second)
		k := i % len(titles)
		l.Observe(sw(clk.t, procs[k], titles[k]))
		l.Observe(events.Event{Type: events.UtteranceUnderstood, Data: events.Utterance{Text: "we will send the estoppel certificate by Friday", At: clk.t}})
		start := time.Now()
		if _, ran := l.Tick(ctx); !ran {
			t.Fatal("a tick with news skipped")
		}
		samples = append(samples, time.Since(start))
	}
	slices.Sort(samples)
	p95 := samples[len(samples)*95/100]
	fmt.Printf("BENCH digest_tick_us %.1f us\n", float64(p95.Nanoseconds())/1e3)

	// The quiet hour: 120 ticks of 30 s; six switches and four utterances
	// at random moments.
	rng := rand.New(rand.NewPCG(2, 4))
	clk = &clock{t: t0}
	q := New(Options{Now: clk.now})
	news := map[int]int{}
	for range 10 {
		news[rng.IntN(120)]++
	}
	skipped := 0
	for i := range 120 {
		clk.t = t0.Add(time.Duration(i) * DefaultInterval)
		for range news[i] {
			k := rng.IntN(len(titles))
			q.Observe(sw(clk.t, procs[k], titles[k]))
		}
		if _, ran := q.Tick(ctx); !ran {
			skipped++
		}
	}
	if st := q.Stats(); st.IdleSkips != int64(skipped) {
		t.Errorf("idle skips counted %d, ticks skipped %d", st.IdleSkips, skipped)
	}
	fmt.Printf("BENCH digest_idle_skip_pct %.1f %%\n", 100*float64(skipped)/120)

	// What a quiet tick costs: the whole of the loop's idle work, once
	// per interval.
	const quiet = 100000
	start := time.Now()
	for range quiet {
		if _, ran := q.Tick(ctx); ran {
			t.Fatal("a quiet tick ran")
		}
	}
	fmt.Printf("BENCH digest_idle_tick_ns %.0f ns\n", float64(time.Since(start).Nanoseconds())/quiet)
}
