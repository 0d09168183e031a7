// Package whispertest writes whisper.cpp models with random weights for
// tests and benchmarks. No real model can be downloaded on the build machines,
// and none is needed to exercise the runtime: a random-weight model in the
// real ggml format loads and runs through the same code paths, and one with
// real dimensions costs what the real model costs to run. Its transcripts are
// junk, by design.
package whispertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/spirit-app/spirit/voice/whisper/internal/modelfile"
)

// Dims are a model's hyper-parameters.
type Dims struct {
	Vocab      int // ≥ 51864; 51864 makes an English-only (.en) model
	AudioCtx   int // encoder positions: 1500 for 30 s
	AudioState int // width; the text width is the same
	AudioHead  int
	AudioLayer int
	TextCtx    int
	TextHead   int
	TextLayer  int
	Mels       int
	F32        bool   // store weights as float32 instead of float16
	Seed       uint64 // weights are a pure function of Dims, Seed included
}

// Tiny is the smallest useful model: width 64, one head, one encoder and one
// decoder layer, f16. About 8 MB (most of it the token embedding); it loads
// in a few tens of milliseconds.
func Tiny() Dims {
	return Dims{Vocab: modelfile.MinVocab, AudioCtx: 1500, AudioState: 64, AudioHead: 1, AudioLayer: 1,
		TextCtx: 448, TextHead: 1, TextLayer: 1, Mels: 80, Seed: 1}
}

// TinyEnDims are the dimensions of ggml-tiny.en.bin (about 75 MB).
func TinyEnDims() Dims {
	return Dims{Vocab: modelfile.MinVocab, AudioCtx: 1500, AudioState: 384, AudioHead: 6, AudioLayer: 4,
		TextCtx: 448, TextHead: 6, TextLayer: 4, Mels: 80, Seed: 1}
}

// BaseEnDims are the dimensions of ggml-base.en.bin (about 148 MB).
func BaseEnDims() Dims {
	return Dims{Vocab: modelfile.MinVocab, AudioCtx: 1500, AudioState: 512, AudioHead: 8, AudioLayer: 6,
		TextCtx: 448, TextHead: 8, TextLayer: 6, Mels: 80, Seed: 1}
}

func (d Dims) hparams() modelfile.HParams {
	ftype := int32(1)
	if d.F32 {
		ftype = 0
	}
	return modelfile.HParams{
		NVocab: int32(d.Vocab), NAudioCtx: int32(d.AudioCtx), NAudioState: int32(d.AudioState),
		NAudioHead: int32(d.AudioHead), NAudioLayer: int32(d.AudioLayer), NTextCtx: int32(d.TextCtx),
		NTextState: int32(d.AudioState), NTextHead: int32(d.TextHead), NTextLayer: int32(d.TextLayer),
		NMels: int32(d.Mels), FType: ftype,
	}
}

// textTokens is the size of the stored vocabulary, as in the real .en
// models: ids from 50256 on (end of text, start of transcript, languages,
// timestamps) are special and the loader names them itself.
const textTokens = 50256

// vocab makes a vocabulary whose first 256 tokens are the single bytes, as in
// GPT-2's byte-level BPE. That includes " " (32), which the decoder's blank
// suppression cannot do without. The rest are pronounceable junk words.
func vocab() []string {
	syl := []string{"ba", "ke", "li", "mo", "nu", "ra", "se", "ti", "vo", "za", "do", "pe", "gu", "fi", "ha", "jo"}
	out := make([]string, textTokens)
	for i := range out {
		if i < 256 {
			out[i] = string([]byte{byte(i)})
			continue
		}
		w := " "
		for n := i; n > 0; n /= len(syl) {
			w += syl[n%len(syl)]
		}
		out[i] = w
	}
	return out
}

// WriteModel writes a random-weight model with dimensions dims to path, in
// the ggml format whisper.cpp 1.9.1 loads. The weights are deterministic:
// the same dims (seed included) always give the same file.
func WriteModel(path string, dims Dims) (err error) {
	h := dims.hparams()
	if h.NVocab < modelfile.MinVocab {
		return fmt.Errorf("whispertest: vocabulary %d < %d: whisper.cpp's special token ids are fixed", h.NVocab, modelfile.MinVocab)
	}
	if h.NAudioState <= 0 || h.NAudioHead <= 0 || h.NTextHead <= 0 ||
		h.NAudioState%h.NAudioHead != 0 || h.NAudioState%h.NTextHead != 0 {
		return fmt.Errorf("whispertest: width %d must be a positive multiple of the head counts %d and %d", h.NAudioState, h.NAudioHead, h.NTextHead)
	}
	// Write next to the target and rename, so a reader never sees half a model.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".model-*")
	if err != nil {
		return fmt.Errorf("whispertest: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	rng := rand.New(rand.NewPCG(dims.Seed, 0x5b1e17))
	// uniform draws in [-a, a)
	uniform := func(a float64) float32 { return float32((2*rng.Float64() - 1) * a) }

	w := modelfile.NewWriter(tmp)
	w.Header(h)
	filters := make([]float32, int(h.NMels)*modelfile.NFFT)
	for i := range filters {
		filters[i] = float32(rng.Float64() * 0.01) // mel weights are small and non-negative
	}
	w.Filters(h.NMels, filters)
	w.Vocab(vocab())

	for _, t := range modelfile.Tensors(h) {
		n := int(t.Elements())
		vals := make([]float32, n)
		switch {
		case isNormWeight(t.Name):
			// Layer-norm gains of one keep activations at unit scale.
			for i := range vals {
				vals[i] = 1
			}
		case t.Kind == modelfile.F32:
			// Biases and positional embeddings: small, so nothing saturates.
			for i := range vals {
				vals[i] = uniform(0.02)
			}
		default:
			// Matrices scaled by 1/sqrt(fan-in), so each layer preserves
			// the variance of its input and nothing overflows in f16.
			fanIn := float64(t.Shape[0])
			if len(t.Shape) == 3 {
				fanIn = float64(t.Shape[0] * t.Shape[1])
			}
			a := math.Sqrt(3 / fanIn)
			for i := range vals {
				vals[i] = uniform(a)
			}
		}
		if t.Kind == modelfile.F32 || dims.F32 {
			w.Tensor(t, vals)
			continue
		}
		half := make([]uint16, n)
		for i, v := range vals {
			half[i] = modelfile.Half(v)
		}
		w.Tensor(t, half)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("whispertest: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("whispertest: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("whispertest: %w", err)
	}
	return nil
}

// isNormWeight matches the layer-norm gains: decoder.ln, encoder.ln_post and
// the per-block attn_ln, cross_attn_ln and mlp_ln.
func isNormWeight(name string) bool {
	return strings.HasSuffix(name, "ln.weight") || strings.HasSuffix(name, "ln_post.weight")
}
