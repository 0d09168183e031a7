package work

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/work/pace"
)

// TestBenchWorkOverhead prints `BENCH work_overhead_ms`: what the runner
// adds around a scripted model run that notifies and is delivered (the
// gates' reads, the claim, the delivery's nudge, the outcome and its
// world log line, all fsynced), the time inside the provider excluded;
// p50 over the runs. Only with SPIRIT_BENCH=1; it asserts nothing about
// time.
func TestBenchWorkOverhead(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to run the work runner benchmark")
	}
	const runs = 40
	e := newEnv(t, llm.ProtocolAnthropic)
	e.setPolicy(pace.Policy{MaxPerHour: runs + 1})
	timed := &scripted.Timed{Provider: e.srv.Provider(t, llm.ProtocolAnthropic)}
	e.opt.Provider = func(context.Context) (llm.Provider, string, error) { return timed, priced, nil }
	r := e.runner(e.st)
	var overhead []float64
	for i := range runs {
		e.srv.Push(scripted.ToolCalls(notify("n", fmt.Sprintf("Item %d needs you.", i))))
		timed.Take()
		start := time.Now()
		o, err := r.Run(t.Context(), Request{Source: SourceHeartbeat, Prompt: "p"})
		total := time.Since(start)
		if err != nil || o.Status != store.WorkDone || !o.Delivered {
			t.Fatalf("run %d: %+v, %v", i, o, err)
		}
		overhead = append(overhead, float64(total-timed.Take())/float64(time.Millisecond))
	}
	slices.Sort(overhead)
	fmt.Printf("BENCH work_overhead_ms %.2f ms\n", overhead[len(overhead)/2])
}
