package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/secrets"
)

const providerUsage = `usage:
  spirit provider set anthropic|openai|none [--base-url URL] [--triage-model M] [--analyst-model M] [--agent-model M]
                      (the API key from $SPIRIT_PROVIDER_KEY or asked for; kept in the OS keychain)
  spirit provider show
  spirit provider test`

func runProvider(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, providerUsage)
		return errUsage
	}
	sub := args[0]
	fs, dataDir := flags("provider "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, providerUsage) }
	baseURL := fs.String("base-url", "", "the service's base URL (Azure, OpenRouter, Ollama, LM Studio, Gemini…)")
	triage := fs.String("triage-model", "", "fast model for the glance's first look")
	analyst := fs.String("analyst-model", "", "stronger model for reading threads")
	agent := fs.String("agent-model", "", "model for tasks (defaults to the analyst model)")
	maxArgs := 0
	if sub == "set" {
		maxArgs = 1 // the kind
	}
	pos, err := parse(fs, args[1:], maxArgs)
	if err != nil {
		return err
	}
	var kind string
	if len(pos) > 0 {
		kind = pos[0]
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	sec, err := secrets.Open(dir)
	if err != nil {
		return err
	}
	switch sub {
	case "set":
		if kind == "" {
			fmt.Fprintln(stderr, providerUsage)
			return errUsage
		}
		if kind == "none" {
			kind = setup.None
		}
		s := setup.Settings{Kind: kind, BaseURL: *baseURL}
		s.Roles.Triage, s.Roles.Analyst, s.Roles.Agent = *triage, *analyst, *agent
		key := os.Getenv("SPIRIT_PROVIDER_KEY")
		if key == "" && kind != setup.None {
			if key, err = askSecret(stderr, "API key (leave empty for a local server without one): "); err != nil {
				return err
			}
		}
		if err := setup.Save(ctx, st, sec, s, key); err != nil {
			return err
		}
		if kind == setup.None {
			fmt.Fprintln(stdout, "No model provider: Spirit decides with its on-device rules only.")
			return nil
		}
		fmt.Fprintf(stdout, "Saved (%s). Run `spirit provider test` to check it.\n", kind)
		return nil
	case "show":
		s, err := setup.Load(ctx, st)
		if err != nil {
			return err
		}
		if !s.Configured() {
			fmt.Fprintln(stdout, "No model provider: Spirit decides with its on-device rules only.")
			return nil
		}
		_, kerr := sec.Get(ctx, setup.KeyName)
		key := "stored in the " + sec.Backend()
		if errors.Is(kerr, secrets.ErrNotFound) {
			key = "none"
		}
		base := s.BaseURL
		if base == "" {
			base = "(the vendor's default)"
		}
		fmt.Fprintf(stdout, "provider:       %s\nbase URL:       %s\ntriage model:   %s\nanalyst model:  %s\nagent model:    %s\nAPI key:        %s\n",
			s.Kind, base, orDefault(s.Roles.Triage), orDefault(s.Roles.Analyst), orDefault(s.Roles.Agent), key)
		return nil
	case "test":
		s, err := setup.Load(ctx, st)
		if err != nil {
			return err
		}
		if !s.Configured() {
			return errors.New("no model provider is set: `spirit provider set anthropic|openai …`")
		}
		p, err := setup.Provider(ctx, s, sec, nil)
		if err != nil {
			return err
		}
		msg, err := setup.Test(ctx, p, s.Roles.Triage)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, msg)
		return nil
	}
	fmt.Fprintln(stderr, providerUsage)
	return errUsage
}

func orDefault(s string) string {
	if s == "" {
		return "(the provider's default)"
	}
	return s
}
