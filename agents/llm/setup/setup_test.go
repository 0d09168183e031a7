package setup

import (
	"context"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

func TestSaveLoadAndTestBothProtocols(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", dir)
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sec, err := secrets.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{Anthropic, OpenAI} {
		srv := scripted.New(t, scripted.Text("ready"))
		base := srv.URL()
		if kind == OpenAI {
			base += "/v1"
		}
		s := Settings{Kind: kind, BaseURL: base}
		s.Roles.Triage, s.Roles.Analyst = "fast-model", "strong-model"
		if err := Save(ctx, st, sec, s, "sk-secret-key"); err != nil {
			t.Fatal(err)
		}
		got, err := Load(ctx, st)
		if err != nil || got != s {
			t.Fatalf("%s: loaded %+v, %v", kind, got, err)
		}
		// The key is in the keychain store, never in the database.
		var leaked string
		st.Reader().QueryRowContext(ctx, `SELECT group_concat(value) FROM settings`).Scan(&leaked)
		if strings.Contains(leaked, "sk-secret-key") {
			t.Fatalf("API key stored in settings: %q", leaked)
		}
		p, err := Provider(ctx, got, sec, nil)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := Test(ctx, p, got.Roles.Triage)
		if err != nil || !strings.Contains(msg, "ready") {
			t.Fatalf("%s: test %q, %v", kind, msg, err)
		}
		if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "fast-model" {
			t.Fatalf("%s: requests %+v", kind, reqs)
		}
	}
	if err := Save(ctx, st, sec, Settings{Kind: "gpt"}, ""); err == nil {
		t.Error("unknown provider accepted")
	}
	if err := Save(ctx, st, sec, Settings{Kind: OpenAI, BaseURL: "http://evil.example"}, ""); err == nil {
		t.Error("plain-http remote base URL accepted")
	}
	if err := Save(ctx, st, sec, Settings{}, ""); err != nil {
		t.Fatal(err)
	}
	if p, err := Provider(ctx, Settings{}, sec, nil); p != nil || err != nil {
		t.Errorf("none configured gave %v, %v", p, err)
	}
	if _, err := sec.Get(ctx, KeyName); err == nil {
		t.Error("key kept after choosing no provider")
	}
}

func TestRecommended(t *testing.T) {
	for _, tc := range []struct {
		name, kind             string
		triage, analyst, agent string
	}{
		{"anthropic", Anthropic, "claude-haiku-4-5", "claude-sonnet-4-5", "claude-sonnet-4-5"},
		{"openai", OpenAI, "gpt-5-mini", "gpt-5", "gpt-5"},
		{"none", None, "", "", ""},
		{"unknown", "gemini", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Recommended(tc.kind)
			if got.Triage != tc.triage || got.Analyst != tc.analyst || got.Agent != tc.agent {
				t.Errorf("Recommended(%q) = %+v, want %s / %s / %s", tc.kind, got, tc.triage, tc.analyst, tc.agent)
			}
		})
	}
}
