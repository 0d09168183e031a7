package audio

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// WAV format codes (the fmt chunk's wFormatTag, or the first two bytes of a
// WAVE_FORMAT_EXTENSIBLE sub-format GUID).
const (
	wavPCM        = 1
	wavFloat      = 3
	wavExtensible = 0xFFFE
)

// wavDecoder streams the samples of a 16-bit PCM WAV file as mono float32 at
// the file's own rate.
type wavDecoder struct {
	r         io.Reader
	rate      int
	channels  int
	remaining int64 // bytes of sample data left to read; -1 reads to EOF
	carry     int   // bytes of a partial frame at the start of raw
	raw       []byte
	frame     []float32
}

// newWAVDecoder parses the RIFF header up to the data chunk. name only
// labels errors.
func newWAVDecoder(r io.Reader, name string) (*wavDecoder, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("audio: %s: not a WAV file: %w", name, err)
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return nil, fmt.Errorf("audio: %s: not a RIFF/WAVE file: %w", name, ErrUnsupportedFormat)
	}
	d := &wavDecoder{r: r}
	var haveFmt bool
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("audio: %s: no data chunk: %w", name, ErrUnsupportedFormat)
			}
			return nil, fmt.Errorf("audio: %s: %w", name, err)
		}
		id := string(ch[0:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:8]))
		switch id {
		case "fmt ":
			if size < 16 || size > 1<<16 {
				return nil, fmt.Errorf("audio: %s: bad fmt chunk size %d: %w", name, size, ErrUnsupportedFormat)
			}
			b := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, fmt.Errorf("audio: %s: reading fmt chunk: %w", name, err)
			}
			if err := d.parseFmt(b[:size], name); err != nil {
				return nil, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, fmt.Errorf("audio: %s: data chunk before fmt chunk: %w", name, ErrUnsupportedFormat)
			}
			d.remaining = size
			// Streaming writers leave 0 or 0xFFFFFFFF when they cannot seek
			// back to fix the size: read to the end of the file instead.
			if size == 0 || size == 0xFFFFFFFF {
				d.remaining = -1
			}
			d.raw = make([]byte, 4096*d.channels*2)
			return d, nil
		default:
			if _, err := io.CopyN(io.Discard, r, size+size%2); err != nil {
				return nil, fmt.Errorf("audio: %s: skipping %q chunk: %w", name, id, err)
			}
		}
	}
}

func (d *wavDecoder) parseFmt(b []byte, name string) error {
	format := int(binary.LittleEndian.Uint16(b[0:2]))
	d.channels = int(binary.LittleEndian.Uint16(b[2:4]))
	d.rate = int(binary.LittleEndian.Uint32(b[4:8]))
	blockAlign := int(binary.LittleEndian.Uint16(b[12:14]))
	bits := int(binary.LittleEndian.Uint16(b[14:16]))
	if format == wavExtensible {
		if len(b) < 40 {
			return fmt.Errorf("audio: %s: short WAVE_FORMAT_EXTENSIBLE header: %w", name, ErrUnsupportedFormat)
		}
		format = int(binary.LittleEndian.Uint16(b[24:26]))
	}
	switch {
	case format == wavFloat:
		return fmt.Errorf("audio: %s: %d-bit float WAV; only 16-bit PCM is supported (convert with: sox in.wav -b 16 out.wav): %w",
			name, bits, ErrUnsupportedFormat)
	case format != wavPCM:
		return fmt.Errorf("audio: %s: WAV encoding %#x; only 16-bit PCM is supported: %w", name, format, ErrUnsupportedFormat)
	case bits != 16:
		return fmt.Errorf("audio: %s: %d-bit PCM; only 16-bit PCM is supported (convert with: sox in.wav -b 16 out.wav): %w",
			name, bits, ErrUnsupportedFormat)
	case d.channels < 1 || d.channels > 64:
		return fmt.Errorf("audio: %s: %d channels: %w", name, d.channels, ErrUnsupportedFormat)
	case d.rate < 1000 || d.rate > 768000:
		return fmt.Errorf("audio: %s: sample rate %d Hz: %w", name, d.rate, ErrUnsupportedFormat)
	case blockAlign != 2*d.channels:
		return fmt.Errorf("audio: %s: block align %d for %d channels of 16 bits: %w", name, blockAlign, d.channels, ErrUnsupportedFormat)
	}
	return nil
}

// read appends up to max mono samples to out. It returns io.EOF, with no
// samples, at the end of the data.
func (d *wavDecoder) read(out []float32, max int) ([]float32, error) {
	frameBytes := 2 * d.channels
	want := min(len(d.raw), max*frameBytes)
	if d.remaining >= 0 {
		want = int(min(int64(want), int64(d.carry)+d.remaining))
	}
	if want < frameBytes {
		return out, io.EOF
	}
	// A read can end mid-frame; the partial frame is kept for the next one.
	n, err := io.ReadAtLeast(d.r, d.raw[d.carry:want], frameBytes-d.carry)
	if d.remaining >= 0 {
		d.remaining -= int64(n)
	}
	n += d.carry
	whole := n - n%frameBytes
	if whole == 0 {
		if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
			err = io.EOF // a trailing partial frame is dropped
		}
		return out, err
	}
	d.frame = d.frame[:0]
	for i := 0; i < whole; i += 2 {
		d.frame = append(d.frame, float32(int16(binary.LittleEndian.Uint16(d.raw[i:])))/32768)
	}
	d.carry = copy(d.raw, d.raw[whole:n])
	return Downmix(out, d.frame, d.channels), nil
}

// WAVSource reads a 16-bit PCM WAV file of any rate and channel count and
// delivers it as 16 kHz mono. With Paced set it delivers no faster than real
// time, like a microphone; otherwise as fast as Read is called.
type WAVSource struct {
	Path  string
	Paced bool

	f         *os.File
	dec       *wavDecoder
	rs        *Resampler
	mono      []float32 // decoded, at the file's rate
	pending   []float32 // resampled, not yet delivered
	head      int
	eof       bool
	start     time.Time
	delivered int64
	timer     *time.Timer
}

// Open opens the file and parses its header.
func (s *WAVSource) Open(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f, err := os.Open(s.Path)
	if err != nil {
		return fmt.Errorf("audio: open WAV: %w", err)
	}
	dec, err := newWAVDecoder(bufio.NewReaderSize(f, 64<<10), s.Path)
	if err != nil {
		f.Close()
		return err
	}
	rs, err := NewResampler(dec.rate, SampleRate)
	if err != nil {
		f.Close()
		return err
	}
	s.f, s.dec, s.rs = f, dec, rs
	s.pending, s.head, s.eof, s.delivered = s.pending[:0], 0, false, 0
	s.start = time.Now()
	return nil
}

// Format returns the file's own sample rate and channel count.
func (s *WAVSource) Format() (rate, channels int) {
	if s.dec == nil {
		return 0, 0
	}
	return s.dec.rate, s.dec.channels
}

// Read fills buf with 16 kHz mono samples; io.EOF marks the end.
func (s *WAVSource) Read(ctx context.Context, buf []float32) (int, error) {
	if s.dec == nil {
		return 0, ErrClosed
	}
	if len(buf) == 0 {
		return 0, nil
	}
	for len(s.pending)-s.head < len(buf) && !s.eof {
		if err := s.fill(len(buf)); err != nil {
			return 0, err
		}
	}
	n := min(len(buf), len(s.pending)-s.head)
	if n == 0 {
		return 0, io.EOF
	}
	if s.Paced {
		// Hand the samples over when a microphone would have: at the wall
		// time their last sample was "recorded".
		if err := s.waitUntil(ctx, s.start.Add(Duration(s.delivered+int64(n)))); err != nil {
			return 0, err
		}
	}
	copy(buf, s.pending[s.head:s.head+n])
	s.head += n
	if s.head == len(s.pending) {
		s.pending, s.head = s.pending[:0], 0
	}
	s.delivered += int64(n)
	return n, nil
}

func (s *WAVSource) waitUntil(ctx context.Context, due time.Time) error {
	wait := time.Until(due)
	if wait <= 0 {
		return ctx.Err()
	}
	if s.timer == nil {
		s.timer = time.NewTimer(wait)
	} else {
		s.timer.Reset(wait)
	}
	select {
	case <-ctx.Done():
		s.timer.Stop()
		return ctx.Err()
	case <-s.timer.C:
		return nil
	}
}

// fill decodes and resamples at least one more chunk into pending.
func (s *WAVSource) fill(want int) error {
	if s.head > 0 && s.head == len(s.pending) {
		s.pending, s.head = s.pending[:0], 0
	}
	chunk := max(want*s.dec.rate/SampleRate+1, 1024)
	var err error
	s.mono, err = s.dec.read(s.mono[:0], chunk)
	if errors.Is(err, io.EOF) {
		s.eof = true
		s.pending = s.rs.Flush(s.pending)
		return nil
	}
	if err != nil {
		return fmt.Errorf("audio: reading %s: %w", s.Path, err)
	}
	s.pending = s.rs.Process(s.pending, s.mono)
	return nil
}

// Close closes the file.
func (s *WAVSource) Close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f, s.dec = nil, nil
	if s.timer != nil {
		s.timer.Stop()
	}
	return err
}

// Name identifies the source in logs and status.
func (s *WAVSource) Name() string { return "wav:" + filepath.Base(s.Path) }

// ReadWAVFile decodes a whole 16-bit PCM WAV file to 16 kHz mono.
func ReadWAVFile(path string) ([]float32, error) {
	s := &WAVSource{Path: path}
	if err := s.Open(context.Background()); err != nil {
		return nil, err
	}
	defer s.Close()
	var all []float32
	buf := make([]float32, 16384)
	for {
		n, err := s.Read(context.Background(), buf)
		all = append(all, buf[:n]...)
		if errors.Is(err, io.EOF) {
			return all, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
