package platform

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ReleaseImage gives back to the system the pages of Spirit's own binary
// that start-up brought in and rest does not use, and has the kernel bring
// pages of it back one at a time from now on. Call it once start-up is
// over; it returns how much the process held before and after.
//
// Why: Spirit's binary is about 100 MB: 29 MB of code and 26 MB of the
// runtime's tables of that code. The kernel keeps a file in its page cache
// in large pieces (up to 2 MB: read ahead from a disk with a large
// read-ahead, or written in large pieces, as by the linker or an
// installer), and recent kernels map a whole piece at the first touch of
// any page in it (measured on Linux 6.18: 2 MB mappings, FilePmdMapped).
// So the few pages that start-up and Spirit at rest touch kept 40-60 MB of
// the binary resident, charged to Spirit for the whole day, where the
// pages in use at rest are about 4 MB (measured under Xvfb, see
// TestBenchApp). Marked random (MADV_RANDOM), the mappings fault without
// read-ahead, page by page; paged out (MADV_PAGEOUT), the pieces only
// Spirit maps leave memory, and what is still used comes back a page at a
// time.
//
// Only the file's own pages are paged out, which the kernel may drop at
// any time anyway: the binary's read-only mappings (its code and tables)
// and, of its writable data, only Go's section of data without pointers
// (.noptrdata: mostly the toolkit's fonts, 7 MB), which Go does not write.
// A page of it that was written is Spirit's memory: the kernel keeps it,
// or on a system with swap may swap it out, as it may any memory.
// A binary just written (by `go build` in the tests, or an installer that
// does not sync) may not be on disk yet, and pages not written back cannot
// leave memory: it is synced first. A kernel without MADV_PAGEOUT (before
// 5.4) says EINVAL: the mappings are then only marked random.
func ReleaseImage() (ImageRelease, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return ImageRelease{}, fmt.Errorf("release binary pages: %w", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return ImageRelease{}, fmt.Errorf("release binary pages: %w", err)
	}
	// Best effort: without the file (replaced on disk), its constant data
	// is left where it is; a binary on a read-only file system has nothing
	// to write back, and one that cannot be synced is paged out as far as
	// it can be.
	var consts []fileRange
	if f, err := os.Open(exe); err == nil {
		consts = constData(f)
		_ = unix.Fdatasync(int(f.Fd()))
		f.Close()
	}
	ranges := imageRanges(maps, exe, consts)
	if len(ranges) == 0 {
		return ImageRelease{}, fmt.Errorf("release binary pages: %s is not mapped in /proc/self/maps", exe)
	}
	var r ImageRelease
	r.Before = residentKB()
	for _, m := range ranges {
		if err := madvise(m, unix.MADV_RANDOM); err != nil {
			return r, fmt.Errorf("release binary pages: random: %w", err)
		}
		if err := madvise(m, unix.MADV_PAGEOUT); err != nil && !errors.Is(err, unix.EINVAL) {
			return r, fmt.Errorf("release binary pages: page out: %w", err)
		}
	}
	r.After = residentKB()
	return r, nil
}

type addrRange struct{ start, end uintptr }

// fileRange is a range of offsets in a file.
type fileRange struct{ off, end uint64 }

// constData is where Go's .noptrdata section lies in the binary f, or
// nothing if it cannot be read.
func constData(f *os.File) []fileRange {
	e, err := elf.NewFile(f)
	if err != nil {
		return nil
	}
	s := e.Section(".noptrdata")
	if s == nil || s.Type != elf.SHT_PROGBITS {
		return nil
	}
	return []fileRange{{s.Offset, s.Offset + s.Size}}
}

// madvise advises on a range of the binary's mappings, which Go's memory
// does not hold: by address, as unix.Madvise cannot without a slice.
func madvise(r addrRange, advice int) error {
	_, _, e := unix.Syscall(unix.SYS_MADVISE, r.start, r.end-r.start, uintptr(advice))
	if e != 0 {
		return e
	}
	return nil
}

// imageRanges are, in a /proc/self/maps listing, the read-only mappings
// of file exe and, of its writable mappings, the whole pages within the
// file ranges consts.
func imageRanges(maps []byte, exe string, consts []fileRange) []addrRange {
	page := uint64(os.Getpagesize())
	var out []addrRange
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || strings.Join(f[5:], " ") != exe {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil || b <= a {
			continue
		}
		if !strings.Contains(f[1], "w") {
			out = append(out, addrRange{uintptr(a), uintptr(b)})
			continue
		}
		for _, c := range consts {
			// The part of c this mapping holds, as addresses, cut to
			// whole pages: a page shared with other data is left.
			s, e := max(c.off, off), min(c.end, off+(b-a))
			if s >= e {
				continue
			}
			s, e = a+(s-off+page-1)/page*page, a+(e-off)/page*page
			if s < e {
				out = append(out, addrRange{uintptr(s), uintptr(e)})
			}
		}
	}
	return out
}

// residentKB is VmRSS from /proc/self/status, or 0.
func residentKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}
