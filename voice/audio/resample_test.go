package audio

import (
	"math"
	"math/rand/v2"
	"testing"
)

func sine(rate int, freq, amp float64, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return x
}

// resampleChunked feeds x in random-sized chunks, as a device would.
func resampleChunked(t *testing.T, r *Resampler, x []float32, seed uint64) []float32 {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 1))
	var out []float32
	for len(x) > 0 {
		n := min(len(x), 1+rnd.IntN(3000))
		out = r.Process(out, x[:n])
		x = x[n:]
	}
	return r.Flush(out)
}

func TestResamplerTone(t *testing.T) {
	for _, rate := range []int{8000, 11025, 16000, 22050, 44100, 48000, 96000, 44056} {
		r, err := NewResampler(rate, SampleRate)
		if err != nil {
			t.Fatal(err)
		}
		in := sine(rate, 440, 0.5, rate) // 1 s
		out := resampleChunked(t, r, in, uint64(rate))
		if len(out) != SampleRate {
			t.Errorf("%d Hz: %d output samples for 1 s, want %d", rate, len(out), SampleRate)
		}
		// Away from the edges the output must be the same tone, in phase:
		// no delay, no gain change.
		want := sine(SampleRate, 440, 0.5, len(out))
		var maxErr float64
		for i := 800; i < len(out)-800; i++ {
			maxErr = max(maxErr, math.Abs(float64(out[i]-want[i])))
		}
		if maxErr > 0.005 {
			t.Errorf("%d Hz: max deviation from ideal 440 Hz tone %.4f, want < 0.005", rate, maxErr)
		}
	}
}

func TestResamplerRejectsAliases(t *testing.T) {
	// 12 kHz cannot exist at 16 kHz: it must be filtered, not folded to 4 kHz.
	r, _ := NewResampler(48000, SampleRate)
	out := resampleChunked(t, r, sine(48000, 12000, 0.5, 48000), 7)
	var sum float64
	for _, v := range out[1000 : len(out)-1000] {
		sum += float64(v) * float64(v)
	}
	rms := math.Sqrt(sum / float64(len(out)-2000))
	if db := 20 * math.Log10(rms/(0.5/math.Sqrt2)); db > -60 {
		t.Errorf("12 kHz tone at 48 kHz leaks into 16 kHz output at %.1f dB, want < -60 dB", db)
	}
}

func TestResamplerStreamingMatchesBatch(t *testing.T) {
	in := sine(44100, 1000, 0.3, 44100/2)
	r1, _ := NewResampler(44100, SampleRate)
	batch := r1.Flush(r1.Process(nil, in))
	r2, _ := NewResampler(44100, SampleRate)
	chunked := resampleChunked(t, r2, in, 3)
	if len(batch) != len(chunked) {
		t.Fatalf("batch %d samples, chunked %d", len(batch), len(chunked))
	}
	for i := range batch {
		if batch[i] != chunked[i] {
			t.Fatalf("sample %d: batch %v, chunked %v", i, batch[i], chunked[i])
		}
	}
}

func TestDownmix(t *testing.T) {
	got := Downmix(nil, []float32{1, 0, 0.5, 0.5, -1, 1}, 2)
	want := []float32{0.5, 0.5, 0}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Downmix = %v, want %v", got, want)
		}
	}
}

func BenchmarkResample48k(b *testing.B) {
	r, _ := NewResampler(48000, SampleRate)
	in := sine(48000, 440, 0.5, 4800)
	out := make([]float32, 0, 4096)
	b.SetBytes(int64(4 * len(in)))
	for b.Loop() {
		out = r.Process(out[:0], in)
	}
}
