package audio

import (
	"fmt"
	"math"
)

// Resampler converts a stream of mono samples from one rate to another with a
// windowed-sinc (Kaiser) polyphase filter. Output sample n sits exactly at
// input time n*inRate/outRate, so converting does not shift speech in time:
// the VAD's boundaries stay true to the source.
//
// A Resampler is not safe for concurrent use.
type Resampler struct {
	in, out int // rates, Hz
	l, m    int // out/g and in/g: output n maps to input n*m/l
	half    int // taps either side of the output instant
	phases  int
	table   []float32 // phases × 2*half taps

	hist     []float32 // input from absolute index base
	base     int64
	pos      int64 // integer part of the next output's input position
	frac     int   // its remainder, in units of 1/l
	inTotal  int64 // input samples received since the last reset
	outTotal int64 // output samples produced since the last reset
}

// maxPhases bounds the polyphase table. Ratios with more phases (odd rates
// such as 44056 Hz) use the nearest of maxPhases phases: under 0.1% of a
// sample of timing error, far below anything audible or measurable by a VAD.
const maxPhases = 1024

// NewResampler returns a Resampler from inRate to outRate Hz.
func NewResampler(inRate, outRate int) (*Resampler, error) {
	if inRate <= 0 || outRate <= 0 {
		return nil, fmt.Errorf("audio: resample %d Hz to %d Hz: rates must be positive", inRate, outRate)
	}
	g := gcd(inRate, outRate)
	r := &Resampler{in: inRate, out: outRate, l: outRate / g, m: inRate / g}
	if r.l == r.m {
		return r, nil
	}
	// Cut off a little below the lower Nyquist frequency; 12 zero crossings
	// of the sinc and a Kaiser window with beta 8 give about 80 dB of
	// stopband, plenty for speech recognition.
	const zeroCrossings, beta, rolloff = 12, 8.0, 0.9
	fc := 0.5 * rolloff // cycles per input sample
	if r.l < r.m {
		fc *= float64(r.l) / float64(r.m)
	}
	r.half = int(math.Ceil(zeroCrossings / (2 * fc)))
	r.phases = min(r.l, maxPhases)
	taps := 2 * r.half
	r.table = make([]float32, r.phases*taps)
	i0b := besselI0(beta)
	for p := 0; p < r.phases; p++ {
		f := float64(p) / float64(r.phases)
		row := r.table[p*taps : (p+1)*taps]
		var sum float64
		w := make([]float64, taps)
		for j := range taps {
			// Tap j multiplies input index i-half+1+j; x is the distance from
			// the output instant i+f to it.
			x := f + float64(r.half-1-j)
			u := x / float64(r.half)
			if u <= -1 || u >= 1 {
				continue
			}
			v := 2 * fc * sinc(2*fc*x) * besselI0(beta*math.Sqrt(1-u*u)) / i0b
			w[j] = v
			sum += v
		}
		for j := range taps {
			row[j] = float32(w[j] / sum) // unity gain at DC in every phase
		}
	}
	r.Reset()
	return r, nil
}

// Rates returns the input and output rates.
func (r *Resampler) Rates() (in, out int) { return r.in, r.out }

// Reset forgets all input, as if the Resampler were new.
func (r *Resampler) Reset() {
	r.pos, r.frac, r.inTotal, r.outTotal = 0, 0, 0, 0
	if r.l == r.m {
		return
	}
	// Input before the stream start counts as silence, so output 0 is
	// centred on input 0 with no delay.
	r.hist = r.hist[:0]
	for range r.half - 1 {
		r.hist = append(r.hist, 0)
	}
	r.base = -int64(r.half - 1)
}

// Process appends to out the output that in makes available and returns the
// extended slice. It allocates only when out or its internal history must
// grow. The last few output samples of a stream wait for later input or Flush.
func (r *Resampler) Process(out, in []float32) []float32 {
	r.inTotal += int64(len(in))
	if r.l == r.m {
		r.outTotal += int64(len(in))
		return append(out, in...)
	}
	r.hist = append(r.hist, in...)
	return r.drain(out, r.base+int64(len(r.hist)))
}

// Flush appends the remaining output, as if the input were followed by
// silence, and resets the Resampler for a new stream.
func (r *Resampler) Flush(out []float32) []float32 {
	if r.l != r.m {
		want := (r.inTotal*int64(r.l) + int64(r.m) - 1) / int64(r.m)
		for range 2 * r.half {
			r.hist = append(r.hist, 0)
		}
		for r.outTotal < want {
			before := r.outTotal
			out = r.drain1(out)
			if r.outTotal == before {
				break
			}
		}
	}
	r.Reset()
	return out
}

// drain produces every output whose taps lie below the absolute input index
// end, then discards history no future output needs.
func (r *Resampler) drain(out []float32, end int64) []float32 {
	for r.pos+int64(r.half) < end {
		out = r.drain1(out)
	}
	if drop := int(r.pos - int64(r.half) + 1 - r.base); drop > 0 {
		n := copy(r.hist, r.hist[drop:])
		r.hist = r.hist[:n]
		r.base += int64(drop)
	}
	return out
}

// drain1 produces one output sample if its taps are available.
func (r *Resampler) drain1(out []float32) []float32 {
	taps := 2 * r.half
	start := int(r.pos - int64(r.half) + 1 - r.base)
	if start < 0 || start+taps > len(r.hist) {
		return out
	}
	p := r.frac
	if r.phases != r.l {
		p = int(int64(r.frac) * int64(r.phases) / int64(r.l))
	}
	row := r.table[p*taps : (p+1)*taps]
	x := r.hist[start : start+taps]
	var acc float32
	for j, w := range row {
		acc += w * x[j]
	}
	out = append(out, acc)
	r.outTotal++
	r.frac += r.m
	r.pos += int64(r.frac / r.l)
	r.frac %= r.l
	return out
}

// Downmix averages interleaved frames of the given channel count into mono,
// appending to out.
func Downmix(out, interleaved []float32, channels int) []float32 {
	if channels <= 1 {
		return append(out, interleaved...)
	}
	scale := 1 / float32(channels)
	for i := 0; i+channels <= len(interleaved); i += channels {
		var s float32
		for _, v := range interleaved[i : i+channels] {
			s += v
		}
		out = append(out, s*scale)
	}
	return out
}

func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	return math.Sin(math.Pi*x) / (math.Pi * x)
}

// besselI0 is the zeroth-order modified Bessel function of the first kind,
// by its power series (converges fast for the arguments a Kaiser window uses).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < sum*1e-12 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
