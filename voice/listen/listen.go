// Package listen is Spirit's ear: it reads a microphone (or any audio
// Source), finds speech with the VAD and hands each finished utterance, and
// nothing else, to a Transcriber. Silence never reaches the transcriber: an
// idle Spirit pays only for moving the audio and one energy sum per 20 ms
// (under half a percent of one core, helper process included, measured by
// TestBenchListenIdleCPU).
package listen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spirit-app/spirit/voice/audio"
	"github.com/spirit-app/spirit/voice/vad"
)

// Transcriber turns one utterance, 16 kHz mono float32, into text.
// voice/whisper implements it.
type Transcriber interface {
	Transcribe(ctx context.Context, samples []float32) (string, error)
}

// Heard is one transcribed utterance.
type Heard struct {
	Text       string
	Start, End time.Duration // the speech, as offsets from the start of the stream
	At         time.Time     // wall-clock time the speech began (estimated from arrival)
}

// Listener runs the pipeline Source → VAD → Transcriber.
type Listener struct {
	Source      audio.Source
	Transcriber Transcriber
	VAD         vad.Config
	// OnHeard receives each non-empty transcript, in order, from the
	// transcribing goroutine.
	OnHeard func(Heard)
	// OnSpeech, if set, is told when speech starts (true) and stops (false),
	// from the reading goroutine; it must return quickly. The orb can pulse
	// with it.
	OnSpeech func(speaking bool)
	// Backlog is how many utterances may wait for a busy transcriber before
	// the oldest is dropped (default 4): a transcriber that cannot keep up
	// must not let the microphone fall minutes behind.
	Backlog int
	Logger  *slog.Logger

	position atomic.Int64 // samples consumed
	dropped  atomic.Int64
}

func (l *Listener) logger() *slog.Logger {
	if l.Logger != nil {
		return l.Logger
	}
	return slog.Default()
}

// Position returns how much audio the listener has consumed.
func (l *Listener) Position() time.Duration { return audio.Duration(l.position.Load()) }

// Dropped returns how many utterances were dropped because the transcriber
// fell behind.
func (l *Listener) Dropped() int64 { return l.dropped.Load() }

// Run listens until ctx ends, the source ends (io.EOF, which finishes any
// utterance in progress and returns nil) or the source fails. It returns
// after the last queued utterance has been transcribed, and closes the
// source.
func (l *Listener) Run(ctx context.Context) error {
	if l.Source == nil || l.Transcriber == nil {
		return errors.New("listen: Listener needs a Source and a Transcriber")
	}
	if err := l.Source.Open(ctx); err != nil {
		return fmt.Errorf("listen: open %s: %w", l.Source.Name(), err)
	}
	defer l.Source.Close()

	backlog := l.Backlog
	if backlog <= 0 {
		backlog = 4
	}
	queue := make(chan pending, backlog)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		l.transcribe(ctx, queue)
	}()
	err := l.read(ctx, queue)
	close(queue)
	wg.Wait()
	return err
}

// read feeds the VAD from the source and queues finished utterances.
func (l *Listener) read(ctx context.Context, queue chan pending) error {
	det := vad.New(l.VAD)
	// Large enough to take whatever the source has in one Read: every
	// extra hand-over is a wake-up.
	buf := make([]float32, 4096)
	speaking := false
	for {
		n, err := l.Source.Read(ctx, buf)
		if n > 0 {
			l.position.Add(int64(n))
			now := time.Now()
			for _, u := range det.Write(buf[:n]) {
				l.enqueue(queue, u, now, det.Offset())
			}
			speaking = l.speech(speaking, det.Speaking())
		}
		switch {
		case err == nil:
		case errors.Is(err, audio.ErrGap):
			// Paused or another device: what was half heard is not
			// continued by what comes next.
			det.Reset()
			speaking = l.speech(speaking, false)
		case errors.Is(err, io.EOF):
			now := time.Now()
			for _, u := range det.Flush() {
				l.enqueue(queue, u, now, det.Offset())
			}
			l.speech(speaking, false)
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			return fmt.Errorf("listen: read %s: %w", l.Source.Name(), err)
		}
	}
}

// speech reports a change of speaking state to OnSpeech and returns now.
func (l *Listener) speech(was, now bool) bool {
	if was != now && l.OnSpeech != nil {
		l.OnSpeech(now)
	}
	return now
}

// pending is an utterance waiting for the transcriber.
type pending struct {
	vad.Utterance
	at time.Time
}

// enqueue queues u, dropping the oldest waiting utterance if the
// transcriber is behind. now is when the audio up to offset pos arrived, so
// the speech began pos-Start before it.
func (l *Listener) enqueue(queue chan pending, u vad.Utterance, now time.Time, pos time.Duration) {
	p := pending{Utterance: u, at: now.Add(u.Start - pos)}
	for {
		select {
		case queue <- p:
			return
		default:
		}
		select {
		case old := <-queue:
			l.dropped.Add(1)
			l.logger().Warn("listen: transcriber behind, dropping an utterance",
				"start", old.Start, "duration", old.Duration())
		default:
		}
	}
}

// transcribe runs the transcriber on queued utterances, one at a time.
func (l *Listener) transcribe(ctx context.Context, queue <-chan pending) {
	for p := range queue {
		if ctx.Err() != nil {
			continue // drain: nobody is waiting for these any more
		}
		start := time.Now()
		text, err := l.Transcriber.Transcribe(ctx, p.Samples)
		if err != nil {
			if ctx.Err() == nil {
				l.logger().Error("listen: transcribe", "start", p.Start, "duration", p.Duration(), "err", err)
			}
			continue
		}
		text = strings.TrimSpace(text)
		l.logger().Debug("listen: heard", "start", p.Start, "duration", p.Duration(),
			"took", time.Since(start), "chars", len(text))
		if text == "" || l.OnHeard == nil {
			continue
		}
		l.OnHeard(Heard{Text: text, Start: p.Start, End: p.End, At: p.at})
	}
}
