package digest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/llm"
	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/screen"
)

func TestProduct(t *testing.T) {
	cases := []struct {
		name                string
		process, class, app string
		want                string
	}{
		{"libreoffice binary", "soffice.bin", "", "", "LibreOffice Writer"},
		{"libreoffice calc by class", "soffice.bin", "libreoffice-calc", "", "LibreOffice Calc"},
		{"outlook exe upper case", "OUTLOOK.EXE", "", "", "Outlook"},
		{"new outlook", "olk.exe", "", "", "Outlook"},
		{"word exe", "WINWORD.EXE", "", "", "Word"},
		{"windows path", `C:\Program Files\Microsoft Office\root\Office16\WINWORD.EXE`, "", "", "Word"},
		{"thunderbird", "thunderbird", "", "", "Thunderbird"},
		{"thunderbird by class", "", "thunderbird", "thunderbird", "Thunderbird"},
		{"chrome", "chrome", "", "", "Chrome"},
		{"chrome by class", "", "Google-chrome", "Google-chrome", "Chrome"},
		{"chromium", "chromium", "", "", "Chromium"},
		{"teams", "ms-teams.exe", "", "", "Teams"},
		{"vendor prefix in app name", "", "", "Microsoft Outlook", "Outlook"},
		{"unknown keeps the watcher's name", "lexisdraft", "", "Lexis Draft", "Lexis Draft"},
		{"unknown with process only", "frobnicate", "", "", "frobnicate"},
		{"nothing known", "", "", "", "an unknown app"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Product(c.process, c.class, c.app); got != c.want {
				t.Errorf("Product(%q, %q, %q) = %q, want %q", c.process, c.class, c.app, got, c.want)
			}
		})
	}
}

func TestIsCall(t *testing.T) {
	cases := []struct {
		name, app, title string
		want             bool
	}{
		{"teams meeting", "Teams", "Meeting with Dana | Microsoft Teams", true},
		{"teams call", "Teams", "Call with Dana Kim | Microsoft Teams", true},
		{"teams chat", "Teams", "Chat | Dana Kim | Microsoft Teams", false},
		{"zoom meeting", "Zoom", "Zoom Meeting", true},
		{"zoom home", "Zoom", "Zoom Workplace", false},
		{"google meet in chrome", "Chrome", "Meet - abc-defg-hij - Google Chrome", true},
		{"chrome page", "Chrome", "Westlaw - Google Chrome", false},
		{"word doc titled meeting", "Word", "Meeting notes.docx - Word", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsCall(c.app, c.title); got != c.want {
				t.Errorf("IsCall(%q, %q) = %v, want %v", c.app, c.title, got, c.want)
			}
		})
	}
}

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func TestHUD(t *testing.T) {
	cur := func(app, title string) *Current { return &Current{App: app, Title: title, Since: t0} }
	cases := []struct {
		name string
		c    Context
		want string
	}{
		{"nothing seen", Context{Now: t0}, HUDIdle},
		{"outlook message", Context{Now: t0, Current: cur("Outlook", "RE: SNDA - Message (HTML)")}, "Reading ‘RE: SNDA’ in Outlook"},
		{"outlook inbox", Context{Now: t0, Current: cur("Outlook", "Inbox - dana@firm.com - Outlook")}, "Going through mail in Outlook"},
		{"thunderbird message", Context{Now: t0, Current: cur("Thunderbird", "Estoppel certificate - Mozilla Thunderbird")}, "Reading ‘Estoppel certificate’ in Thunderbird"},
		{"thunderbird compose", Context{Now: t0, Current: cur("Thunderbird", "Write: RE: SNDA - Thunderbird")}, "Writing an email in Thunderbird"},
		{"word new document", Context{Now: t0, Current: cur("Word", "Document1 - Word")}, "Drafting in Word"},
		{"word named document", Context{Now: t0, Current: cur("Word", "SNDA v3.docx [Compatibility Mode] - Word")}, "Drafting ‘SNDA v3.docx’ in Word"},
		{"writer named document", Context{Now: t0, Current: cur("LibreOffice Writer", "lease.odt - LibreOffice Writer")}, "Drafting ‘lease.odt’ in LibreOffice Writer"},
		{"writer no title", Context{Now: t0, Current: cur("LibreOffice Writer", "")}, "Drafting in LibreOffice Writer"},
		{"acrobat", Context{Now: t0, Current: cur("Acrobat", "Deed.pdf - Adobe Acrobat Pro")}, "Reading ‘Deed.pdf’ in Acrobat"},
		{"browser page", Context{Now: t0, Current: cur("Chrome", "Westlaw Edge - Google Chrome")}, "Reading ‘Westlaw Edge’ in Chrome"},
		{"other app", Context{Now: t0, Current: cur("Lexis Draft", "Matter 1234")}, "In Lexis Draft"},
		{"call of 14 minutes", Context{Now: t0, Current: cur("Teams", "Meeting | Microsoft Teams"), CallSince: t0.Add(-14*time.Minute - 20*time.Second)}, "On a call · 14 min"},
		{"call just begun", Context{Now: t0, Current: cur("Zoom", "Zoom Meeting"), CallSince: t0.Add(-20 * time.Second)}, "On a call"},
		{"private window", Context{Now: t0, Current: &Current{App: PrivateApp, Private: true, Since: t0}}, HUDPrivate},
		{"long subject is cut", Context{Now: t0, Current: cur("Outlook", "RE: one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen - Message (HTML)")},
			"Reading ‘RE: one two three four five six seven eight nin…’ in Outlook"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := HUD(c.c)
			if got != c.want {
				t.Errorf("HUD = %q, want %q", got, c.want)
			}
			if n := len(strings.Fields(got)); n > MaxHUDWords {
				t.Errorf("HUD has %d words, more than %d", n, MaxHUDWords)
			}
		})
	}
}

func TestParseReply(t *testing.T) {
	cases := []struct {
		name       string
		raw        string
		wantOK     bool
		hud, dgest string
	}{
		{"plain json", `{"hud":"Reading RE: SNDA in Outlook","digest":"The lawyer reads an email."}`, true, "Reading RE: SNDA in Outlook", "The lawyer reads an email."},
		{"json fence", "```json\n{\"hud\": \"Drafting in Word\", \"digest\": \"A lease.\"}\n```", true, "Drafting in Word", "A lease."},
		{"bare fence", "```\n{\"hud\": \"Idle\", \"digest\": \"Nothing.\"}\n```", true, "Idle", "Nothing."},
		{"words around", `Sure! Here it is: {"hud":"On a call","digest":"A call."} Hope this helps.`, true, "On a call", "A call."},
		{"junk brace first", `{oops} {"hud":"In Word","digest":"x"}`, true, "In Word", "x"},
		{"digest as list", `{"hud":"In Word","digest":["One.","Two."]}`, true, "In Word", "One. Two."},
		{"long hud cut to 15 words", `{"hud":"a b c d e f g h i j k l m n o p q","digest":"d"}`, true, "a b c d e f g h i j k l m n o…", "d"},
		{"no digest", `{"hud":"In Word"}`, true, "In Word", ""},
		{"empty hud", `{"hud":"","digest":"x"}`, false, "", ""},
		{"hud not text", `{"hud":42,"digest":"x"}`, false, "", ""},
		{"not json", `The lawyer is reading mail.`, false, "", ""},
		{"truncated", `{"hud":"Reading`, false, "", ""},
		{"empty", ``, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ok := ParseReply(c.raw)
			if ok != c.wantOK || r.HUD != c.hud || r.Digest != c.dgest {
				t.Errorf("ParseReply = %+v, %v; want {%q %q}, %v", r, ok, c.hud, c.dgest, c.wantOK)
			}
		})
	}
}

// clock is a settable time for the loop.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func sw(at time.Time, process, title string) events.Event {
	return events.Event{Type: events.AppSwitched, Time: at, Data: screen.Switch{Process: process, Title: title, At: at}}
}

func TestTickIdleSkip(t *testing.T) {
	clk := &clock{t: t0}
	var huds []string
	l := New(Options{Now: clk.now, OnHUD: func(h string) { huds = append(huds, h) }})
	ctx := t.Context()

	steps := []struct {
		name    string
		events  []events.Event
		wantRan bool
		wantHUD string
	}{
		{"nothing yet", nil, false, ""},
		{"a switch", []events.Event{sw(t0, "OUTLOOK.EXE", "RE: SNDA - Message (HTML)")}, true, "Reading ‘RE: SNDA’ in Outlook"},
		{"quiet", nil, false, "Reading ‘RE: SNDA’ in Outlook"},
		{"a command is not ambient speech", []events.Event{{Type: events.UtteranceUnderstood, Data: events.Utterance{Text: "remind me", At: t0, Intent: "remind"}}}, false, "Reading ‘RE: SNDA’ in Outlook"},
		{"an unrelated event", []events.Event{{Type: events.MailSynced, Data: events.MailSync{}}}, false, "Reading ‘RE: SNDA’ in Outlook"},
		{"to word", []events.Event{sw(t0.Add(90*time.Second), "WINWORD.EXE", "Document1 - Word")}, true, "Drafting in Word"},
		{"quiet again", nil, false, "Drafting in Word"},
	}
	var skips int64
	for i, s := range steps {
		clk.t = t0.Add(time.Duration(i) * 20 * time.Second) // the whole test within one window
		for _, ev := range s.events {
			l.Observe(ev)
		}
		a, ran := l.Tick(ctx)
		if ran != s.wantRan {
			t.Fatalf("%s: ran = %v, want %v", s.name, ran, s.wantRan)
		}
		if !ran {
			skips++
		} else if a.HUD != s.wantHUD || a.Source != SourceCode {
			t.Errorf("%s: analysis HUD %q from %s, want %q from code", s.name, a.HUD, a.Source, s.wantHUD)
		}
		if got := l.HUDLine(); got != s.wantHUD {
			t.Errorf("%s: HUDLine = %q, want %q", s.name, got, s.wantHUD)
		}
	}
	st := l.Stats()
	if st.IdleSkips != skips || st.Analyses != 2 || st.Ticks != int64(len(steps)) || st.Calls != 0 {
		t.Errorf("stats = %+v, want %d idle skips, 2 analyses, %d ticks, 0 calls", st, skips, len(steps))
	}
	if want := []string{"Reading ‘RE: SNDA’ in Outlook", "Drafting in Word"}; fmt.Sprint(huds) != fmt.Sprint(want) {
		t.Errorf("OnHUD told %q, want %q", huds, want)
	}
	h := l.History(10)
	if len(h) != 2 || h[0].HUD != "Drafting in Word" || h[0].ID != 2 {
		t.Errorf("history newest first = %+v", h)
	}
	if got := h[0].AppHistory; fmt.Sprint(got) != "[Outlook Word]" {
		t.Errorf("app history = %q, want Outlook then Word", got)
	}
}

func TestQuietCallMovesOn(t *testing.T) {
	clk := &clock{t: t0}
	var huds []string
	l := New(Options{Now: clk.now, OnHUD: func(h string) { huds = append(huds, h) }})
	l.Observe(sw(t0, "ms-teams.exe", "Meeting with Dana | Microsoft Teams"))
	steps := []struct {
		at      time.Duration
		wantRan bool
		wantHUD string
	}{
		{30 * time.Second, true, "On a call"},
		{90 * time.Second, false, "On a call · 1 min"},
		{100 * time.Second, false, "On a call · 1 min"},
		{14*time.Minute + 5*time.Second, false, "On a call · 14 min"},
	}
	for _, s := range steps {
		clk.t = t0.Add(s.at)
		if _, ran := l.Tick(t.Context()); ran != s.wantRan {
			t.Fatalf("at %v: ran = %v, want %v", s.at, ran, s.wantRan)
		}
		if got := l.HUDLine(); got != s.wantHUD {
			t.Errorf("at %v: HUD %q, want %q", s.at, got, s.wantHUD)
		}
	}
	if want := "[On a call On a call · 1 min On a call · 14 min]"; fmt.Sprint(huds) != want {
		t.Errorf("OnHUD told %q, want %s", huds, want)
	}
	if st := l.Stats(); st.Analyses != 1 || st.IdleSkips != 3 {
		t.Errorf("stats = %+v: a quiet call is idle", st)
	}
}

func TestDisabledNeverAnalyses(t *testing.T) {
	l := New(Options{Now: func() time.Time { return t0 }})
	off := false
	if _, err := l.SetConfig(t.Context(), ConfigUpdate{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	l.Observe(sw(t0, "WINWORD.EXE", "a.docx - Word"))
	if _, ran := l.Tick(t.Context()); ran {
		t.Fatal("a disabled loop analysed")
	}
	if st := l.Stats(); st.Enabled || st.IdleSkips != 0 || st.Analyses != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestContextWindow(t *testing.T) {
	clk := &clock{t: t0}
	l := New(Options{Now: clk.now})
	l.Observe(sw(t0.Add(-5*time.Minute), "thunderbird", "Old thing - Mozilla Thunderbird"))
	l.Observe(events.Event{Type: events.UtteranceUnderstood, Data: events.Utterance{Text: "said long ago", At: t0.Add(-4 * time.Minute)}})
	l.Observe(sw(t0.Add(-90*time.Second), "OUTLOOK.EXE", "RE: SNDA - Message (HTML)"))
	l.Observe(events.Event{Type: events.ScreenTextRead, Time: t0.Add(-80 * time.Second), Data: events.ScreenText{App: "Microsoft Outlook", Chars: 120}})
	l.Observe(events.Event{Type: events.AppSwitched, Time: t0.Add(-60 * time.Second),
		Data: screen.Switch{App: "KeePassXC", Title: "", Excluded: true, ExcludedBy: "built-in", At: t0.Add(-60 * time.Second)}})
	l.Observe(sw(t0.Add(-30*time.Second), "OUTLOOK.EXE", "RE: SNDA - Message (HTML)"))
	for i := range 7 {
		l.Observe(events.Event{Type: events.UtteranceUnderstood, Data: events.Utterance{Text: fmt.Sprintf("line %d", i), At: t0.Add(time.Duration(i-7) * time.Second)}})
	}
	c := l.Context()
	if fmt.Sprint(c.AppHistory()) != "[Outlook a private window Outlook]" {
		t.Errorf("app history = %q", c.AppHistory())
	}
	for _, s := range c.Timeline {
		if s.Private && s.Title != "" {
			t.Errorf("a private switch carries a title: %+v", s)
		}
	}
	if c.Screen != nil {
		t.Errorf("screen text read before the window came back to the front is shown: %+v", c.Screen)
	}
	if len(c.Utterances) != maxUtterances || c.Utterances[0].Text != "line 2" || c.Utterances[4].Text != "line 6" {
		t.Errorf("utterances = %+v, want the last %d", c.Utterances, maxUtterances)
	}
	l.Observe(events.Event{Type: events.ScreenTextRead, Time: t0.Add(-10 * time.Second), Data: events.ScreenText{App: "Microsoft Outlook", Chars: 300}})
	if c := l.Context(); c.Screen == nil || c.Screen.Chars != 300 {
		t.Errorf("screen = %+v, want the read of the window in front", c.Screen)
	}
	b, _ := json.Marshal(l.Context())
	if strings.Contains(string(b), "said long ago") || strings.Contains(string(b), "Old thing") {
		t.Errorf("context holds what fell out of the window: %s", b)
	}
}

func TestConfig(t *testing.T) {
	st := mapSettings{}
	l := New(Options{Settings: st})
	d := 10 * time.Second
	w := 5 * time.Minute
	m := "claude-haiku-4-5"
	if _, err := l.SetConfig(t.Context(), ConfigUpdate{Interval: &d, Window: &w, Model: &m}); err != nil {
		t.Fatal(err)
	}
	bad := []ConfigUpdate{{Interval: ptr(time.Second)}, {Window: ptr(time.Hour)}, {Model: ptr("two words")}}
	for _, u := range bad {
		if _, err := l.SetConfig(t.Context(), u); err == nil {
			t.Errorf("SetConfig(%+v) accepted", u)
		}
	}
	l2 := New(Options{Settings: st})
	if err := l2.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := l2.Config(); got.Interval != d || got.Window != w || got.Model != m || !got.Enabled {
		t.Errorf("loaded config = %+v", got)
	}
}

func ptr[T any](v T) *T { return &v }

type mapSettings map[string]string

func (m mapSettings) Setting(_ context.Context, k string) (string, bool, error) {
	v, ok := m[k]
	return v, ok, nil
}

func (m mapSettings) UpdateSettings(_ context.Context, fn func(map[string]string) (map[string]string, error)) error {
	values, err := fn(m)
	if err != nil {
		return err
	}
	for k, v := range values {
		m[k] = v
	}
	return nil
}

func TestModelPath(t *testing.T) {
	for _, protocol := range []string{llm.ProtocolAnthropic, llm.ProtocolOpenAI} {
		t.Run(protocol, func(t *testing.T) {
			srv := scripted.New(t,
				scripted.Reply{Text: "```json\n{\"hud\":\"Reviewing the SNDA reply in Outlook\",\"digest\":\"The lawyer reads RE: SNDA. Dana asked about the estoppel. Nothing else happened.\"}\n```", InputTokens: 1000, OutputTokens: 100},
				scripted.Text("I think the lawyer is busy."),
				scripted.HTTPError(500, ""),
			)
			p := srv.Provider(t, protocol)
			clk := &clock{t: t0}
			l := New(Options{Now: clk.now, Provider: func(context.Context) (llm.Provider, string, error) {
				return p, "claude-haiku-4-5", nil
			}})
			tick := func(title string) Analysis {
				t.Helper()
				clk.t = clk.t.Add(30 * time.Second)
				l.Observe(sw(clk.t, "OUTLOOK.EXE", title))
				l.Observe(events.Event{Type: events.UtteranceUnderstood, Data: events.Utterance{Text: "Dana asked about the estoppel", At: clk.t}})
				a, ran := l.Tick(t.Context())
				if !ran {
					t.Fatal("tick skipped with news")
				}
				return a
			}
			a := tick("RE: SNDA - Message (HTML)")
			if a.Source != SourceModel || a.HUD != "Reviewing the SNDA reply in Outlook" || !strings.HasPrefix(a.Digest, "The lawyer reads RE: SNDA.") {
				t.Errorf("model analysis = %+v", a)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[0].Text, "RE: SNDA") ||
				!strings.Contains(reqs[0].Messages[0].Text, "Dana asked about the estoppel") || reqs[0].Model != "claude-haiku-4-5" {
				t.Errorf("request = %+v", reqs)
			}
			a = tick("Lease draft - Message (HTML)")
			if a.Source != SourceCode || a.HUD != "Reading ‘Lease draft’ in Outlook" || a.Fallback == "" {
				t.Errorf("unreadable answer: analysis = %+v, want code's HUD", a)
			}
			a = tick("Closing set - Message (HTML)")
			if a.Source != SourceCode || a.HUD != "Reading ‘Closing set’ in Outlook" {
				t.Errorf("provider 500: analysis = %+v, want code's HUD", a)
			}
			st := l.Stats()
			// 1000 in and 100 out at $1/$5 per million, plus the 10/5 of
			// the unreadable answer.
			wantCost := (1010*1.0 + 105*5.0) / 1e6
			if st.Calls != 3 || st.Errors != 1 || st.TokensIn != 1010 || st.TokensOut != 105 || !st.Priced ||
				st.CostUSD < wantCost*0.999 || st.CostUSD > wantCost*1.001 {
				t.Errorf("stats = %+v, want 3 calls, 1 error, 1010/105 tokens, $%.6f", st, wantCost)
			}
		})
	}
}

func TestPrivateWindowNeverReachesModel(t *testing.T) {
	srv := scripted.New(t)
	p := srv.Provider(t, llm.ProtocolOpenAI)
	l := New(Options{Now: func() time.Time { return t0 }, Provider: func(context.Context) (llm.Provider, string, error) { return p, "m", nil }})
	l.Observe(events.Event{Type: events.AppSwitched, Data: screen.Switch{App: "KeePassXC", Excluded: true, Title: "bank login", At: t0}})
	a, ran := l.Tick(t.Context())
	if !ran || a.HUD != HUDPrivate || a.Source != SourceCode || len(srv.Requests()) != 0 {
		t.Errorf("analysis = %+v, ran %v, %d requests", a, ran, len(srv.Requests()))
	}
	if b, _ := json.Marshal(l.Context()); strings.Contains(string(b), "bank login") || strings.Contains(string(b), "KeePass") {
		t.Errorf("a private title is kept: %s", b)
	}
}

// TestScreenTextKept: the text the glance read is in the context only
// while its window is in front, cut to size, and never for a private
// window, a window left behind, or while watching is paused.
func TestScreenTextKept(t *testing.T) {
	long := strings.Repeat("Dana, please confirm receipt of our offer. ", 40)
	outlook := func(at time.Time) events.Event { return sw(at, "OUTLOOK.EXE", "RE: SNDA - Message (HTML)") }
	read := func(at, switched time.Time, text string) events.Event {
		return events.Event{Type: events.ScreenTextRead, Time: at,
			Data: events.ScreenText{App: "Microsoft Outlook", Chars: len([]rune(text)), Text: text, Switched: switched}}
	}
	private := func(at time.Time) events.Event {
		return events.Event{Type: events.AppSwitched, Time: at, Data: screen.Switch{Excluded: true, At: at}}
	}
	paused := func(at time.Time, on bool) events.Event {
		return events.Event{Type: events.WatchingPaused, Time: at, Data: on}
	}
	a, b, c := t0.Add(-60*time.Second), t0.Add(-40*time.Second), t0.Add(-20*time.Second)
	hdr := "From: Marcy Howard <marcy@howardlaw.com>\nSubject: RE: SNDA"
	tests := []struct {
		name   string
		events []events.Event
		want   string // the context's screen text; "" none
	}{
		{"read of the window in front", []events.Event{outlook(a), read(b, a, hdr)}, "From: Marcy Howard <marcy@howardlaw.com> Subject: RE: SNDA"},
		{"cut to size", []events.Event{outlook(a), read(b, a, long)}, clip(long, maxScreenRunes)},
		{"gone after a switch", []events.Event{outlook(a), read(b, a, hdr), sw(c, "WINWORD.EXE", "Lease.docx - Word")}, ""},
		{"gone after another message in the pane", []events.Event{outlook(a), read(b, a, hdr), outlook(c)}, ""},
		{"a read that ends after the switch is not the new window's", []events.Event{outlook(a), sw(b, "OUTLOOK.EXE", "Inbox - Outlook"), read(c, a, hdr)}, ""},
		{"a private window in front", []events.Event{outlook(a), read(b, a, hdr), private(c)}, ""},
		{"a read while a private window is in front", []events.Event{private(a), read(b, a, hdr)}, ""},
		{"gone on a pause", []events.Event{outlook(a), read(b, a, hdr), paused(c, true)}, ""},
		{"a read that ends after the pause", []events.Event{outlook(a), paused(b, true), read(c, a, hdr)}, ""},
		{"resumed: read again after the next switch", []events.Event{outlook(a), paused(b, true), paused(b, false), outlook(c), read(c, c, "Subject: RE: SNDA")}, "Subject: RE: SNDA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := New(Options{Now: (&clock{t: t0}).now})
			for _, ev := range tt.events {
				l.Observe(ev)
			}
			ctx := l.Context()
			got := ""
			if ctx.Screen != nil {
				got = ctx.Screen.Text
			}
			if got != tt.want {
				t.Errorf("screen text %q, want %q", got, tt.want)
			}
			// Nothing of the text is kept anywhere once it is not shown.
			if tt.want == "" {
				l.mu.Lock()
				for _, r := range l.in.reads {
					if r.Text != "" {
						t.Errorf("text kept in memory: %+v", r)
					}
				}
				l.mu.Unlock()
			}
			if p := Prompt(ctx); tt.want != "" && !strings.Contains(p, tt.want) {
				t.Errorf("the model's prompt lacks the text:\n%s", p)
			}
		})
	}
}
