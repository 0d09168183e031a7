package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/digest"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/voice/intent"
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
			p.bus.Log(events.UtteranceUnderstood, events.Utterance{Text: "the estoppel is due Friday", At: now})
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
			cl := startAPI(t, p.core)
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

// TestHeardIntent: only words not meant for Spirit are conversation.
func TestHeardIntent(t *testing.T) {
	tests := []struct {
		name      string
		in        intent.Intent
		addressed bool
		want      string
	}{
		{"ambient speech", intent.Intent{Kind: intent.None}, false, ""},
		{"a command", intent.Intent{Kind: intent.Remind}, false, "remind"},
		{"a command after the wake phrase", intent.Intent{Kind: intent.PauseListening}, true, string(intent.PauseListening)},
		{"wake phrase, nothing understood", intent.Intent{Kind: intent.None}, true, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := heardIntent(tt.in, tt.addressed); got != tt.want {
				t.Errorf("heardIntent(%v, %v) = %q, want %q", tt.in.Kind, tt.addressed, got, tt.want)
			}
		})
	}
}

// TestCommandsAreNotAmbientSpeech runs Spirit's parts whole: a spoken
// command and a sentence said on a call come off the microphone's stream;
// the commands part puts each back with what it made of it, and the
// analysis loop's window holds the call's sentence only.
func TestCommandsAreNotAmbientSpeech(t *testing.T) {
	p, _, understood := runningParts(t, events.UtteranceUnderstood)

	at := time.Now()
	command := "remind me to call Marcy Howard tomorrow at three"
	ambient := "the estoppel certificate is still with the tenant"
	p.bus.Log(events.UtteranceHeard, events.Utterance{Text: command, At: at})
	p.bus.Log(events.UtteranceHeard, events.Utterance{Text: ambient, At: at.Add(5 * time.Second)})
	want := map[string]string{command: "remind", ambient: ""}
	for range want {
		select {
		case ev := <-understood.C():
			u := ev.Data.(events.Utterance)
			if w, ok := want[u.Text]; !ok || u.Intent != w {
				t.Errorf("understood %q as %q, want %q", u.Text, u.Intent, w)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("the commands part did not put what it heard back on the stream")
		}
	}
	// The loop reads the stream in order: once the call's sentence is in
	// its window, the command before it has been seen too.
	var c digest.Context
	waitFor(t, "the call's sentence in the analysis window", func() bool {
		c = p.core.digest.loop.Context()
		return len(c.Utterances) > 0
	})
	if len(c.Utterances) != 1 || c.Utterances[0].Text != ambient {
		t.Errorf("analysis window speech = %+v, want only %q", c.Utterances, ambient)
	}
}

// TestDigestSeesTheWindowText runs the analysis loop in Spirit and reads
// GET /agent/context: the text the glance read off a mail window is there
// while that window is in front, never while a private window is, and is
// gone after a switch and after watching is paused; the world log never
// holds it.
func TestDigestSeesTheWindowText(t *testing.T) {
	ctx := t.Context()
	p, st, _ := newWorkParts(t, "", time.Now)
	runDigest(t, p)
	cl := startAPI(t, p.core)
	onSwitch := switched(p.bus, p.core.wl.record)
	// The glance's event for a read of sw's window (TestServiceScreenTextEvent
	// in agents/glance shows it publishes this).
	read := func(sw screen.Switch, text string) {
		p.bus.Log(events.ScreenTextRead, events.ScreenText{App: sw.App, Chars: len([]rune(text)), Text: text, Switched: sw.At})
	}
	window := func(what string, ok func(api.AgentWindow) bool) api.AgentWindow {
		t.Helper()
		var w api.AgentWindow
		waitFor(t, what, func() bool {
			var err error
			w, err = cl.AgentWindow(ctx)
			return err == nil && ok(w)
		})
		return w
	}
	text := func(w api.AgentWindow) string {
		if w.Screen == nil {
			return ""
		}
		return w.Screen.Text
	}
	const hdr = "From: Marcy Howard <marcy@howardlaw.com>\nSubject: RE: SNDA - Brooklyn Gardens"
	const seen = "From: Marcy Howard <marcy@howardlaw.com> Subject: RE: SNDA - Brooklyn Gardens"
	at := time.Now().Add(-time.Minute) // switches seconds apart, all before the reads
	mail := screen.Switch{App: "Thunderbird", Process: "thunderbird", Title: "RE: SNDA - Brooklyn Gardens - Mozilla Thunderbird", At: at}
	onSwitch(ctx, mail)
	read(mail, hdr)
	window("the mail's text in the context", func(w api.AgentWindow) bool { return text(w) == seen })

	keepass := screen.Switch{App: "KeePassXC", Process: "keepassxc", Title: "Clients.kdbx - KeePassXC", Excluded: true, ExcludedBy: "built-in", At: at.Add(time.Second)}
	onSwitch(ctx, keepass)
	read(mail, hdr) // a read of the mail window that ends late
	w := window("the private window in front", func(w api.AgentWindow) bool { return w.Current != nil && w.Current.Private })
	if b, _ := json.Marshal(w); text(w) != "" || strings.Contains(string(b), "Marcy") || strings.Contains(string(b), "KeePass") || strings.Contains(string(b), "Clients") {
		t.Errorf("context with a private window in front: %s", b)
	}

	mail.At = at.Add(2 * time.Second)
	onSwitch(ctx, mail)
	read(mail, hdr)
	window("the mail's text again", func(w api.AgentWindow) bool { return text(w) == seen })
	word := screen.Switch{App: "LibreOffice", Process: "soffice.bin", Title: "Lease.docx - LibreOffice Writer", At: at.Add(3 * time.Second)}
	onSwitch(ctx, word)
	w = window("Writer in front", func(w api.AgentWindow) bool { return w.Current != nil && strings.Contains(w.Current.Title, "Lease") })
	if b, _ := json.Marshal(w); strings.Contains(string(b), "Marcy") {
		t.Errorf("the mail's text after a switch: %s", b)
	}

	mail.At = at.Add(4 * time.Second)
	onSwitch(ctx, mail)
	read(mail, hdr)
	window("the mail's text a third time", func(w api.AgentWindow) bool { return text(w) == seen })
	if err := p.core.SetWatchingPaused(ctx, true, "test"); err != nil {
		t.Fatal(err)
	}
	read(mail, hdr) // a glance that ends after the pause
	window("no text once paused", func(w api.AgentWindow) bool {
		b, _ := json.Marshal(w)
		return !strings.Contains(string(b), "Marcy")
	})

	es, err := st.Recent(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.Contains(e.Text, "marcy@howardlaw.com") || strings.Contains(e.Text, "Clients.kdbx") {
			t.Errorf("the world log holds screen text or a private title: %s", e.Text)
		}
	}
}
