// Package setup keeps the lawyer's model-provider choice: which service,
// where, which models per role (in Spirit's settings) and the API key (in
// the keychain, never in the database, config files or logs).
package setup

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

// Kinds of provider.
const (
	None      = ""                    // Spirit runs on its deterministic layers only
	Anthropic = llm.ProtocolAnthropic // Anthropic Messages API
	OpenAI    = llm.ProtocolOpenAI    // OpenAI-compatible chat completions (OpenAI, Azure, OpenRouter, Ollama, LM Studio, Gemini)
)

// KeyName is the API key's name in the keychain.
const KeyName = "provider/api_key"

const (
	keyKind     = "provider.kind"
	keyBaseURL  = "provider.base_url"
	keyTriage   = "provider.model.triage"
	keyAnalyst  = "provider.model.analyst"
	keyAgent    = "provider.model.agent"
	testTimeout = 30 * time.Second
)

// Settings are the provider settings (the key is not among them).
type Settings struct {
	Kind    string `json:"kind"`
	BaseURL string `json:"base_url,omitempty"`
	Roles   llm.Roles
}

// Configured reports whether a provider is chosen.
func (s Settings) Configured() bool { return s.Kind != None }

// Load reads the settings.
func Load(ctx context.Context, st *store.Store) (Settings, error) {
	var s Settings
	for key, dst := range map[string]*string{keyKind: &s.Kind, keyBaseURL: &s.BaseURL,
		keyTriage: &s.Roles.Triage, keyAnalyst: &s.Roles.Analyst, keyAgent: &s.Roles.Agent} {
		v, _, err := st.Setting(ctx, key)
		if err != nil {
			return Settings{}, fmt.Errorf("read provider settings: %w", err)
		}
		*dst = v
	}
	return s, nil
}

// Save validates and writes the settings, and the key when it is not empty.
func Save(ctx context.Context, st *store.Store, sec secrets.Store, s Settings, apiKey string) error {
	switch s.Kind {
	case None, Anthropic, OpenAI:
	default:
		return fmt.Errorf("unknown provider %q: use anthropic, openai (any OpenAI-compatible service) or none", s.Kind)
	}
	if s.BaseURL != "" && !strings.HasPrefix(s.BaseURL, "https://") && !strings.HasPrefix(s.BaseURL, "http://127.0.0.1") &&
		!strings.HasPrefix(s.BaseURL, "http://localhost") {
		return errors.New("the base URL must use https (plain http only for a model server on this computer)")
	}
	for key, v := range map[string]string{keyKind: s.Kind, keyBaseURL: s.BaseURL,
		keyTriage: s.Roles.Triage, keyAnalyst: s.Roles.Analyst, keyAgent: s.Roles.Agent} {
		if err := st.SetSetting(ctx, key, strings.TrimSpace(v)); err != nil {
			return err
		}
	}
	if apiKey != "" {
		return sec.Set(ctx, KeyName, strings.TrimSpace(apiKey))
	}
	if s.Kind == None {
		if err := sec.Delete(ctx, KeyName); err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return err
		}
	}
	return nil
}

// Provider builds the configured provider, or returns nil, nil when none is.
func Provider(ctx context.Context, s Settings, sec secrets.Store, counters *llm.Counters) (llm.Provider, error) {
	if !s.Configured() {
		return nil, nil
	}
	key, err := sec.Get(ctx, KeyName)
	if err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return nil, err
	}
	return llm.New(s.Kind, llm.Config{APIKey: key, BaseURL: s.BaseURL, Model: s.Roles.Analyst, Counters: counters})
}

// Test sends one tiny request and reports what went wrong in plain words.
func Test(ctx context.Context, p llm.Provider, model string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	start := time.Now()
	resp, err := p.Complete(ctx, llm.Request{Model: model, MaxTokens: 16,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "Reply with the single word: ready"}}})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s answered %q in %v", p.Name(), strings.TrimSpace(resp.Text), time.Since(start).Round(time.Millisecond)), nil
}

// Recommended are the models Spirit suggests for a service, filled in for
// the lawyer: a fast, cheap one for triage and a stronger one for reading
// threads and for agents. A service of kind OpenAI-compatible may be
// another vendor's or a local server (Ollama) whose names differ: the
// lawyer can change them. None has no models.
func Recommended(kind string) llm.Roles {
	switch kind {
	case Anthropic:
		return llm.Roles{Triage: "claude-haiku-4-5", Analyst: "claude-sonnet-4-5", Agent: "claude-sonnet-4-5"}
	case OpenAI:
		return llm.Roles{Triage: "gpt-5-mini", Analyst: "gpt-5", Agent: "gpt-5"}
	}
	return llm.Roles{}
}
