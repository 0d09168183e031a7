package llm_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/httpguard"
	"github.com/spirit-app/spirit/agents/httpguard/guardtest"
	"github.com/spirit-app/spirit/agents/llm"
)

// TestProviderStaysOnOrigin: a model provider's address that redirects to
// another origin (the same host on another port, where a provider would
// answer) gets neither the API key (x-api-key, Authorization, Azure's
// api-key) nor the lawyer's prompt sent there: the call fails, saying
// where the provider pointed, and the other server received nothing.
// 307 and 308 keep the POST and its body; 302 turns it into a GET.
func TestProviderStaysOnOrigin(t *testing.T) {
	const prompt = "Draft the settlement terms for Howard v. Whitfield"
	forEach(t, func(t *testing.T, k kit) {
		for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			t.Run(http.StatusText(status), func(t *testing.T) {
				witness := guardtest.NewWitness(t, nil)
				front := httptest.NewServer(guardtest.RedirectTo(witness.URL+"/v1/answer", status))
				t.Cleanup(front.Close)
				cfg := llm.Config{APIKey: testKey, Model: k.model, MaxRetries: -1, BaseURL: front.URL}
				var p llm.Provider
				var err error
				if k.name == "anthropic" {
					p, err = llm.NewAnthropic(cfg)
				} else {
					cfg.BaseURL += "/v1"
					p, err = llm.NewOpenAI(cfg)
				}
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays(prompt)}})
				for _, l := range witness.Leaked(testKey, prompt) {
					t.Errorf("the other server got it: %s", l)
				}
				// llm.Error keeps the cause's text, not the cause.
				if want := (&httpguard.RedirectError{To: mustOrigin(t, witness.URL), Carrying: "your API key and your request"}).Error(); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Complete = %v, want an error saying %q", err, want)
				}
			})
		}
	})
}

func mustOrigin(t *testing.T, raw string) httpguard.Origin {
	t.Helper()
	o, err := httpguard.ParseOrigin(raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestProviderAnswerBounded: an answer longer than any model's (a server
// that streams a text block on and on) is cut at llm.MaxAnswerBytes and
// fails the call, instead of filling Spirit's memory.
func TestProviderAnswerBounded(t *testing.T) {
	forEach(t, func(t *testing.T, k kit) {
		chunk := []byte(strings.Repeat("la ", 1<<14))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"`))
			for sent := 0; sent < llm.MaxAnswerBytes+(4<<20); sent += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return // the client stopped reading
				}
			}
			w.Write([]byte(`"}]}`))
		}))
		t.Cleanup(srv.Close)
		cfg := llm.Config{APIKey: testKey, Model: k.model, MaxRetries: -1, BaseURL: srv.URL}
		var p llm.Provider
		var err error
		if k.name == "anthropic" {
			p, err = llm.NewAnthropic(cfg)
		} else {
			cfg.BaseURL += "/v1"
			p, err = llm.NewOpenAI(cfg)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Complete(context.Background(), llm.Request{Messages: []llm.Message{userSays("hello")}})
		// The SDKs keep the cause's text, not the error.
		if err == nil || !strings.Contains(err.Error(), httpguard.ErrTooLarge.Error()) {
			t.Errorf("Complete = %v, want an error saying %q", err, httpguard.ErrTooLarge)
		}
	})
}
