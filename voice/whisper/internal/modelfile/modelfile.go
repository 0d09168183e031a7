// Package modelfile describes the legacy ggml file format of whisper.cpp
// models (ggml-base.en.bin and friends) as read by whisper_model_load in
// whisper.cpp 1.9.1.
//
// It exists so that a model file is checked in Go before it reaches C: the C
// loader trusts the file (a tensor with more than four dimensions overwrites
// its stack, a vocabulary without the " " token makes decoding throw a C++
// exception that aborts the process). The test-model generator in
// whispertest writes files from the same tensor table, so reader and writer
// cannot drift apart.
//
// Layout (all integers little-endian int32 unless noted):
//
//	magic uint32 (0x67676d6c, "ggml")
//	hparams: n_vocab n_audio_ctx n_audio_state n_audio_head n_audio_layer
//	         n_text_ctx n_text_state n_text_head n_text_layer n_mels ftype
//	mel filters: n_mel n_fft, then n_mel*n_fft float32
//	vocabulary: count, then count times (len uint32, bytes)
//	tensors until EOF: n_dims, name_len, type, ne[n_dims], name, data
package modelfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Magic is the first word of every ggml whisper model ("ggml").
const Magic uint32 = 0x67676d6c

// NFFT is the number of frequency bins of the mel filters: 1 + 400/2.
const NFFT = 201

// MinVocab is the smallest n_vocab whisper.cpp accepts: the special token ids
// (end of text 50256, start of transcript 50257, ...) are fixed, and 51864 is
// the size of the English-only models. Multilingual models have 51865 (51866
// for large-v3).
const MinVocab = 51864

// ggml tensor types, as in ggml.h.
const (
	TypeF32 = 0
	TypeF16 = 1
)

// typeInfo is the storage of one ggml type: bytes per block of blockSize
// elements (ggml-common.h).
type typeInfo struct{ blockSize, blockBytes int64 }

func typeOf(t int32) (typeInfo, bool) {
	switch t {
	case 0: // f32
		return typeInfo{1, 4}, true
	case 1, 30: // f16, bf16
		return typeInfo{1, 2}, true
	case 2: // q4_0
		return typeInfo{32, 18}, true
	case 3: // q4_1
		return typeInfo{32, 20}, true
	case 6: // q5_0
		return typeInfo{32, 22}, true
	case 7: // q5_1
		return typeInfo{32, 24}, true
	case 8: // q8_0
		return typeInfo{32, 34}, true
	case 9: // q8_1
		return typeInfo{32, 36}, true
	case 10: // q2_K
		return typeInfo{256, 84}, true
	case 11: // q3_K
		return typeInfo{256, 110}, true
	case 12: // q4_K
		return typeInfo{256, 144}, true
	case 13: // q5_K
		return typeInfo{256, 176}, true
	case 14: // q6_K
		return typeInfo{256, 210}, true
	case 15: // q8_K
		return typeInfo{256, 292}, true
	}
	return typeInfo{}, false
}

// HParams are the eleven hyper-parameters at the start of a model file.
type HParams struct {
	NVocab, NAudioCtx, NAudioState, NAudioHead, NAudioLayer int32
	NTextCtx, NTextState, NTextHead, NTextLayer, NMels      int32
	FType                                                   int32
}

func (h *HParams) fields() []*int32 {
	return []*int32{&h.NVocab, &h.NAudioCtx, &h.NAudioState, &h.NAudioHead, &h.NAudioLayer,
		&h.NTextCtx, &h.NTextState, &h.NTextHead, &h.NTextLayer, &h.NMels, &h.FType}
}

// Multilingual reports whether the model has language tokens (not a .en model).
func (h HParams) Multilingual() bool { return h.NVocab >= MinVocab+1 }

// check rejects hyper-parameters the C loader would not survive. The bounds
// are generous: every published whisper model is far inside them.
func (h HParams) check() error {
	in := func(name string, v, lo, hi int32) error {
		if v < lo || v > hi {
			return fmt.Errorf("%s = %d, want %d..%d", name, v, lo, hi)
		}
		return nil
	}
	for _, err := range []error{
		in("n_vocab", h.NVocab, MinVocab, 1<<20),
		in("n_audio_ctx", h.NAudioCtx, 1, 1<<14),
		in("n_audio_state", h.NAudioState, 1, 1<<14),
		in("n_audio_head", h.NAudioHead, 1, 1<<10),
		in("n_audio_layer", h.NAudioLayer, 1, 1<<10),
		in("n_text_ctx", h.NTextCtx, 1, 1<<14),
		in("n_text_state", h.NTextState, 1, 1<<14),
		in("n_text_head", h.NTextHead, 1, 1<<10),
		in("n_text_layer", h.NTextLayer, 1, 1<<10),
		in("n_mels", h.NMels, 1, 1<<10),
		in("ftype", h.FType%1000, 0, 1<<10), // ftype carries a quantisation version * 1000
	} {
		if err != nil {
			return err
		}
	}
	// whisper.cpp only asserts this in debug builds; the graphs assume it.
	if h.NTextState != h.NAudioState {
		return fmt.Errorf("n_text_state %d != n_audio_state %d", h.NTextState, h.NAudioState)
	}
	if h.NAudioState%h.NAudioHead != 0 || h.NTextState%h.NTextHead != 0 {
		return fmt.Errorf("state %d not divisible by heads %d/%d", h.NAudioState, h.NAudioHead, h.NTextHead)
	}
	return nil
}

// Kind says how a tensor is stored for a given model ftype.
type Kind int

const (
	F32    Kind = iota // always float32 (biases, norms, positional embeddings)
	Weight             // the model's weight type: f16 or quantised for ftype>0, else f32
	Conv               // conv kernels: f16 unless the model is all-f32
)

// Tensor is one tensor whisper.cpp expects: its name and shape in ggml
// order (ne[0] first, the fastest-varying dimension).
type Tensor struct {
	Name  string
	Shape []int32
	Kind  Kind
}

// Elements is the product of the shape.
func (t Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= int64(d)
	}
	return n
}

// Tensors lists every tensor of a model with these hyper-parameters, in the
// order whisper_model_load creates them (the order in the file is free).
func Tensors(h HParams) []Tensor {
	as, ac, ts, tc := h.NAudioState, h.NAudioCtx, h.NTextState, h.NTextCtx
	var out []Tensor
	add := func(kind Kind, name string, shape ...int32) {
		out = append(out, Tensor{Name: name, Shape: shape, Kind: kind})
	}
	// layer adds the tensors every encoder and decoder block has: its
	// MLP and self-attention, of width n.
	layer := func(p string, n int32) {
		add(F32, p+"mlp_ln.weight", n)
		add(F32, p+"mlp_ln.bias", n)
		add(Weight, p+"mlp.0.weight", n, 4*n)
		add(F32, p+"mlp.0.bias", 4*n)
		add(Weight, p+"mlp.2.weight", 4*n, n)
		add(F32, p+"mlp.2.bias", n)
		add(F32, p+"attn_ln.weight", n)
		add(F32, p+"attn_ln.bias", n)
		add(Weight, p+"attn.query.weight", n, n)
		add(F32, p+"attn.query.bias", n)
		add(Weight, p+"attn.key.weight", n, n)
		add(Weight, p+"attn.value.weight", n, n)
		add(F32, p+"attn.value.bias", n)
		add(Weight, p+"attn.out.weight", n, n)
		add(F32, p+"attn.out.bias", n)
	}
	add(F32, "encoder.positional_embedding", as, ac)
	add(Conv, "encoder.conv1.weight", 3, h.NMels, as)
	add(F32, "encoder.conv1.bias", 1, as) // 2-D in the file, as the C loader wants
	add(Conv, "encoder.conv2.weight", 3, as, as)
	add(F32, "encoder.conv2.bias", 1, as)
	add(F32, "encoder.ln_post.weight", as)
	add(F32, "encoder.ln_post.bias", as)
	for i := range h.NAudioLayer {
		p := fmt.Sprintf("encoder.blocks.%d.", i)
		layer(p, as)
	}
	add(F32, "decoder.positional_embedding", ts, tc)
	add(Weight, "decoder.token_embedding.weight", ts, h.NVocab)
	add(F32, "decoder.ln.weight", ts)
	add(F32, "decoder.ln.bias", ts)
	for i := range h.NTextLayer {
		p := fmt.Sprintf("decoder.blocks.%d.", i)
		layer(p, ts)
		for _, s := range []string{"cross_attn_ln.weight", "cross_attn_ln.bias"} {
			add(F32, p+s, ts)
		}
		add(Weight, p+"cross_attn.query.weight", ts, ts)
		add(F32, p+"cross_attn.query.bias", ts)
		add(Weight, p+"cross_attn.key.weight", ts, ts)
		add(Weight, p+"cross_attn.value.weight", ts, ts)
		add(F32, p+"cross_attn.value.bias", ts)
		add(Weight, p+"cross_attn.out.weight", ts, ts)
		add(F32, p+"cross_attn.out.bias", ts)
	}
	return out
}

// ErrNotModel is wrapped by Check when the file is not a ggml whisper model
// at all (wrong magic), as opposed to a damaged one.
var ErrNotModel = errors.New("not a ggml whisper model")

// Check reads the model file at path far enough to be sure whisper.cpp's
// loader will not crash on it: header, mel filters, vocabulary and every
// tensor header, with the tensor data skipped (so it costs milliseconds even
// for large models). It returns the hyper-parameters.
func Check(path string) (HParams, error) {
	f, err := os.Open(path)
	if err != nil {
		return HParams{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return HParams{}, err
	}
	if !st.Mode().IsRegular() {
		return HParams{}, fmt.Errorf("%s: not a regular file", path)
	}
	h, err := check(f, st.Size())
	if err != nil {
		return h, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// countingReader tracks the offset of a buffered sequential read.
type countingReader struct {
	r   *bufio.Reader
	off int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.off += int64(n)
	return n, err
}

func check(f io.ReaderAt, size int64) (HParams, error) {
	var h HParams
	cr := &countingReader{r: bufio.NewReaderSize(io.NewSectionReader(f, 0, size), 1<<16)}
	i32 := func() (int32, error) {
		var v int32
		err := binary.Read(cr, binary.LittleEndian, &v)
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return v, err
	}

	var magic uint32
	if err := binary.Read(cr, binary.LittleEndian, &magic); err != nil || magic != Magic {
		return h, fmt.Errorf("%w (bad magic)", ErrNotModel)
	}
	for _, p := range h.fields() {
		v, err := i32()
		if err != nil {
			return h, fmt.Errorf("truncated header: %w", err)
		}
		*p = v
	}
	if err := h.check(); err != nil {
		return h, fmt.Errorf("bad hyper-parameters: %w", err)
	}

	nMel, err := i32()
	if err != nil {
		return h, fmt.Errorf("truncated mel filters: %w", err)
	}
	nFFT, err := i32()
	if err != nil {
		return h, fmt.Errorf("truncated mel filters: %w", err)
	}
	if nMel != h.NMels || nFFT != NFFT {
		return h, fmt.Errorf("mel filters are %dx%d, want %dx%d", nMel, nFFT, h.NMels, NFFT)
	}
	if _, err := cr.r.Discard(int(nMel) * int(nFFT) * 4); err != nil {
		return h, fmt.Errorf("truncated mel filters: %w", err)
	}
	cr.off += int64(nMel) * int64(nFFT) * 4

	nTok, err := i32()
	if err != nil {
		return h, fmt.Errorf("truncated vocabulary: %w", err)
	}
	if nTok < 0 || nTok > h.NVocab {
		return h, fmt.Errorf("vocabulary has %d tokens, n_vocab is %d", nTok, h.NVocab)
	}
	space := false
	buf := make([]byte, 0, 256)
	for i := range nTok {
		n, err := i32()
		if err != nil {
			return h, fmt.Errorf("truncated vocabulary at token %d: %w", i, err)
		}
		if n < 0 || n > 1<<12 {
			return h, fmt.Errorf("vocabulary token %d has length %d", i, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(cr, buf); err != nil {
			return h, fmt.Errorf("truncated vocabulary at token %d: %w", i, err)
		}
		space = space || string(buf) == " "
	}
	// Blank suppression looks the token up with std::map::at: without it the
	// first decode throws and the process aborts.
	if !space {
		return h, errors.New(`vocabulary lacks the " " token`)
	}

	want := map[string]Tensor{}
	for _, t := range Tensors(h) {
		want[t.Name] = t
	}
	off := cr.off
	seen := 0
	for off < size {
		var hdr [12]byte
		if _, err := f.ReadAt(hdr[:], off); err != nil {
			return h, fmt.Errorf("truncated tensor header at byte %d", off)
		}
		nDims := int32(binary.LittleEndian.Uint32(hdr[0:]))
		nameLen := int32(binary.LittleEndian.Uint32(hdr[4:]))
		typ := int32(binary.LittleEndian.Uint32(hdr[8:]))
		off += 12
		if nDims < 1 || nDims > 4 || nameLen < 1 || nameLen > 256 {
			return h, fmt.Errorf("corrupt tensor header at byte %d (dims %d, name length %d)", off-12, nDims, nameLen)
		}
		rest := make([]byte, 4*int(nDims)+int(nameLen))
		if _, err := f.ReadAt(rest, off); err != nil {
			return h, fmt.Errorf("truncated tensor header at byte %d", off-12)
		}
		off += int64(len(rest))
		shape := make([]int32, nDims)
		for i := range shape {
			shape[i] = int32(binary.LittleEndian.Uint32(rest[4*i:]))
		}
		name := string(rest[4*nDims:])
		exp, ok := want[name]
		if !ok {
			return h, fmt.Errorf("unexpected tensor %q (duplicate or unknown)", name)
		}
		delete(want, name)
		if !sameShape(shape, exp.Shape) {
			return h, fmt.Errorf("tensor %q has shape %v, want %v", name, shape, exp.Shape)
		}
		ti, ok := typeOf(typ)
		if !ok {
			return h, fmt.Errorf("tensor %q has unsupported type %d", name, typ)
		}
		n := exp.Elements()
		if n%ti.blockSize != 0 {
			return h, fmt.Errorf("tensor %q: %d elements do not fill blocks of %d", name, n, ti.blockSize)
		}
		off += n / ti.blockSize * ti.blockBytes
		if off > size {
			return h, fmt.Errorf("truncated: tensor %q ends at byte %d, file has %d", name, off, size)
		}
		seen++
	}
	if len(want) > 0 {
		return h, fmt.Errorf("truncated: %d of %d tensors present", seen, seen+len(want))
	}
	return h, nil
}

// sameShape compares shapes as the C loader does: missing trailing
// dimensions count as 1.
func sameShape(a, b []int32) bool {
	for i := range 4 {
		if dim(a, i) != dim(b, i) {
			return false
		}
	}
	return true
}

func dim(s []int32, i int) int32 {
	if i < len(s) {
		return s[i]
	}
	return 1
}

// Writer writes a model file section by section, in order.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter starts a model file on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 1<<20)} }

func (w *Writer) put(v any) {
	if w.err == nil {
		w.err = binary.Write(w.w, binary.LittleEndian, v)
	}
}

// Header writes the magic and the hyper-parameters.
func (w *Writer) Header(h HParams) {
	w.put(Magic)
	for _, p := range h.fields() {
		w.put(*p)
	}
}

// Filters writes the mel filter bank, nMel rows of NFFT values.
func (w *Writer) Filters(nMel int32, data []float32) {
	w.put(nMel)
	w.put(int32(NFFT))
	w.put(data)
}

// Vocab writes the vocabulary.
func (w *Writer) Vocab(tokens []string) {
	w.put(int32(len(tokens)))
	for _, t := range tokens {
		w.put(uint32(len(t)))
		if w.err == nil {
			_, w.err = w.w.WriteString(t)
		}
	}
}

// Tensor writes one tensor; data is []float32 for TypeF32 or []uint16 (IEEE
// half-precision bits) for TypeF16.
func (w *Writer) Tensor(t Tensor, data any) {
	typ := int32(TypeF32)
	switch d := data.(type) {
	case []float32:
		if int64(len(d)) != t.Elements() {
			w.fail(t, len(d))
		}
	case []uint16:
		typ = TypeF16
		if int64(len(d)) != t.Elements() {
			w.fail(t, len(d))
		}
	default:
		w.err = fmt.Errorf("tensor %s: unsupported data %T", t.Name, data)
	}
	w.put(int32(len(t.Shape)))
	w.put(int32(len(t.Name)))
	w.put(typ)
	w.put(t.Shape)
	if w.err == nil {
		_, w.err = w.w.WriteString(t.Name)
	}
	w.put(data)
}

func (w *Writer) fail(t Tensor, n int) {
	if w.err == nil {
		w.err = fmt.Errorf("tensor %s: %d values for shape %v", t.Name, n, t.Shape)
	}
}

// Flush ends the file and reports the first error.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

// Half converts a float32 to IEEE 754 half precision, rounding to nearest
// even, as ggml_fp32_to_fp16 does.
func Half(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 0x1f: // overflow and infinity
		return sign | 0x7c00
	case exp <= 0: // subnormal or zero
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // may carry into the exponent, which is still correct
	}
	return sign | uint16(h)
}
