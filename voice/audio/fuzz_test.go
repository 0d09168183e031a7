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
	"testing"
	"time"
)

// fuzzWAV builds a WAV file with the given fmt fields and extra chunks
// before "data" (id, body), for seeds.
func fuzzWAV(format, channels, rate, bits int, data []byte, fmtExtra []byte, chunks ...string) []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	b.WriteString("RIFF")
	binary.Write(&b, le, uint32(0))
	b.WriteString("WAVEfmt ")
	binary.Write(&b, le, uint32(16+len(fmtExtra)))
	blockAlign := channels * bits / 8
	for _, v := range []any{uint16(format), uint16(channels), uint32(rate), uint32(rate * blockAlign), uint16(blockAlign), uint16(bits)} {
		binary.Write(&b, le, v)
	}
	b.Write(fmtExtra)
	if len(fmtExtra)%2 == 1 {
		b.WriteByte(0)
	}
	for i := 0; i+1 < len(chunks); i += 2 {
		b.WriteString(chunks[i])
		binary.Write(&b, le, uint32(len(chunks[i+1])))
		b.WriteString(chunks[i+1])
		if len(chunks[i+1])%2 == 1 {
			b.WriteByte(0)
		}
	}
	b.WriteString("data")
	binary.Write(&b, le, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}

// FuzzWAV opens arbitrary bytes as a WAV file (what `spirit listen --file`
// and the voice tests read) and decodes it to 16 kHz mono. A file that is
// not RIFF/WAVE is refused as ErrUnsupportedFormat; one that opens has a
// rate and channel count the decoder supports; the samples are finite and
// in range (a resampled full-scale signal overshoots a little, never by
// much), there are never more than the file's bytes can hold at 16 kHz,
// and decoding ends promptly.
func FuzzWAV(f *testing.F) {
	tone := make([]byte, 2*400)
	for i := range 400 {
		binary.LittleEndian.PutUint16(tone[2*i:], uint16(int16(20000*math.Sin(float64(i)/3))))
	}
	ext := make([]byte, 24) // WAVE_FORMAT_EXTENSIBLE: cbSize, bits, mask, sub-format GUID
	binary.LittleEndian.PutUint16(ext[0:], 22)
	binary.LittleEndian.PutUint16(ext[2:], 16)
	binary.LittleEndian.PutUint16(ext[8:], wavPCM)
	for _, s := range [][]byte{
		fuzzWAV(wavPCM, 1, 16000, 16, tone, nil),
		fuzzWAV(wavPCM, 2, 44100, 16, tone, nil, "LIST", "INFOx"),
		fuzzWAV(wavExtensible, 2, 48000, 16, tone, ext),
		fuzzWAV(wavPCM, 3, 11025, 16, tone[:301], nil, "fact", "\x00\x01\x00\x00"),
		fuzzWAV(wavFloat, 1, 16000, 32, tone, nil),
		fuzzWAV(wavPCM, 1, 8000, 16, nil, nil),
		[]byte("RIFF\x00\x00\x00\x00WAVEdata\x10\x00\x00\x00\x00\x00"),
		[]byte("ID3\x04 an mp3"),
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "in.wav")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			checkWAV(t, path, data)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("decoding %d bytes did not end within 10s", len(data))
		}
	})
}

func checkWAV(t *testing.T, path string, data []byte) {
	s := &WAVSource{Path: path}
	ctx := context.Background()
	if err := s.Open(ctx); err != nil {
		riff := len(data) >= 12 && string(data[0:4]) == "RIFF" && string(data[8:12]) == "WAVE"
		if len(data) >= 12 && !riff && !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("not RIFF/WAVE, yet %v", err)
		}
		return
	}
	defer s.Close()
	rate, channels := s.Format()
	if rate < 1000 || rate > 768000 || channels < 1 || channels > 64 {
		t.Errorf("opened with %d Hz, %d channels", rate, channels)
		return
	}
	// Every frame takes 2 bytes per channel of the file; the resampler
	// makes ceil(frames * 16000 / rate) samples of them.
	frames := int64(len(data) / (2 * channels))
	limit := (frames*SampleRate + int64(rate) - 1) / int64(rate)
	buf := make([]float32, 4096)
	var total int64
	for {
		n, err := s.Read(ctx, buf)
		for _, v := range buf[:n] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 2 {
				t.Errorf("sample %v", v)
				return
			}
		}
		total += int64(n)
		if total > limit {
			t.Errorf("%d samples from %d bytes at %d Hz, %d channels; at most %d fit", total, len(data), rate, channels, limit)
			return
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			// The file is there and whole: only a read error could end
			// decoding other than at EOF, and a bytes file has none.
			t.Errorf("Read: %v", err)
			return
		}
		if n == 0 {
			t.Errorf("Read returned no samples and no error")
			return
		}
	}
}
