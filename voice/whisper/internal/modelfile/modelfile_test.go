package modelfile_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/voice/whisper/internal/modelfile"
	"github.com/spirit-app/spirit/voice/whisper/whispertest"
)

func tiny(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.bin")
	if err := whispertest.WriteModel(path, whispertest.Tiny()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

func write(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGeneratedModelChecks(t *testing.T) {
	path, data := tiny(t)
	h, err := modelfile.Check(path)
	if err != nil {
		t.Fatal(err)
	}
	want := modelfile.HParams{NVocab: 51864, NAudioCtx: 1500, NAudioState: 64, NAudioHead: 1, NAudioLayer: 1,
		NTextCtx: 448, NTextState: 64, NTextHead: 1, NTextLayer: 1, NMels: 80, FType: 1}
	if h != want {
		t.Errorf("hparams = %+v, want %+v", h, want)
	}
	if h.Multilingual() {
		t.Error("a 51864-token model is English-only")
	}
	if mb := float64(len(data)) / 1e6; mb < 7 || mb > 9 {
		t.Errorf("tiny model is %.1f MB, want about 8", mb)
	}
	// Deterministic: the same dims give the same bytes.
	_, again := tiny(t)
	if !bytes.Equal(data, again) {
		t.Error("two models written from the same dims differ")
	}
}

// offsets of the sections of a Tiny model file.
const (
	hdrEnd    = 4 + 11*4
	filtEnd   = hdrEnd + 8 + 80*modelfile.NFFT*4
	vocabFrom = filtEnd + 4
)

func TestCheckRejectsTruncation(t *testing.T) {
	_, data := tiny(t)
	tensorsFrom := vocabEnd(t, data)
	for _, n := range []int{0, 3, 10, hdrEnd - 1, hdrEnd + 4, filtEnd - 7, vocabFrom + 1000,
		tensorsFrom - 1, tensorsFrom + 5, tensorsFrom + 30, len(data) / 2, len(data) - 1} {
		_, err := modelfile.Check(write(t, data[:n]))
		if err == nil {
			t.Errorf("model cut to %d of %d bytes: no error", n, len(data))
		}
	}
}

// vocabEnd walks the vocabulary to find where the tensors start.
func vocabEnd(t *testing.T, data []byte) int {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[filtEnd:]))
	off := vocabFrom
	for range n {
		off += 4 + int(binary.LittleEndian.Uint32(data[off:]))
	}
	return off
}

func TestCheckRejectsCorruption(t *testing.T) {
	_, data := tiny(t)
	tensors := vocabEnd(t, data)
	patch := func(off int, v uint32) []byte {
		d := bytes.Clone(data)
		binary.LittleEndian.PutUint32(d[off:], v)
		return d
	}
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"magic", "bad magic", patch(0, 0x46554747)},
		{"n_vocab", "n_vocab", patch(4, 50000)},
		{"negative width", "n_audio_state", patch(12, 0xffffff00)},
		{"text width", "n_text_state", patch(4+6*4, 128)},
		{"filters", "mel filters", patch(hdrEnd, 128)},
		{"vocab count", "vocabulary has", patch(filtEnd, 1<<30)},
		{"token length", "length", patch(vocabFrom, 1<<31)},
		// whisper.cpp reads n_dims values into a 4-element array on its stack.
		{"n_dims", "corrupt tensor header", patch(tensors, 1000)},
		{"name length", "corrupt tensor header", patch(tensors+4, 1<<30)},
		{"type", "unsupported type", patch(tensors+8, 77)},
		{"shape", "shape", patch(tensors+12, 65)},
		{"trailing", "tensor", append(bytes.Clone(data), 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 'x')},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := modelfile.Check(write(t, c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, c.want)
			}
			if (c.name == "magic") != errors.Is(err, modelfile.ErrNotModel) {
				t.Errorf("errors.Is(err, ErrNotModel) = %v", errors.Is(err, modelfile.ErrNotModel))
			}
		})
	}
}

func TestCheckRequiresSpaceToken(t *testing.T) {
	h := modelfile.HParams{NVocab: 51864, NAudioCtx: 8, NAudioState: 4, NAudioHead: 1, NAudioLayer: 1,
		NTextCtx: 8, NTextState: 4, NTextHead: 1, NTextLayer: 1, NMels: 80, FType: 0}
	var buf bytes.Buffer
	w := modelfile.NewWriter(&buf)
	w.Header(h)
	w.Filters(80, make([]float32, 80*modelfile.NFFT))
	w.Vocab([]string{"a", "b", "  "})
	for _, tn := range modelfile.Tensors(h) {
		w.Tensor(tn, make([]float32, tn.Elements()))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	_, err := modelfile.Check(write(t, buf.Bytes()))
	if err == nil || !strings.Contains(err.Error(), `" " token`) {
		t.Fatalf("err = %v, want the missing space token", err)
	}
}

func TestCheckNotRegular(t *testing.T) {
	if _, err := modelfile.Check(t.TempDir()); err == nil {
		t.Fatal("a directory passed the check")
	}
}

func TestHalf(t *testing.T) {
	cases := []struct {
		f    float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.1, 0x2e66},
		{65504, 0x7bff},
		{65520, 0x7c00}, // rounds up to infinity
		{1e6, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{6.1035156e-05, 0x0400}, // smallest normal
		{5.9604645e-08, 0x0001}, // smallest subnormal
		{2.9802322e-08, 0x0000}, // half of it: ties to even
		{4.4703484e-08, 0x0001}, // 0.75 of it
		{1.0009765625, 0x3c01},  // exact
		{1.00048828125, 0x3c00}, // tie, to even
		{1.00146484375, 0x3c02}, // tie, to even (up)
		{1e-10, 0x0000},
	}
	for _, c := range cases {
		if got := modelfile.Half(c.f); got != c.want {
			t.Errorf("Half(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
	if got := modelfile.Half(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("Half(NaN) = %#04x, not a NaN", got)
	}
}
