package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/listen"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper"
)

// Setting keys for voice.
const (
	settingVoiceModel   = "voice.model"   // catalog name, e.g. "base.en"; empty: best installed
	settingVoiceDevice  = "voice.device"  // input device name; empty: system default
	settingVoiceThreads = "voice.threads" // whisper threads; empty: min(4, cores)
)

// Voice states beyond the capture's own (audio.State).
const (
	voiceNoModel   = "no speech model"
	voiceLoading   = "loading speech model"
	voiceFailed    = "speech model failed"
	voiceStopped   = "stopped"
	voiceCapturing = string(audio.Listening)
)

// voice runs microphone → VAD → whisper → Core. A missing model, a missing
// microphone or a lost device are states shown to the lawyer, never errors
// that stop Spirit.
type voice struct {
	core *Core
	log  *slog.Logger

	mu      sync.Mutex
	state   string
	detail  string
	capture *audio.Capture
	done    chan struct{}
}

// startVoice starts listening in the background; it returns at once.
func startVoice(ctx context.Context, c *Core, dataDir string) *voice {
	v := &voice{core: c, log: c.log, done: make(chan struct{})}
	v.set(voiceLoading, "")
	go func() {
		defer close(v.done)
		v.run(ctx, dataDir)
	}()
	return v
}

func (v *voice) set(state, detail string) {
	v.mu.Lock()
	changed := v.state != state || v.detail != detail
	v.state, v.detail = state, detail
	v.mu.Unlock()
	if changed {
		v.core.voiceChanged()
	}
}

// State is the voice state and a detail for /health and the tray.
func (v *voice) State() (string, string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state, v.detail
}

func (v *voice) run(ctx context.Context, dataDir string) {
	store := v.core.store
	pref, _, _ := store.Setting(ctx, settingVoiceModel)
	path, err := model.Find(dataDir, pref)
	if err != nil {
		v.set(voiceNoModel, "run `spirit model download "+model.Default+"`")
		v.log.Warn("voice is off: no speech model", "fix", "spirit model download "+model.Default)
		return
	}
	opts := whisper.Options{}
	if s, ok, _ := store.Setting(ctx, settingVoiceThreads); ok {
		opts.Threads, _ = strconv.Atoi(s)
	}
	tr, err := whisper.Load(ctx, path, opts)
	if err != nil {
		v.set(voiceFailed, err.Error())
		v.log.Error("voice is off: speech model failed to load", "model", path, "err", err)
		return
	}
	defer tr.Close()

	device, _, _ := store.Setting(ctx, settingVoiceDevice)
	capture := audio.Microphone(device)
	capture.Logger = v.log
	capture.OnStatus = func(s audio.Status) {
		detail := s.Detail
		if s.Err != nil && detail == "" {
			detail = s.Err.Error()
		}
		v.set(string(s.State), detail)
	}
	if v.core.Status().ListeningPaused {
		capture.Pause() // before Open: the microphone is never opened
		v.set(string(audio.Paused), "")
	}
	v.mu.Lock()
	v.capture = capture
	v.mu.Unlock()
	l := &listen.Listener{
		Source:      capture,
		Transcriber: whisper.Text{T: tr},
		Logger:      v.log,
		// The orb pulses while speech is heard; Hearing only queues a UI
		// update, so the reading goroutine is not held up.
		OnSpeech: func(on bool) {
			if p := v.core.ui(); p != nil {
				p.Hearing(on)
			}
		},
		OnHeard: func(h listen.Heard) {
			hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := v.core.Heard(hctx, h.Text, h.At); err != nil {
				v.log.Error("act on what was heard", "err", err)
			}
		},
	}
	// The listener opens the capture; a missing microphone is a state, retried.
	v.log.Info("voice on", "model", path, "device", device)
	err = l.Run(ctx)
	// A listener that stops mid-speech never reports its end: stop the pulse.
	if p := v.core.ui(); p != nil {
		p.Hearing(false)
	}
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		v.set(voiceStopped, err.Error())
		v.log.Error("listening stopped", "err", err)
	}
}

// setPaused closes or reopens the microphone.
func (v *voice) setPaused(paused bool) {
	v.mu.Lock()
	c := v.capture
	v.mu.Unlock()
	if c == nil {
		return
	}
	if paused {
		c.Pause() // returns once the device is closed
	} else {
		c.Resume()
	}
}

// wait blocks until the pipeline has stopped, at most until ctx ends.
func (v *voice) wait(ctx context.Context) error {
	select {
	case <-v.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("voice did not stop: %w", ctx.Err())
	}
}
