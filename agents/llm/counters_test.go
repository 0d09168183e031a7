package llm

import (
	"sync"
	"testing"
)

func TestCountersConcurrentAndPrefixPrices(t *testing.T) {
	c := NewCounters(map[string]Price{"claude-sonnet-4": {3, 15}, "claude-sonnet-4-5": {4, 20}})
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			c.Add("claude-sonnet-4-5-20250929", Usage{InputTokens: 1000, OutputTokens: 100})
			c.Add("llama3.2", Usage{InputTokens: 10, OutputTokens: 1})
			_ = c.Snapshot()
		})
	}
	wg.Wait()
	s := c.Snapshot()
	got := s.Models["claude-sonnet-4-5-20250929"]
	// The longest matching prefix wins: claude-sonnet-4-5 at $4/$20.
	want := 50 * (1000*4.0 + 100*20.0) / 1e6
	if got.Calls != 50 || got.InputTokens != 50000 || got.OutputTokens != 5000 || got.CostUSD-want > 1e-9 || want-got.CostUSD > 1e-9 {
		t.Errorf("sonnet = %+v, want cost %v", got, want)
	}
	if l := s.Models["llama3.2"]; l.Priced || l.CostUSD != 0 || l.InputTokens != 500 {
		t.Errorf("unpriced model = %+v", l)
	}
	if s.Total.Calls != 100 || s.Total.Priced {
		t.Errorf("total = %+v", s.Total)
	}
	// Snapshot is a copy.
	s.Models["llama3.2"] = ModelStats{}
	if c.Snapshot().Models["llama3.2"].Calls != 50 {
		t.Error("snapshot aliases the counters")
	}
	var nilC *Counters
	nilC.Add("x", Usage{}) // a provider without Counters must not panic
	if len(nilC.Snapshot().Models) != 0 {
		t.Error("nil counters snapshot not empty")
	}
	if DefaultPrices()["gpt-4o"] == (Price{}) {
		t.Error("default price table lacks gpt-4o")
	}
}
