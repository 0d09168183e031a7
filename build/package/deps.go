package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// runtimeDepends are what the binary needs and dpkg-shlibdeps cannot see,
// because it is opened at run time rather than linked:
//   - libx11-6: GLFW dlopens libX11 to make any window at all;
//   - tesseract-ocr-eng: Tesseract reads its English data file to read
//     the text inside windows (`spirit doctor` reports it missing).
var runtimeDepends = []string{"libx11-6", "tesseract-ocr-eng"}

// recommends are loaded at run time too but Spirit works without them:
// GLFW's optional X extensions (cursor shapes, monitors, input, the
// Vulkan/XCB bridge, transparency) and xdg-utils, which opens the browser
// for a mail account's sign-in.
var recommends = []string{"libxcursor1", "libxrandr2", "libxinerama1", "libxi6",
	"libx11-xcb1", "libxrender1", "libxkbcommon0", "xdg-utils"}

// shlibDepends runs dpkg-shlibdeps on the binary and returns the packages
// holding the libraries it links, with the lowest versions its symbols need.
// dpkg-shlibdeps insists on a debian/control, so it runs in a scratch
// directory holding a minimal one.
func shlibDepends(ctx context.Context, binary string) ([]string, error) {
	abs, err := filepath.Abs(binary)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "spirit-shlibdeps-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "debian"), 0o755); err != nil {
		return nil, err
	}
	control := "Source: spirit\n\nPackage: spirit\nArchitecture: any\n"
	if err := os.WriteFile(filepath.Join(dir, "debian", "control"), []byte(control), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "dpkg-shlibdeps", "-O", "-e"+abs)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("dpkg-shlibdeps (Debian: apt-get install dpkg-dev): %w\n%s", err, stderr.Bytes())
	}
	return parseShlibdeps(string(out))
}

// parseShlibdeps reads dpkg-shlibdeps -O output ("shlibs:Depends=a (>= 1), b").
func parseShlibdeps(out string) ([]string, error) {
	for line := range strings.SplitSeq(out, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "shlibs:Depends=")
		if !ok {
			continue
		}
		var deps []string
		for d := range strings.SplitSeq(v, ",") {
			if d = strings.TrimSpace(d); d != "" {
				deps = append(deps, d)
			}
		}
		if len(deps) == 0 {
			break
		}
		return deps, nil
	}
	return nil, fmt.Errorf("dpkg-shlibdeps named no library packages (output %q)", out)
}

// mergeDepends adds extra to deps, each package once: a package already
// named (with or without a version) is kept as dpkg-shlibdeps wrote it.
// The result is sorted, so the control file does not depend on order.
func mergeDepends(deps, extra []string) []string {
	name := func(d string) string {
		n, _, _ := strings.Cut(d, " ")
		n, _, _ = strings.Cut(n, ":")
		return n
	}
	out := slices.Clone(deps)
	for _, e := range extra {
		if !slices.ContainsFunc(out, func(d string) bool { return name(d) == name(e) }) {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
