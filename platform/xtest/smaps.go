package xtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Mapping is one mapping of a process, as /proc/PID/smaps lists it.
type Mapping struct {
	Perms       string // "r-xp"
	Path        string // the file mapped; "" for anonymous memory, "[heap]" and the like
	RssKB       int    // resident
	AnonymousKB int    // resident and not a file's
	Flags       []string
}

// Smaps returns the mappings of process pid (0: this one), failing the
// test if they cannot be read.
func Smaps(t testing.TB, pid int) []Mapping {
	t.Helper()
	path := "/proc/self/smaps"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/smaps", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ms []Mapping
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		// A mapping's first line is its range; the lines about it are
		// "Key: value".
		if !strings.HasSuffix(f[0], ":") {
			if len(f) < 5 {
				continue
			}
			m := Mapping{Perms: f[1]}
			if len(f) >= 6 {
				m.Path = strings.Join(f[5:], " ")
			}
			ms = append(ms, m)
			continue
		}
		if len(ms) == 0 || len(f) < 2 {
			continue
		}
		m := &ms[len(ms)-1]
		switch f[0] {
		case "Rss:":
			m.RssKB, _ = strconv.Atoi(f[1])
		case "Anonymous:":
			m.AnonymousKB, _ = strconv.Atoi(f[1])
		case "VmFlags:":
			m.Flags = f[1:]
		}
	}
	return ms
}
