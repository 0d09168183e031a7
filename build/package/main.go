// Command package makes Spirit's Linux packages from a built binary and
// FyneApp.toml: a tarball in Fyne's layout (usr/local/… and a Makefile
// with install and user-install) and a .deb made with nfpm, whose Depends
// come from dpkg-shlibdeps run on the binary plus what it loads at run
// time. Both are reproducible: every time stamp is SOURCE_DATE_EPOCH (the
// commit's by default), every owner root, every order sorted.
//
// It is its own Go module so that nfpm and its dependencies stay out of
// Spirit's go.mod and binary. `make package` runs it:
//
//	go run . -repo ../.. -binary ../../bin/package/spirit -version 39a0ced -out ../../bin/package
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
)

func main() {
	repo := flag.String("repo", "../..", "the Spirit repository (FyneApp.toml, assets)")
	binary := flag.String("binary", "", "the built spirit binary (linux/amd64)")
	gitVersion := flag.String("version", "", "the version stamped into the binary (git describe)")
	out := flag.String("out", "", "where to write the packages")
	flag.Parse()
	if *binary == "" || *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	made, err := build(ctx, *repo, *binary, *gitVersion, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "package:", err)
		os.Exit(1)
	}
	for _, p := range made {
		fmt.Println(p)
	}
}

// file is one file of both packages, by its path under the prefix.
type file struct {
	rel  string // e.g. bin/spirit, share/applications/x.desktop
	mode fs.FileMode
	data []byte
}

// build writes both packages into out and returns their paths.
func build(ctx context.Context, repo, binary, gitVersion, out string) ([]string, error) {
	app, err := readApp(filepath.Join(repo, "FyneApp.toml"))
	if err != nil {
		return nil, err
	}
	mtime, err := sourceDateEpoch(os.Getenv("SOURCE_DATE_EPOCH"), func() (string, error) {
		b, err := exec.CommandContext(ctx, "git", "-C", repo, "log", "-1", "--format=%ct").Output()
		return string(b), err
	})
	if err != nil {
		return nil, err
	}
	version := debVersion(app.Details.Version, gitVersion)
	bin, err := readFile(binary)
	if err != nil {
		return nil, err
	}
	icon, err := readFile(filepath.Join(repo, app.Details.Icon))
	if err != nil {
		return nil, err
	}
	meta, err := app.metainfo(app.Details.Version, mtime)
	if err != nil {
		return nil, err
	}
	id := app.Details.ID
	contents := []file{
		{"bin/" + binName, 0o755, bin},
		{"share/applications/" + app.desktopFile(), 0o644, []byte(app.desktopEntry())},
		{"share/pixmaps/" + id + ".png", 0o644, icon},
		{"share/metainfo/" + id + ".metainfo.xml", 0o644, meta},
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}

	tarPath := filepath.Join(out, fmt.Sprintf("%s-%s-linux-amd64.tar.gz", binName, version))
	if err := writeTarball(tarPath, contents, app.installMakefile(), mtime); err != nil {
		return nil, err
	}
	slog.Info("tarball", "path", tarPath)

	shlibs, err := shlibDepends(ctx, binary)
	if err != nil {
		return nil, err
	}
	debPath := filepath.Join(out, fmt.Sprintf("%s_%s-%d_amd64.deb", binName, version, app.Details.Build))
	info := debInfo(app, version, mergeDepends(shlibs, runtimeDepends), mtime)
	if err := writeDeb(debPath, info, contents); err != nil {
		return nil, err
	}
	slog.Info("deb", "path", debPath, "depends", strings.Join(info.Depends, ", "))
	return []string{tarPath, debPath}, nil
}

// writeTarball writes Fyne's Linux layout: the Makefile at the top and the
// files under usr/local, directories included, root-owned, all dated mtime.
func writeTarball(dst string, contents []file, makefile string, mtime time.Time) error {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	hdr := func(name string, mode fs.FileMode, size int64, typ byte) *tar.Header {
		return &tar.Header{Name: name, Mode: int64(mode.Perm()), Size: size, Typeflag: typ,
			ModTime: mtime, Uname: "root", Gname: "root", Format: tar.FormatPAX}
	}
	if err := tw.WriteHeader(hdr("Makefile", 0o644, int64(len(makefile)), tar.TypeReg)); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, makefile); err != nil {
		return err
	}
	written := map[string]bool{}
	for _, f := range contents {
		name := path.Join("usr/local", f.rel)
		// Parents first, each once, so `tar x` makes them with our modes.
		var parents []string
		for d := path.Dir(name); d != "." && !written[d]; d = path.Dir(d) {
			parents = append([]string{d}, parents...)
			written[d] = true
		}
		for _, d := range parents {
			if err := tw.WriteHeader(hdr(d+"/", 0o755, 0, tar.TypeDir)); err != nil {
				return err
			}
		}
		if err := tw.WriteHeader(hdr(name, f.mode, int64(len(f.data)), tar.TypeReg)); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return writeAtomic(dst, buf.Bytes())
}

// debInfo describes the .deb to nfpm. The version is taken as written
// (nfpm would otherwise reparse it as semver).
func debInfo(app App, version string, depends []string, mtime time.Time) *nfpm.Info {
	return &nfpm.Info{
		Name:          binName,
		Arch:          "amd64",
		Platform:      "linux",
		Version:       version,
		VersionSchema: "none",
		Release:       fmt.Sprint(app.Details.Build),
		Section:       "utils",
		Priority:      "optional",
		Maintainer:    maintainer,
		Description:   summary(app) + "\n" + app.LinuxAndBSD.Comment + ".",
		Vendor:        app.Details.Name,
		Homepage:      app.Website,
		License:       license,
		MTime:         mtime,
		Overridables: nfpm.Overridables{
			Depends:    depends,
			Recommends: recommends,
			Umask:      0o022,
			// gzip: every dpkg reads it; zstd or xz would save a little
			// and cost older systems or much more time.
			Deb: nfpm.Deb{Compression: "gzip"},
		},
	}
}

// writeDeb packs contents under /usr into a .deb. nfpm takes files from
// disk, so they are staged in a scratch directory first.
func writeDeb(dst string, info *nfpm.Info, contents []file) error {
	stage, err := os.MkdirTemp("", "spirit-deb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	for _, f := range contents {
		src := filepath.Join(stage, filepath.FromSlash(f.rel))
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(src, f.data, f.mode); err != nil {
			return err
		}
		info.Contents = append(info.Contents, &files.Content{
			Source: src, Destination: "/usr/" + f.rel,
			FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: f.mode, MTime: info.MTime},
		})
	}
	if err := nfpm.PrepareForPackager(nfpm.WithDefaults(info), "deb"); err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	var buf bytes.Buffer
	if err := deb.Default.Package(info, &buf); err != nil {
		return fmt.Errorf("deb: %w", err)
	}
	return writeAtomic(dst, buf.Bytes())
}

// writeAtomic replaces dst only once the whole file is written.
func writeAtomic(dst string, data []byte) error {
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}
