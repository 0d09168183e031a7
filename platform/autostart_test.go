package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// commands are the argument shapes an entry must carry unchanged: paths
// with spaces, quotes, shell characters, a percent sign, a backslash.
var commands = []struct {
	name string
	cmd  []string
}{
	{"plain", []string{"/usr/bin/spirit"}},
	{"data dir", []string{"/opt/spirit/spirit", "--data-dir", "/home/dana/spirit data"}},
	{"quotes and dollars", []string{"/home/dana/bin/spirit", "--data-dir", `/home/dana/"Dana's" $HOME`}},
	{"percent", []string{"/home/dana/100%/spirit", "--data-dir", "/tmp/a%fb"}},
	{"backslash and backtick", []string{`/home/dana/back\slash/spirit`, "--data-dir", "/tmp/`x`"}},
	{"tab, newline and hash", []string{"/tmp/a\tb/spirit", "--data-dir", "/tmp/x\ny#z"}},
	{"empty argument", []string{"/usr/bin/spirit", ""}},
	{"non-ASCII", []string{"/home/zoë/Überweisungen/spirit"}},
}

func TestDesktopExecRoundTrip(t *testing.T) {
	for _, tc := range commands {
		t.Run(tc.name, func(t *testing.T) {
			line := desktopExec(tc.cmd)
			if strings.ContainsAny(line, "\n\t\r") {
				t.Errorf("Exec value %q holds a raw control character", line)
			}
			got, err := parseDesktopExec(line)
			if err != nil || !slices.Equal(got, tc.cmd) {
				t.Errorf("parseDesktopExec(%q) = %q, %v; want %q", line, got, err, tc.cmd)
			}
		})
	}
}

func TestDesktopExec(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  []string
		want string
	}{
		{"bare", []string{"/usr/bin/spirit", "--data-dir", "/srv/d"}, `/usr/bin/spirit --data-dir /srv/d`},
		{"space quoted", []string{"/opt/my apps/spirit"}, `"/opt/my apps/spirit"`},
		{"dollar escaped in quotes", []string{"/x/$y"}, `"/x/\\$y"`},
		{"percent doubled", []string{"/x/100%"}, `/x/100%%`},
		{"backslash escaped twice", []string{`/x\y`}, `"/x\\\\y"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := desktopExec(tc.cmd); got != tc.want {
				t.Errorf("desktopExec(%q) = %s, want %s", tc.cmd, got, tc.want)
			}
		})
	}
}

func TestParseDesktopEntry(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    []string
		on      bool
		wantErr string
	}{
		{"written", desktopEntry([]string{"/usr/bin/spirit"}), []string{"/usr/bin/spirit"}, true, ""},
		{"hidden", "[Desktop Entry]\nExec=/usr/bin/spirit\nHidden=true\n", []string{"/usr/bin/spirit"}, false, ""},
		{"turned off by GNOME", "[Desktop Entry]\nExec=/usr/bin/spirit\nX-GNOME-Autostart-enabled=false\n", []string{"/usr/bin/spirit"}, false, ""},
		{"other groups ignored", "# c\n[Desktop Action x]\nExec=/bin/false\n[Desktop Entry]\nExec=/usr/bin/spirit -x\n", []string{"/usr/bin/spirit", "-x"}, true, ""},
		{"no Exec", "[Desktop Entry]\nName=Spirit\n", nil, false, "no Exec"},
		{"unclosed quote", "[Desktop Entry]\nExec=\"/usr/bin/spirit\n", nil, false, "unclosed quote"},
		{"empty Exec", "[Desktop Entry]\nExec=\n", nil, false, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, on, err := parseDesktopEntry(tc.content)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) || on != tc.on {
				t.Errorf("got %q on=%v err=%v; want %q on=%v", got, on, err, tc.want, tc.on)
			}
		})
	}
}

// The entry passes the freedesktop.org validator, for every command shape.
func TestDesktopEntryValidates(t *testing.T) {
	validator, err := exec.LookPath("desktop-file-validate")
	if err != nil {
		if os.Getenv("SPIRIT_REQUIRE_DESKTOP") != "" {
			t.Fatalf("desktop-file-validate not found (Debian: desktop-file-utils; make deps-test installs it): %v", err)
		}
		t.Skip("desktop-file-validate not installed")
	}
	for _, tc := range commands {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "spirit.desktop")
			if err := os.WriteFile(path, []byte(desktopEntry(tc.cmd)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(validator, path).CombinedOutput()
			// The validator exits 0 with hints; any line is a finding.
			if err != nil || len(strings.TrimSpace(string(out))) > 0 {
				t.Errorf("desktop-file-validate: %v\n%s\nentry:\n%s", err, out, desktopEntry(tc.cmd))
			}
		})
	}
}

func TestLaunchAgentRoundTrip(t *testing.T) {
	for _, tc := range commands {
		t.Run(tc.name, func(t *testing.T) {
			plist := launchAgentPlist(tc.cmd)
			got, on, err := parseLaunchAgent([]byte(plist))
			if err != nil || !on || !slices.Equal(got, tc.cmd) {
				t.Errorf("parseLaunchAgent = %q on=%v err=%v; want %q on\n%s", got, on, err, tc.cmd, plist)
			}
		})
	}
	off := strings.Replace(launchAgentPlist([]string{"/Applications/Spirit.app/Contents/MacOS/spirit"}),
		"<key>RunAtLoad</key>", "<key>Disabled</key>\n\t<true/>\n\t<key>RunAtLoad</key>", 1)
	if _, on, err := parseLaunchAgent([]byte(off)); err != nil || on {
		t.Errorf("a Disabled LaunchAgent reads as on=%v err=%v", on, err)
	}
	if _, _, err := parseLaunchAgent([]byte("not xml")); err == nil {
		t.Error("a file that is not a plist was read")
	}
}

// Python's plistlib, an independent reader of Apple's format, reads the
// LaunchAgent as launchd would: the label, the arguments, RunAtLoad.
func TestLaunchAgentReadsAsPlist(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	cmd := commands[2].cmd // quotes, dollars, an apostrophe
	path := filepath.Join(t.TempDir(), AutostartID+".plist")
	if err := os.WriteFile(path, []byte(launchAgentPlist(cmd)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", `import plistlib,sys,json
p = plistlib.load(open(sys.argv[1], "rb"))
print(json.dumps([p["Label"], p["RunAtLoad"], p["LimitLoadToSessionType"]] + p["ProgramArguments"]))`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("plistlib: %v\n%s", err, out)
	}
	want := `["app.spirit.desktop", true, "Aqua", "/home/dana/bin/spirit", "--data-dir", "/home/dana/\"Dana's\" $HOME"]`
	if got := strings.TrimSpace(string(out)); got != want {
		t.Errorf("plistlib read %s, want %s", got, want)
	}
}

func TestAutostartCommand(t *testing.T) {
	for _, tc := range []struct {
		name, exe, dataDir, def string
		want                    []string
		wantErr                 string
	}{
		{"default folder", "/usr/bin/spirit", "/home/dana/.local/share/spirit", "/home/dana/.local/share/spirit", []string{"/usr/bin/spirit"}, ""},
		{"another folder", "/usr/bin/spirit", "/srv/spirit", "/home/dana/.local/share/spirit", []string{"/usr/bin/spirit", "--data-dir", "/srv/spirit"}, ""},
		{"same folder spelt differently", "/usr/bin/spirit", "/home/dana/.local/share/spirit/", "/home/dana/.local/share/spirit", []string{"/usr/bin/spirit"}, ""},
		{"no default known", "/usr/bin/spirit", "/srv/spirit", "", []string{"/usr/bin/spirit", "--data-dir", "/srv/spirit"}, ""},
		{"go run", "/tmp/go-build1234/b001/exe/spirit", "/srv/spirit", "", nil, "temporary build"},
		{"relative", "bin/spirit", "/srv/spirit", "", nil, "not absolute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := autostartCommand(tc.exe, tc.dataDir, tc.def)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("autostartCommand = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
