package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDebVersion(t *testing.T) {
	for _, c := range []struct {
		name, app, git, want string
	}{
		{"a commit", "0.1.0", "39a0ced", "0.1.0+git39a0ced"},
		{"a dirty tree", "0.1.0", "39a0ced-dirty", "0.1.0+git39a0ced.dirty"},
		{"the release's own tag", "0.1.0", "v0.1.0", "0.1.0"},
		{"commits past a tag", "0.1.0", "v0.1.0-3-g39a0ced", "0.1.0+git0.1.0.3.g39a0ced"},
		{"no git", "0.1.0", "", "0.1.0"},
		{"make's fallback", "0.1.0", "dev", "0.1.0"},
		{"characters Debian refuses", "0.1.0", "my_branch/x", "0.1.0+gitmy.branch.x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := debVersion(c.app, c.git); got != c.want {
				t.Errorf("debVersion(%q, %q) = %q, want %q", c.app, c.git, got, c.want)
			}
		})
	}
}

func TestParseShlibdeps(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      []string
		err       bool
	}{
		{"usual", "shlibs:Depends=libc6 (>= 2.34), libgl1, libportaudio2 (>= 19+svn20101113)\n",
			[]string{"libc6 (>= 2.34)", "libgl1", "libportaudio2 (>= 19+svn20101113)"}, false},
		{"other substitutions around", "misc:Foo=x\nshlibs:Depends=libc6 (>= 2.34)\n", []string{"libc6 (>= 2.34)"}, false},
		{"nothing linked", "shlibs:Depends=\n", nil, true},
		{"no line", "", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseShlibdeps(c.out)
			if (err != nil) != c.err || !slices.Equal(got, c.want) {
				t.Errorf("parseShlibdeps(%q) = %q, %v; want %q, error %v", c.out, got, err, c.want, c.err)
			}
		})
	}
}

func TestMergeDepends(t *testing.T) {
	for _, c := range []struct {
		name        string
		deps, extra []string
		want        []string
	}{
		{"added and sorted", []string{"libgl1", "libc6 (>= 2.34)"}, []string{"tesseract-ocr-eng"},
			[]string{"libc6 (>= 2.34)", "libgl1", "tesseract-ocr-eng"}},
		{"the linked version wins", []string{"libx11-6 (>= 2:1.6)"}, []string{"libx11-6"},
			[]string{"libx11-6 (>= 2:1.6)"}},
		{"an alternative counts by its first name", []string{"libgl1 | libgl1-mesa-glx"}, []string{"libgl1"},
			[]string{"libgl1 | libgl1-mesa-glx"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mergeDepends(c.deps, c.extra); !slices.Equal(got, c.want) {
				t.Errorf("mergeDepends(%q, %q) = %q, want %q", c.deps, c.extra, got, c.want)
			}
		})
	}
}

func TestSourceDateEpoch(t *testing.T) {
	commit := func() (string, error) { return "1764380000\n", nil }
	noGit := func() (string, error) { return "", errors.New("not a git repository") }
	for _, c := range []struct {
		name   string
		env    string
		commit func() (string, error)
		want   int64
		err    bool
	}{
		{"from the environment", "1700000000", noGit, 1700000000, false},
		{"from the commit", "", commit, 1764380000, false},
		{"neither", "", noGit, 0, true},
		{"not a number", "yesterday", commit, 0, true},
		{"zero", "0", commit, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := sourceDateEpoch(c.env, c.commit)
			if (err != nil) != c.err || (!c.err && got.Unix() != c.want) {
				t.Errorf("sourceDateEpoch(%q) = %v, %v; want %d, error %v", c.env, got, err, c.want, c.err)
			}
		})
	}
}

func TestReadApp(t *testing.T) {
	good := `Website = "https://spirit.app"
[Details]
  Icon = "assets/icon.png"
  Name = "Spirit"
  ID = "app.spirit.desktop"
  Version = "0.1.0"
[LinuxAndBSD]
  GenericName = "Assistant for lawyers"
  Comment = "An assistant"
`
	for _, c := range []struct {
		name, toml, err string
	}{
		{"good", good, ""},
		{"an unknown key", good + "  Exec = \"x\"\n", "keys the packager does not use"},
		{"no comment", strings.Replace(good, `Comment = "An assistant"`, "", 1), "needs a Comment"},
		{"no ID", strings.Replace(good, `ID = "app.spirit.desktop"`, "", 1), "needs Name, ID"},
		{"an ID that is not reverse DNS", strings.Replace(good, "app.spirit.desktop", "Spirit App", 1), "not a reverse-DNS"},
		{"not TOML", "[Details", "read "},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "FyneApp.toml")
			if err := os.WriteFile(p, []byte(c.toml), 0o644); err != nil {
				t.Fatal(err)
			}
			a, err := readApp(p)
			if c.err == "" {
				if err != nil || a.Details.Build != 1 {
					t.Errorf("readApp = %+v, %v; want it read, Build defaulting to 1", a, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("readApp error = %v, want one saying %q", err, c.err)
			}
		})
	}
}

// TestRepositoryApp reads the repository's own FyneApp.toml: what the
// packages are made from must stay readable and produce valid text.
func TestRepositoryApp(t *testing.T) {
	a, err := readApp("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	e := a.desktopEntry()
	for _, want := range []string{"Name=Spirit\n", "Exec=spirit\n", "Icon=" + a.Details.ID + "\n", "Categories=Office;Utility;\n"} {
		if !strings.Contains(e, want) {
			t.Errorf("desktop entry lacks %q:\n%s", want, e)
		}
	}
	m, err := a.metainfo("0.1.0", time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<id>app.spirit.desktop</id>", `<release version="0.1.0" date="2026-11-29">`,
		"<project_license>" + license + "</project_license>", `<launchable type="desktop-id">app.spirit.desktop.desktop</launchable>`} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metainfo lacks %q:\n%s", want, m)
		}
	}
}
