package glance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
	"github.com/spirit-app/spirit/agents/store"
)

// Case is one labelled glance case (see the cases README).
type Case struct {
	ID  string `json:"id"`
	Now string `json:"now"`
	Me  struct {
		Name      string   `json:"name"`
		Addresses []string `json:"addresses"`
	} `json:"me"`
	App        string `json:"app"`
	Title      string `json:"title"`
	ScreenText string `json:"screen_text"`
	Expect     struct {
		Surface   bool   `json:"surface"`
		MessageID string `json:"message_id"`
		Reason    string `json:"reason"`
	} `json:"expect"`
}

// caseResult is the JSON line EvalDir prints per case.
type caseResult struct {
	ID         string `json:"id"`
	Surface    bool   `json:"surface"`
	MessageID  string `json:"message_id,omitempty"`
	Reason     string `json:"reason"`
	Stage      string `json:"stage"`
	ModelCalls int    `json:"model_calls"`
	Error      string `json:"error,omitempty"`
}

// EvalOptions configures EvalDirWith.
type EvalOptions struct {
	// JSON prints every result as a JSON line instead of the failures.
	JSON bool
	// Models, when it holds a provider, runs every case through
	// DecideWithModels instead of Decide. The cases carry no screenshot,
	// so the triage model is never asked; the analyst model is, wherever
	// the code would surface a needs_reply nudge.
	Models Models
}

// EvalProvider builds the provider an evaluation talks to: protocol is
// "anthropic" (Messages API at baseURL) or "openai" (chat completions at
// baseURL, e.g. "http://localhost:11434/v1" for Ollama). model is the
// default model of every request; apiKey may be empty for a local
// OpenAI-compatible server. Failed calls are not retried, so that a
// case's model_calls counts the calls made.
func EvalProvider(protocol, baseURL, model, apiKey string) (llm.Provider, error) {
	protocol = strings.ToLower(protocol)
	if protocol == "" {
		protocol = llm.ProtocolOpenAI
	}
	return llm.New(protocol, llm.Config{APIKey: apiKey, BaseURL: baseURL, Model: model, MaxRetries: -1})
}

// EvalDir runs Decide on every case folder under root/glance and reports
// each failure (or, with jsonOut, every result as a JSON line), then the
// line "N passed, N failed". A case that cannot be run counts as failed;
// err is only for a root that cannot be read or a writer that fails.
func EvalDir(ctx context.Context, root string, w io.Writer, jsonOut bool) (passed, failed int, err error) {
	return EvalDirWith(ctx, root, w, EvalOptions{JSON: jsonOut})
}

// EvalDirWith is EvalDir with options: with a provider in opts.Models the
// cases go through DecideWithModels, and a failure names the stage that
// decided (analyst_model when the model's verdict stood). A model error
// fails its case, whatever the silent decision it left.
func EvalDirWith(ctx context.Context, root string, w io.Writer, opts EvalOptions) (passed, failed int, err error) {
	jsonOut := opts.JSON
	dir := filepath.Join(root, "glance")
	des, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("eval glance cases: %w", err)
	}
	tmp, err := os.MkdirTemp("", "glance-eval-")
	if err != nil {
		return 0, 0, fmt.Errorf("eval glance cases: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		caseDir := filepath.Join(dir, de.Name())
		if _, err := os.Stat(filepath.Join(caseDir, "case.json")); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		c, d, runErr := runCase(ctx, caseDir, filepath.Join(tmp, de.Name()+".db"), opts.Models)
		if ctx.Err() != nil {
			return passed, failed, fmt.Errorf("eval glance cases: %w", ctx.Err())
		}
		ok := runErr == nil && d.Surface == c.Expect.Surface && d.Reason == c.Expect.Reason &&
			(!c.Expect.Surface || d.MessageID == c.Expect.MessageID)
		if ok {
			passed++
		} else {
			failed++
		}
		var werr error
		switch {
		case jsonOut:
			r := caseResult{ID: c.ID, Surface: d.Surface, MessageID: d.MessageID, Reason: d.Reason, Stage: d.Stage, ModelCalls: d.ModelCalls}
			if r.ID == "" {
				r.ID = de.Name()
			}
			if runErr != nil {
				r.Error = runErr.Error()
			}
			// Message-IDs keep their angle brackets readable.
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			werr = enc.Encode(r)
		case runErr != nil:
			_, werr = fmt.Fprintf(w, "FAIL %s: %v (stage %s)\n", de.Name(), runErr, d.Stage)
		case !ok:
			_, werr = fmt.Fprintf(w, "FAIL %s: got surface=%v reason=%s message_id=%s, want surface=%v reason=%s message_id=%s (decided at stage %s)\n",
				de.Name(), d.Surface, d.Reason, d.MessageID, c.Expect.Surface, c.Expect.Reason, c.Expect.MessageID, d.Stage)
		}
		if werr != nil {
			return passed, failed, fmt.Errorf("eval glance cases: %w", werr)
		}
	}
	if _, err := fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed); err != nil {
		return passed, failed, fmt.Errorf("eval glance cases: %w", err)
	}
	return passed, failed, nil
}

// runCase builds a fresh index from the case's mailbox in dbPath and
// decides the case, with the models if m holds a provider.
func runCase(ctx context.Context, caseDir, dbPath string, m Models) (Case, Decision, error) {
	var c Case
	b, err := os.ReadFile(filepath.Join(caseDir, "case.json"))
	if err != nil {
		return c, Decision{}, fmt.Errorf("read case: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, Decision{}, fmt.Errorf("parse case: %w", err)
	}
	in := Input{App: c.App, Title: c.Title, ScreenText: c.ScreenText, Me: slices.Clone(c.Me.Addresses), MeName: c.Me.Name}
	if c.Now != "" {
		if in.Now, err = time.Parse(time.RFC3339, c.Now); err != nil {
			return c, Decision{}, fmt.Errorf("parse now: %w", err)
		}
	}
	st, err := store.Open(ctx, dbPath)
	if err != nil {
		return c, Decision{}, fmt.Errorf("open store: %w", err)
	}
	defer st.Close()
	ix := index.New(st)
	if path := filepath.Join(caseDir, "mailbox.mbox"); fileExists(path) && len(c.Me.Addresses) > 0 {
		acc, err := ix.AddAccount(ctx, index.Account{Kind: index.KindMbox, Name: c.ID, Address: c.Me.Addresses[0], Aliases: c.Me.Addresses[1:]})
		if err != nil {
			return c, Decision{}, fmt.Errorf("add account: %w", err)
		}
		conn, err := mbox.OpenMbox(path, mbox.Options{From: mail.Address{Name: c.Me.Name, Email: c.Me.Addresses[0]}})
		if err != nil {
			return c, Decision{}, fmt.Errorf("open mailbox: %w", err)
		}
		if _, err := ix.Sync(ctx, acc.ID, conn, nil); err != nil {
			return c, Decision{}, fmt.Errorf("sync mailbox: %w", err)
		}
	}
	if m.Triage == nil && m.Analyst == nil {
		d, err := Decide(ctx, ix, in)
		return c, d, err
	}
	// The cases hold screen text, not pixels: no screenshot to triage.
	d, err := DecideWithModels(ctx, ix, in, m, nil)
	return c, d, err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
