package main

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// The licence (LICENSE, MIT) and the maintainer, as every package names
// them: here, in one place.
const (
	license    = "MIT"
	maintainer = "Spirit maintainers <packages@spirit.app>"
	// metadataLicense covers the AppStream file alone (the store listing's
	// text), which AppStream requires to be a permissive licence.
	metadataLicense = "CC0-1.0"
)

// binName is the command installed on the PATH.
const binName = "spirit"

// App is the part of FyneApp.toml the packages are made from: the same
// file `fyne package` reads for the macOS and Windows bundles.
type App struct {
	Website string
	Details struct {
		Icon    string
		Name    string
		ID      string
		Version string
		Build   int
	}
	LinuxAndBSD struct {
		GenericName string
		Categories  []string
		Comment     string
		Keywords    []string
	}
}

// readApp reads and checks FyneApp.toml.
func readApp(path string) (App, error) {
	var a App
	md, err := toml.DecodeFile(path, &a)
	if err != nil {
		return a, fmt.Errorf("read %s: %w", path, err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		// A key Fyne knows and this packager does not would be silently
		// left out of the Linux packages.
		return a, fmt.Errorf("%s: keys the packager does not use: %v", path, un)
	}
	switch {
	case a.Details.Name == "", a.Details.ID == "", a.Details.Version == "", a.Details.Icon == "":
		return a, fmt.Errorf("%s: Details needs Name, ID, Version and Icon", path)
	case a.LinuxAndBSD.Comment == "":
		return a, fmt.Errorf("%s: LinuxAndBSD needs a Comment (the summary shown by software centres)", path)
	case !validID.MatchString(a.Details.ID):
		return a, fmt.Errorf("%s: ID %q is not a reverse-DNS name", path, a.Details.ID)
	}
	if a.Details.Build < 1 {
		a.Details.Build = 1
	}
	return a, nil
}

var validID = regexp.MustCompile(`^[a-z][a-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)+$`)

// debVersion is the package's version: FyneApp.toml's, then the commit it
// was built from when that differs (so two builds of one release number
// sort by nothing but stay distinct), then the build number as the
// Debian revision. gitVersion is `git describe` output, e.g. 39a0ced-dirty.
func debVersion(appVersion, gitVersion string) string {
	v := appVersion
	g := strings.TrimPrefix(gitVersion, "v")
	if g != "" && g != "dev" && g != appVersion {
		// Debian allows [A-Za-z0-9.+~] in an upstream version with a revision.
		g = regexp.MustCompile(`[^A-Za-z0-9.+~]+`).ReplaceAllString(g, ".")
		v += "+git" + strings.Trim(g, ".")
	}
	return v
}

// desktopFile is the file's name under share/applications: the app ID, as
// AppStream's launchable and the freedesktop naming advice want.
func (a App) desktopFile() string { return a.Details.ID + ".desktop" }

// desktopEntry is the menu entry.
func (a App) desktopEntry() string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\nType=Application\n")
	fmt.Fprintf(&b, "Name=%s\n", a.Details.Name)
	if a.LinuxAndBSD.GenericName != "" {
		fmt.Fprintf(&b, "GenericName=%s\n", a.LinuxAndBSD.GenericName)
	}
	fmt.Fprintf(&b, "Comment=%s\n", a.LinuxAndBSD.Comment)
	fmt.Fprintf(&b, "Exec=%s\n", binName)
	fmt.Fprintf(&b, "Icon=%s\n", a.Details.ID)
	b.WriteString("Terminal=false\n")
	if len(a.LinuxAndBSD.Categories) > 0 {
		fmt.Fprintf(&b, "Categories=%s;\n", strings.Join(a.LinuxAndBSD.Categories, ";"))
	}
	if len(a.LinuxAndBSD.Keywords) > 0 {
		fmt.Fprintf(&b, "Keywords=%s;\n", strings.Join(a.LinuxAndBSD.Keywords, ";"))
	}
	// Spirit lives in the tray: no startup feedback that would spin until
	// a window the launcher can see appears.
	b.WriteString("StartupNotify=false\n")
	return b.String()
}

// metainfo is the AppStream file software centres list the app from.
func (a App) metainfo(version string, released time.Time) ([]byte, error) {
	type text struct {
		Text string `xml:",chardata"`
	}
	type link struct {
		Type string `xml:"type,attr"`
		URL  string `xml:",chardata"`
	}
	type release struct {
		Version string `xml:"version,attr"`
		Date    string `xml:"date,attr"`
	}
	type component struct {
		XMLName         xml.Name `xml:"component"`
		Type            string   `xml:"type,attr"`
		ID              string   `xml:"id"`
		MetadataLicense string   `xml:"metadata_license"`
		ProjectLicense  string   `xml:"project_license"`
		Name            string   `xml:"name"`
		Summary         string   `xml:"summary"`
		Description     struct {
			P []string `xml:"p"`
		} `xml:"description"`
		Launchable struct {
			Type string `xml:"type,attr"`
			ID   string `xml:",chardata"`
		} `xml:"launchable"`
		URL           *link  `xml:"url,omitempty"`
		DeveloperName string `xml:"developer_name"`
		Keywords      struct {
			Keyword []string `xml:"keyword"`
		} `xml:"keywords"`
		Provides struct {
			Binary string `xml:"binary"`
		} `xml:"provides"`
		Releases struct {
			Release []release `xml:"release"`
		} `xml:"releases"`
		ContentRating struct {
			Type string `xml:"type,attr"`
		} `xml:"content_rating"`
	}
	c := component{Type: "desktop-application", ID: a.Details.ID, MetadataLicense: metadataLicense,
		ProjectLicense: license, Name: a.Details.Name, Summary: summary(a), DeveloperName: a.Details.Name}
	c.Description.P = []string{a.LinuxAndBSD.Comment + "."}
	c.Launchable.Type, c.Launchable.ID = "desktop-id", a.desktopFile()
	if a.Website != "" {
		if _, err := url.ParseRequestURI(a.Website); err != nil {
			return nil, fmt.Errorf("Website %q: %w", a.Website, err)
		}
		c.URL = &link{Type: "homepage", URL: a.Website}
	}
	c.Keywords.Keyword = a.LinuxAndBSD.Keywords
	c.Provides.Binary = binName
	c.Releases.Release = []release{{Version: version, Date: released.UTC().Format("2006-01-02")}}
	c.ContentRating.Type = "oars-1.1"
	out, err := xml.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// summary is the one line under the app's name in a software centre:
// the generic name when there is one (AppStream wants it short and
// without a final full stop), else the comment.
func summary(a App) string {
	if a.LinuxAndBSD.GenericName != "" {
		return a.LinuxAndBSD.GenericName
	}
	return strings.TrimSuffix(a.LinuxAndBSD.Comment, ".")
}

// installMakefile is the tarball's Makefile, as in Fyne's Linux tarballs:
// `make install` (into PREFIX, /usr/local by default; DESTDIR for staging)
// and `make user-install` (into ~/.local), and their uninstalls.
func (a App) installMakefile() string {
	id := a.Details.ID
	return strings.NewReplacer("@BIN@", binName, "@ID@", id).Replace(`# Installs Spirit from this tarball.
#   make install         into /usr/local (as root; PREFIX and DESTDIR as usual)
#   make user-install    into ~/.local, for this user only
# Spirit needs at run time: PortAudio, OpenGL, X11, Tesseract with its
# English data (Debian: apt-get install libportaudio2 libgl1 libx11-6
# libtesseract5 tesseract-ocr-eng); the .deb declares them for you.

PREFIX ?= /usr/local
SRC := usr/local

install:
	install -Dm755 $(SRC)/bin/@BIN@ $(DESTDIR)$(PREFIX)/bin/@BIN@
	install -Dm644 $(SRC)/share/applications/@ID@.desktop $(DESTDIR)$(PREFIX)/share/applications/@ID@.desktop
	install -Dm644 $(SRC)/share/pixmaps/@ID@.png $(DESTDIR)$(PREFIX)/share/pixmaps/@ID@.png
	install -Dm644 $(SRC)/share/metainfo/@ID@.metainfo.xml $(DESTDIR)$(PREFIX)/share/metainfo/@ID@.metainfo.xml

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/@BIN@ \
	  $(DESTDIR)$(PREFIX)/share/applications/@ID@.desktop \
	  $(DESTDIR)$(PREFIX)/share/pixmaps/@ID@.png \
	  $(DESTDIR)$(PREFIX)/share/metainfo/@ID@.metainfo.xml

# ~/.local/share/pixmaps is not searched for icons: the icon goes into the
# user's hicolor theme, and the entry names the binary by its full path
# in case ~/.local/bin is not on the PATH.
user-install:
	install -Dm755 $(SRC)/bin/@BIN@ $(HOME)/.local/bin/@BIN@
	install -Dm644 $(SRC)/share/pixmaps/@ID@.png $(HOME)/.local/share/icons/hicolor/256x256/apps/@ID@.png
	mkdir -p $(HOME)/.local/share/applications
	sed 's|^Exec=@BIN@|Exec=$(HOME)/.local/bin/@BIN@|' $(SRC)/share/applications/@ID@.desktop \
	  > $(HOME)/.local/share/applications/@ID@.desktop

user-uninstall:
	rm -f $(HOME)/.local/bin/@BIN@ \
	  $(HOME)/.local/share/icons/hicolor/256x256/apps/@ID@.png \
	  $(HOME)/.local/share/applications/@ID@.desktop

.PHONY: install uninstall user-install user-uninstall
`)
}

// sourceDateEpoch is the time written into every archive: the environment's
// SOURCE_DATE_EPOCH (reproducible-builds.org) or the commit's.
func sourceDateEpoch(env string, commitTime func() (string, error)) (time.Time, error) {
	s := env
	if s == "" {
		var err error
		if s, err = commitTime(); err != nil {
			return time.Time{}, fmt.Errorf("no SOURCE_DATE_EPOCH and no commit time: %w", err)
		}
	}
	var sec int64
	if _, err := fmt.Sscan(strings.TrimSpace(s), &sec); err != nil || sec <= 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}

func readFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}
