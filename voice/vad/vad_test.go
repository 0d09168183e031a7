package vad_test

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"github.com/spirit-app/spirit/voice/vad"
)

// phrases are what a lawyer might say to Spirit.
var phrases = []string{
	"Remind me to call the client tomorrow at nine.",
	"Draft a reply to opposing counsel about the deposition schedule.",
	"Pause listening.",
	"What is on my calendar for Friday afternoon?",
	"Yes.",
}

// gaps precede each phrase; some are shorter than a breath, some long.
var gaps = []time.Duration{1500 * time.Millisecond, 1200 * time.Millisecond, 2 * time.Second, 800 * time.Millisecond, 1500 * time.Millisecond}

// speechStream returns phrases laid out with gaps, through a WAV file and
// the WAV reader as a real recording would come, and the truth.
func speechStream(t *testing.T, noiseDB float64) ([]float32, []audiotest.Interval) {
	t.Helper()
	var segs []audiotest.Segment
	for i, p := range phrases {
		segs = append(segs, audiotest.Segment{Gap: gaps[i], Clip: audiotest.Speak(t, p)})
	}
	x, truth := audiotest.Compose(segs, 2*time.Second)
	if noiseDB < 0 {
		audiotest.AddNoise(x, noiseDB, 1)
	}
	path := filepath.Join(t.TempDir(), "stream.wav")
	if err := audiotest.WriteWAV(path, x, audio.SampleRate); err != nil {
		t.Fatal(err)
	}
	y, err := audio.ReadWAVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return y, truth
}

// segment feeds x to a Detector in chunks of odd size, as a device would.
func segment(d *vad.Detector, x []float32) []vad.Utterance {
	var out []vad.Utterance
	for len(x) > 0 {
		n := min(len(x), 1023)
		out = append(out, d.Write(x[:n])...)
		x = x[n:]
	}
	return append(out, d.Flush()...)
}

func TestBoundaries(t *testing.T) {
	const tolerance = 100 * time.Millisecond
	for _, c := range []struct {
		name    string
		noiseDB float64
	}{
		{"clean", 0},
		{"noise -55 dBFS", -55},
		{"noise -45 dBFS", -45},
		{"noise -40 dBFS", -40}, // espeak speaks at about -20 dBFS RMS: 20 dB SNR
	} {
		t.Run(c.name, func(t *testing.T) {
			x, truth := speechStream(t, c.noiseDB)
			utts := segment(vad.New(vad.Config{}), x)
			if len(utts) != len(truth) {
				for _, u := range utts {
					t.Logf("got %v-%v", u.Start, u.End)
				}
				t.Fatalf("%d utterances, want %d (truth %v)", len(utts), len(truth), truth)
			}
			var worstStart, worstEnd time.Duration
			for i, u := range utts {
				ds, de := u.Start-truth[i].Start, u.End-truth[i].End
				worstStart = max(worstStart, abs(ds))
				worstEnd = max(worstEnd, abs(de))
				t.Logf("utterance %d: truth %v, got [%v, %v]: start %+v, end %+v", i, truth[i],
					u.Start, u.End, ds.Round(time.Millisecond), de.Round(time.Millisecond))
				if abs(ds) > tolerance || abs(de) > tolerance {
					t.Errorf("utterance %d: [%v, %v], truth %v: off by more than %v", i, u.Start, u.End, truth[i], tolerance)
				}
				// The audio handed on covers the speech, with pre-roll.
				if u.SamplesStart > u.Start || u.SamplesStart+audio.Duration(int64(len(u.Samples))) < u.End {
					t.Errorf("utterance %d: samples [%v +%d] do not cover the speech", i, u.SamplesStart, len(u.Samples))
				}
				if u.Start-u.SamplesStart < 200*time.Millisecond && u.SamplesStart > 0 {
					t.Errorf("utterance %d: only %v of pre-roll", i, u.Start-u.SamplesStart)
				}
			}
			t.Logf("worst start error %v, worst end error %v", worstStart, worstEnd)
		})
	}
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

func TestSilenceAndNoiseAreNotSpeech(t *testing.T) {
	for _, db := range []float64{0, -60, -50, -40, -30} {
		x := make([]float32, 60*audio.SampleRate)
		if db < 0 {
			audiotest.AddNoise(x, db, 2)
		}
		if utts := segment(vad.New(vad.Config{}), x); len(utts) != 0 {
			t.Errorf("60 s of noise at %v dBFS: %d utterances, first at %v", db, len(utts), utts[0].Start)
		}
	}
}

func TestMaxUtteranceSplits(t *testing.T) {
	// 9 s of continuous "speech" (a tone whose loudness swings at a
	// syllable rate) with a 5 s cap: two pieces that together cover it,
	// split where the level dips lowest in the last second before the cap.
	x := make([]float32, 12*audio.SampleRate)
	for i := audio.SampleRate; i < 10*audio.SampleRate; i++ {
		sec := float64(i) / audio.SampleRate
		amp := 0.3 * (0.6 + 0.4*math.Sin(2*math.Pi*4*sec))
		if i >= 5*audio.SampleRate+8000 && i < 5*audio.SampleRate+8000+800 {
			amp = 0.01 // a 50 ms dip at 5.5 s
		}
		x[i] = float32(amp * math.Sin(2*math.Pi*200*sec))
	}
	utts := segment(vad.New(vad.Config{MaxUtterance: 5 * time.Second}), x)
	if len(utts) != 2 {
		t.Fatalf("%d utterances, want 2", len(utts))
	}
	if utts[0].Start != time.Second || utts[0].End != utts[1].Start || utts[1].End != 10*time.Second {
		t.Errorf("pieces [%v %v] [%v %v]; want 1s…cut…10s", utts[0].Start, utts[0].End, utts[1].Start, utts[1].End)
	}
	if cut := utts[0].End; cut < 5500*time.Millisecond || cut > 5560*time.Millisecond {
		t.Errorf("cut at %v, want in the dip at 5.5 s", cut)
	}
}

// TestNoiseSwitchingOn: a fan starts in a silent room. The step is not
// speech; speech over the new noise still is.
func TestNoiseSwitchingOn(t *testing.T) {
	clip := audiotest.Speak(t, phrases[0])
	x, truth := audiotest.Compose([]audiotest.Segment{{Gap: 10 * time.Second, Clip: clip}}, 3*time.Second)
	audiotest.AddNoise(x[3*audio.SampleRate:], -40, 4)
	utts := segment(vad.New(vad.Config{}), x)
	if len(utts) != 1 {
		for _, u := range utts {
			t.Logf("got [%v, %v]", u.Start, u.End)
		}
		t.Fatalf("%d utterances, want 1 at %v", len(utts), truth[0])
	}
	if d := abs(utts[0].Start - truth[0].Start); d > 100*time.Millisecond {
		t.Errorf("speech at %v, truth %v", utts[0].Start, truth[0])
	}
}

func TestMinSpeechDropsClicks(t *testing.T) {
	x := make([]float32, 3*audio.SampleRate)
	for i := audio.SampleRate; i < audio.SampleRate+1600; i++ { // 100 ms
		x[i] = 0.3
	}
	if utts := segment(vad.New(vad.Config{}), x); len(utts) != 0 {
		t.Errorf("a 100 ms click became %d utterances", len(utts))
	}
}

func TestSilenceDoesNotAllocate(t *testing.T) {
	d := vad.New(vad.Config{})
	x := make([]float32, 320*5)
	audiotest.AddNoise(x, -60, 3)
	d.Write(x) // calibrate
	if a := testing.AllocsPerRun(1000, func() { d.Write(x) }); a != 0 {
		t.Errorf("%v allocations per 100 ms of silence", a)
	}
}
