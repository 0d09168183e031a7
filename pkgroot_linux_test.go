//go:build linux

package main

// A fresh Debian root holding only what a .deb's Depends pull in, for
// installing Spirit's package into as a new machine would. It is made from
// this machine's installed packages (their files as dpkg lists them and
// their entries in dpkg's database), so it needs no network; made once per
// set of package versions and kept under SPIRIT_CACHE, then hard-linked
// for each test (files are only ever replaced, never written in place).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// rootRecipe changes when the way roots are made changes, so that cached
// roots made the old way are not reused.
const rootRecipe = "pkgroot-1"

// spiritCache is where slow things made by tests are kept across runs
// (outside the clone): SPIRIT_CACHE, as the Makefile sets it.
func spiritCache(t *testing.T) string {
	t.Helper()
	if c := os.Getenv("SPIRIT_CACHE"); c != "" {
		return c
	}
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory: %v", err)
	}
	return filepath.Join(base, "spirit")
}

// installed is one package in dpkg's database.
type installed struct {
	name, key, version, arch string // key: how dpkg names its files (pkg or pkg:arch)
	essential                bool   // part of every Debian system
	depends                  [][]string
	provides                 []string
}

// depGroups parses a Depends field into groups of alternatives, each a
// package name without version or architecture qualifier.
func depGroups(field string) [][]string {
	var groups [][]string
	for g := range strings.SplitSeq(field, ",") {
		var alts []string
		for a := range strings.SplitSeq(g, "|") {
			name, _, _ := strings.Cut(strings.TrimSpace(a), " ")
			name, _, _ = strings.Cut(name, ":")
			if name = strings.TrimSpace(name); name != "" {
				alts = append(alts, name)
			}
		}
		if len(alts) > 0 {
			groups = append(groups, alts)
		}
	}
	return groups
}

// readInstalled lists this machine's installed packages of its own
// architecture (or none), by name.
func readInstalled(ctx context.Context) (map[string]installed, error) {
	out, err := exec.CommandContext(ctx, "dpkg-query", "-W", "-f",
		`${db:Status-Status}\t${Package}\t${binary:Package}\t${Version}\t${Architecture}\t${Pre-Depends}, ${Depends}\t${Provides}\t${Essential}\n`).Output()
	if err != nil {
		return nil, fmt.Errorf("dpkg-query: %w", err)
	}
	pkgs := map[string]installed{}
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 8 || f[0] != "installed" || (f[4] != "amd64" && f[4] != "all") {
			continue
		}
		p := installed{name: f[1], key: f[2], version: f[3], arch: f[4], depends: depGroups(f[5]), essential: f[7] == "yes"}
		for _, g := range depGroups(f[6]) {
			p.provides = append(p.provides, g...)
		}
		pkgs[p.name] = p
	}
	return pkgs, nil
}

// closure resolves depends against pkgs: each group by the first
// alternative installed (by name, then by what provides it), then that
// package's own Depends and Pre-Depends, until nothing is new. A group
// nothing installed satisfies is an error: the root could not be made.
func closure(pkgs map[string]installed, depends [][]string) ([]installed, error) {
	providers := map[string]string{}
	for _, p := range pkgs {
		for _, v := range p.provides {
			if _, ok := providers[v]; !ok || p.name < providers[v] {
				providers[v] = p.name
			}
		}
	}
	seen := map[string]bool{}
	var out []installed
	queue := slices.Clone(depends)
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		var pick string
		for _, a := range g {
			if _, ok := pkgs[a]; ok {
				pick = a
				break
			}
			if pr, ok := providers[a]; ok {
				pick = pr
				break
			}
		}
		if pick == "" {
			return nil, fmt.Errorf("nothing installed here satisfies %s", strings.Join(g, " | "))
		}
		if seen[pick] {
			continue
		}
		seen[pick] = true
		out = append(out, pkgs[pick])
		queue = append(queue, pkgs[pick].depends...)
	}
	slices.SortFunc(out, func(a, b installed) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// packageRoot returns a fresh root for t holding this machine's Essential
// packages and the closure of depends (a Depends field), with its own dpkg
// database. The first call for a set of
// package versions copies them into the cache (a few hundred MB); later
// calls hard-link that copy.
func packageRoot(t *testing.T, ctx context.Context, depends string) (root string, pkgs []installed) {
	t.Helper()
	all, err := readInstalled(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every Debian system has its Essential packages (dpkg, a shell…):
	// the root starts from them, as debootstrap's minimal one does.
	var seed [][]string
	for _, p := range all {
		if p.essential {
			seed = append(seed, []string{p.name})
		}
	}
	slices.SortFunc(seed, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	pkgs, err = closure(all, append(seed, depGroups(depends)...))
	if err != nil {
		t.Fatalf("the root for the package: %v (install the package's dependencies here first: build/deps.sh)", err)
	}
	h := sha256.New()
	fmt.Fprintln(h, rootRecipe)
	for _, p := range pkgs {
		fmt.Fprintln(h, p.key, p.version)
	}
	dir := filepath.Join(spiritCache(t), "pkgroot")
	base := filepath.Join(dir, fmt.Sprintf("%x", h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := flock.New(base + ".lock")
	if _, err := lock.TryLockContext(ctx, 100*time.Millisecond); err != nil {
		t.Fatalf("lock %s: %v", base, err)
	}
	if _, err := os.Stat(filepath.Join(base, "var/lib/dpkg/status")); err != nil {
		start := time.Now()
		if err := makeRoot(ctx, base, pkgs); err != nil {
			lock.Unlock()
			t.Fatalf("make the root %s: %v", base, err)
		}
		t.Logf("made the root of %d packages in %v: %s", len(pkgs), time.Since(start).Round(time.Millisecond), base)
		pruneRoots(base)
	}
	lock.Unlock()

	// The test's own root: the cache's files hard-linked, dpkg's database
	// copied (dpkg rewrites it).
	run, err := os.MkdirTemp(dir, "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	root = filepath.Join(run, "root")
	if out, err := exec.CommandContext(ctx, "cp", "-al", base, root).CombinedOutput(); err != nil {
		t.Fatalf("cp -al: %v\n%s", err, out)
	}
	db := filepath.Join(root, "var/lib/dpkg")
	if err := os.RemoveAll(db); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(ctx, "cp", "-a", filepath.Join(base, "var/lib/dpkg"), db).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	return root, pkgs
}

// pruneRoots removes the cached roots other than keep (made for package
// versions since upgraded: several hundred MB each) that no test is using.
func pruneRoots(keep string) {
	locks, _ := filepath.Glob(filepath.Join(filepath.Dir(keep), "*.lock"))
	for _, l := range locks {
		old := strings.TrimSuffix(l, ".lock")
		if old == keep {
			continue
		}
		lock := flock.New(l)
		if ok, err := lock.TryLock(); err != nil || !ok {
			continue
		}
		os.RemoveAll(old)
		os.Remove(l)
		lock.Unlock()
	}
}

// makeRoot copies pkgs' files from this machine into a new root at dst and
// writes their dpkg database, then ld.so's cache, so that dpkg and the
// dynamic linker work in it as on a machine where they were installed.
func makeRoot(ctx context.Context, dst string, pkgs []installed) error {
	tmp := dst + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	// The merged /usr: /bin, /lib… are links into /usr as here.
	top, err := os.ReadDir("/")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	for _, e := range top {
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if to, err := os.Readlink("/" + e.Name()); err == nil && strings.HasPrefix(to, "usr/") {
			if err := os.Symlink(to, filepath.Join(tmp, e.Name())); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(tmp, to), 0o755); err != nil {
				return err
			}
		}
	}
	info := filepath.Join(tmp, "var/lib/dpkg/info")
	for _, d := range []string{info, "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "tmp", "proc", "dev", "etc", "home/lawyer", "root"} {
		if !filepath.IsAbs(d) {
			d = filepath.Join(tmp, d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(tmp, "tmp"), 0o777|fs.ModeSticky); err != nil {
		return err
	}
	var status bytes.Buffer
	for _, p := range pkgs {
		list, err := os.ReadFile("/var/lib/dpkg/info/" + p.key + ".list")
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		for path := range strings.SplitSeq(strings.TrimSpace(string(list)), "\n") {
			if err := copyEntry(path, filepath.Join(tmp, path)); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
		}
		for _, ext := range []string{".list", ".md5sums", ".conffiles", ".shlibs", ".symbols", ".triggers"} {
			if err := copyEntry("/var/lib/dpkg/info/"+p.key+ext, filepath.Join(info, p.key+ext)); err != nil {
				return err
			}
		}
		st, err := exec.CommandContext(ctx, "dpkg-query", "-s", p.key).Output()
		if err != nil {
			return fmt.Errorf("dpkg-query -s %s: %w", p.key, err)
		}
		status.Write(bytes.TrimSpace(st))
		status.WriteString("\n\n")
	}
	files := map[string]string{
		"var/lib/dpkg/status":    status.String(),
		"var/lib/dpkg/available": "",
		// No package of the closure owns these, but every system has them.
		"etc/passwd": "root:x:0:0:root:/root:/bin/sh\nlawyer:x:1000:1000:Lawyer:/home/lawyer:/bin/sh\n",
		"etc/group":  "root:x:0:\nlawyer:x:1000:\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name         string
		major, minor uint32
	}{{"null", 1, 3}, {"zero", 1, 5}, {"random", 1, 8}, {"urandom", 1, 9}} {
		dev := int(uint64(d.major)<<8 | uint64(d.minor))
		if err := syscall.Mknod(filepath.Join(tmp, "dev", d.name), syscall.S_IFCHR|0o666, dev); err != nil {
			return fmt.Errorf("mknod /dev/%s: %w", d.name, err)
		}
	}
	if out, err := exec.CommandContext(ctx, "ldconfig", "-r", tmp).CombinedOutput(); err != nil {
		return fmt.Errorf("ldconfig -r: %w\n%s", err, out)
	}
	return os.Rename(tmp, dst)
}

// copyEntry copies one file, link or directory; a path dpkg lists that is
// not here (documentation the image left out, a diverted file) is skipped.
func copyEntry(src, dst string) error {
	fi, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	switch {
	case fi.IsDir():
		// Through the root's own links (lib → usr/lib), as dpkg would.
		return os.MkdirAll(dst, 0o755)
	case fi.Mode()&fs.ModeSymlink != 0:
		if _, err := os.Lstat(dst); err == nil {
			return nil // a merged-/usr link made already
		}
		to, err := os.Readlink(src)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.Symlink(to, dst)
	case fi.Mode().IsRegular():
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		in, err := os.Open(src)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, bufio.NewReader(in)); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	return nil
}

func TestClosure(t *testing.T) {
	pkgs := map[string]installed{
		"spirit-dep": {name: "spirit-dep", depends: depGroups("libc6 (>= 2.34), libgl1 | libgl1-mesa-glx")},
		"libc6":      {name: "libc6", depends: depGroups("libgcc-s1")},
		"libgcc-s1":  {name: "libgcc-s1", depends: depGroups("libc6 (>= 2.35)")},
		"libgl1":     {name: "libgl1", depends: depGroups("libglx0")},
		"libglx0":    {name: "libglx0", depends: depGroups("libglx-mesa0 | libglx-vendor")},
		"nvidia-glx": {name: "nvidia-glx", provides: []string{"libglx-vendor"}},
		"unrelated":  {name: "unrelated"},
	}
	names := func(ps []installed) (out []string) {
		for _, p := range ps {
			out = append(out, p.name)
		}
		return out
	}
	for _, c := range []struct {
		name    string
		depends string
		want    []string
		err     string
	}{
		{"a cycle, an alternative, a virtual package", "spirit-dep",
			[]string{"libc6", "libgcc-s1", "libgl1", "libglx0", "nvidia-glx", "spirit-dep"}, ""},
		{"an architecture qualifier", "libc6:any", []string{"libc6", "libgcc-s1"}, ""},
		{"nothing installed satisfies it", "libportaudio2 (>= 19)", nil, "libportaudio2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := closure(pkgs, depGroups(c.depends))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("closure(%q) error = %v, want one naming %s", c.depends, err, c.err)
				}
				return
			}
			if err != nil || !slices.Equal(names(got), c.want) {
				t.Errorf("closure(%q) = %q, %v; want %q", c.depends, names(got), err, c.want)
			}
		})
	}
}
