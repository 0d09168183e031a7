package listen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper"
)

// The voice service's states beyond the capture's own (audio.State).
const (
	NoModel   = "no speech model"
	Loading   = "loading speech model"
	Failed    = "speech model failed"
	Stopped   = "stopped"
	Capturing = string(audio.Listening)
)

// Choice is what the lawyer chose for listening, read when the service
// starts.
type Choice struct {
	Model   string // catalog name, e.g. "base.en"; "": the best installed
	Device  string // input device; "": the system default
	Threads int    // whisper threads; 0: automatic
}

// ServiceOptions is what a Service needs, given whole before it runs.
type ServiceOptions struct {
	DataDir string // where speech models live (model.Dir)
	// DefaultDataDir is the folder Spirit uses when none is given: when
	// DataDir is another, the download command Spirit suggests names it.
	DefaultDataDir string
	Paused         bool // start with the microphone closed (the saved choice)
	// Choice reads the lawyer's choices; an error stops Run.
	Choice func(ctx context.Context) (Choice, error)
	// OnHeard receives each utterance, in order; it must not block for
	// long (publish it, don't act on it), or the microphone waits.
	OnHeard func(Heard)
	// OnSpeech is told when speech starts and stops (the orb pulses).
	OnSpeech func(on bool)
	// OnState is told that State changed.
	OnState func()
	// Transcriber, if set, stands in for whisper: no speech model is
	// looked for or loaded, and it is given each utterance the microphone
	// heard. For tests that play speech through a real sound device and
	// need known words (a random-weight model writes noise).
	Transcriber Transcriber
	Log         *slog.Logger
}

// Service runs microphone → VAD → whisper while Spirit runs. A missing
// model, a missing microphone or a lost device are states shown to the
// lawyer, never errors that stop Spirit.
type Service struct {
	opt ServiceOptions

	mu      sync.Mutex
	paused  bool
	state   string
	detail  string
	capture *audio.Capture // while Run has one
	model   string         // the model file in use; "" when none is loaded
	// stop ends the current listening, to start again with what is
	// chosen now (Reload); nil while Run is not listening.
	stop   context.CancelFunc
	reload bool // Reload was asked: Run starts again rather than return
}

// NewService returns a service that starts listening with Run.
func NewService(opt ServiceOptions) *Service {
	if opt.Choice == nil {
		opt.Choice = func(context.Context) (Choice, error) { return Choice{}, nil }
	}
	if opt.OnHeard == nil {
		opt.OnHeard = func(Heard) {}
	}
	if opt.OnSpeech == nil {
		opt.OnSpeech = func(bool) {}
	}
	if opt.OnState == nil {
		opt.OnState = func() {}
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	return &Service{opt: opt, paused: opt.Paused}
}

func (v *Service) set(state, detail string) {
	v.mu.Lock()
	changed := v.state != state || v.detail != detail
	v.state, v.detail = state, detail
	v.mu.Unlock()
	if changed {
		v.opt.OnState()
	}
}

// State is the voice state and a detail for /health and the tray; "" before
// Run has looked for a model.
func (v *Service) State() (string, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state, v.detail
}

// Run listens until ctx ends. Without a model (or with one that does not
// load) there is nothing to listen with: the state says what to do, and Run
// waits for Reload, which a downloaded or chosen model calls.
func (v *Service) Run(ctx context.Context) error {
	for {
		runCtx, cancel := context.WithCancel(ctx)
		v.mu.Lock()
		v.stop, v.reload = cancel, false
		v.mu.Unlock()
		err := v.listen(runCtx)
		cancel()
		v.mu.Lock()
		v.stop = nil
		again := v.reload
		v.mu.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		if !again {
			return err
		}
		v.opt.Log.Info("voice: starting again with the speech model chosen now")
	}
}

// Reload makes Run start listening again with the model and device chosen
// now (a model was downloaded, chosen or deleted): no restart of Spirit is
// needed. It returns at once; State follows.
func (v *Service) Reload() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.stop != nil {
		v.reload = true
		v.stop()
	}
}

// Model is the model file listening uses; "" while none is loaded.
func (v *Service) Model() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.model
}

func (v *Service) setModel(path string) {
	v.mu.Lock()
	v.model = path
	v.mu.Unlock()
}

// listen is one run of listening, with the choices read at its start; it
// returns when ctx ends or listening fails.
func (v *Service) listen(ctx context.Context) error {
	v.set(Loading, "")
	ch, err := v.opt.Choice(ctx)
	if err != nil {
		return fmt.Errorf("voice settings: %w", err)
	}
	text, path := v.opt.Transcriber, "(given)"
	if text == nil {
		path, err = model.Find(v.opt.DataDir, ch.Model)
		if err != nil {
			fix := model.DownloadCommand(v.opt.DataDir, v.opt.DefaultDataDir)
			v.set(NoModel, "run `"+fix+"`")
			v.opt.Log.Warn("voice is off: no speech model", "fix", fix)
			<-ctx.Done()
			return nil
		}
		tr, err := whisper.Load(ctx, path, whisper.Options{Threads: ch.Threads})
		if err != nil {
			v.set(Failed, err.Error())
			v.opt.Log.Error("voice is off: speech model failed to load", "model", path, "err", err)
			<-ctx.Done()
			return nil
		}
		defer tr.Close()
		text = whisper.Text{T: tr}
		v.setModel(path)
		defer v.setModel("")
	}

	capture := audio.Microphone(ch.Device)
	capture.Logger = v.opt.Log
	capture.OnStatus = func(s audio.Status) {
		detail := s.Detail
		if s.Err != nil && detail == "" {
			detail = s.Err.Error()
		}
		v.set(string(s.State), detail)
	}
	v.mu.Lock()
	paused := v.paused
	if paused {
		capture.Pause() // before Open: the microphone is never opened
	}
	v.capture = capture
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.capture = nil
		v.mu.Unlock()
	}()
	if paused {
		v.set(string(audio.Paused), "")
	}
	l := &Listener{
		Source:      capture,
		Transcriber: text,
		Logger:      v.opt.Log,
		OnSpeech:    v.opt.OnSpeech,
		OnHeard:     v.opt.OnHeard,
	}
	// The listener opens the capture; a missing microphone is a state, retried.
	v.opt.Log.Info("voice on", "model", path, "device", ch.Device)
	err = l.Run(ctx)
	// A listener that stops mid-speech never reports its end: stop the pulse.
	v.opt.OnSpeech(false)
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		v.set(Stopped, err.Error())
		return fmt.Errorf("listening stopped: %w", err)
	}
	return nil
}

// SetPaused closes or reopens the microphone; it returns once the device
// is closed, so the lawyer is told only what is true.
func (v *Service) SetPaused(paused bool) {
	v.mu.Lock()
	v.paused = paused
	c := v.capture
	v.mu.Unlock()
	if c == nil {
		return
	}
	if paused {
		c.Pause()
	} else {
		c.Resume()
	}
}
