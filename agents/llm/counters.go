package llm

import (
	"strings"
	"sync"
)

// Price is a model's list price in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// DefaultPrices returns a fresh copy of a small price table used for cost
// estimates. Keys match a model name exactly or as a prefix (so dated model
// snapshots share their family's price). Prices change: callers may pass
// their own table to NewCounters.
func DefaultPrices() map[string]Price {
	return map[string]Price{
		"claude-opus-4-1":   {15, 75},
		"claude-opus-4-0":   {15, 75},
		"claude-opus-4-2":   {15, 75},
		"claude-opus-4-5":   {5, 25},
		"claude-opus-4":     {15, 75},
		"claude-sonnet-4":   {3, 15},
		"claude-3-7-sonnet": {3, 15},
		"claude-haiku-4-5":  {1, 5},
		"claude-3-5-haiku":  {0.8, 4},
		"gpt-4o-mini":       {0.15, 0.6},
		"gpt-4o":            {2.5, 10},
		"gpt-4.1-nano":      {0.1, 0.4},
		"gpt-4.1-mini":      {0.4, 1.6},
		"gpt-4.1":           {2, 8},
		"gpt-5-nano":        {0.05, 0.4},
		"gpt-5-mini":        {0.25, 2},
		"gpt-5":             {1.25, 10},
	}
}

// ModelStats is the usage of one model.
type ModelStats struct {
	Calls        int64   `json:"calls"`
	Errors       int64   `json:"errors"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	// Priced is false when no price was known for the model (CostUSD is 0),
	// e.g. a local Ollama model.
	Priced bool `json:"priced"`
}

// Snapshot is a point-in-time copy of Counters, shaped for /health.
type Snapshot struct {
	Models map[string]ModelStats `json:"models"`
	Total  ModelStats            `json:"total"`
}

// Counters accumulates usage per model. It is safe for concurrent use; one
// Counters is usually shared by all providers of the app.
type Counters struct {
	mu      sync.Mutex
	prices  map[string]Price
	byModel map[string]*ModelStats
}

// NewCounters returns Counters estimating cost from prices; nil means
// DefaultPrices(). The map is copied.
func NewCounters(prices map[string]Price) *Counters {
	if prices == nil {
		prices = DefaultPrices()
	}
	own := make(map[string]Price, len(prices))
	for k, v := range prices {
		own[k] = v
	}
	return &Counters{prices: own, byModel: make(map[string]*ModelStats)}
}

// price finds the exact entry for model or else the longest prefix entry.
func (c *Counters) price(model string) (Price, bool) {
	if p, ok := c.prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for k := range c.prices {
		if strings.HasPrefix(model, k) && len(k) > len(best) {
			best, found = k, true
		}
	}
	return c.prices[best], found
}

func (c *Counters) stats(model string) *ModelStats {
	s := c.byModel[model]
	if s == nil {
		s = &ModelStats{}
		_, s.Priced = c.price(model)
		c.byModel[model] = s
	}
	return s
}

// Add records one successful call.
func (c *Counters) Add(model string, u Usage) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats(model)
	s.Calls++
	s.InputTokens += int64(u.InputTokens)
	s.OutputTokens += int64(u.OutputTokens)
	if p, ok := c.price(model); ok {
		s.CostUSD += (float64(u.InputTokens)*p.InputPerMTok + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
	}
}

// AddError records one failed call.
func (c *Counters) AddError(model string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats(model)
	s.Calls++
	s.Errors++
}

// Snapshot returns a copy of the counters and their total.
func (c *Counters) Snapshot() Snapshot {
	snap := Snapshot{Models: map[string]ModelStats{}, Total: ModelStats{Priced: true}}
	if c == nil {
		return snap
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for m, s := range c.byModel {
		snap.Models[m] = *s
		snap.Total.Calls += s.Calls
		snap.Total.Errors += s.Errors
		snap.Total.InputTokens += s.InputTokens
		snap.Total.OutputTokens += s.OutputTokens
		snap.Total.CostUSD += s.CostUSD
		snap.Total.Priced = snap.Total.Priced && s.Priced
	}
	return snap
}
