package mbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/spirit-app/spirit/agents/mail"
)

// from is an mbox separator line.
const from = "From a Thu Jun 11 14:30:30 2026\n"

// allocDuring returns the bytes allocated while f ran. It bounds the
// peak heap f can have reached from above, and unlike a sample of the
// heap it cannot miss a short-lived spike.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestSizeCapsSkipAndCount syncs an mbox file and a Maildir holding, among
// good messages, one over the message cap and one with a line over the
// line cap: both are skipped, counted and logged, the others delivered.
func TestSizeCapsSkipAndCount(t *testing.T) {
	const capBytes = 2 << 20 // above the line cap, so the long line is what skips its message
	big := plainMessage("big", "Big", strings.Repeat(strings.Repeat("x", 99)+"\n", 2*capBytes/100))
	longLine := plainMessage("long", "Long line", strings.Repeat("y", maxLineBytes+1)+"\n")
	good := func(n int) string { return plainMessage(fmt.Sprint(n), fmt.Sprint("Good ", n), "Fine.\n") }
	wantSubjects := []string{"Good 1", "Good 2", "Good 3"}
	wantReasons := []string{"too large", "a line longer than the 1 MiB"}
	// Only the message over the size cap counts as too large to read, in
	// the summary the lawyer sees.
	wantCaps := []int64{capBytes, 0}

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (skipper, error)
	}{
		{"mbox", func(t *testing.T, dir string) (skipper, error) {
			path := filepath.Join(dir, "Inbox")
			writeFile(t, path, from+good(1)+"\n"+from+big+"\n"+from+good(2)+"\n"+from+longLine+"\n"+from+good(3))
			return OpenMbox(path, Options{MaxMessageBytes: capBytes, Logger: logTo(t, dir)})
		}},
		{"maildir", func(t *testing.T, dir string) (skipper, error) {
			root := filepath.Join(dir, "Maildir")
			for i, m := range []string{good(1), big, good(2), longLine, good(3)} {
				writeFile(t, filepath.Join(root, "cur", fmt.Sprintf("171800000%d.M1P1.host:2,S", i)), m)
			}
			return OpenMaildir(root, Options{MaxMessageBytes: capBytes, Logger: logTo(t, dir)})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			c, err := tc.setup(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := collect(t, c, "")
			if s := subjects(got); !slices.Equal(s, wantSubjects) {
				t.Errorf("delivered %q, want %q", s, wantSubjects)
			}
			sk := c.Skipped()
			if len(sk) != len(wantReasons) {
				t.Fatalf("skipped %+v, want %d", sk, len(wantReasons))
			}
			for i, want := range wantReasons {
				if !strings.Contains(sk[i].Reason, want) {
					t.Errorf("skip %d: reason %q, want %q", i, sk[i].Reason, want)
				}
				if sk[i].Cap != wantCaps[i] {
					t.Errorf("skip %d: cap %d, want %d", i, sk[i].Cap, wantCaps[i])
				}
			}
			if got, want := mail.SkipSummary(sk), "skipped 1 too large to read (over 2 MB) and 1 unreadable"; got != want {
				t.Errorf("summary %q, want %q", got, want)
			}
			logs, _ := os.ReadFile(filepath.Join(dir, "log"))
			if want := "skipped=2"; !bytes.Contains(logs, []byte(want)) {
				t.Errorf("the sync log lacks the count %q:\n%s", want, logs)
			}
		})
	}
}

// skipper is what the cap tests need of both connectors.
type skipper interface {
	mail.Connector
	Skipped() []Skip
}

// logTo is a logger writing to dir/log.
func logTo(t *testing.T, dir string) *slog.Logger {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return slog.New(slog.NewTextHandler(f, nil))
}

// zeros is an io.Reader of n zero bytes that costs no memory.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), z.n)]
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// lines is an io.Reader of n bytes of 100-byte lines.
type lines struct{ n int64 }

var hundred = []byte(strings.Repeat("z", 99) + "\n")

func (l *lines) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), l.n)]
	// Whole lines only (p is never shorter than a line here, and n is a
	// multiple of 100), so each Read may start a new one.
	k := 0
	for k+len(hundred) <= len(p) {
		k += copy(p[k:], hundred)
	}
	l.n -= int64(k)
	return k, nil
}

// TestScanMboxBoundedMemory streams messages far over the default caps
// between good ones: a 300 MiB "line" of zeros and a 300 MiB message of
// ordinary lines. Each is passed on as a skip, the good ones whole, and
// what the scan allocates stays far below what it read.
func TestScanMboxBoundedMemory(t *testing.T) {
	const huge = 300 << 20
	// The 50 MiB message cap, grown by doubling, is ~128 MiB; the race
	// detector's build allocates each growth twice (raceAllocFactor).
	const bound = 200 << 20 * raceAllocFactor
	for _, tc := range []struct {
		name   string
		middle io.Reader
		reason string
	}{
		{"one line of zeros", &zeros{huge}, "a line longer"},
		{"many ordinary lines", &lines{n: huge}, "too large: 300 MiB, over the 50 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := io.MultiReader(
				strings.NewReader(from+plainMessage("1", "Before", "Fine.\n")+"\n"+from+plainMessage("big", "Big", "")),
				tc.middle,
				strings.NewReader("\n\n"+from+plainMessage("2", "After", "Fine.\n")),
			)
			var got []string
			var skips []string
			alloc := allocDuring(func() {
				err := scanMbox(r, func(raw rawMessage) error {
					if raw.skip != "" {
						skips = append(skips, raw.skip)
						return nil
					}
					m, err := parseMessage(bytes.NewReader(raw.data), raw.fromDate)
					if err != nil {
						return err
					}
					got = append(got, m.Subject)
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
			if want := []string{"Before", "After"}; !slices.Equal(got, want) {
				t.Errorf("delivered %q, want %q", got, want)
			}
			if len(skips) != 1 || !strings.Contains(skips[0], tc.reason) {
				t.Errorf("skipped %q, want one %q", skips, tc.reason)
			}
			t.Logf("allocated %d MiB scanning %d MiB", alloc>>20, huge>>20)
			if alloc > bound {
				t.Errorf("allocated %d MiB scanning %d MiB, want at most %d MiB", alloc>>20, huge>>20, bound>>20)
			}
		})
	}
}

// TestMaildirOversizedFileUnread skips a sparse Maildir file of 300 MiB
// by its size, without reading it.
func TestMaildirOversizedFileUnread(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "cur", "1718000000.M1P1.host:2,S"), plainMessage("1", "Before", "Fine.\n"))
	big := filepath.Join(root, "cur", "1718000001.M2P1.host:2,S")
	writeFile(t, big, plainMessage("big", "Big", ""))
	if err := os.Truncate(big, 300<<20); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "new", "1718000002.M3P1.host"), plainMessage("2", "After", "Fine.\n"))
	c, err := OpenMaildir(root, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	alloc := allocDuring(func() {
		ms, _ := collect(t, c, "")
		got = subjects(ms)
	})
	slices.Sort(got)
	if want := []string{"After", "Before"}; !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
	if sk := c.Skipped(); len(sk) != 1 || sk[0].Where != filepath.Base(big) || !strings.Contains(sk[0].Reason, "too large: 300 MiB") {
		t.Errorf("skipped %+v, want %s as too large", sk, filepath.Base(big))
	}
	if alloc > 16<<20 {
		t.Errorf("allocated %d MiB", alloc>>20)
	}
}

func TestBoundedReader(t *testing.T) {
	lim := limits{message: 100, line: 10}
	for _, tc := range []struct {
		name, in, wantOver string
	}{
		{"within both caps", strings.Repeat("123456789\n", 10), ""},
		{"line at the cap", "1234567890\n", ""},
		{"line over the cap", "short\n12345678901\n", "a line longer"},
		{"line over the cap at the end", "short\n12345678901", "a line longer"},
		{"message over the cap", strings.Repeat("123456789\n", 10) + "x", "too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &boundedReader{r: strings.NewReader(tc.in), lim: lim}
			// A byte at a time: a line split across reads still counts whole.
			_, err := io.Copy(io.Discard, iotest.OneByteReader(r))
			if tc.wantOver == "" {
				if err != nil || r.over != "" {
					t.Errorf("err %v, over %q; want neither", err, r.over)
				}
				return
			}
			if !errors.Is(err, errOverCap) || !strings.Contains(r.over, tc.wantOver) {
				t.Errorf("err %v, over %q; want errOverCap and %q", err, r.over, tc.wantOver)
			}
		})
	}
}
