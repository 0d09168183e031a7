package whisper

// The Go binding covers loading, parameters and results, but not three things
// Spirit needs from whisper_full, so this file calls it directly, with the
// binding's own context and parameter values (same C types, same header):
//   - no_timestamps: an utterance is one segment; timestamp tokens are
//     decoder steps paid for nothing.
//   - abort_callback: whisper.cpp 1.9.1 polls it after each encoder pass and
//     between decoder steps (not inside the encoder graph), so a cancelled
//     context stops a call at the next of those points.
//   - the binding's callbacks go through Go maps without a lock, which two
//     models transcribing at once would corrupt; with them unset whisper.cpp
//     never calls back into Go.
// It also sets suppress_nst (as OpenAI's reference decoder does by default),
// which keeps "(music)"-style non-speech tokens out of the transcript.

/*
#cgo LDFLAGS: -lwhisper -lggml -lggml-base -lggml-cpu -lm -lstdc++
#cgo linux LDFLAGS: -fopenmp
#cgo darwin LDFLAGS: -lggml-metal -lggml-blas
#cgo darwin LDFLAGS: -framework Accelerate -framework Metal -framework Foundation -framework CoreGraphics
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <whisper.h>

// Abort flag bits: one for the caller's context (cleared before each call),
// one for Close (never cleared).
enum { SPIRIT_ABORT_CTX = 1, SPIRIT_ABORT_CLOSE = 2 };

static bool spirit_abort(void *flag) {
	return __atomic_load_n((int *)flag, __ATOMIC_RELAXED) != 0;
}

static void spirit_flag_set(int *flag, int bits) { __atomic_fetch_or(flag, bits, __ATOMIC_RELAXED); }
static void spirit_flag_clear(int *flag, int bits) { __atomic_fetch_and(flag, ~bits, __ATOMIC_RELAXED); }

static int spirit_full(struct whisper_context *ctx, struct whisper_full_params *p,
		const float *samples, int n, int *abort_flag) {
	p->no_timestamps = true;
	p->suppress_nst = true;
	p->new_segment_callback = NULL;
	p->new_segment_callback_user_data = NULL;
	p->progress_callback = NULL;
	p->progress_callback_user_data = NULL;
	p->encoder_begin_callback = NULL;
	p->encoder_begin_callback_user_data = NULL;
	p->abort_callback = spirit_abort;
	p->abort_callback_user_data = abort_flag;
	return whisper_full(ctx, *p, samples, n);
}

// whisper.cpp logs every hyper-parameter and buffer size at INFO on each
// load. A tray app keeps warnings and errors only. Continuation lines are
// dropped with the rest: whisper.cpp uses them for progress dots.
static void spirit_log(enum ggml_log_level level, const char *text, void *user_data) {
	(void)user_data;
	if (level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR) {
		fputs(text, stderr);
	}
}

static void spirit_quiet_logs(void) { whisper_log_set(spirit_log, NULL); }
*/
import "C"

import (
	"unsafe"

	binding "github.com/ggerganov/whisper.cpp/bindings/go"
)

// The binding's Params and this file's whisper_full_params must be the same C
// struct; a header mismatch would fail to compile here rather than corrupt
// memory (a negative constant overflows uintptr).
const (
	_ = unsafe.Sizeof(binding.Params{}) - unsafe.Sizeof(C.struct_whisper_full_params{})
	_ = unsafe.Sizeof(C.struct_whisper_full_params{}) - unsafe.Sizeof(binding.Params{})
)

// abortFlag is a C int that whisper.cpp polls from its worker threads; it
// lives in C memory so that it never moves and may be read while Go runs.
type abortFlag struct{ p *C.int }

func newAbortFlag() abortFlag {
	return abortFlag{(*C.int)(C.calloc(1, C.size_t(unsafe.Sizeof(C.int(0)))))}
}
func (f abortFlag) free()   { C.free(unsafe.Pointer(f.p)) }
func (f abortFlag) cancel() { C.spirit_flag_set(f.p, C.SPIRIT_ABORT_CTX) }
func (f abortFlag) reset()  { C.spirit_flag_clear(f.p, C.SPIRIT_ABORT_CTX) }
func (f abortFlag) close()  { C.spirit_flag_set(f.p, C.SPIRIT_ABORT_CLOSE) }

// full runs whisper_full on samples (non-empty) and returns its status code.
func full(ctx *binding.Context, p *binding.Params, samples []float32, abort abortFlag) int {
	return int(C.spirit_full((*C.struct_whisper_context)(unsafe.Pointer(ctx)),
		(*C.struct_whisper_full_params)(unsafe.Pointer(p)),
		(*C.float)(unsafe.Pointer(&samples[0])), C.int(len(samples)), abort.p))
}

func quietLogs() { C.spirit_quiet_logs() }
