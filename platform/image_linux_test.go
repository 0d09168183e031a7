package platform

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/platform/xtest"
)

func TestImageRanges(t *testing.T) {
	const maps = `00400000-00409000 r--p 00000000 fe:00 10027634   /opt/spirit/bin/spirit
00409000-02152000 r-xp 00009000 fe:00 10027634   /opt/spirit/bin/spirit
0459c000-04d60000 rw-p 0419c000 fe:00 10027634   /opt/spirit/bin/spirit
04d60000-04e00000 rw-p 00000000 00:00 0
7fd077200000-7fd07d97c000 r-xp 00000000 fe:00 325977   /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1
7fd07e000000-7fd07e100000 r--p 00000000 fe:00 99   /home/marcy/My Apps/spirit
7fd07e100000-7fd07e200000 r-xp 00000000 fe:00 98   /usr/bin/spirit (deleted)
garbage line
7fd07e300000-7fd07e200000 r-xp 00000000 fe:00 98   /usr/bin/spirit (deleted)
`
	for _, tc := range []struct {
		name   string
		exe    string
		consts []fileRange
		want   []addrRange
	}{
		{name: "code and tables, not data", exe: "/opt/spirit/bin/spirit",
			want: []addrRange{{0x400000, 0x409000}, {0x409000, 0x2152000}}},
		// The data mapping holds file offsets 0x419c000-0x4960000 at
		// 0x459c000: of the constants at 0x4206e60-0x495f8e1 only the
		// whole pages, 0x4207000-0x495f000, at 0x4607000-0x4d5f000.
		{name: "constant data, whole pages", exe: "/opt/spirit/bin/spirit",
			consts: []fileRange{{0x4206e60, 0x495f8e1}},
			want:   []addrRange{{0x400000, 0x409000}, {0x409000, 0x2152000}, {0x4607000, 0x4d5f000}}},
		{name: "constant data less than a page", exe: "/opt/spirit/bin/spirit",
			consts: []fileRange{{0x4206e60, 0x4207e60}},
			want:   []addrRange{{0x400000, 0x409000}, {0x409000, 0x2152000}}},
		{name: "constant data outside the mapping", exe: "/opt/spirit/bin/spirit",
			consts: []fileRange{{0x100, 0x9000}, {0x5000000, 0x6000000}},
			want:   []addrRange{{0x400000, 0x409000}, {0x409000, 0x2152000}}},
		{name: "a path with a space", exe: "/home/marcy/My Apps/spirit",
			want: []addrRange{{0x7fd07e000000, 0x7fd07e100000}}},
		// An upgrade replaced the binary under a running Spirit: /proc
		// names both the link and the mapping "(deleted)"; a range that
		// ends before it starts is skipped.
		{name: "replaced on disk", exe: "/usr/bin/spirit (deleted)",
			want: []addrRange{{0x7fd07e100000, 0x7fd07e200000}}},
		{name: "not mapped", exe: "/usr/bin/other", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := imageRanges([]byte(maps), tc.exe, tc.consts); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("imageRanges(%q) = %x, want %x", tc.exe, got, tc.want)
			}
		})
	}
}

// TestReleaseImage runs on the test's own binary, just written by go test
// (so not yet on disk: ReleaseImage must sync it): once its read-only
// mappings are resident, ReleaseImage marks them random and pages out
// most of them, and the process's resident memory falls.
func TestReleaseImage(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	// Touch every 64 KB of the mappings, as start-up touches much of
	// them: reading /proc/self/mem faults the pages in.
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	var b [1]byte
	for _, r := range imageRanges(maps, exe, nil) {
		for a := r.start; a < r.end; a += 64 << 10 {
			if _, err := mem.ReadAt(b[:], int64(a)); err != nil {
				t.Fatalf("read %x of the binary: %v", a, err)
			}
		}
	}
	before := imageSmaps(t, exe)
	if before.rssKB < 4<<10 {
		t.Fatalf("only %d KB of the binary's read-only mappings are resident after touching them all", before.rssKB)
	}

	r, err := ReleaseImage()
	if err != nil {
		t.Fatal(err)
	}
	after := imageSmaps(t, exe)
	t.Logf("binary's read-only mappings: %d KB resident before, %d KB after; VmRSS %d KB -> %d KB",
		before.rssKB, after.rssKB, r.Before, r.After)
	if after.rssKB > before.rssKB/2 {
		t.Errorf("binary's read-only mappings: %d KB resident after ReleaseImage, %d KB before: not paged out",
			after.rssKB, before.rssKB)
	}
	if r.Before <= 0 || r.After >= r.Before {
		t.Errorf("VmRSS %d KB before, %d KB after: want it to fall", r.Before, r.After)
	}
	if after.mappings == 0 || after.random != after.mappings {
		t.Errorf("%d of the binary's %d read-only mappings are marked random (VmFlags rr), want all",
			after.random, after.mappings)
	}
}

type imageUse struct{ mappings, random, rssKB int }

// imageSmaps sums this process's smaps over exe's read-only mappings.
func imageSmaps(t *testing.T, exe string) imageUse {
	t.Helper()
	var u imageUse
	for _, m := range xtest.Smaps(t, 0) {
		if m.Path != exe || strings.Contains(m.Perms, "w") {
			continue
		}
		u.mappings++
		u.rssKB += m.RssKB
		if slices.Contains(m.Flags, "rr") {
			u.random++
		}
	}
	return u
}
