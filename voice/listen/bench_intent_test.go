package listen_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/intent"
	"github.com/spirit-app/spirit/voice/listen"
	"github.com/spirit-app/spirit/voice/whisper"
	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

// TestBenchSpeechToIntent measures end of speech → intent: espeak commands
// played in real time through VAD, whisper with base.en's dimensions on two
// threads, and the grammar. The clock starts when the last spoken sample
// reaches the listener and stops when the intent is parsed, so it includes
// the VAD's 400 ms of hangover: the honest wait a lawyer sees.
func TestBenchSpeechToIntent(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs benchmarks")
	}
	model := filepath.Join(t.TempDir(), "base.en.bin")
	if err := whispertest.WriteModel(model, whispertest.BaseEnDims()); err != nil {
		t.Fatal(err)
	}
	// A random-weight model never ends its text by itself: cap decoding at
	// the length of a real spoken command (about 14 tokens).
	tr, err := whisper.Load(t.Context(), model, whisper.Options{Threads: 2, MaxTokens: 14})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()

	phrases := []string{
		"remind me to call Marcy Howard tomorrow at three",
		"pause listening",
		"remind me to file the motion to compel at five",
		"never mind",
		"draft a reply to Marcy about the SNDA",
	}
	var segs []audiotest.Segment
	for _, p := range phrases {
		segs = append(segs, audiotest.Segment{Gap: 1500 * time.Millisecond, Clip: audiotest.Speak(t, p)})
	}
	x, truth := audiotest.Compose(segs, 2*time.Second)
	path := filepath.Join(t.TempDir(), "commands.wav")
	if err := audiotest.WriteWAV(path, x, audio.SampleRate); err != nil {
		t.Fatal(err)
	}

	var (
		mu        sync.Mutex
		latencies []time.Duration
		start     time.Time
	)
	src := &startClock{WAVSource: &audio.WAVSource{Path: path, Paced: true}, started: &start}
	l := &listen.Listener{
		Source:      src,
		Transcriber: whisper.Text{T: tr},
		OnHeard: func(h listen.Heard) {
			_ = intent.Parse(h.Text, time.Now())
			done := time.Now()
			mu.Lock()
			defer mu.Unlock()
			// The utterance whose true extent contains the heard start.
			for _, iv := range truth {
				if h.Start < iv.End && h.End > iv.Start {
					latencies = append(latencies, done.Sub(start.Add(iv.End)))
					return
				}
			}
		},
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := l.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if len(latencies) < len(phrases)-1 {
		t.Fatalf("heard %d of %d commands", len(latencies), len(phrases))
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	t.Logf("latencies: %v", latencies)
	fmt.Printf("BENCH speech_to_intent_ms %.0f ms\n", float64(latencies[len(latencies)/2].Microseconds())/1000)
}

// startClock records when the paced source began to play.
type startClock struct {
	*audio.WAVSource
	started *time.Time
	once    sync.Once
}

func (s *startClock) Read(ctx context.Context, buf []float32) (int, error) {
	s.once.Do(func() { *s.started = time.Now() })
	return s.WAVSource.Read(ctx, buf)
}
