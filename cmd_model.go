package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/glance"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/voice/commit"
	"github.com/spirit-app/spirit/voice/intent"
	"github.com/spirit-app/spirit/voice/model"
)

func runModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "download") {
		fmt.Fprintln(stderr, "spirit: usage: spirit model list | spirit model download [tiny.en|base.en|small.en]")
		return errUsage
	}
	sub := args[0]
	fs, dataDir := flags("model "+sub, stderr)
	maxArgs := 0
	if sub == "download" {
		maxArgs = 1 // one model at a time
	}
	pos, err := parse(fs, args[1:], maxArgs)
	if err != nil {
		return err
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	if sub == "list" {
		installed := map[string]bool{}
		for _, p := range model.Installed(dir) {
			installed[filepath.Base(p)] = true
		}
		for _, m := range model.Catalog() {
			mark := " "
			if installed[m.File()] {
				mark = "*"
			}
			fmt.Fprintf(stdout, "%s %-9s %8s  %s\n", mark, m.Name, m.Approx, m.Note)
		}
		fmt.Fprintf(stdout, "\n* installed in %s\n", model.Dir(dir))
		return nil
	}

	name := model.Default
	if len(pos) == 1 {
		name = pos[0]
	}
	m, err := model.Lookup(name)
	if err != nil {
		return err
	}
	base := envOr("SPIRIT_MODEL_URL", model.DefaultBaseURL)
	fmt.Fprintf(stderr, "Downloading %s (%s) into %s\n", m.Name, m.Approx, model.Dir(dir))
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 30 * time.Second}}
	path, err := model.Download(ctx, client, base, m, dir, progressBar(stderr))
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Installed %s (checksum verified)\n", path)
	return nil
}

// progressBar draws a one-line bar on a terminal, plain lines elsewhere.
func progressBar(w io.Writer) model.Progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	start := time.Now()
	return func(done, total int64) {
		mb := float64(done) / (1 << 20)
		rate := mb / max(time.Since(start).Seconds(), 0.001)
		if total <= 0 {
			fmt.Fprintf(w, "\r%.1f MiB (%.1f MiB/s)", mb, rate)
			return
		}
		frac := float64(done) / float64(total)
		const width = 30
		bar := strings.Repeat("█", int(frac*width)) + strings.Repeat("░", width-int(frac*width))
		line := fmt.Sprintf("%s %5.1f%%  %.1f/%.1f MiB  %.1f MiB/s", bar, 100*frac, mb, float64(total)/(1<<20), rate)
		if tty {
			fmt.Fprint(w, "\r"+line)
		} else {
			fmt.Fprintln(w, line)
		}
	}
}

func runEval(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "glance" {
		return runEvalGlance(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "ambient" {
		return runEvalAmbient(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "calendar" {
		return runEvalCalendar(args[1:], stdout, stderr)
	}
	usage := func() error {
		fmt.Fprintln(stderr, "spirit: usage: spirit eval intents FILE | spirit eval ambient FILE [--json] | spirit eval glance DIR [--json] [--provider none|URL [--protocol openai|anthropic] [--model NAME]] | spirit eval calendar DIR [--json]")
		return errUsage
	}
	if len(args) == 0 || args[0] != "intents" {
		return usage()
	}
	fs := flag.NewFlagSet("eval intents", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pos, err := parse(fs, args[1:], 1)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usage()
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	_, failed, err := intent.Eval(f, stdout)
	if err != nil {
		return err
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}

// runEvalAmbient runs the commitment cases of FILE (ambient.jsonl format)
// through the commitment detector.
func runEvalAmbient(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval ambient", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "one JSON object per case, then the summary line")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "spirit: usage: spirit eval ambient FILE [--json]")
		return errUsage
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	_, failed, err := commit.Eval(f, stdout, *jsonOut)
	if err != nil {
		return err
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}

// runEvalCalendar runs every case folder under DIR/calendar/ through the
// meeting brief decision.
func runEvalCalendar(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval calendar", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "one JSON object per case, then the summary line")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "spirit: usage: spirit eval calendar DIR [--json]   (DIR holds calendar/<case>/)")
		return errUsage
	}
	quiet(stderr)
	_, failed, err := calendar.EvalDir(context.Background(), pos[0], stdout, *jsonOut)
	if err != nil {
		return err
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}

// providerKeyEnv holds the API key for `spirit eval glance --provider URL`;
// it may be empty for a local server such as Ollama.
const providerKeyEnv = "SPIRIT_PROVIDER_KEY"

// defaultEvalModel is the model named when --model is not given: a
// placeholder that single-model servers ignore.
const defaultEvalModel = "default"

// runEvalGlance runs every case folder under DIR/glance/.
func runEvalGlance(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval glance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "one JSON object per case, then the summary line")
	provider := fs.String("provider", "none", "none (code only), or the base URL of a model provider for the model stages, e.g. http://localhost:11434/v1; the API key is read from $"+providerKeyEnv)
	protocol := fs.String("protocol", "openai", "the provider's wire protocol with --provider URL: openai (chat completions) or anthropic (Messages API)")
	modelName := fs.String("model", defaultEvalModel, "the model to ask with --provider URL")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fmt.Fprintln(stderr, "spirit: eval glance needs a DIR holding glance/<case>/")
		return errUsage
	}
	dir := pos[0]
	opts := glance.EvalOptions{JSON: *jsonOut}
	if *provider != "none" {
		if *protocol != "openai" && *protocol != "anthropic" {
			fmt.Fprintf(stderr, "spirit: --protocol %q: use openai or anthropic\n", *protocol)
			return errUsage
		}
		// The key only ever goes to the provider: never printed or logged.
		key := os.Getenv(providerKeyEnv)
		if key == "" && *protocol == "anthropic" {
			return fmt.Errorf("--protocol anthropic needs an API key in $%s", providerKeyEnv)
		}
		p, err := glance.EvalProvider(*protocol, *provider, *modelName, key)
		if err != nil {
			return fmt.Errorf("--provider %s: %w", *provider, err)
		}
		opts.Models = glance.Models{Triage: p, Analyst: p}
	}
	quiet(stderr)
	_, failed, err := glance.EvalDirWith(context.Background(), dir, stdout, opts)
	if err != nil {
		return err
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}
