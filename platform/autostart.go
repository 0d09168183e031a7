package platform

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Start at login: each system keeps a list of what to start when the user
// logs in, and Spirit adds or removes one entry of its own there. The
// entry holds a command (this program's absolute path and its arguments),
// so it starts the installed Spirit wherever the lawyer's shell or PATH
// points at login:
//   - Linux: an XDG autostart entry, $XDG_CONFIG_HOME/autostart/spirit.desktop
//     (default ~/.config/autostart), which desktops read at login;
//   - macOS: a LaunchAgent, ~/Library/LaunchAgents/app.spirit.desktop.plist,
//     which launchd loads at login;
//   - Windows: the value "Spirit" under HKCU\Software\Microsoft\Windows\
//     CurrentVersion\Run.
//
// The builders and readers of the entries' text are here, where the tests
// of every system's format run; where each entry lives is in the
// autostart_<os>.go files.

// AutostartID names Spirit's entry: the LaunchAgent's label, and the
// application id of Fyne's packaging (FyneApp.toml).
const AutostartID = "app.spirit.desktop"

// Autostart is whether, and how, Spirit starts when the lawyer logs in.
type Autostart struct {
	// On: the system will start Command at the next login.
	On bool
	// Command is the program and its arguments the entry starts; nil when
	// there is no entry.
	Command []string
	// Where is the entry's file or registry value, e.g.
	// "/home/dana/.config/autostart/spirit.desktop"; set even when the
	// entry is there but turned off (by the desktop's own settings).
	Where string
	// Note says, in the lawyer's words, why an entry that is there is off;
	// empty otherwise.
	Note string
}

// EnableAutostart makes the system start command at each login, replacing
// Spirit's entry if there is one. command[0] must be an absolute path.
func EnableAutostart(command []string) error {
	if err := checkAutostartCommand(command); err != nil {
		return err
	}
	if err := enableAutostart(command); err != nil {
		return fmt.Errorf("start at login: %w", err)
	}
	return nil
}

// DisableAutostart removes Spirit's entry; without one it does nothing.
func DisableAutostart() error {
	if err := disableAutostart(); err != nil {
		return fmt.Errorf("stop starting at login: %w", err)
	}
	return nil
}

// AutostartStatus reads Spirit's entry: Off with no Command when there is
// none.
func AutostartStatus() (Autostart, error) {
	a, err := autostartStatus()
	if err != nil {
		return Autostart{}, fmt.Errorf("read start at login: %w", err)
	}
	return a, nil
}

// AutostartCommand is the command that starts this Spirit at login: this
// program's absolute path, with --data-dir dataDir unless dataDir is the
// system's default (an environment variable such as SPIRIT_DATA_DIR set in
// a terminal is not set at login, so any other folder must be named).
func AutostartCommand(dataDir string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program's path: %w", err)
	}
	def, err := defaultDataDir()
	if err != nil {
		def = "" // no default: always name the folder
	}
	return autostartCommand(exe, dataDir, def)
}

// autostartCommand is AutostartCommand's rule: exe must be absolute and
// not a temporary build (go run, go test), which is gone by the next
// login; dataDir is named unless it is defaultDir.
func autostartCommand(exe, dataDir, defaultDir string) ([]string, error) {
	if !filepath.IsAbs(exe) {
		return nil, fmt.Errorf("this program's path %q is not absolute; start Spirit by its full path and try again", exe)
	}
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return nil, fmt.Errorf("this Spirit is a temporary build (%s) that will be gone at the next login: build it (make build) or install it, then turn this on from that copy", exe)
		}
	}
	cmd := []string{filepath.Clean(exe)}
	if dataDir != "" && (defaultDir == "" || filepath.Clean(dataDir) != filepath.Clean(defaultDir)) {
		abs, err := filepath.Abs(dataDir)
		if err != nil {
			return nil, fmt.Errorf("data directory %q: %w", dataDir, err)
		}
		cmd = append(cmd, "--data-dir", abs)
	}
	return cmd, nil
}

func checkAutostartCommand(command []string) error {
	if len(command) == 0 || command[0] == "" {
		return errors.New("start at login: no program to start")
	}
	if !filepath.IsAbs(command[0]) {
		return fmt.Errorf("start at login: the program %q must be an absolute path", command[0])
	}
	for _, a := range command {
		if strings.ContainsRune(a, 0) {
			return fmt.Errorf("start at login: argument %q contains a NUL byte", a)
		}
	}
	return nil
}

// desktopEntry is the XDG autostart entry that starts command: a desktop
// entry that desktop-file-validate accepts (Desktop Entry Specification
// 1.4: the validator of Debian 12 does not know 1.5, and nothing here
// needs it).
func desktopEntry(command []string) string {
	var b strings.Builder
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Version=1.4\n")
	b.WriteString("Name=Spirit\n")
	b.WriteString("GenericName=Assistant for lawyers\n")
	b.WriteString("Comment=Starts Spirit when you log in\n")
	b.WriteString("Exec=" + desktopExec(command) + "\n")
	b.WriteString("Terminal=false\n")
	// Not an application to list in menus: only a login item.
	b.WriteString("NoDisplay=true\n")
	b.WriteString("X-GNOME-Autostart-enabled=true\n")
	return b.String()
}

// desktopReserved are the characters that make an Exec argument need
// quotes (Desktop Entry Specification, "The Exec key").
const desktopReserved = " \t\n\"'\\><~|&;$*?#()`"

// desktopExec is command as an Exec value: arguments with reserved
// characters in double quotes, with ", `, $ and \ escaped inside them;
// % doubled (a lone % would start a field code); then the value escaped as
// every string value is (\ as \\, newline as \n, tab as \t, CR as \r).
func desktopExec(command []string) string {
	args := make([]string, len(command))
	for i, a := range command {
		a = strings.ReplaceAll(a, "%", "%%")
		if a == "" || strings.ContainsAny(a, desktopReserved) {
			var q strings.Builder
			q.WriteByte('"')
			for _, r := range a {
				if strings.ContainsRune("\"`$\\", r) {
					q.WriteByte('\\')
				}
				q.WriteRune(r)
			}
			q.WriteByte('"')
			a = q.String()
		}
		args[i] = a
	}
	return strings.NewReplacer("\\", `\\`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(strings.Join(args, " "))
}

// parseDesktopEntry reads the Exec command of a desktop entry's [Desktop
// Entry] group, and whether the entry is on: not Hidden, and not turned
// off by GNOME's X-GNOME-Autostart-enabled=false.
func parseDesktopEntry(content string) (command []string, on bool, err error) {
	group, exec, hidden, enabled := "", "", false, true
	found := false
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			group = line
			continue
		}
		if group != "[Desktop Entry]" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "Exec":
			exec, found = strings.TrimSpace(value), true
		case "Hidden":
			hidden = strings.TrimSpace(value) == "true"
		case "X-GNOME-Autostart-enabled":
			enabled = strings.TrimSpace(value) != "false"
		}
	}
	if !found {
		return nil, false, errors.New("the autostart entry has no Exec line")
	}
	command, err = parseDesktopExec(exec)
	if err != nil {
		return nil, false, err
	}
	return command, !hidden && enabled, nil
}

// parseDesktopExec reads an Exec value back into its arguments: string
// escapes first, then quotes and %%, as desktopExec wrote them.
func parseDesktopExec(value string) ([]string, error) {
	var un strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c != '\\' || i+1 == len(value) {
			un.WriteByte(c)
			continue
		}
		i++
		switch value[i] {
		case 's':
			un.WriteByte(' ')
		case 'n':
			un.WriteByte('\n')
		case 't':
			un.WriteByte('\t')
		case 'r':
			un.WriteByte('\r')
		case '\\':
			un.WriteByte('\\')
		default:
			un.WriteByte('\\')
			un.WriteByte(value[i])
		}
	}
	s := un.String()
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s) && strings.IndexByte("\"`$\\", s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
		case quoted && c == '"':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '"':
			quoted, inArg = true, true
		case c == ' ' || c == '\t':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		case c == '%' && i+1 < len(s) && s[i+1] == '%':
			i++
			cur.WriteByte('%')
			inArg = true
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("the autostart entry's Exec line %q has an unclosed quote", value)
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("the autostart entry's Exec line is empty")
	}
	return args, nil
}

// launchAgentPlist is the LaunchAgent that starts command at login, in the
// lawyer's graphical session only (LimitLoadToSessionType Aqua), once: no
// KeepAlive, so Quit stays quit.
func launchAgentPlist(command []string) string {
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	b.WriteString("\t<key>Label</key>\n\t<string>" + xmlText(AutostartID) + "</string>\n")
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range command {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString("\t</array>\n")
	b.WriteString("\t<key>RunAtLoad</key>\n\t<true/>\n")
	b.WriteString("\t<key>LimitLoadToSessionType</key>\n\t<string>Aqua</string>\n")
	b.WriteString("\t<key>ProcessType</key>\n\t<string>Interactive</string>\n")
	b.WriteString("</dict>\n</plist>\n")
	return b.String()
}

func xmlText(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writing to a bytes.Buffer cannot fail
	return b.String()
}

// parseLaunchAgent reads a LaunchAgent's ProgramArguments, and whether it
// is on (not Disabled).
func parseLaunchAgent(content []byte) (command []string, on bool, err error) {
	// A plist's top dict is a flat run of <key> then value elements.
	var doc struct {
		Dict struct {
			Items []struct {
				XMLName xml.Name
				Text    string   `xml:",chardata"`
				Strings []string `xml:"string"`
			} `xml:",any"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(content, &doc); err != nil {
		return nil, false, fmt.Errorf("the LaunchAgent is not a property list: %w", err)
	}
	on = true
	items := doc.Dict.Items
	for i := 0; i+1 < len(items); i++ {
		if items[i].XMLName.Local != "key" {
			continue
		}
		v := items[i+1]
		switch items[i].Text {
		case "ProgramArguments":
			command = v.Strings
		case "Disabled":
			on = v.XMLName.Local != "true"
		}
	}
	if len(command) == 0 {
		return nil, false, errors.New("the LaunchAgent has no ProgramArguments")
	}
	return command, on, nil
}

// removeFile removes path; a file already gone is not an error.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// fileEntry is an entry kept as one file of its own (Linux, macOS).
type fileEntry struct {
	path  func() (string, error)
	text  func(command []string) string
	parse func(content []byte) (command []string, on bool, err error)
	// offNote says why an entry that is there reads as off.
	offNote string
}

func (e fileEntry) enable(command []string) error {
	path, err := e.path()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, []byte(e.text(command)), 0o644)
}

func (e fileEntry) disable() error {
	path, err := e.path()
	if err != nil {
		return err
	}
	return removeFile(path)
}

func (e fileEntry) status() (Autostart, error) {
	path, err := e.path()
	if err != nil {
		return Autostart{}, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Autostart{}, nil
	}
	if err != nil {
		return Autostart{}, err
	}
	cmd, on, err := e.parse(data)
	if err != nil {
		return Autostart{}, fmt.Errorf("%s: %w", path, err)
	}
	a := Autostart{On: on, Command: cmd, Where: path}
	if !on {
		a.Note = e.offNote
	}
	return a, nil
}
