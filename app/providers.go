package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/voice/intent"
	"github.com/spirit-app/spirit/voice/intent/llmask"
)

// providers hands out the keychain and the configured model provider to
// every part that needs them: the glance, task agents, the command
// fallback, mail sync. It is the one place that opens the keychain, and it
// keeps the model counters /health reports.
type providers struct {
	store    *store.Store
	log      *slog.Logger
	counters *llm.Counters

	mu  sync.Mutex
	sec secrets.Store // opened on first use; see secrets()
}

func newProviders(st *store.Store, log *slog.Logger) *providers {
	return &providers{store: st, log: log, counters: llm.NewCounters(nil)}
}

// secrets opens the keychain-backed secret store once: opening probes the
// keychain, which must not happen on every app switch. A failure is retried
// on the next call (the keyring may be unlocked later).
func (p *providers) secrets() (secrets.Store, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sec != nil {
		return p.sec, nil
	}
	sec, err := secrets.Open(filepath.Dir(p.store.Path()))
	if err != nil {
		return nil, err
	}
	p.sec = sec
	return sec, nil
}

// provider returns the configured provider and its settings; nil when
// none is set (the supported default).
func (p *providers) provider(ctx context.Context) (llm.Provider, setup.Settings, error) {
	s, err := setup.Load(ctx, p.store)
	if err != nil {
		return nil, s, fmt.Errorf("model provider settings: %w", err)
	}
	if !s.Configured() {
		return nil, s, nil
	}
	sec, err := p.secrets()
	if err != nil {
		return nil, s, fmt.Errorf("keychain: %w", err)
	}
	pr, err := setup.Provider(ctx, s, sec, p.counters)
	return pr, s, err
}

// glanceModels returns the provider for the glance's model stages; ok is
// false when none is set.
func (p *providers) glanceModels(ctx context.Context) (glance.Models, bool) {
	pr, s, err := p.provider(ctx)
	if err != nil {
		// A glance cut short (the lawyer moved on) says nothing.
		if ctx.Err() == nil {
			p.log.Warn("glance: provider unusable, model stages off", "err", err)
		}
		return glance.Models{}, false
	}
	if pr == nil {
		return glance.Models{}, false
	}
	return glance.Models{Triage: pr, Analyst: pr, TriageModel: s.Roles.Triage, AnalystModel: s.Roles.Analyst, Logger: p.log}, true
}

// agent returns the provider and model for task agents.
func (p *providers) agent(ctx context.Context) (llm.Provider, string, error) {
	pr, s, err := p.provider(ctx)
	if err != nil {
		return nil, "", err
	}
	if pr == nil {
		return nil, "", task.ErrNoProvider
	}
	return pr, s.Roles.Agent, nil
}

// commandAsker returns the provider for reading commands, with the triage
// model (a command is a small question); ok is false without one.
func (p *providers) commandAsker(ctx context.Context) (intent.Asker, bool) {
	pr, s, err := p.provider(ctx)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Warn("command model: provider unusable", "err", err)
		}
		return nil, false
	}
	if pr == nil {
		return nil, false
	}
	return llmask.Asker{Provider: pr, Model: s.Roles.Triage}, true
}
