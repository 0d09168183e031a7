package audio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// State is what Capture is doing, in words the UI can show.
type State string

// Capture states.
const (
	Listening    State = "listening"     // audio is flowing
	NoMicrophone State = "no microphone" // opening failed; retrying
	DeviceLost   State = "device lost"   // the device went away; retrying
	Paused       State = "paused"        // closed on request until Resume
)

// Status is a Capture state change.
type Status struct {
	State  State
	Detail string        // device name, or what went wrong
	Err    error         // the cause for NoMicrophone and DeviceLost; test with errors.Is
	Retry  time.Duration // for NoMicrophone and DeviceLost: wait before the next attempt
}

// Capture supervises a microphone. It opens a Source made by NewSource, and
// whenever opening fails or the source dies it reports why, closes it and
// tries a fresh one with exponential backoff, forever, until Close. Pause
// closes the source entirely, so the operating system shows the microphone
// as unused, until Resume.
//
// Capture is itself a Source: Read delivers the audio of successive device
// sessions and returns ErrGap, once, between two sessions.
type Capture struct {
	// NewSource makes the source for one attempt, for example
	//	func() audio.Source { return &audio.HelperSource{Device: name} }
	NewSource func() Source
	// OnStatus, if set, is called on every state change, from Capture's own
	// goroutine; it must return quickly.
	OnStatus   func(Status)
	MinBackoff time.Duration // first retry delay; default 500 ms
	MaxBackoff time.Duration // cap; default 30 s
	Logger     *slog.Logger

	data   chan chunk
	free   chan []float32
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
	cur    []float32
	head   int

	mu       sync.Mutex
	status   Status
	paused   bool
	session  context.CancelFunc // ends the current session's reads
	pauseAck []chan struct{}    // Pause calls waiting for the source to close
	name     string
}

// Microphone returns a Capture of the named input device ("" for the
// system default) through a helper process running this executable (see
// HelperCommand). Set OnStatus before Open.
func Microphone(device string) *Capture {
	return &Capture{NewSource: func() Source { return &HelperSource{Device: device} }}
}

type chunk struct {
	samples []float32
	gap     bool
}

const captureChunk = 4096 // samples; a helper frame (100 ms) fits in one

func (c *Capture) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// Open starts the supervisor and returns at once: a missing microphone is a
// status (NoMicrophone, retried), not an error.
func (c *Capture) Open(ctx context.Context) error {
	if c.NewSource == nil {
		return errors.New("audio: Capture needs NewSource")
	}
	if c.done != nil {
		return errors.New("audio: Capture already open")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.data = make(chan chunk, 16)
	c.free = make(chan []float32, 16)
	for range cap(c.free) {
		c.free <- make([]float32, captureChunk)
	}
	c.wake = make(chan struct{}, 1)
	c.done = make(chan struct{})
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.run(runCtx)
	return nil
}

// Status returns the latest state.
func (c *Capture) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Pause closes the device and keeps it closed until Resume. It returns once
// the device is closed, or after 10 s if a driver refuses to let go.
func (c *Capture) Pause() {
	ack := make(chan struct{})
	c.mu.Lock()
	c.paused = true
	c.pauseAck = append(c.pauseAck, ack)
	if c.session != nil {
		c.session()
	}
	c.mu.Unlock()
	c.poke()
	if c.done == nil {
		return
	}
	t := time.NewTimer(10 * time.Second)
	defer t.Stop()
	select {
	case <-ack:
	case <-c.done:
	case <-t.C:
		c.logger().Warn("audio: pause is still waiting for the device to close")
	}
}

// Resume reopens the device after Pause, at once.
func (c *Capture) Resume() {
	c.mu.Lock()
	c.paused = false
	c.mu.Unlock()
	c.poke()
}

func (c *Capture) poke() {
	if c.wake == nil {
		return
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *Capture) setStatus(s Status) {
	c.mu.Lock()
	same := c.status.State == s.State && c.status.Detail == s.Detail
	c.status = s
	c.mu.Unlock()
	if same {
		return // a retry that failed the same way is not news
	}
	c.logger().Info("audio: capture status", "state", s.State, "detail", s.Detail)
	if c.OnStatus != nil {
		c.OnStatus(s)
	}
}

// run is the supervisor loop.
func (c *Capture) run(ctx context.Context) {
	defer close(c.done)
	defer close(c.data)
	minB, maxB := c.MinBackoff, c.MaxBackoff
	if minB <= 0 {
		minB = 500 * time.Millisecond
	}
	if maxB < minB {
		maxB = max(30*time.Second, minB)
	}
	backoff := minB
	sessions := 0
	for ctx.Err() == nil {
		c.mu.Lock()
		paused := c.paused
		c.mu.Unlock()
		if paused {
			c.setStatus(Status{State: Paused})
			c.ackPause()
			c.sleep(ctx, 0)
			backoff = minB
			continue
		}
		src := c.NewSource()
		if err := src.Open(ctx); err != nil {
			src.Close()
			if ctx.Err() != nil {
				return
			}
			c.setStatus(Status{State: NoMicrophone, Detail: err.Error(), Err: err, Retry: backoff})
			if c.sleep(ctx, backoff) {
				backoff = minB // paused or resumed meanwhile: a user action, try afresh
			} else {
				backoff = min(2*backoff, maxB)
			}
			continue
		}
		sessCtx, endSession := context.WithCancel(ctx)
		c.mu.Lock()
		if c.paused { // paused while opening: close again at once
			c.mu.Unlock()
			endSession()
			src.Close()
			c.ackPause()
			continue
		}
		c.session = endSession
		c.name = src.Name()
		c.mu.Unlock()
		c.setStatus(Status{State: Listening, Detail: src.Name()})
		started := time.Now()
		err := c.pump(sessCtx, src, sessions > 0)
		sessions++
		endSession()
		if cerr := src.Close(); cerr != nil {
			c.logger().Warn("audio: close", "source", src.Name(), "err", cerr)
		}
		c.ackPause() // the device is closed, which is all Pause waits for
		c.mu.Lock()
		c.session = nil
		paused = c.paused
		c.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		if paused {
			continue
		}
		if time.Since(started) > maxB {
			backoff = minB // it worked for a good while: this is a new failure
		}
		if err == nil {
			err = ErrDeviceLost
		}
		c.setStatus(Status{State: DeviceLost, Detail: fmt.Sprintf("%s: %v", src.Name(), err), Err: err, Retry: backoff})
		if c.sleep(ctx, backoff) {
			backoff = minB
		} else {
			backoff = min(2*backoff, maxB)
		}
	}
}

// ackPause releases Pause calls once the source is closed.
func (c *Capture) ackPause() {
	c.mu.Lock()
	for _, ack := range c.pauseAck {
		close(ack)
	}
	c.pauseAck = nil
	c.mu.Unlock()
}

// sleep waits for d (forever when d is 0), a Pause/Resume, or the end. It
// reports whether Pause or Resume woke it.
func (c *Capture) sleep(ctx context.Context, d time.Duration) bool {
	var tc <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-ctx.Done():
	case <-tc:
	case <-c.wake:
		return true
	}
	return false
}

// pump moves audio from src to Read until src fails or the session ends.
func (c *Capture) pump(ctx context.Context, src Source, gap bool) error {
	if gap {
		select {
		case c.data <- chunk{gap: true}:
		case <-ctx.Done():
			return nil
		}
	}
	for {
		var b []float32
		select {
		case b = <-c.free:
		case <-ctx.Done():
			return nil
		}
		n, err := src.Read(ctx, b[:cap(b)])
		if err != nil {
			c.free <- b
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case c.data <- chunk{samples: b[:n]}:
		case <-ctx.Done():
			c.free <- b
			return nil
		}
	}
}

// Read returns captured audio, waiting through pauses and device changes.
// It returns ErrGap once between two device sessions and ErrClosed after
// Close.
func (c *Capture) Read(ctx context.Context, buf []float32) (int, error) {
	if c.data == nil {
		return 0, ErrClosed
	}
	for {
		if c.cur != nil {
			n := copy(buf, c.cur[c.head:])
			c.head += n
			if c.head == len(c.cur) {
				c.free <- c.cur
				c.cur, c.head = nil, 0
			}
			if n > 0 || len(buf) == 0 {
				return n, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case ch, ok := <-c.data:
			if !ok {
				return 0, ErrClosed
			}
			if ch.gap {
				return 0, ErrGap
			}
			c.cur, c.head = ch.samples, 0
		}
	}
}

// Close stops the supervisor and closes the device.
func (c *Capture) Close() error {
	if c.cancel == nil {
		return nil
	}
	c.cancel()
	<-c.done
	return nil
}

// Name identifies the current device.
func (c *Capture) Name() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.name == "" {
		return "capture"
	}
	return "capture:" + c.name
}
