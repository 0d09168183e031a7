// Package whisper transcribes short utterances on the device with whisper.cpp.
//
// One model is loaded once and reused for every utterance. Each call pays
// only for the audio it is given: whisper pads its input to a 30 s window by
// default, so a 3 s command would cost as much as 30 s of speech; here the
// encoder context (audio_ctx) is cut to the utterance's length plus a short
// margin of silence.
//
// Building needs the static whisper.cpp 1.9.1 libraries: `make whisper`
// builds them once into ~/.cache/spirit and the Makefile passes their paths
// to every go command through C_INCLUDE_PATH and LIBRARY_PATH.
package whisper

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	binding "github.com/ggerganov/whisper.cpp/bindings/go"

	"github.com/spirit-app/spirit/voice/whisper/internal/modelfile"
)

// SampleRate is the only rate whisper accepts: 16 kHz mono float32 in [-1, 1].
const SampleRate = 16000

const (
	// hopSamples is the mel frame step (10 ms); each encoder position sees
	// two frames (20 ms).
	hopSamples = 160
	// ctxMargin is how many encoder positions of trailing silence (0.64 s)
	// the model sees after the utterance, so that speech is not cut at the
	// edge of its window. whisper.cpp pads the audio with zeros, so those
	// positions are real silence, not garbage.
	ctxMargin = 32
	// minSamples: whisper.cpp returns nothing for less than 100 ms.
	minSamples = SampleRate / 10
)

// ErrClosed is returned by Transcribe after Close.
var ErrClosed = errors.New("whisper: transcriber closed")

// Options tune a Transcriber. The zero value is usable.
type Options struct {
	// Threads for the encoder and decoder; default min(4, NumCPU).
	Threads int
	// Language is an ISO 639-1 code ("en", "de", ...) or "auto" to detect
	// it per utterance (multilingual models only; it costs an extra encoder
	// pass). Default "en". English-only (.en) models accept only "en".
	Language string
	// FullWindow makes every call pay for a full 30 s window, as whisper
	// does by default. Only for comparisons, or if a model turns out to
	// transcribe short windows worse.
	FullWindow bool
	// MaxTokens caps the text tokens decoded per utterance, so that a
	// decoder stuck in a repetition loop stops. Default 16 plus 6 per second
	// of audio: speech runs at 3 to 5 tokens per second. With 1, whisper.cpp
	// still decodes 2.
	MaxTokens int
}

func (o Options) withDefaults() Options {
	if o.Threads <= 0 {
		o.Threads = min(4, runtime.NumCPU())
	}
	o.Language = strings.ToLower(strings.TrimSpace(o.Language))
	if o.Language == "" {
		o.Language = "en"
	}
	return o
}

// Result is one transcription.
type Result struct {
	// Text is the transcript, trimmed, segments joined by one space. It is
	// empty for silence and for known hallucinations (see Dropped).
	Text string
	// Dropped holds what whisper produced when IsHallucination rejected it.
	Dropped string
	// Audio is the length of the input.
	Audio time.Duration
	// Compute is the wall time spent in whisper.cpp (mel, encoder, decoder).
	Compute time.Duration
	// AudioCtx is the number of encoder positions used (20 ms each); the
	// model's full window is 1500 (30 s).
	AudioCtx int
	// Tokens is the number of text tokens decoded.
	Tokens int
}

// RTF is the real-time factor: seconds of compute per second of audio.
func (r Result) RTF() float64 {
	if r.Audio <= 0 {
		return 0
	}
	return r.Compute.Seconds() / r.Audio.Seconds()
}

// Transcriber owns one loaded model. Its methods are safe for concurrent
// use; transcriptions run one at a time because a whisper context is not
// reentrant.
type Transcriber struct {
	// lock is a one-slot semaphore used as a mutex that a waiting caller
	// can give up on when its context ends. It guards wctx.
	lock    chan struct{}
	wctx    *binding.Context // nil once closed
	abort   abortFlag
	closing atomic.Bool // set by the first Close, before it waits for lock
	cleanup runtime.Cleanup

	opts     Options
	hp       modelfile.HParams
	langID   int // -1: detect
	modelCtx int // the model's n_audio_ctx
}

// Load reads the ggml whisper model at modelPath (e.g. ggml-base.en.bin).
// The file is checked in Go first, so a missing, foreign or damaged file is
// an error and cannot crash the process inside whisper.cpp. Loading takes
// from 0.1 s to a few seconds and cannot be interrupted once whisper.cpp has
// started; ctx is checked before and after.
func Load(ctx context.Context, modelPath string, opts Options) (*Transcriber, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	hp, err := modelfile.Check(modelPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("whisper: model file %s does not exist (download ggml-base.en.bin from the whisper.cpp model repository): %w", modelPath, err)
	case errors.Is(err, modelfile.ErrNotModel):
		return nil, fmt.Errorf("whisper: %s is not a whisper.cpp ggml model: %w", modelPath, err)
	case err != nil:
		return nil, fmt.Errorf("whisper: unusable model file: %w", err)
	}

	lang := opts.Language
	if !hp.Multilingual() {
		if lang != "en" && lang != "auto" {
			return nil, fmt.Errorf("whisper: %s is an English-only model; language %q needs a multilingual one", modelPath, lang)
		}
		// Detection fails on an English-only model; it can only be English.
		lang = "en"
	}
	langID := -1
	if lang != "auto" {
		if langID = languageID(lang); langID < 0 {
			return nil, fmt.Errorf("whisper: unknown language %q (want an ISO 639-1 code such as \"de\", or \"auto\")", lang)
		}
	}

	quietLogs()
	wctx := binding.Whisper_init(modelPath)
	if wctx == nil {
		return nil, fmt.Errorf("whisper: whisper.cpp could not load %s (see its log on stderr)", modelPath)
	}
	t := &Transcriber{
		lock:     make(chan struct{}, 1),
		wctx:     wctx,
		abort:    newAbortFlag(),
		opts:     opts,
		hp:       hp,
		langID:   langID,
		modelCtx: wctx.Whisper_n_audio_ctx(),
	}
	// A Transcriber dropped without Close would leak the model (hundreds of
	// MB of C memory); free it when the Go value is collected.
	t.cleanup = runtime.AddCleanup(t, func(c cRes) { c.free() }, cRes{wctx, t.abort})
	if err := ctx.Err(); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// cRes are a Transcriber's C resources.
type cRes struct {
	wctx  *binding.Context
	abort abortFlag
}

func (c cRes) free() {
	c.wctx.Whisper_free()
	c.abort.free()
}

// Transcribe transcribes samples: 16 kHz mono float32, one utterance
// (typically 1 to 15 s; longer input is processed in 30 s windows). It
// returns when the transcript is ready or soon after ctx ends: whisper.cpp
// stops at the end of the encoder pass or decoder step in progress (for a
// short utterance, a fraction of a second). Less than 100 ms of audio gives
// an empty transcript.
func (t *Transcriber) Transcribe(ctx context.Context, samples []float32) (Result, error) {
	res := Result{Audio: time.Duration(len(samples)) * time.Second / SampleRate}
	select {
	case t.lock <- struct{}{}:
	case <-ctx.Done():
		return res, ctx.Err()
	}
	defer func() { <-t.lock }()
	if t.wctx == nil {
		return res, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if len(samples) < minSamples {
		return res, nil
	}

	seconds := float64(len(samples)) / SampleRate
	p := t.wctx.Whisper_full_default_params(binding.SAMPLING_GREEDY)
	p.SetThreads(t.opts.Threads)
	if err := p.SetLanguage(t.langID); err != nil {
		return res, fmt.Errorf("whisper: language %q: %w", t.opts.Language, err)
	}
	p.SetTranslate(false)
	p.SetNoContext(true)     // utterances are independent commands
	p.SetSingleSegment(true) // one utterance, one segment
	p.SetTemperature(0)
	p.SetTemperatureFallback(-1) // no retries at higher temperatures: bounded time
	p.SetTokenTimestamps(false)
	p.SetPrintProgress(false)
	p.SetPrintRealtime(false)
	p.SetPrintTimestamps(false)
	p.SetPrintSpecial(false)
	if !t.opts.FullWindow {
		res.AudioCtx = audioCtx(len(samples), t.modelCtx)
		p.SetAudioCtx(res.AudioCtx)
	}
	if res.AudioCtx == 0 {
		res.AudioCtx = t.modelCtx
	}
	maxTokens := t.opts.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 16 + int(6*seconds)
	}
	// whisper.cpp ends a segment once its step counter reaches max_tokens,
	// after sampling one more token; 0 would mean no limit.
	p.SetMaxTokensPerSegment(max(1, maxTokens-1))

	t.abort.reset()
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		t.abort.cancel()
		close(fired)
	})
	start := time.Now()
	rc := full(t.wctx, &p, samples, t.abort)
	res.Compute = time.Since(start)
	if !stop() {
		// The abort func has started (or is about to): wait for it, so it
		// cannot set the flag under the next call.
		<-fired
	}
	if rc != 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if t.closing.Load() {
			return res, ErrClosed
		}
		return res, fmt.Errorf("whisper: whisper_full failed with code %d", rc)
	}

	eot := t.wctx.Whisper_token_eot()
	var parts []string
	for i := range t.wctx.Whisper_full_n_segments() {
		if s := strings.TrimSpace(t.wctx.Whisper_full_get_segment_text(i)); s != "" {
			parts = append(parts, s)
		}
		for j := range t.wctx.Whisper_full_n_tokens(i) {
			if t.wctx.Whisper_full_get_token_id(i, j) < eot {
				res.Tokens++
			}
		}
	}
	res.Text = strings.Join(parts, " ")
	if IsHallucination(res.Text) {
		res.Dropped, res.Text = res.Text, ""
	}
	return res, nil
}

// audioCtx is the number of encoder positions that covers n samples plus
// ctxMargin, or 0 (the model's full window) when that would not be smaller.
func audioCtx(n, modelCtx int) int {
	frames := (n + hopSamples - 1) / hopSamples
	pos := (frames+1)/2 + ctxMargin
	if pos >= modelCtx {
		return 0
	}
	return pos
}

// languageID is whisper's id for an ISO 639-1 code, or -1.
func languageID(code string) int {
	for id := range binding.Whisper_lang_max_id() + 1 {
		if binding.Whisper_lang_str(id) == code {
			return id
		}
	}
	return -1
}

// Multilingual reports whether the model knows languages other than English.
func (t *Transcriber) Multilingual() bool { return t.hp.Multilingual() }

// Close aborts a transcription in progress (at its next encoder or decoder
// step), waits for it and frees the model. Calling it again does nothing.
func (t *Transcriber) Close() error {
	if !t.closing.Swap(true) {
		// Only the first Close touches the flag: a later one could find
		// it freed.
		t.abort.close()
	}
	t.lock <- struct{}{}
	defer func() { <-t.lock }()
	if t.wctx == nil {
		return nil
	}
	t.cleanup.Stop()
	cRes{t.wctx, t.abort}.free()
	t.wctx = nil
	return nil
}

// Version is the whisper.cpp release this package is built and tested against.
const Version = "1.9.1"

// Text adapts a Transcriber to callers that want only the text, such as the
// listener's Transcriber interface.
type Text struct{ T *Transcriber }

// Transcribe returns the transcript of samples (16 kHz mono).
func (w Text) Transcribe(ctx context.Context, samples []float32) (string, error) {
	r, err := w.T.Transcribe(ctx, samples)
	return r.Text, err
}
