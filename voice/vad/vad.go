// Package vad finds speech in a stream of audio: an adaptive energy voice
// activity detector in pure Go.
//
// The stream is cut into 20 ms frames. A frame's energy is compared with a
// noise floor that follows the background (down quickly, up slowly). Speech
// starts when a few consecutive frames rise OnDB above the floor and ends
// when no frame has been OffDB above it for Hangover; the gap between the
// two thresholds keeps the detector from chattering on a voice hovering at
// one level. The start is then walked back over the quieter frames that led
// up to the onset, so soft consonants are not cut off, and PreRoll of audio
// before it is kept for the recogniser. Utterances shorter than MinSpeech
// (clicks, coughs) are dropped; longer than MaxUtterance are split at the
// quietest recent frame.
//
// Silence costs one sum of squares and one logarithm per frame and no
// allocation.
package vad

import (
	"math"
	"time"
)

// Config tunes a Detector. Zero fields take the defaults in parentheses.
type Config struct {
	SampleRate   int           // Hz (16000)
	Frame        time.Duration // analysis frame (20 ms)
	OnDB         float64       // onset: dB above the noise floor (10)
	OffDB        float64       // still speech: dB above the noise floor (5)
	MinLevel     float64       // dBFS a frame must exceed to start speech, whatever the floor (-55)
	Onset        time.Duration // consecutive loud time that starts speech (40 ms)
	Hangover     time.Duration // quiet time that ends speech (400 ms)
	PreRoll      time.Duration // audio kept before the start (300 ms)
	Tail         time.Duration // audio kept after the end, at most Hangover (200 ms)
	MinSpeech    time.Duration // shorter speech is dropped (200 ms)
	MaxUtterance time.Duration // longer speech is split (25 s)
	Calibration  time.Duration // initial noise measurement, no speech detected (200 ms)
	// SteadyDB: when frame energies over the last Steady vary less than this
	// (standard deviation, dB) the sound is steady noise, not speech (2 dB
	// over 1 s). Speech always varies more: syllables, stops, breaths.
	SteadyDB float64
	Steady   time.Duration
}

func (c Config) withDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if c.SampleRate <= 0 {
		c.SampleRate = 16000
	}
	set(&c.Frame, 20*time.Millisecond)
	set(&c.Onset, 40*time.Millisecond)
	set(&c.Hangover, 400*time.Millisecond)
	set(&c.PreRoll, 300*time.Millisecond)
	set(&c.Tail, 200*time.Millisecond)
	set(&c.MinSpeech, 200*time.Millisecond)
	set(&c.MaxUtterance, 25*time.Second)
	set(&c.Calibration, 200*time.Millisecond)
	set(&c.Steady, time.Second)
	if c.SteadyDB <= 0 {
		c.SteadyDB = 2
	}
	if c.OnDB <= 0 {
		c.OnDB = 10
	}
	if c.OffDB <= 0 {
		c.OffDB = 5
	}
	if c.MinLevel == 0 {
		c.MinLevel = -55
	}
	c.Tail = min(c.Tail, c.Hangover)
	return c
}

// Utterance is one finished stretch of speech.
type Utterance struct {
	Start, End   time.Duration // the speech, as offsets from the stream start
	SamplesStart time.Duration // offset of Samples[0]: Start minus the pre-roll
	Samples      []float32     // the audio, with pre-roll and tail; owned by the receiver
}

// Duration is the length of the speech.
func (u Utterance) Duration() time.Duration { return u.End - u.Start }

// Detector segments one audio stream. It is not safe for concurrent use.
type Detector struct {
	cfg Config
	n   int // samples per frame

	onsetFrames, hangFrames, calFrames int
	steadyFrames                       int
	minFrames, maxFrames, tailFrames   int
	alphaDown, alphaUp, alphaUpSpeech  float64

	frame  []float32 // the frame being assembled
	fill   int
	frames int64 // frames completed since the stream start

	// Pre-roll ring: the last len(ringE) frames' samples and energies.
	ring  []float32
	ringE []float64
	ringN int // frames in the ring

	floor    float64
	calSum   float64
	calLeft  int // calibration frames still to measure
	run      int // consecutive frames above the onset threshold
	speaking bool
	start    int64 // first frame of the speech
	last     int64 // last frame above the off threshold
	uttFrom  int64 // frame of utt[0]
	utt      []float32
	uttE     []float64 // energies of the frames in utt

	out []Utterance
}

// New returns a Detector for a stream starting at offset 0.
func New(cfg Config) *Detector {
	cfg = cfg.withDefaults()
	n := int(int64(cfg.SampleRate) * int64(cfg.Frame) / int64(time.Second))
	frames := func(d time.Duration) int { return max(1, int((d+cfg.Frame-1)/cfg.Frame)) }
	fsec := cfg.Frame.Seconds()
	d := &Detector{
		cfg:          cfg,
		n:            n,
		onsetFrames:  frames(cfg.Onset),
		hangFrames:   frames(cfg.Hangover),
		calFrames:    frames(cfg.Calibration),
		steadyFrames: frames(cfg.Steady),
		minFrames:    frames(cfg.MinSpeech),
		maxFrames:    frames(cfg.MaxUtterance),
		tailFrames:   int(cfg.Tail / cfg.Frame),
		// The floor drops to a quieter background within about 100 ms but
		// takes seconds to rise, so speech does not raise it; during speech
		// it rises slower still, yet does rise, so that a noise that
		// switched on and stays does not read as one endless utterance.
		alphaDown:     1 - math.Exp(-fsec/0.1),
		alphaUp:       1 - math.Exp(-fsec/2),
		alphaUpSpeech: 1 - math.Exp(-fsec/20),
		frame:         make([]float32, n),
	}
	// Room for the onset run, a walk back over a soft start, and the
	// pre-roll before that.
	pre := frames(cfg.PreRoll) + d.onsetFrames + 10
	d.ring = make([]float32, pre*n)
	d.ringE = make([]float64, pre)
	d.Reset()
	return d
}

// Reset forgets any speech in progress and measures the noise floor afresh,
// for a stream that resumes after a gap or on another device. Offsets keep
// counting.
func (d *Detector) Reset() {
	d.ringN = 0
	d.floor, d.calSum = 0, 0
	d.run = 0
	d.speaking = false
	d.utt, d.uttE = d.utt[:0], d.uttE[:0]
	d.calLeft = d.calFrames
}

// Speaking reports whether an utterance is in progress.
func (d *Detector) Speaking() bool { return d.speaking }

// NoiseFloor returns the current noise floor estimate in dBFS.
func (d *Detector) NoiseFloor() float64 { return d.floor }

// Offset returns how much audio the detector has consumed.
func (d *Detector) Offset() time.Duration {
	return d.dur(d.frames*int64(d.n) + int64(d.fill))
}

func (d *Detector) dur(samples int64) time.Duration {
	return time.Duration(samples) * time.Second / time.Duration(d.cfg.SampleRate)
}

// Write consumes samples and returns the utterances that finished within
// them. The returned slice is reused by the next call; the Utterances'
// Samples are not.
func (d *Detector) Write(samples []float32) []Utterance {
	d.out = d.out[:0]
	for len(samples) > 0 {
		c := copy(d.frame[d.fill:], samples)
		d.fill += c
		samples = samples[c:]
		if d.fill == d.n {
			d.step()
			d.fill = 0
		}
	}
	return d.out
}

// Flush ends the stream: an utterance in progress finishes at the last
// complete frame. The detector is then Reset.
func (d *Detector) Flush() []Utterance {
	d.out = d.out[:0]
	if d.speaking {
		d.finish(d.last+1, min(d.last+1+int64(d.tailFrames), d.frames))
	}
	d.Reset()
	return d.out
}

func energyDB(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return 10 * math.Log10(s/float64(len(x))+1e-12)
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)))
}

// step processes the complete frame d.frame, number d.frames.
func (d *Detector) step() {
	e := energyDB(d.frame)
	f := d.frames
	d.frames++
	d.push(e)

	if d.calLeft > 0 {
		d.calSum += e
		d.calLeft--
		d.floor = d.calSum / float64(d.calFrames-d.calLeft)
		return
	}
	on := max(d.floor+d.cfg.OnDB, d.cfg.MinLevel)
	off := max(d.floor+d.cfg.OffDB, d.cfg.MinLevel-(d.cfg.OnDB-d.cfg.OffDB))

	if !d.speaking {
		if e > on {
			d.run++
			if d.run >= d.onsetFrames {
				d.begin(f, off)
			}
			return // a candidate onset does not move the floor
		}
		d.run = 0
		d.track(e, d.alphaUp)
		return
	}

	d.utt = append(d.utt, d.frame...)
	d.uttE = append(d.uttE, e)
	if e > off {
		d.last = f
	}
	d.track(e, d.alphaUpSpeech)
	if k := d.steadyFrames; len(d.uttE) >= k {
		if mean, sd := meanSD(d.uttE[len(d.uttE)-k:]); sd < d.cfg.SteadyDB {
			// A noise switched on (fan, air conditioning, hum): it is the
			// new floor, and whatever speech there was ended where it began.
			d.floor = mean
			d.last = min(d.last, f-int64(k))
		}
	}
	switch {
	case f-d.last >= int64(d.hangFrames):
		d.finish(d.last+1, min(d.last+1+int64(d.tailFrames), f+1))
	case f+1-d.start >= int64(d.maxFrames):
		d.split(f)
	}
}

// track moves the floor toward e: quickly down, at rate up when e is above.
func (d *Detector) track(e, up float64) {
	if e < d.floor {
		d.floor += (e - d.floor) * d.alphaDown
	} else {
		d.floor += (e - d.floor) * up
	}
}

// push adds the current frame to the pre-roll ring.
func (d *Detector) push(e float64) {
	k := len(d.ringE)
	i := int(d.frames-1) % k
	copy(d.ring[i*d.n:(i+1)*d.n], d.frame)
	d.ringE[i] = e
	d.ringN = min(d.ringN+1, k)
}

// begin starts an utterance confirmed at frame f. Its start is the first
// frame of the onset run, walked back over frames above the off threshold.
func (d *Detector) begin(f int64, off float64) {
	k := len(d.ringE)
	first := f - int64(d.ringN) + 1 // oldest frame in the ring
	start := f - int64(d.run) + 1
	for start > first && d.ringE[int(start-1)%k] > off {
		start--
	}
	pre := int64(d.cfg.PreRoll / d.cfg.Frame)
	from := max(first, start-pre)
	d.utt, d.uttE = d.utt[:0], d.uttE[:0]
	for g := from; g <= f; g++ {
		i := int(g) % k
		d.utt = append(d.utt, d.ring[i*d.n:(i+1)*d.n]...)
		d.uttE = append(d.uttE, d.ringE[i])
	}
	d.speaking, d.start, d.last, d.uttFrom, d.run = true, start, f, from, 0
}

// finish ends the utterance before frame end, emitting it, with audio up to
// frame to, if it is long enough.
func (d *Detector) finish(end, to int64) {
	d.emit(end, to)
	d.speaking = false
	d.run = 0
	d.utt, d.uttE = d.utt[:0], d.uttE[:0]
}

func (d *Detector) emit(end, to int64) {
	if end-d.start < int64(d.minFrames) {
		return
	}
	n := int64(d.n)
	samples := make([]float32, (to-d.uttFrom)*n)
	copy(samples, d.utt)
	d.out = append(d.out, Utterance{
		Start:        d.dur(d.start * n),
		End:          d.dur(end * n),
		SamplesStart: d.dur(d.uttFrom * n),
		Samples:      samples,
	})
}

// split cuts an over-long utterance at its quietest frame in the last
// second and carries on with the rest as a new utterance.
func (d *Detector) split(f int64) {
	window := int64(time.Second / d.cfg.Frame)
	cut := f + 1
	best := math.Inf(1)
	for g := max(d.start+1, f-window+1); g <= f; g++ {
		if e := d.uttE[g-d.uttFrom]; e < best {
			best, cut = e, g
		}
	}
	d.emit(cut, cut)
	k := int(cut - d.uttFrom)
	d.utt = d.utt[:copy(d.utt, d.utt[k*d.n:])]
	d.uttE = d.uttE[:copy(d.uttE, d.uttE[k:])]
	d.uttFrom, d.start = cut, cut
	d.last = max(d.last, cut)
}
