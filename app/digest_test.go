package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/digest"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runDigest runs the digest part alone until the test ends.
func runDigest(t *testing.T, p *parts) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.core.digest.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("digest part: %v", err)
		}
	})
}

func TestDigestPart(t *testing.T) {
	for _, protocol := range []string{"", setup.Anthropic, setup.OpenAI} {
		name := protocol
		if name == "" {
			name = "no provider"
		}
		t.Run(name, func(t *testing.T) {
			p, st, srv := newWorkParts(t, protocol, time.Now)
			ctx := t.Context()
			if srv != nil {
				srv.Push(scripted.Reply{Text: "```json\n{\"hud\": \"Reviewing the SNDA reply in Outlook\", \"digest\": \"The lawyer reads RE: SNDA in Outlook. Someone said the estoppel is due Friday.\"}\n```",
					InputTokens: 800, OutputTokens: 60})
			}
			huds := p.bus.Subscribe(events.HUDChanged, 8)
			defer huds.Unsubscribe()
			runDigest(t, p)

			// The real path of a switch: recorded, then on the stream; an
			// excluded window is never on it.
			onSwitch := switched(p.bus, p.core.wl.record)
			now := time.Now()
			onSwitch(ctx, screen.Switch{App: "KeePassXC", Process: "keepassxc", Excluded: true, ExcludedBy: "built-in", At: now})
			onSwitch(ctx, screen.Switch{App: "Microsoft Outlook", Process: "OUTLOOK.EXE", Title: "RE: SNDA - Message (HTML)", At: now})
			p.bus.Log(events.UtteranceHeard, events.Utterance{Text: "the estoppel is due Friday", At: now})
			waitFor(t, "the loop to see the switch and the speech", func() bool {
				c := p.core.digest.loop.Context()
				return c.Current != nil && len(c.Utterances) == 1
			})
			if _, ran := p.core.digest.loop.Tick(ctx); !ran {
				t.Fatal("tick skipped with news")
			}
			if _, ran := p.core.digest.loop.Tick(ctx); ran {
				t.Fatal("a quiet tick analysed")
			}

			wantHUD, wantSource := "Reading ‘RE: SNDA’ in Outlook", digest.SourceCode
			if srv != nil {
				wantHUD, wantSource = "Reviewing the SNDA reply in Outlook", digest.SourceModel
			}
			select {
			case ev := <-huds.C():
				if ev.Data.(string) != wantHUD {
					t.Errorf("HUDChanged %q, want %q", ev.Data, wantHUD)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no HUDChanged on the stream")
			}
			if got := p.core.HUDLine(); got != wantHUD {
				t.Errorf("HUDLine = %q, want %q", got, wantHUD)
			}
			a, ok := p.core.LatestDigest()
			if !ok || a.Source != wantSource || !strings.Contains(a.Digest, "estoppel") {
				t.Errorf("latest = %+v", a)
			}
			for _, h := range p.core.digest.loop.History(10) {
				if strings.Contains(h.Digest, "KeePass") || strings.Contains(strings.Join(h.AppHistory, " "), "KeePass") {
					t.Errorf("an excluded app reached the digest: %+v", h)
				}
			}

			h := p.core.Health(ctx)
			if h.Agent == nil || !h.Agent.Enabled || h.Agent.IdleSkips != 1 || h.Agent.LastAnalysis.IsZero() {
				t.Fatalf("health agent = %+v", h.Agent)
			}
			if srv != nil {
				// No triage or analyst model is set here: the one model named.
				if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Model != "agent-model" {
					t.Fatalf("requests = %+v: want one, to agent-model", reqs)
				}
				if h.Agent.Calls != 1 || h.Agent.TokensIn != 800 || h.Agent.TokensOut != 60 {
					t.Errorf("health agent counters = %+v", h.Agent)
				}
			} else if h.Agent.Calls != 0 {
				t.Errorf("calls without a provider: %+v", h.Agent)
			}

			// The API on the same core.
			srvAPI := api.New(p.core)
			dir := t.TempDir()
			if _, err := srvAPI.Start(ctx, dir); err != nil {
				t.Fatal(err)
			}
			go srvAPI.Run(ctx)
			t.Cleanup(func() { srvAPI.Shutdown(context.Background()) })
			info, err := api.ReadInfo(dir)
			if err != nil {
				t.Fatal(err)
			}
			cl := api.NewClient(info)
			d, err := cl.AgentDigest(ctx)
			if err != nil || d.HUD != wantHUD {
				t.Errorf("GET /agent/digest = %+v, %v", d, err)
			}
			off := false
			cfg, err := cl.SetAgentConfig(ctx, api.AgentConfigChange{Enabled: &off, Interval: []byte(`"45s"`)})
			if err != nil || cfg.Enabled || cfg.IntervalSeconds != 45 {
				t.Errorf("POST /agent/config = %+v, %v", cfg, err)
			}
			if v, _, _ := st.Setting(ctx, "digest.enabled"); v != "false" {
				t.Errorf("saved digest.enabled = %q", v)
			}
			if hl, err := cl.Health(ctx); err != nil || hl.Agent == nil || hl.Agent.Enabled {
				t.Errorf("GET /health agent = %+v, %v", hl.Agent, err)
			}
		})
	}
}
