//go:build linux

package main

// `make package` and what it makes: the tarball and the .deb are built,
// the .deb is installed into a fresh root holding only what its Depends
// pull in, and Spirit is run from that root in a chroot (its version, a
// headless start, its window, the doctor reading screen text).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/platform/xtest"
)

// packageVersionTag is the version `make package` stamps into the
// packaged binary, which `spirit version` and /health must repeat.
const packageVersionTag = "pkgtest"

// inRoot is a command run as root would run it on the new machine:
// chrooted, with a /proc of its own (Spirit reads /proc/self/exe) in a
// mount and PID namespace that vanish with it.
// chroot is found on this machine's PATH (the command's own PATH is the
// root's).
func inRoot(root string, args ...string) (string, []string) {
	chroot, err := exec.LookPath("chroot")
	if err != nil {
		chroot = "/usr/sbin/chroot"
	}
	return "unshare", append([]string{"--fork", "--pid", "--mount", "--kill-child",
		"--mount-proc=" + filepath.Join(root, "proc"), chroot, root, "/usr/bin/spirit"}, args...)
}

// untilExit is ctx, ended early when p exits: waiting for what a process
// that is gone would have done fails at once.
func untilExit(ctx context.Context, p *xtest.Proc) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-p.Done():
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// rootEnv is the environment inside the root: only what a login gives.
var rootEnv = []string{"HOME=/home/lawyer", "PATH=/usr/bin:/bin", "LANG=C.UTF-8", "TMPDIR=/tmp"}

func runInRoot(t *testing.T, ctx context.Context, root string, env []string, args ...string) (string, error) {
	t.Helper()
	bin, argv := inRoot(root, args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Env = append(slices.Clone(rootEnv), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// makePackage runs `make package` into out and returns the tarball and .deb.
func makePackage(t *testing.T, ctx context.Context, out string) (tarball, deb string) {
	t.Helper()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "package",
		"PACKAGE_OUT="+out, "VERSION="+packageVersionTag)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make package: %v\n%s", err, b)
	}
	t.Logf("make package: %v", time.Since(start).Round(time.Millisecond))
	tars, _ := filepath.Glob(filepath.Join(out, "spirit-*-linux-amd64.tar.gz"))
	debs, _ := filepath.Glob(filepath.Join(out, "spirit_*_amd64.deb"))
	if len(tars) != 1 || len(debs) != 1 {
		t.Fatalf("make package made %q and %q: want one tarball and one .deb", tars, debs)
	}
	return tars[0], debs[0]
}

func TestLinuxPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the packages and installs the .deb into a new root")
	}
	if os.Getuid() != 0 {
		// dpkg --root must own the files it installs, chroot and mount
		// need root; CI runs as root (it installs build/deps.sh's packages).
		t.Skip("installing the .deb into a fresh root needs root (dpkg --root, chroot, unshare); run as root to test the packages")
	}
	for _, tool := range []string{"dpkg-shlibdeps", "dpkg-deb", "appstreamcli", "desktop-file-validate", "unshare", "chroot"} {
		if _, err := exec.LookPath(tool); err != nil {
			requireTool(t, tool, "build/deps.sh test installs dpkg-dev, appstream, desktop-file-utils")
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	out := t.TempDir()
	tarball, deb := makePackage(t, ctx, out)

	t.Run("reproducible", func(t *testing.T) {
		// The packager again on the same binary, into another folder: the
		// same bytes. (The binary itself is Go's -trimpath build.)
		again := t.TempDir()
		cmd := exec.CommandContext(ctx, "go", "run", ".", "-repo", "../..",
			"-binary", filepath.Join(out, "spirit"), "-version", packageVersionTag, "-out", again)
		cmd.Dir = "build/package"
		// The packager is its own module, outside the workspace that
		// make's GOWORK (Fyne's patch) names.
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the packager again: %v\n%s", err, b)
		}
		for _, p := range []string{tarball, deb} {
			a, errA := os.ReadFile(p)
			b, errB := os.ReadFile(filepath.Join(again, filepath.Base(p)))
			if err := errors.Join(errA, errB); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs when made again (%d and %d bytes)", filepath.Base(p), len(a), len(b))
			}
		}
	})

	t.Run("tarball", func(t *testing.T) { checkTarball(t, ctx, tarball) })
	checkDeb(t, ctx, deb)
}

// checkDeb checks the .deb's fields, installs it into a fresh root and
// runs Spirit from there.
func checkDeb(t *testing.T, ctx context.Context, deb string) {
	control := func(field string) string {
		b, err := exec.CommandContext(ctx, "dpkg-deb", "--field", deb, field).Output()
		if err != nil {
			t.Fatalf("dpkg-deb --field %s: %v", field, err)
		}
		return strings.TrimSpace(string(b))
	}
	depends := control("Depends")
	t.Logf("Depends: %s", depends)
	t.Logf("Recommends: %s", control("Recommends"))
	for _, want := range []string{"libc6", "libportaudio2", "libgl1", "libx11-6", "libtesseract5", "tesseract-ocr-eng"} {
		if !slices.ContainsFunc(depGroups(depends), func(g []string) bool { return slices.Contains(g, want) }) {
			t.Errorf("Depends lacks %s: %s", want, depends)
		}
	}
	if r := control("Recommends"); !strings.Contains(r, "xdg-utils") {
		t.Errorf("Recommends = %q, want xdg-utils among them", r)
	}

	t.Run("apt resolves the Depends", func(t *testing.T) { checkAptResolves(t, ctx, deb) })

	root, pkgs := packageRoot(t, ctx, depends)
	t.Logf("the root holds %d packages", len(pkgs))
	if b, err := exec.CommandContext(ctx, "dpkg", "--root="+root, "--install", deb).CombinedOutput(); err != nil {
		t.Fatalf("dpkg --root --install (no --force): %v\n%s", err, b)
	}
	id := "app.spirit.desktop"
	for _, c := range [][]string{
		{"desktop-file-validate", filepath.Join(root, "usr/share/applications", id+".desktop")},
		{"appstreamcli", "validate", "--no-net", "--explain", filepath.Join(root, "usr/share/metainfo", id+".metainfo.xml")},
	} {
		if b, err := exec.CommandContext(ctx, c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(c, " "), err, b)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "usr/share/pixmaps", id+".png")); err != nil {
		t.Errorf("the icon: %v", err)
	}

	t.Run("version", func(t *testing.T) {
		got, err := runInRoot(t, ctx, root, nil, "version")
		if want := "spirit " + packageVersionTag + " "; err != nil || !strings.HasPrefix(got, want) {
			t.Errorf("spirit version in the root = %q, %v; want %q…", got, err, want)
		}
	})

	t.Run("headless", func(t *testing.T) {
		bin, argv := inRoot(root, "--headless", "--data-dir", "/home/lawyer/headless")
		p := xtest.Run(t, ctx, bin, argv, rootEnv)
		actx, cancel := untilExit(ctx, p)
		defer cancel()
		_, h, err := waitAPI(actx, filepath.Join(root, "home/lawyer/headless"))
		if err != nil {
			t.Fatalf("spirit --headless in the root: the API never answered: %v", err)
		}
		if h.Version != packageVersionTag {
			t.Errorf("/health version = %q, want %q", h.Version, packageVersionTag)
		}
		if st := h.Subsystems["store"]; st.State != "ok" {
			t.Errorf("/health store = %+v, want ok", st)
		}
	})

	d := xtest.StartDisplay(t, 1280, 800)
	display := []string{"DISPLAY=" + d.Name}
	// libX11 finds the server by its abstract socket, which the chroot
	// shares; Spirit's own X connection (xgb) by the socket's path, which
	// must be in the root: a hard link to it (the cache and /tmp are one
	// file system here; if not, the link fails and says so).
	sock := "/tmp/.X11-unix/X" + strings.TrimPrefix(d.Name, ":")
	if err := os.MkdirAll(filepath.Join(root, "tmp/.X11-unix"), 0o1777); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(sock, filepath.Join(root, sock)); err != nil {
		t.Fatalf("the X socket into the root: %v", err)
	}

	t.Run("window", func(t *testing.T) {
		bin, argv := inRoot(root, "--data-dir", "/home/lawyer/window")
		p := xtest.Run(t, ctx, bin, argv, append(slices.Clone(rootEnv), display...))
		wctx, cancel := untilExit(ctx, p)
		defer cancel()
		orb, err := d.WaitWindow(wctx, "Spirit", func(i xtest.WindowInfo) bool { return i.Viewable })
		if err != nil {
			t.Fatalf("no orb window titled Spirit from the packaged binary: %v", err)
		}
		if r := orb.Rect; r.Dx() < 16 || r.Dy() < 16 {
			t.Errorf("orb %v: want a visible window", r)
		}
		// OpenGL is drawn by Mesa's driver from the root, not this machine's.
		maps, err := spiritMaps(p.Pid())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(maps, filepath.Join(root, "usr/lib/x86_64-linux-gnu/dri/")) {
			t.Errorf("no Mesa driver from the root %s is loaded", root)
		}
	})

	t.Run("doctor reads screen text", func(t *testing.T) {
		got, _ := runInRoot(t, ctx, root, display, "doctor", "--data-dir", "/home/lawyer/doctor")
		if !doctorLine(got, "OK", "screen text") {
			t.Errorf("spirit doctor in the root does not read screen text:\n%s", got)
		}
		// Without the language data tesseract-ocr-eng brings it cannot:
		// the dependency is needed, and the doctor says so.
		data, _ := filepath.Glob(filepath.Join(root, "usr/share/tesseract-ocr/*/tessdata/eng.traineddata"))
		if len(data) != 1 {
			t.Fatalf("eng.traineddata in the root: %q, want one", data)
		}
		if err := os.Remove(data[0]); err != nil {
			t.Fatal(err)
		}
		got, _ = runInRoot(t, ctx, root, display, "doctor", "--data-dir", "/home/lawyer/doctor")
		if !doctorLine(got, "PROBLEM", "screen text") || !strings.Contains(got, "tesseract-ocr-eng") {
			t.Errorf("spirit doctor without Tesseract's English data:\n%s\nwant a PROBLEM naming tesseract-ocr-eng", got)
		}
	})

	t.Run("nothing comes from this machine", func(t *testing.T) {
		// Spirit finds its libraries in the root alone: without the one
		// libportaudio2 brings, it cannot start at all.
		libs, _ := filepath.Glob(filepath.Join(root, "usr/lib/x86_64-linux-gnu/libportaudio.so.2*"))
		if len(libs) == 0 {
			t.Fatal("libportaudio.so.2 is not in the root")
		}
		for _, l := range libs {
			if err := os.Remove(l); err != nil {
				t.Fatal(err)
			}
		}
		got, err := runInRoot(t, ctx, root, nil, "version")
		if err == nil || !strings.Contains(got, "libportaudio.so.2") {
			t.Errorf("spirit version without libportaudio2 = %q, %v; want it to fail to load the library", got, err)
		}
	})
}

// doctorLine reports whether the doctor's output has the part's line
// marked mark (OK or PROBLEM).
func doctorLine(out, mark, part string) bool {
	for line := range strings.SplitSeq(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == mark && strings.HasPrefix(strings.Join(f[1:], " "), part) {
			return true
		}
	}
	return false
}

// spiritMaps returns the memory map of the Spirit under unshare pid: its
// grandchild (unshare forks, then chroot execs Spirit).
func spiritMaps(pid int) (string, error) {
	for range 2 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
		if err != nil {
			return "", err
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return "", errors.New("unshare has no child")
		}
		if pid, err = strconv.Atoi(f[0]); err != nil {
			return "", err
		}
		if comm, _ := os.ReadFile("/proc/" + f[0] + "/comm"); strings.TrimSpace(string(comm)) == "spirit" {
			b, err := os.ReadFile("/proc/" + f[0] + "/maps")
			return string(b), err
		}
	}
	return "", errors.New("no spirit process under unshare")
}

// checkTarball unpacks the tarball and installs it with its Makefile, as a
// user would: system-wide into a staging folder, and for one user.
func checkTarball(t *testing.T, ctx context.Context, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			names = append(names, h.Name)
		}
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "root" {
			t.Errorf("%s is owned by %d/%d (%s): want root", h.Name, h.Uid, h.Gid, h.Uname)
		}
		if h.Name == "usr/local/bin/spirit" && h.Mode != 0o755 {
			t.Errorf("the binary's mode is %o, want 755", h.Mode)
		}
	}
	want := []string{"Makefile", "usr/local/bin/spirit", "usr/local/share/applications/app.spirit.desktop.desktop",
		"usr/local/share/metainfo/app.spirit.desktop.metainfo.xml", "usr/local/share/pixmaps/app.spirit.desktop.png"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tarball files %q, want %q", names, want)
	}

	dir := t.TempDir()
	if b, err := exec.CommandContext(ctx, "tar", "-xzf", path, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("tar -x: %v\n%s", err, b)
	}
	stage, home := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"install", "DESTDIR=" + stage}, []string{stage + "/usr/local/bin/spirit",
			stage + "/usr/local/share/applications/app.spirit.desktop.desktop"}},
		{[]string{"user-install", "HOME=" + home}, []string{home + "/.local/bin/spirit",
			home + "/.local/share/icons/hicolor/256x256/apps/app.spirit.desktop.png"}},
	} {
		cmd := exec.CommandContext(ctx, "make", append([]string{"-s", "-C", dir}, c.args...)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %s: %v\n%s", c.args[0], err, b)
		}
		for _, w := range c.wants {
			if _, err := os.Stat(w); err != nil {
				t.Errorf("make %s: %v", c.args[0], err)
			}
		}
	}
	entry, err := os.ReadFile(home + "/.local/share/applications/app.spirit.desktop.desktop")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Exec=" + home + "/.local/bin/spirit\n"; !strings.Contains(string(entry), want) {
		t.Errorf("the user's entry lacks %q:\n%s", want, entry)
	}
}

// checkAptResolves asks apt, against Debian's archive as this machine knows
// it (its package lists) and as if nothing were installed, to install the
// .deb: every Depends must be found in the archive.
func checkAptResolves(t *testing.T, ctx context.Context, deb string) {
	lists, _ := filepath.Glob("/var/lib/apt/lists/*_Packages*")
	if len(lists) == 0 {
		t.Skip("apt has no package lists here (run apt-get update): cannot ask it to resolve the Depends")
	}
	empty := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "apt-get", "install", "--simulate", "--no-install-recommends",
		"-o", "Dir::State::status="+empty, deb)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("apt-get install --simulate: %v\n%s", err, b)
	}
	for _, want := range []string{"Inst libportaudio2 ", "Inst tesseract-ocr-eng ", "Inst spirit "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("apt-get --simulate does not install %q:\n%s", strings.TrimSpace(want), b)
		}
	}
}
