package audio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wavBytes builds a WAV file: format tag, channels, rate, bits, and frames
// of interleaved 16-bit samples (ignored for other bit depths). extra adds a
// chunk before "data", as many writers do (LIST, fact).
func wavBytes(format, channels, rate, bits int, samples []int16, extensible, extra bool) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	data := new(bytes.Buffer)
	binary.Write(data, le, samples)
	fmtLen := 16
	if extensible {
		fmtLen = 40
	}
	b.WriteString("RIFF")
	binary.Write(&b, le, uint32(0)) // writers that cannot seek leave 0; we do not care
	b.WriteString("WAVEfmt ")
	binary.Write(&b, le, uint32(fmtLen))
	tag := format
	if extensible {
		tag = wavExtensible
	}
	blockAlign := channels * bits / 8
	for _, v := range []any{uint16(tag), uint16(channels), uint32(rate), uint32(rate * blockAlign), uint16(blockAlign), uint16(bits)} {
		binary.Write(&b, le, v)
	}
	if extensible {
		for _, v := range []any{uint16(22), uint16(bits), uint32(3), uint16(format)} {
			binary.Write(&b, le, v)
		}
		b.Write([]byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71})
	}
	if extra {
		b.WriteString("LIST")
		binary.Write(&b, le, uint32(5))
		b.Write([]byte("INFOx\x00")) // odd size: padded
	}
	b.WriteString("data")
	binary.Write(&b, le, uint32(data.Len()))
	b.Write(data.Bytes())
	return b.Bytes()
}

func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.wav")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWAVStereo44kToMono16k(t *testing.T) {
	const rate = 44100
	var frames []int16
	for i := range rate / 2 { // 0.5 s; left and right in phase
		v := int16(16384 * math.Sin(2*math.Pi*300*float64(i)/rate))
		frames = append(frames, v, v)
	}
	for _, ext := range []bool{false, true} {
		path := writeTemp(t, wavBytes(wavPCM, 2, rate, 16, frames, ext, true))
		x, err := ReadWAVFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(x) != SampleRate/2 {
			t.Errorf("extensible=%v: %d samples, want %d", ext, len(x), SampleRate/2)
		}
		want := sine(SampleRate, 300, 0.5, len(x))
		for i := 500; i < len(x)-500; i++ {
			if d := math.Abs(float64(x[i] - want[i])); d > 0.005 {
				t.Fatalf("extensible=%v: sample %d = %v, want %v", ext, i, x[i], want[i])
			}
		}
	}
}

func TestWAVRejectsOtherEncodings(t *testing.T) {
	cases := []struct {
		name      string
		file      []byte
		mentioned string
	}{
		{"float32", wavBytes(wavFloat, 1, 16000, 32, make([]int16, 64), false, false), "float"},
		{"float32 extensible", wavBytes(wavFloat, 1, 16000, 32, make([]int16, 64), true, false), "float"},
		{"24-bit", wavBytes(wavPCM, 1, 16000, 24, make([]int16, 66), false, false), "24-bit"},
		{"mu-law", wavBytes(7, 1, 8000, 8, make([]int16, 64), false, false), "encoding"},
		{"not riff", []byte("ID3\x04 this is an mp3, honest"), "RIFF"},
	}
	for _, c := range cases {
		_, err := ReadWAVFile(writeTemp(t, c.file))
		if !errors.Is(err, ErrUnsupportedFormat) || !strings.Contains(err.Error(), c.mentioned) {
			t.Errorf("%s: err = %v; want ErrUnsupportedFormat mentioning %q", c.name, err, c.mentioned)
		}
	}
	if _, err := ReadWAVFile(filepath.Join(t.TempDir(), "missing.wav")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestWAVSourcePaced(t *testing.T) {
	path := writeTemp(t, wavBytes(wavPCM, 1, SampleRate, 16, make([]int16, SampleRate*3/10), false, false))
	s := &WAVSource{Path: path, Paced: true}
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	buf := make([]float32, 1600)
	total := 0
	for {
		n, err := s.Read(ctx, buf)
		total += n
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 290*time.Millisecond || el > 2*time.Second {
		t.Errorf("0.3 s file read paced in %v", el)
	}
	if total != SampleRate*3/10 {
		t.Errorf("read %d samples, want %d", total, SampleRate*3/10)
	}
	// A cancelled context interrupts a paced wait.
	s2 := &WAVSource{Path: path, Paced: true}
	s2.Open(ctx)
	defer s2.Close()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s2.Read(cctx, make([]float32, 4000)); !errors.Is(err, context.Canceled) {
		t.Errorf("read with cancelled context: %v", err)
	}
}
