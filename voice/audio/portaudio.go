package audio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gordonklaus/portaudio"
)

// paLock serialises PortAudio's process-wide state. Pa_Initialize and
// Pa_Terminate share one global reference count and device list, and the Go
// binding caches both in unsynchronised package variables, so every
// initialise/open/close/terminate sequence must run alone. It is a channel
// rather than a sync.Mutex so that Open can give up when its context ends
// while a wedged driver still holds the lock.
var paLock = make(chan struct{}, 1)

func lockPortAudio(ctx context.Context) error {
	select {
	case paLock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("audio: waiting for PortAudio (a previous stream may be stuck closing): %w", ctx.Err())
	}
}

func unlockPortAudio() { <-paLock }

// Device describes an input device PortAudio can open.
type Device struct {
	Name       string  // what PortAudioSource.Device matches
	HostAPI    string  // ALSA, JACK Audio Connection Kit, Core Audio, Windows WASAPI…
	Channels   int     // maximum input channels
	SampleRate float64 // the device's default rate
	Default    bool    // the system's default input
}

// Devices lists the input devices PortAudio sees now. PortAudio scans
// devices when it initialises, so the list is fresh on every call as long as
// no stream is open in this process.
func Devices(ctx context.Context) ([]Device, error) {
	if err := lockPortAudio(ctx); err != nil {
		return nil, err
	}
	defer unlockPortAudio()
	if err := portaudio.Initialize(); err != nil {
		return nil, fmt.Errorf("audio: initialise PortAudio: %w", err)
	}
	defer portaudio.Terminate()
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("audio: list devices: %w", err)
	}
	def, _ := portaudio.DefaultInputDevice()
	var out []Device
	for _, d := range devs {
		if d.MaxInputChannels < 1 {
			continue
		}
		out = append(out, Device{
			Name:       d.Name,
			HostAPI:    d.HostApi.Name,
			Channels:   d.MaxInputChannels,
			SampleRate: d.DefaultSampleRate,
			Default:    def != nil && def.Index == d.Index,
		})
	}
	return out, nil
}

// findInputDevice picks the default input when name is empty, otherwise the
// input whose name equals name, or failing that contains it (ignoring case).
// Callers hold paLock with PortAudio initialised.
func findInputDevice(name string) (*portaudio.DeviceInfo, error) {
	devs, err := portaudio.Devices()
	if err != nil {
		return nil, fmt.Errorf("audio: list devices: %w", err)
	}
	var inputs []*portaudio.DeviceInfo
	for _, d := range devs {
		if d.MaxInputChannels > 0 {
			inputs = append(inputs, d)
		}
	}
	if name == "" {
		d, err := portaudio.DefaultInputDevice()
		if err != nil || d == nil || d.MaxInputChannels < 1 {
			if len(inputs) > 0 {
				// Some hosts report no default although inputs exist.
				return inputs[0], nil
			}
			return nil, fmt.Errorf("audio: no input device found: %w", ErrNoDevice)
		}
		return d, nil
	}
	for _, d := range inputs {
		if d.Name == name {
			return d, nil
		}
	}
	lname := strings.ToLower(name)
	for _, d := range inputs {
		if strings.Contains(strings.ToLower(d.Name), lname) {
			return d, nil
		}
	}
	if len(inputs) == 0 {
		return nil, fmt.Errorf("audio: input device %q not found: no input devices: %w", name, ErrNoDevice)
	}
	names := make([]string, len(inputs))
	for i, d := range inputs {
		names[i] = fmt.Sprintf("%q", d.Name)
	}
	return nil, fmt.Errorf("audio: input device %q not found (inputs: %s): %w", name, strings.Join(names, ", "), ErrNoDevice)
}

// classifyPortAudioError maps PortAudio's open/start errors onto this
// package's sentinel errors.
func classifyPortAudioError(op, dev string, err error) error {
	var pe portaudio.Error
	if errors.As(err, &pe) {
		switch pe {
		case portaudio.DeviceUnavailable:
			return fmt.Errorf("audio: %s %q: %w: %w", op, dev, ErrDeviceBusy, err)
		case portaudio.InvalidDevice:
			return fmt.Errorf("audio: %s %q: %w: %w", op, dev, ErrNoDevice, err)
		}
	}
	var he portaudio.UnanticipatedHostError
	if errors.As(err, &he) {
		const ebusy = 16 // ALSA reports -EBUSY when another program holds a hw device
		if he.Code == -ebusy || strings.Contains(strings.ToLower(he.Text), "busy") {
			return fmt.Errorf("audio: %s %q: %w: %w", op, dev, ErrDeviceBusy, err)
		}
	}
	return fmt.Errorf("audio: %s %q: %w", op, dev, err)
}

// PortAudioSource captures from an input device through PortAudio. It asks
// for 16 kHz mono and, when the device cannot do that (JACK and most
// hardware run at 44.1 or 48 kHz; some devices are stereo only), captures at
// the device's own rate and channel count and converts.
//
// A device that stops delivering audio for StallTimeout makes Read return
// ErrDeviceLost. PortAudio's stream callbacks simply stop when a device is
// unplugged or its sound server dies, on every host API, so a silence
// watchdog is the one detector that works everywhere.
type PortAudioSource struct {
	Device       string        // "" for the default input; see findInputDevice
	ClientName   string        // JACK client name; default "Spirit"
	StallTimeout time.Duration // default 2 s
	CloseTimeout time.Duration // default 3 s
	// Buffer is how much audio PortAudio collects before handing it over
	// (default 100 ms). Every hand-over wakes the Go runtime, which then
	// spins briefly; hardware periods of 5-20 ms would cost several times
	// the CPU of the whole idle pipeline for no gain, since the VAD waits
	// 400 ms of silence before it ends an utterance anyway.
	Buffer time.Duration
	Logger *slog.Logger

	mu       sync.Mutex
	ring     []float32 // interleaved device-rate audio from the callback
	rhead    int
	rlen     int
	dropped  int64 // samples the ring had to drop because Read fell behind
	closed   bool
	stream   *portaudio.Stream
	notify   chan struct{}
	done     chan struct{}
	devName  string
	rate     int
	channels int

	// Used by Read only.
	rs      *Resampler
	raw     []float32
	mono    []float32
	pending []float32
	phead   int
	timer   *time.Timer
	logged  int64
}

func (s *PortAudioSource) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Open initialises PortAudio, opens the device and starts the stream.
func (s *PortAudioSource) Open(ctx context.Context) error {
	if err := lockPortAudio(ctx); err != nil {
		return err
	}
	defer unlockPortAudio()
	if s.stream != nil {
		return errors.New("audio: PortAudioSource already open")
	}
	name := s.ClientName
	if name == "" {
		name = "Spirit"
	}
	setJackClientName(name)
	if err := portaudio.Initialize(); err != nil {
		return fmt.Errorf("audio: initialise PortAudio: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			portaudio.Terminate()
		}
	}()
	dev, err := findInputDevice(s.Device)
	if err != nil {
		return err
	}
	p := portaudio.HighLatencyParameters(dev, nil)
	p.Input.Channels = 1
	p.SampleRate = SampleRate
	if portaudio.IsFormatSupported(p, s.callback) != nil {
		p.SampleRate = dev.DefaultSampleRate
		if portaudio.IsFormatSupported(p, s.callback) != nil && dev.MaxInputChannels >= 2 {
			p.Input.Channels = 2
		}
	}
	s.rate, s.channels, s.devName = int(p.SampleRate), p.Input.Channels, dev.Name
	buffer := s.Buffer
	if buffer <= 0 {
		buffer = 100 * time.Millisecond
	}
	p.FramesPerBuffer = int(int64(s.rate) * int64(buffer) / int64(time.Second))
	if s.rs, err = NewResampler(s.rate, SampleRate); err != nil {
		return err
	}
	s.ring = make([]float32, 2*s.rate*s.channels) // 2 s of slack for a slow reader
	s.rhead, s.rlen, s.dropped, s.closed = 0, 0, 0, false
	s.notify = make(chan struct{}, 1)
	s.done = make(chan struct{})
	s.pending, s.phead = s.pending[:0], 0
	stream, err := portaudio.OpenStream(p, s.callback)
	if err != nil {
		return classifyPortAudioError("open", dev.Name, err)
	}
	if err := stream.Start(); err != nil {
		stream.Close()
		return classifyPortAudioError("start", dev.Name, err)
	}
	s.mu.Lock()
	s.stream = stream
	s.mu.Unlock()
	ok = true
	s.logger().Info("audio: capturing", "device", dev.Name, "host", dev.HostApi.Name,
		"rate", s.rate, "channels", s.channels)
	return nil
}

// callback runs on the audio driver's thread: copy and return, nothing else.
func (s *PortAudioSource) callback(in []float32) {
	s.mu.Lock()
	if n := len(s.ring); n > 0 && !s.closed {
		if len(in) > n {
			s.dropped += int64(len(in) - n)
			in = in[len(in)-n:]
		}
		if over := s.rlen + len(in) - n; over > 0 {
			s.rhead = (s.rhead + over) % n
			s.rlen -= over
			s.dropped += int64(over)
		}
		tail := (s.rhead + s.rlen) % n
		c := copy(s.ring[tail:], in)
		copy(s.ring, in[c:])
		s.rlen += len(in)
	}
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Read blocks until audio arrives and returns it as 16 kHz mono.
func (s *PortAudioSource) Read(ctx context.Context, buf []float32) (int, error) {
	if s.notify == nil {
		return 0, ErrClosed
	}
	if len(buf) == 0 {
		return 0, nil
	}
	stall := s.StallTimeout
	if stall <= 0 {
		stall = 2 * time.Second
	}
	for {
		if s.phead < len(s.pending) {
			n := copy(buf, s.pending[s.phead:])
			s.phead += n
			return n, nil
		}
		s.mu.Lock()
		closed, dropped := s.closed, s.dropped
		s.raw = s.raw[:0]
		if s.rlen > 0 {
			n := len(s.ring)
			end := s.rhead + s.rlen
			s.raw = append(s.raw, s.ring[s.rhead:min(end, n)]...)
			if end > n {
				s.raw = append(s.raw, s.ring[:end-n]...)
			}
			s.rhead, s.rlen = 0, 0
		}
		s.mu.Unlock()
		if dropped > s.logged {
			s.logger().Warn("audio: reader fell behind, samples dropped", "device", s.devName, "dropped", dropped)
			s.logged = dropped
		}
		if len(s.raw) > 0 {
			s.mono = Downmix(s.mono[:0], s.raw, s.channels)
			s.pending, s.phead = s.rs.Process(s.pending[:0], s.mono), 0
			continue
		}
		if closed {
			return 0, ErrClosed
		}
		if s.timer == nil {
			s.timer = time.NewTimer(stall)
		} else {
			s.timer.Reset(stall)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-s.done:
		case <-s.notify:
		case <-s.timer.C:
			return 0, fmt.Errorf("audio: %q delivered no audio for %v: %w", s.devName, stall, ErrDeviceLost)
		}
	}
}

// Close stops the stream and releases PortAudio, so the system shows the
// microphone as unused. If the driver does not let go within CloseTimeout
// Close returns an error and leaves the close running in the background;
// later Opens wait for it (bounded by their context).
func (s *PortAudioSource) Close() error {
	s.mu.Lock()
	stream := s.stream
	already := s.closed
	s.closed, s.stream = true, nil
	s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	if already || stream == nil {
		return nil
	}
	close(s.done)
	finished := make(chan error, 1)
	go func() {
		paLock <- struct{}{}
		err := stream.Close()
		if terr := portaudio.Terminate(); err == nil {
			err = terr
		}
		unlockPortAudio()
		finished <- err
	}()
	wait := s.CloseTimeout
	if wait <= 0 {
		wait = 3 * time.Second
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case err := <-finished:
		if err != nil {
			return fmt.Errorf("audio: close %q: %w", s.devName, err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("audio: close %q: PortAudio still closing after %v (driver stuck)", s.devName, wait)
	}
}

// Name identifies the source in logs and status.
func (s *PortAudioSource) Name() string {
	if s.devName != "" {
		return "portaudio:" + s.devName
	}
	if s.Device != "" {
		return "portaudio:" + s.Device
	}
	return "portaudio:default"
}

// Format returns the rate and channel count the device was opened with.
func (s *PortAudioSource) Format() (rate, channels int) { return s.rate, s.channels }
