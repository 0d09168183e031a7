package listen_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/listen"
)

func TestMain(m *testing.M) { audiotest.Main(m) }

// noLeaks fails t if a goroutine started during it outlives it. It is
// registered first, so it runs after every other cleanup (the listener's
// stop included). A per-test check rather than goleak.VerifyTestMain:
// audiotest.Main must run first (the binary is re-executed as the capture
// helper and the JACK player) and takes the *testing.M itself.
func noLeaks(t *testing.T) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t) })
}

// fakeTranscriber is the edge of these tests: it counts calls and records
// how much audio each got, and "hears" the call number.
type fakeTranscriber struct {
	mu      sync.Mutex
	lengths []int
	calls   chan int // receives the call count after each call, if set
}

func (f *fakeTranscriber) Transcribe(ctx context.Context, samples []float32) (string, error) {
	f.mu.Lock()
	f.lengths = append(f.lengths, len(samples))
	n := len(f.lengths)
	f.mu.Unlock()
	if f.calls != nil {
		f.calls <- n
	}
	return fmt.Sprintf(" utterance %d ", n), nil
}

func (f *fakeTranscriber) Lengths() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.lengths...)
}

var phrases = []string{
	"Remind me to file the motion by Thursday.",
	"Call Mister Alvarez about the settlement offer.",
	"Pause listening.",
}

var gaps = []time.Duration{1500 * time.Millisecond, 2 * time.Second, 1200 * time.Millisecond}

func speech(t *testing.T) ([]float32, []audiotest.Interval) {
	t.Helper()
	var segs []audiotest.Segment
	for i, p := range phrases {
		segs = append(segs, audiotest.Segment{Gap: gaps[i], Clip: audiotest.Speak(t, p)})
	}
	return audiotest.Compose(segs, 2*time.Second)
}

func wavFile(t *testing.T, x []float32) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.wav")
	if err := audiotest.WriteWAV(path, x, audio.SampleRate); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestListenerTranscribesEachUtterance(t *testing.T) {
	noLeaks(t)
	x, truth := speech(t)
	audiotest.AddNoise(x, -50, 5)
	tr := &fakeTranscriber{}
	var heard []listen.Heard
	var speechEvents []bool
	l := &listen.Listener{
		Source:      &audio.WAVSource{Path: wavFile(t, x)},
		Transcriber: tr,
		OnHeard:     func(h listen.Heard) { heard = append(heard, h) },
		OnSpeech:    func(s bool) { speechEvents = append(speechEvents, s) },
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := l.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(heard) != len(truth) {
		t.Fatalf("heard %d utterances, want %d: %+v", len(heard), len(truth), heard)
	}
	lengths := tr.Lengths()
	for i, h := range heard {
		if want := fmt.Sprintf("utterance %d", i+1); h.Text != want {
			t.Errorf("heard[%d].Text = %q, want %q (trimmed)", i, h.Text, want)
		}
		if d := h.Start - truth[i].Start; d < -100*time.Millisecond || d > 100*time.Millisecond {
			t.Errorf("heard[%d] starts at %v, truth %v", i, h.Start, truth[i])
		}
		if d := h.End - truth[i].End; d < -100*time.Millisecond || d > 100*time.Millisecond {
			t.Errorf("heard[%d] ends at %v, truth %v", i, h.End, truth[i])
		}
		// The transcriber got the speech plus some pre-roll and tail, not
		// the silence around it.
		speech := audio.Samples(truth[i].End - truth[i].Start)
		if got := int64(lengths[i]); got < speech || got > speech+audio.Samples(700*time.Millisecond) {
			t.Errorf("utterance %d: transcriber got %v of audio for %v of speech",
				i, audio.Duration(got), truth[i].End-truth[i].Start)
		}
		if h.At.IsZero() {
			t.Errorf("heard[%d].At not set", i)
		}
	}
	if len(speechEvents) != 2*len(truth) {
		t.Errorf("OnSpeech events %v, want start/stop per utterance", speechEvents)
	}
	if p := l.Position(); p != audio.Duration(int64(len(x))) {
		t.Errorf("Position() = %v, want %v", p, audio.Duration(int64(len(x))))
	}
}

// TestListenerNeverTranscribesSilence: a minute of silence, and a minute of
// low room noise, cost no transcription at all.
func TestListenerNeverTranscribesSilence(t *testing.T) {
	noLeaks(t)
	for _, db := range []float64{0, -55, -45} {
		x := make([]float32, 60*audio.SampleRate)
		if db < 0 {
			audiotest.AddNoise(x, db, 6)
		}
		tr := &fakeTranscriber{}
		l := &listen.Listener{Source: &audio.WAVSource{Path: wavFile(t, x)}, Transcriber: tr}
		if err := l.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := len(tr.Lengths()); n != 0 {
			t.Errorf("60 s at %v dBFS: %d transcription calls, want 0", db, n)
		}
	}
}

// gapSource plays x, reporting audio.ErrGap after the first cut samples, as
// Capture does when the microphone was paused or replaced.
type gapSource struct {
	x   []float32
	cut int
	pos int
	gap bool
}

func (s *gapSource) Open(context.Context) error { return nil }
func (s *gapSource) Close() error               { return nil }
func (s *gapSource) Name() string               { return "gap" }
func (s *gapSource) Read(_ context.Context, buf []float32) (int, error) {
	if s.pos == s.cut && !s.gap {
		s.gap = true
		return 0, audio.ErrGap
	}
	end := len(s.x)
	if s.pos < s.cut {
		end = s.cut
	}
	if s.pos == len(s.x) {
		return 0, errors.New("EOF") // unlike io.EOF, this is a failure
	}
	n := copy(buf, s.x[s.pos:end])
	s.pos += n
	return n, nil
}

// TestListenerDropsHalfHeardSpeechAtGap: speech cut by a pause is not glued
// to whatever follows, and a failing source ends Run with its error.
func TestListenerDropsHalfHeardSpeechAtGap(t *testing.T) {
	noLeaks(t)
	x, truth := speech(t)
	cut := int(audio.Samples((truth[1].Start + truth[1].End) / 2)) // mid phrase 2
	tr := &fakeTranscriber{}
	var heard []listen.Heard
	l := &listen.Listener{
		Source:      &gapSource{x: x, cut: cut},
		Transcriber: tr,
		OnHeard:     func(h listen.Heard) { heard = append(heard, h) },
	}
	err := l.Run(context.Background())
	if err == nil || err.Error() != "listen: read gap: EOF" {
		t.Errorf("Run = %v, want the source's failure", err)
	}
	// Phrase 1 whole; phrase 2's second half may or may not be long enough
	// to count, but it starts after the gap; phrase 3 whole.
	for _, h := range heard {
		if h.Start < audio.Duration(int64(cut)) && h.End > audio.Duration(int64(cut)) {
			t.Errorf("utterance [%v, %v] spans the gap at %v", h.Start, h.End, audio.Duration(int64(cut)))
		}
	}
	if len(heard) < 2 {
		t.Errorf("heard %d utterances, want at least phrases 1 and 3", len(heard))
	}
}
