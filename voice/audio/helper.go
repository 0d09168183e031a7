package audio

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Why a helper process: PortAudio cannot always let go of a device that
// died. Its JACK host API (19.6, Debian 12) waits ten minutes inside
// Pa_CloseStream for a process thread that vanished with the server, holding
// PortAudio's process-wide state; a fresh Pa_Initialize, the only way to see
// the server again, is impossible until then. Drivers also abort() on
// internal assertions. In a child process none of that can touch Spirit: a
// lost device ends the child, and the next attempt starts a clean one.

// HelperEnv is the environment variable that makes a process a capture
// helper; its value is the helper's JSON configuration.
const HelperEnv = "SPIRIT_AUDIO_HELPER"

// HelperCommand is the argument HelperSource passes to its own executable.
// A program that captures through HelperSource must dispatch it to
// RunHelper before anything else, as a subcommand:
//
//	case audio.HelperCommand:
//		return audio.RunHelper()
//
// or with IsHelper first thing in main. A program that does not know the
// subcommand fails fast on it instead of starting a second copy of itself.
const HelperCommand = "audio-helper"

// IsHelper reports whether this process was started by a HelperSource.
func IsHelper() bool { return os.Getenv(HelperEnv) != "" }

type helperConfig struct {
	Device     string        `json:"device,omitempty"`
	ClientName string        `json:"client,omitempty"`
	Stall      time.Duration `json:"stall,omitempty"`
	Buffer     time.Duration `json:"buffer,omitempty"`
}

// Frames on the helper's output: kind byte, little-endian uint32 payload
// length, payload.
const (
	frameReady = 'R' // JSON helperReady
	frameAudio = 'A' // float32 little-endian samples, 16 kHz mono
	frameError = 'E' // JSON helperError
)

type helperReady struct {
	Device   string `json:"device"`
	Rate     int    `json:"rate"`
	Channels int    `json:"channels"`
}

type helperError struct {
	Kind string `json:"kind"` // "nodevice", "busy", "lost" or "other"
	Msg  string `json:"msg"`
}

func errorKind(err error) string {
	switch {
	case errors.Is(err, ErrNoDevice):
		return "nodevice"
	case errors.Is(err, ErrDeviceBusy):
		return "busy"
	case errors.Is(err, ErrDeviceLost):
		return "lost"
	}
	return "other"
}

func (e helperError) err() error {
	var kind error
	switch e.Kind {
	case "nodevice":
		kind = ErrNoDevice
	case "busy":
		kind = ErrDeviceBusy
	case "lost":
		kind = ErrDeviceLost
	}
	return &remoteError{msg: e.Msg, kind: kind}
}

// remoteError is an error from the helper: its message, already complete,
// and the sentinel it wrapped over there.
type remoteError struct {
	msg  string
	kind error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.kind }

const maxFrame = 1 << 20

func writeFrame(w io.Writer, buf []byte, kind byte, payload []byte) ([]byte, error) {
	buf = append(buf[:0], kind, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(buf[1:5], uint32(len(payload)))
	buf = append(buf, payload...)
	_, err := w.Write(buf)
	return buf, err
}

// RunHelper captures from the device named in HelperEnv and streams it to
// standard output until standard input closes. It returns the exit code.
func RunHelper() int {
	out := protocolOutput()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var frame []byte
	fail := func(err error) int {
		b, _ := json.Marshal(helperError{Kind: errorKind(err), Msg: err.Error()})
		writeFrame(out, frame, frameError, b)
		return 1
	}
	var cfg helperConfig
	if err := json.Unmarshal([]byte(os.Getenv(HelperEnv)), &cfg); err != nil {
		return fail(fmt.Errorf("audio helper: bad %s: %w", HelperEnv, err))
	}
	// The parent closes our stdin to stop us; it also closes when the parent
	// dies, however it dies.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	src := &PortAudioSource{Device: cfg.Device, ClientName: cfg.ClientName, StallTimeout: cfg.Stall, Buffer: cfg.Buffer, Logger: log}
	if err := src.Open(ctx); err != nil {
		return fail(err)
	}
	rate, channels := src.Format()
	b, _ := json.Marshal(helperReady{Device: src.devName, Rate: rate, Channels: channels})
	var err error
	if frame, err = writeFrame(out, frame, frameReady, b); err != nil {
		return 0
	}
	buf := make([]float32, 2048)
	payload := make([]byte, 4*len(buf))
	for {
		n, err := src.Read(ctx, buf)
		if err != nil {
			if ctx.Err() != nil {
				if err := src.Close(); err != nil {
					log.Warn("audio helper: close", "err", err)
				}
				return 0
			}
			// Exit without closing: after a device or server death the close
			// is what hangs (see above); the kernel releases everything.
			return fail(err)
		}
		p := payload[:4*n]
		for i, v := range buf[:n] {
			binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(v))
		}
		if frame, err = writeFrame(out, frame, frameAudio, p); err != nil {
			return 0 // parent gone
		}
	}
}

// HelperSource captures in a child process running RunHelper, by default
// this same executable, and reads its audio through a pipe (memory only).
type HelperSource struct {
	Command      []string      // helper command; default this executable with HelperCommand
	Device       string        // as PortAudioSource.Device
	ClientName   string        // as PortAudioSource.ClientName
	StallTimeout time.Duration // as PortAudioSource.StallTimeout
	Buffer       time.Duration // as PortAudioSource.Buffer
	OpenTimeout  time.Duration // default 15 s
	CloseTimeout time.Duration // before the helper is killed; default 3 s
	Logger       *slog.Logger

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	exited  chan struct{}
	stderr  *tailWriter
	devName string
	stop    chan struct{}  // closed by Close
	data    chan []float32 // decoded audio from the reader goroutine
	free    chan []float32 // buffers for the reader goroutine to fill
	cur     []float32
	head    int

	mu     sync.Mutex
	err    error // why data closed
	closed bool
}

func (s *HelperSource) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Open starts the helper and waits until it has opened the device.
func (s *HelperSource) Open(ctx context.Context) error {
	if s.cmd != nil {
		return errors.New("audio: HelperSource already open")
	}
	argv := s.Command
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("audio: helper: %w", err)
		}
		argv = []string{exe, HelperCommand}
	}
	cfg, err := json.Marshal(helperConfig{Device: s.Device, ClientName: s.ClientName, Stall: s.StallTimeout, Buffer: s.Buffer})
	if err != nil {
		return fmt.Errorf("audio: helper config: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), HelperEnv+"="+string(cfg))
	s.stderr = &tailWriter{max: 4096}
	cmd.Stderr = s.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("audio: helper: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("audio: helper: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("audio: start helper %s: %w", argv[0], err)
	}
	s.cmd, s.stdin, s.exited, s.stop = cmd, stdin, make(chan struct{}), make(chan struct{})
	s.closed, s.err, s.cur, s.head = false, nil, nil, 0
	go func() {
		cmd.Wait()
		close(s.exited)
	}()

	r := bufio.NewReaderSize(stdout, 64<<10)
	type result struct {
		ready helperReady
		err   error
	}
	res := make(chan result, 1)
	go func() {
		var rd helperReady
		kind, payload, err := readFrame(r, nil)
		switch {
		case err != nil:
			err = fmt.Errorf("audio: helper exited before opening the device: %w (%s)", err, s.stderr.String())
		case kind == frameError:
			var he helperError
			json.Unmarshal(payload, &he)
			err = he.err()
		case kind != frameReady:
			err = fmt.Errorf("audio: helper sent frame %q before ready", kind)
		default:
			err = json.Unmarshal(payload, &rd)
		}
		res <- result{rd, err}
	}()
	wait := s.OpenTimeout
	if wait <= 0 {
		wait = 15 * time.Second
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	var rr result
	select {
	case rr = <-res:
	case <-ctx.Done():
		rr.err = ctx.Err()
	case <-t.C:
		rr.err = fmt.Errorf("audio: helper did not open the device within %v", wait)
	}
	if rr.err != nil {
		s.kill()
		return rr.err
	}
	s.devName = rr.ready.Device
	s.data = make(chan []float32, 8)
	s.free = make(chan []float32, 8)
	for range cap(s.free) {
		s.free <- make([]float32, 0, 2048)
	}
	go s.pump(r)
	return nil
}

// pump decodes audio frames into free buffers and hands them to Read.
func (s *HelperSource) pump(r *bufio.Reader) {
	var payload []byte
	var err error
	defer func() {
		s.mu.Lock()
		if s.closed {
			err = ErrClosed
		}
		s.err = err
		s.mu.Unlock()
		close(s.data)
	}()
	for {
		var kind byte
		kind, payload, err = readFrame(r, payload)
		if err != nil {
			err = fmt.Errorf("audio: helper for %q ended: %w (%s)", s.devName, ErrDeviceLost, s.stderr.String())
			return
		}
		switch kind {
		case frameError:
			var he helperError
			json.Unmarshal(payload, &he)
			err = he.err()
			return
		case frameAudio:
			var b []float32
			select {
			case b = <-s.free:
			case <-s.stop:
				return
			}
			b = b[:0]
			for i := 0; i+4 <= len(payload); i += 4 {
				b = append(b, math.Float32frombits(binary.LittleEndian.Uint32(payload[i:])))
			}
			select {
			case s.data <- b:
			case <-s.stop:
				return
			}
		}
	}
}

func readFrame(r *bufio.Reader, buf []byte) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, buf, err
	}
	n := binary.LittleEndian.Uint32(hdr[1:])
	if n > maxFrame {
		return 0, buf, fmt.Errorf("audio: helper frame of %d bytes", n)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	_, err := io.ReadFull(r, buf)
	return hdr[0], buf, err
}

// Read returns the helper's audio; ErrDeviceLost when it lost the device.
func (s *HelperSource) Read(ctx context.Context, buf []float32) (int, error) {
	if s.data == nil {
		return 0, ErrClosed
	}
	for {
		if s.cur != nil {
			n := copy(buf, s.cur[s.head:])
			s.head += n
			if s.head == len(s.cur) {
				s.free <- s.cur
				s.cur, s.head = nil, 0
			}
			if n > 0 || len(buf) == 0 {
				return n, nil
			}
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case b, ok := <-s.data:
			if !ok {
				s.mu.Lock()
				err := s.err
				s.mu.Unlock()
				return 0, err
			}
			s.cur, s.head = b, 0
		}
	}
}

// Close asks the helper to stop, and kills it if it does not within
// CloseTimeout.
func (s *HelperSource) Close() error {
	if s.cmd == nil {
		return nil
	}
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		return nil
	}
	close(s.stop)
	s.stdin.Close()
	wait := s.CloseTimeout
	if wait <= 0 {
		wait = 3 * time.Second
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-s.exited:
	case <-t.C:
		s.logger().Warn("audio: helper did not stop; killing it", "device", s.devName)
		s.kill()
	}
	return nil
}

func (s *HelperSource) kill() {
	s.cmd.Process.Kill()
	<-s.exited
}

// Name identifies the source in logs and status.
func (s *HelperSource) Name() string {
	if s.devName != "" {
		return "helper:" + s.devName
	}
	if s.Device != "" {
		return "helper:" + s.Device
	}
	return "helper:default"
}

// HelperPID returns the helper's process id, or 0 when none runs.
func (s *HelperSource) HelperPID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	select {
	case <-s.exited:
		return 0
	default:
		return s.cmd.Process.Pid
	}
}

// tailWriter keeps the last max bytes written: the helper's stderr, for
// error messages (ALSA and JACK explain themselves there).
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

// String returns the last lines, skipping ALSA's probing noise.
func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var keep []string
	for _, l := range strings.Split(strings.TrimSpace(string(w.buf)), "\n") {
		if l != "" && !strings.HasPrefix(l, "ALSA lib ") {
			keep = append(keep, l)
		}
	}
	if len(keep) > 3 {
		keep = keep[len(keep)-3:]
	}
	if len(keep) == 0 {
		return "no output"
	}
	return strings.Join(keep, "; ")
}
