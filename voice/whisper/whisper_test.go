package whisper

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

// model writes a random-weight model with dims into a temporary directory.
func model(t testing.TB, dims whispertest.Dims) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ggml-test.bin")
	if err := whispertest.WriteModel(path, dims); err != nil {
		t.Fatal(err)
	}
	return path
}

// mediumDims is big enough for the encoder to dominate the cost of a call
// (the mel spectrogram of the 30 s padding is a fixed ~10 ms), small enough
// to write and load in a fraction of a second.
func mediumDims() whispertest.Dims {
	d := whispertest.Tiny()
	d.AudioState, d.AudioHead, d.AudioLayer, d.TextHead = 256, 4, 2, 4
	return d
}

// speech is a deterministic voice-like signal: a 110-150 Hz glottal tone
// with harmonics, syllable-rate amplitude modulation and a little noise.
func speech(seconds float64) []float32 {
	rng := rand.New(rand.NewPCG(7, 7))
	out := make([]float32, int(seconds*SampleRate))
	phase := 0.0
	for i := range out {
		x := float64(i) / SampleRate
		f0 := 130 + 20*math.Sin(2*math.Pi*0.7*x)
		phase += 2 * math.Pi * f0 / SampleRate
		v := 0.0
		for h := 1.0; h <= 8; h++ {
			v += math.Sin(h*phase) / h
		}
		env := 0.5 + 0.5*math.Sin(2*math.Pi*4*x)
		out[i] = float32(0.2*env*v + 0.01*rng.NormFloat64())
	}
	return out
}

func load(t *testing.T, path string, opts Options) *Transcriber {
	t.Helper()
	tr, err := Load(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

func TestTranscribeTinyModel(t *testing.T) {
	tr := load(t, model(t, whispertest.Tiny()), Options{Threads: 2})
	wctx := tr.wctx
	for _, secs := range []float64{1, 3, 2} {
		// Bounded time: a hang or a runaway decoder fails here, not at the
		// package timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := tr.Transcribe(ctx, speech(secs))
		cancel()
		if err != nil {
			t.Fatalf("%gs: %v", secs, err)
		}
		// The text is junk by design; its shape is not.
		if res.Text != strings.TrimSpace(res.Text) {
			t.Errorf("%gs: text %q not trimmed", secs, res.Text)
		}
		if res.Audio != time.Duration(secs*float64(time.Second)) {
			t.Errorf("%gs: Audio = %v", secs, res.Audio)
		}
		if want := audioCtx(int(secs*SampleRate), 1500); res.AudioCtx != want {
			t.Errorf("%gs: AudioCtx = %d, want %d", secs, res.AudioCtx, want)
		}
		if max := 16 + int(6*secs); res.Tokens > max {
			t.Errorf("%gs: %d tokens, more than the cap %d", secs, res.Tokens, max)
		}
		if res.Compute <= 0 || res.RTF() <= 0 {
			t.Errorf("%gs: no timing: %+v", secs, res)
		}
		t.Logf("%gs: %d tokens in %v (RTF %.3f): %.60q", secs, res.Tokens, res.Compute, res.RTF(), res.Text)
		// One model context, loaded once, reused by every call.
		if tr.wctx != wctx {
			t.Fatalf("%gs: the whisper context changed", secs)
		}
	}
}

func TestTranscribeIsDeterministic(t *testing.T) {
	tr := load(t, model(t, whispertest.Tiny()), Options{Threads: 2})
	audio := speech(2)
	first, err := tr.Transcribe(context.Background(), audio)
	if err != nil {
		t.Fatal(err)
	}
	// No context is carried between utterances: the same audio gives the
	// same transcript again.
	second, err := tr.Transcribe(context.Background(), audio)
	if err != nil {
		t.Fatal(err)
	}
	if first.Text != second.Text || first.Tokens != second.Tokens {
		t.Errorf("same audio, different transcripts:\n%q\n%q", first.Text, second.Text)
	}
}

func TestTranscribeEdgeInputs(t *testing.T) {
	tr := load(t, model(t, whispertest.Tiny()), Options{})
	for _, n := range []int{0, 1, minSamples - 1} {
		res, err := tr.Transcribe(context.Background(), make([]float32, n))
		if err != nil || res.Text != "" {
			t.Errorf("%d samples: %+v, %v", n, res, err)
		}
	}
	// Longer than the 30 s window: whisper's own windowing, full context.
	res, err := tr.Transcribe(context.Background(), speech(31))
	if err != nil {
		t.Fatal(err)
	}
	if res.AudioCtx != 1500 {
		t.Errorf("31 s: AudioCtx = %d, want the full 1500", res.AudioCtx)
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.bin")
	data := make([]byte, 1<<16)
	for i := range data {
		data[i] = byte(i*7 + i>>8)
	}
	if err := os.WriteFile(garbage, data, 0o644); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(model(t, whispertest.Tiny()))
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.bin")
	if err := os.WriteFile(truncated, good[:len(good)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.bin")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		path, want string
		is         error
	}{
		{filepath.Join(dir, "ggml-base.en.bin"), "does not exist", fs.ErrNotExist},
		{garbage, "not a whisper.cpp ggml model", nil},
		{empty, "not a whisper.cpp ggml model", nil},
		{truncated, "truncated", nil},
		{dir, "not a regular file", nil},
	}
	for _, c := range cases {
		tr, err := Load(context.Background(), c.path, Options{})
		if err == nil {
			tr.Close()
			t.Errorf("%s: loaded", c.path)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not say %q", c.path, err, c.want)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v is not %v", c.path, err, c.is)
		}
	}
}

func TestLoadOptions(t *testing.T) {
	path := model(t, whispertest.Tiny())
	if _, err := Load(context.Background(), path, Options{Language: "de"}); err == nil || !strings.Contains(err.Error(), "English-only") {
		t.Errorf("German on an .en model: %v", err)
	}
	tr := load(t, path, Options{Language: "auto"}) // means English on an .en model
	if tr.Multilingual() {
		t.Error("tiny .en model claims to be multilingual")
	}
	if _, err := tr.Transcribe(context.Background(), speech(1)); err != nil {
		t.Error(err)
	}
	if tr.opts.Threads < 1 || tr.opts.Threads > 4 {
		t.Errorf("default threads = %d", tr.opts.Threads)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, path, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context: %v", err)
	}
}

func TestAudioCtx(t *testing.T) {
	cases := []struct{ samples, want int }{
		{0, ctxMargin},
		{160, 1 + ctxMargin},
		{320, 1 + ctxMargin},
		{321, 2 + ctxMargin},
		{SampleRate, 50 + ctxMargin},
		{3 * SampleRate, 150 + ctxMargin},
		{(1500 - ctxMargin - 1) * 320, 1499},
		{(1500 - ctxMargin) * 320, 0}, // would be the full window anyway
		{30 * SampleRate, 0},
		{60 * SampleRate, 0},
	}
	for _, c := range cases {
		if got := audioCtx(c.samples, 1500); got != c.want {
			t.Errorf("audioCtx(%d) = %d, want %d", c.samples, got, c.want)
		}
	}
}

// TestShortUtterancePaysLess shows the point of audio_ctx: 3 s of speech
// costs a fraction of what whisper's default 30 s window costs. Decoding is
// capped at one token so the encoder dominates both calls; the minimum of
// several runs resists a busy machine. The encoder does 8x less work
// (182 positions instead of 1500, and quadratically less attention); the
// test asks for only 2x.
func TestShortUtterancePaysLess(t *testing.T) {
	path := model(t, mediumDims())
	short := load(t, path, Options{Threads: 2, MaxTokens: 1})
	full := load(t, path, Options{Threads: 2, MaxTokens: 1, FullWindow: true})
	audio := speech(3)
	best := func(tr *Transcriber) (time.Duration, int) {
		b, ctxLen := time.Duration(math.MaxInt64), 0
		for range 5 {
			res, err := tr.Transcribe(context.Background(), audio)
			if err != nil {
				t.Fatal(err)
			}
			b, ctxLen = min(b, res.Compute), res.AudioCtx
		}
		return b, ctxLen
	}
	tFull, ctxFull := best(full)
	tShort, ctxShort := best(short)
	t.Logf("3 s of audio: %v with audio_ctx %d, %v with the 30 s window (%d): %.1fx",
		tShort, ctxShort, tFull, ctxFull, tFull.Seconds()/tShort.Seconds())
	if ctxShort != 182 || ctxFull != 1500 {
		t.Errorf("encoder positions: %d and %d, want 182 and 1500", ctxShort, ctxFull)
	}
	if 2*tShort > tFull {
		t.Errorf("3 s with audio_ctx took %v, not clearly less than %v with the 30 s window", tShort, tFull)
	}
}

func TestTranscribeCancel(t *testing.T) {
	tr := load(t, model(t, mediumDims()), Options{Threads: 2, FullWindow: true})
	long := speech(25) // hundreds of milliseconds of work

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Transcribe(ctx, long); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: %v", err)
	}

	uncut, err := tr.Transcribe(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), uncut.Compute/10)
	defer cancel()
	start := time.Now()
	_, err = tr.Transcribe(ctx, long)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled during: %v", err)
	}
	t.Logf("cancelled after %v; a full run takes %v", time.Since(start), uncut.Compute)

	// The abort is per call: the next one runs to the end.
	if _, err := tr.Transcribe(context.Background(), speech(1)); err != nil {
		t.Fatalf("after a cancelled call: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	path := model(t, whispertest.Tiny())
	a := load(t, path, Options{Threads: 1})
	b := load(t, path, Options{Threads: 1})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	// Two callers share a; b runs beside them with its own context.
	for _, tr := range []*Transcriber{a, a, b} {
		wg.Go(func() {
			for range 2 {
				if _, err := tr.Transcribe(context.Background(), speech(1)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestClose(t *testing.T) {
	tr, err := Load(context.Background(), model(t, mediumDims()), Options{Threads: 2, FullWindow: true})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := tr.Transcribe(context.Background(), speech(25))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v with a transcription running", time.Since(start))
	if err := <-done; err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("transcription interrupted by Close: %v, want ErrClosed or nil", err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := tr.Transcribe(context.Background(), speech(1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Transcribe after Close: %v", err)
	}
}
