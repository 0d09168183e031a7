//go:build (linux || darwin) && !no_ocr

package ocr

/*
// Weak: present when Tesseract was built with OpenMP (Debian links
// libgomp), absent otherwise (Homebrew builds without it).
#pragma weak omp_set_dynamic
#pragma weak omp_get_dynamic
extern void omp_set_dynamic(int);
extern int omp_get_dynamic(void);

// spirit_omp_dynamic sets dyn-var and returns its previous value.
static int spirit_omp_dynamic(int on) {
	if (!omp_set_dynamic || !omp_get_dynamic) {
		return on;
	}
	int prev = omp_get_dynamic();
	omp_set_dynamic(on);
	return prev;
}
*/
import "C"

// limitOpenMP lets the OpenMP runtime shrink the parallel regions started
// from the calling OS thread to the cores actually free, until the
// returned function restores the thread's setting (a later cgo call on
// this thread, say whisper.cpp's, must not inherit it). The caller must
// keep its goroutine locked to the thread in between.
//
// Tesseract asks for a fixed number of threads in many small parallel
// loops (a num_threads clause, which OMP_NUM_THREADS and
// omp_set_num_threads do not override). On 2 cores that oversubscription
// read a 1280×800 screen in 7.7 s instead of 1.0 s. OMP_THREAD_LIMIT=1
// would fix it too, but process-wide, throttling whisper.cpp; dynamic
// adjustment (dyn-var) is a per-thread setting.
func limitOpenMP() (restore func()) {
	prev := C.spirit_omp_dynamic(1)
	return func() { C.spirit_omp_dynamic(prev) }
}
