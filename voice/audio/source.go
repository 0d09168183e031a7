// Package audio delivers microphone or file audio to the listener as 16 kHz
// mono float32 samples in [-1, 1].
//
// Sources: WAVSource reads 16-bit PCM files (any rate and channel count),
// PortAudioSource captures from a sound card through PortAudio, HelperSource
// runs PortAudioSource in a child process so that a wedged or crashing audio
// driver cannot take Spirit down, and Capture supervises any of them: it
// reports status, reopens a device that went away and pauses on request.
//
// Audio only ever lives in memory: nothing in this package writes samples to
// disk.
package audio

import (
	"context"
	"errors"
	"time"
)

// SampleRate is the rate, in Hz, of every Source's output.
const SampleRate = 16000

// Source is a stream of 16 kHz mono float32 audio.
//
// Open must be called before Read. Read blocks until at least one sample is
// available, the context ends or the source fails; it returns io.EOF at the
// end of a finite source. Close releases the device and unblocks a pending
// Read; it may be called from another goroutine while Read is blocked.
type Source interface {
	Open(ctx context.Context) error
	Read(ctx context.Context, buf []float32) (int, error)
	Close() error
	Name() string
}

// Errors a Source reports. Wrapped errors carry the detail; test with
// errors.Is.
var (
	// ErrNoDevice means there is no input device, or not the one asked for.
	ErrNoDevice = errors.New("no microphone")
	// ErrDeviceBusy means the device exists but another program holds it.
	ErrDeviceBusy = errors.New("microphone busy")
	// ErrDeviceLost means an open device stopped delivering audio: unplugged,
	// its driver or sound server died, or it stalled.
	ErrDeviceLost = errors.New("microphone lost")
	// ErrUnsupportedFormat means a file's encoding cannot be decoded.
	ErrUnsupportedFormat = errors.New("unsupported audio format")
	// ErrClosed is returned by Read after Close.
	ErrClosed = errors.New("audio source closed")
	// ErrGap is returned by Capture's Read, once, when the stream resumes
	// after a pause or a reopened device: audio before and after the gap is
	// not contiguous, so a listener should drop any half-heard utterance.
	ErrGap = errors.New("gap in audio stream")
)

// Duration converts a sample count at SampleRate to a duration.
func Duration(samples int64) time.Duration {
	return time.Duration(samples) * time.Second / SampleRate
}

// Samples converts a duration to a sample count at SampleRate, rounding down.
func Samples(d time.Duration) int64 {
	return int64(d) * SampleRate / int64(time.Second)
}
