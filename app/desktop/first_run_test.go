package desktop

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/spirit-app/spirit/agents/llm/scripted"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

func TestFirstRunAtStart(t *testing.T) {
	for _, tc := range []struct {
		name     string
		done     bool
		hasModel bool
		accounts int
		want     firstRunAction
	}{
		{"new Spirit", false, false, 0, firstRunShow},
		{"a model but no mail", false, true, 0, firstRunShow},
		{"mail but no model", false, false, 2, firstRunShow},
		{"set up before the window existed", false, true, 1, firstRunMarkDone},
		{"finished, nothing set up", true, false, 0, firstRunNothing},
		{"finished and set up", true, true, 1, firstRunNothing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := firstRunAtStart(tc.done, tc.hasModel, tc.accounts); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFirstRunFooter(t *testing.T) {
	for _, tc := range []struct {
		name          string
		step          int
		done          bool
		want          string
		wantImportant bool
		wantBack      bool
	}{
		{"welcome", stepWelcome, false, "Next", true, false},
		{"voice not done", stepVoice, false, "Skip", false, true},
		{"voice done", stepVoice, true, "Next", true, true},
		{"mail not done", stepMail, false, "Skip", false, true},
		{"provider done", stepProvider, true, "Next", true, true},
		{"last step", stepLogin, false, "Finish", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, important, back := setupFooter(tc.step, tc.done)
			if got != tc.want || important != tc.wantImportant || back != tc.wantBack {
				t.Errorf("got %q %v %v, want %q %v %v", got, important, back, tc.want, tc.wantImportant, tc.wantBack)
			}
		})
	}
}

// waitFirstRun runs what the window's background work handed to the UI
// thread until it is all done.
func waitFirstRun(t *testing.T, g *gui, f *firstRun) {
	t.Helper()
	waitGroups(t, g, "the first-run window's work", &f.bg, &f.models.bg)
}

// waitGroups runs what background work handed to the UI thread until
// every one of wgs is done.
func waitGroups(t *testing.T, g *gui, what string, wgs ...*sync.WaitGroup) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for _, wg := range wgs {
			wg.Wait()
		}
		close(done)
	}()
	poll(t, g, what, func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
	pump(g)
}

// TestFirstRunSkipEveryStep: a lawyer who skips everything goes through
// five steps (Next on the welcome, Skip on the three that are not done,
// Finish on the last); Later before that leaves Spirit not set up, so the
// window opens at the next start; Finish marks it set up, and it does not.
func TestFirstRunSkipEveryStep(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	g.showFirstRun()
	f := g.setup
	if !f.w.Content().Visible() {
		t.Fatal("the window shows nothing")
	}
	if f.next.Text != "Next" || f.back.Visible() {
		t.Fatalf("welcome: %q, back shown %v; want Next and no Back", f.next.Text, f.back.Visible())
	}
	// Later: closed, not set up.
	test.Tap(f.later)
	waitFirstRun(t, g, f)
	if set, _ := sp.core.Settings(ctx); set.SetupDone {
		t.Fatal("Later marked Spirit set up")
	}
	g.showFirstRun()

	for _, want := range []struct {
		title, button string
	}{
		{"Welcome to Spirit", "Next"},
		{"Voice commands", "Skip"},
		{"Your mail", "Skip"},
		{"An AI service (optional)", "Skip"},
		{"Start Spirit when you log in", "Finish"},
	} {
		pump(g)
		if f.heading.Text != want.title || f.next.Text != want.button {
			t.Fatalf("step %q with %q, want %q with %q", f.heading.Text, f.next.Text, want.title, want.button)
		}
		test.Tap(f.next)
	}
	waitFirstRun(t, g, f)
	set, err := sp.core.Settings(ctx)
	if err != nil || !set.SetupDone {
		t.Fatalf("after Finish setup.done = %v (%v), want true", set.SetupDone, err)
	}
	if model.Installed(g.dataDir()) != nil {
		t.Error("a model was downloaded though every step was skipped")
	}
	if ps, _ := sp.core.ProviderSettings(ctx); ps.Configured() {
		t.Errorf("a provider was saved though the step was skipped: %+v", ps)
	}
	// Back goes back.
	f.show(stepProvider)
	test.Tap(f.back)
	if f.step != stepMail {
		t.Errorf("Back from the AI service step went to step %d", f.step)
	}
}

// modelServer serves one generated model, answering ranges. The first
// whole-file request sends half of it and then waits until the client
// goes: a download the lawyer cancels midway.
type modelServer struct {
	srv    *httptest.Server
	body   []byte
	mu     sync.Mutex
	ranges []string // the Range header of each request
}

func newModelServer(t *testing.T, name string, body []byte) *modelServer {
	s := &modelServer{body: body}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/"+name {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		first := len(s.ranges) == 1
		s.mu.Unlock()
		if first {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(http.StatusOK)
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *modelServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// testModels points g's downloads at a local server holding a generated
// model under tiny.en's name, with its checksum in the catalog.
func testModels(t *testing.T, g *gui) (*modelServer, model.Model) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.bin")
	if err := whispertest.WriteModel(path, whispertest.Tiny()); err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha1.Sum(body)
	m := model.Model{Name: "tiny.en", SHA1: hex.EncodeToString(sum[:]), Approx: mib(int64(len(body)))}
	srv := newModelServer(t, m.File(), body)
	g.models = modelSource{baseURL: srv.srv.URL, catalog: []model.Model{m}, client: srv.srv.Client()}
	return srv, m
}

// TestFirstRunModelDownloadCancelResume: the Voice step downloads a model
// from a local server with a progress bar; Cancel keeps what came, which
// Resume asks for by Range; the checked model is installed, and listening
// uses it without a restart.
func TestFirstRunModelDownloadCancelResume(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	srv, m := testModels(t, g)
	g.showFirstRun()
	f := g.setup
	test.Tap(f.next) // to the Voice step
	if f.step != stepVoice || f.next.Text != "Skip" {
		t.Fatalf("step %d with %q, want the Voice step with Skip", f.step, f.next.Text)
	}
	r := f.models.rows[0]
	if r.download.Text != "Download" || !r.download.Visible() {
		t.Fatalf("download button %q (shown %v)", r.download.Text, r.download.Visible())
	}
	test.Tap(r.download)
	part := filepath.Join(model.Dir(g.dataDir()), m.File()+".part")
	poll(t, g, "progress", func() bool {
		st, err := os.Stat(part)
		return r.bar.Visible() && r.bar.Value > 0 && err == nil && st.Size() == int64(len(srv.body)/2) &&
			strings.HasPrefix(r.status.Text, "Downloading tiny.en…")
	})
	if !r.cancel.Visible() || r.download.Visible() {
		t.Fatal("while downloading, Cancel must show and Download must not")
	}
	test.Tap(r.cancel)
	waitFirstRun(t, g, f)
	if !strings.HasPrefix(r.status.Text, "Download cancelled") || r.bar.Visible() {
		t.Fatalf("after Cancel: %q, bar shown %v", r.status.Text, r.bar.Visible())
	}
	half := int64(len(srv.body) / 2)
	if st, err := os.Stat(part); err != nil || st.Size() != half {
		t.Fatalf("kept %v (%v), want %d bytes", st, err, half)
	}
	if r.download.Text != "Resume download" || !strings.HasPrefix(r.state.Text, "Partly downloaded") {
		t.Fatalf("after Cancel the row offers %q and says %q", r.download.Text, r.state.Text)
	}

	test.Tap(r.download)
	waitFirstRun(t, g, f)
	if got := srv.seen(); len(got) != 2 || got[1] != "bytes="+strconv.FormatInt(half, 10)+"-" {
		t.Fatalf("requests' ranges %q, want none then bytes=%d-", got, half)
	}
	want := filepath.Join(model.Dir(g.dataDir()), m.File())
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("model not installed: %v (status %q)", err, r.status.Text)
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Errorf("the partial file is still there: %v", err)
	}
	if !strings.Contains(r.status.Text, "Spirit listens with it now") {
		t.Errorf("status %q", r.status.Text)
	}
	poll(t, g, "listening with the downloaded model", func() bool { return sp.core.SpeechModelInUse() == want })
	pump(g)
	f.refresh()
	if f.next.Text != "Next" || r.state.Text != "In use" {
		t.Errorf("after the download the step offers %q and the row says %q", f.next.Text, r.state.Text)
	}
}

// TestFirstRunProviderStep: choosing a service fills in its recommended
// models; Test tries the key just typed (a refused key is said so, in
// words) and saves nothing; Save keeps the service, and the step is done.
func TestFirstRunProviderStep(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "") // the key goes to the test folder, never a real keychain
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	g, sp, _ := newTestGUI(t)
	ctx := context.Background()
	srv := scripted.New(t, scripted.HTTPError(http.StatusUnauthorized, ""), scripted.Text("ready"))
	g.showFirstRun()
	f := g.setup
	f.show(stepProvider)

	for _, c := range []struct{ choice, triage, analyst string }{
		{setupChoices()[0].label, "claude-haiku-4-5", "claude-sonnet-4-5"},
		{setupChoices()[1].label, "gpt-5-mini", "gpt-5"},
	} {
		f.service.SetSelected(c.choice)
		if f.triage.Text != c.triage || f.analyst.Text != c.analyst {
			t.Errorf("%s: models %q / %q, want %q / %q", c.choice, f.triage.Text, f.analyst.Text, c.triage, c.analyst)
		}
		if len(f.providerForm.Items) != 4 {
			t.Errorf("%s: %d fields, want service, two models and the key", c.choice, len(f.providerForm.Items))
		}
	}
	// Another service: its address, and the lawyer's own model names.
	f.service.SetSelected(setupChoices()[2].label)
	if len(f.providerForm.Items) != 5 || f.providerForm.Items[1].Widget != f.base || f.triage.Text != "" {
		t.Fatalf("another service: %d fields, fast model %q; want the address too and no model", len(f.providerForm.Items), f.triage.Text)
	}
	test.Type(f.base, srv.URL()+"/v1")
	test.Type(f.triage, "fast-model")
	test.Type(f.analyst, "strong-model")

	test.Type(f.key, "sk-wrong")
	test.Tap(f.testBtn)
	waitFirstRun(t, g, f)
	if !strings.HasPrefix(f.providerStatus.Text, "It did not work:") || !strings.Contains(f.providerStatus.Text, "API key was rejected") {
		t.Errorf("a refused key: %q", f.providerStatus.Text)
	}
	f.key.SetText("sk-right")
	test.Tap(f.testBtn)
	waitFirstRun(t, g, f)
	if !strings.HasPrefix(f.providerStatus.Text, "It works:") || !strings.Contains(f.providerStatus.Text, "ready") {
		t.Errorf("a good key: %q", f.providerStatus.Text)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[1].AuthHeaders) == 0 || reqs[1].Model != "fast-model" {
		t.Fatalf("the service got %d requests (%+v), want 2, with a key, for fast-model", len(reqs), reqs)
	}
	if ps, _ := sp.core.ProviderSettings(ctx); ps.Configured() {
		t.Fatalf("Test saved the provider: %+v", ps)
	}
	if f.next.Text != "Skip" {
		t.Errorf("before Save the step offers %q", f.next.Text)
	}

	test.Tap(f.saveBtn)
	waitFirstRun(t, g, f)
	ps, err := sp.core.ProviderSettings(ctx)
	if err != nil || ps.Kind != setup.OpenAI || ps.BaseURL != srv.URL()+"/v1" || ps.Roles.Triage != "fast-model" || ps.Roles.Analyst != "strong-model" {
		t.Fatalf("saved %+v (%v)", ps, err)
	}
	if f.key.Text != "" || f.next.Text != "Next" {
		t.Errorf("after Save: key field %q, step offers %q", f.key.Text, f.next.Text)
	}
}

// TestFirstRunCheckAtStart: a new Spirit opens the window; one with a
// speech model and a mail account is marked set up and opens nothing.
func TestFirstRunCheckAtStart(t *testing.T) {
	t.Run("new", func(t *testing.T) {
		g, sp, _ := newTestGUI(t)
		g.checkFirstRun()
		pump(g)
		if g.setup == nil || !g.setup.w.Content().Visible() {
			t.Fatal("a new Spirit shows no setup window")
		}
		if set, _ := sp.core.Settings(context.Background()); set.SetupDone {
			t.Error("showing the window marked Spirit set up")
		}
	})
	t.Run("set up before", func(t *testing.T) {
		g, sp, _ := newTestGUI(t)
		ctx := context.Background()
		p := filepath.Join(model.Dir(g.dataDir()), "ggml-tiny.en.bin")
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("weights"), 0o600); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(t.TempDir(), "Maildir")
		for _, sub := range []string{"cur", "new", "tmp"} {
			if err := os.MkdirAll(filepath.Join(root, sub), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		cfg, _ := json.Marshal(accounts.FileConfig{Path: root})
		_, err := sp.core.AddMailAccount(ctx, index.Account{Kind: index.KindMaildir, Name: "Mail", Address: "dana@example.com", Config: cfg},
			func(context.Context) (accounts.Credentials, error) { return accounts.Credentials{}, nil })
		if err != nil {
			t.Fatal(err)
		}
		g.checkFirstRun()
		pump(g)
		if g.setup != nil {
			t.Error("a Spirit set up already got the setup window")
		}
		if set, _ := sp.core.Settings(ctx); !set.SetupDone {
			t.Error("a Spirit set up already was not marked so")
		}
	})
}

// TestSpeechDownloadBadChecksum: a download whose checksum does not match
// is said so, nothing is installed and nothing is kept to resume.
func TestSpeechDownloadBadChecksum(t *testing.T) {
	g, sp, _ := newTestGUI(t)
	_, m := testModels(t, g)
	m.SHA1 = strings.Repeat("0", 40)
	g.models.catalog = []model.Model{m}
	w := test.NewWindow(nil)
	l := newModelList(g, w)
	r := l.rows[0]
	// The server's first answer stops halfway: cancel it, then resume.
	test.Tap(r.download)
	part := filepath.Join(model.Dir(g.dataDir()), m.File()+".part")
	poll(t, g, "half the model", func() bool {
		st, err := os.Stat(part)
		return err == nil && st.Size() > 0
	})
	test.Tap(r.cancel)
	waitList(t, g, l)
	test.Tap(r.download)
	waitList(t, g, l)
	if !strings.Contains(r.status.Text, "does not match") || !strings.HasPrefix(r.status.Text, "The download did not finish:") {
		t.Errorf("status %q", r.status.Text)
	}
	if st := model.Statuses(g.dataDir(), g.models.catalog)[0]; st.Installed() || st.Partial != 0 {
		t.Errorf("after a bad checksum: %+v", st)
	}
	if r.download.Text != "Download" || sp.core.SpeechModelInUse() != "" {
		t.Errorf("the row offers %q; in use %q", r.download.Text, sp.core.SpeechModelInUse())
	}
}
