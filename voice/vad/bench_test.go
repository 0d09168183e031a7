package vad_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/vad"
)

// TestBenchVAD measures how many times faster than real time the detector
// segments 10 minutes of mixed audio: speech with gaps, noisy speech, and
// long stretches of room noise and silence. make bench runs it.
func TestBenchVAD(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("SPIRIT_BENCH=1 runs benchmarks")
	}
	clean, _ := speechStream(t, 0)
	noisy, _ := speechStream(t, -45)
	var x []float32
	for len(x) < 10*60*audio.SampleRate {
		x = append(x, clean...)
		x = append(x, noisy...)
		room := make([]float32, 30*audio.SampleRate)
		audiotest.AddNoise(room, -55, uint64(len(x)))
		x = append(x, room...)
		x = append(x, make([]float32, 20*audio.SampleRate)...)
	}
	x = x[:10*60*audio.SampleRate]

	best := time.Duration(1 << 62)
	var utts int
	for range 3 {
		d := vad.New(vad.Config{})
		start := time.Now()
		utts = 0
		for i := 0; i < len(x); i += 1024 {
			utts += len(d.Write(x[i:min(i+1024, len(x))]))
		}
		utts += len(d.Flush())
		best = min(best, time.Since(start))
	}
	rt := audio.Duration(int64(len(x)))
	t.Logf("%v of audio segmented in %v: %d utterances", rt, best, utts)
	fmt.Printf("BENCH vad_x_realtime %.0f x\n", rt.Seconds()/best.Seconds())
}
