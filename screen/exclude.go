package screen

import (
	"path/filepath"
	"strings"
	"unicode"

	"github.com/spirit-app/spirit/platform"
)

// Why a window is excluded. The reason is safe to log: it never contains
// the window's title.
const (
	ReasonPasswordManager = "password manager"
	ReasonPrivateBrowsing = "private browsing"
	ReasonUserList        = "user list"
	// The application asked the system to keep the window out of
	// captures (platform.Window.NoCapture).
	ReasonNoCapture = "protected from capture"
	// The lawyer's lists could not be read (ExcludeAll): any window may
	// be on them.
	ReasonListUnknown = "user list unreadable"
)

// Exclusions decides which windows Spirit never looks at: password
// managers, private browser windows and the user's own list. An excluded
// window is never captured or read, and its title is neither stored nor
// reported. When in doubt it excludes: a missed glance costs little, a
// leaked password does not.
//
// An Exclusions is immutable and safe for concurrent use; a nil
// *Exclusions applies the built-in rules only.
type Exclusions struct {
	passwordManagers      []string
	passwordManagersExact []string
	privateTitles         []string
	privateApps           []string
	privateFlags          []string
	vaultSuffixes         []string
	userApps              []string // normalised
	userTitles            []string // lower case
	all                   bool     // ExcludeAll
}

// The built-in rules, as text so that no table is shared mutable state.
const (
	// Normalised names matched as substrings of a window's normalised app
	// names: distinctive enough not to hit other apps, and they still
	// match reverse-DNS ids ("com.bitwarden.desktop") and variants
	// ("KeePassXC", "KeePass2", "1Password7").
	passwordManagerNames = "1password bitwarden keepass keychainaccess lastpass dashlane " +
		"enpass qtpass gopass keeweb nordpass protonpass roboform passbolt passwordsafe " +
		"pwsafe kwalletmanager seahorse buttercup keepersecurity passwordmanager"
	// Too short or too common to match inside other names ("pass" is in
	// "compass"): these must be the whole name.
	passwordManagerExactNames = "pass keeper secrets passwords psono"
	// What may follow a password manager's name in a title segment, as in
	// "Vaults | Bitwarden Web vault" (normalised), besides nothing.
	vaultSuffixNames = "vault webvault passwordmanager desktop"
	// Lower-case title marks of private windows: Firefox "… — Mozilla
	// Firefox Private Browsing", Chrome and Chromium "… (Incognito)", Edge
	// "[InPrivate]", Brave "… (Private)", Vivaldi and Opera "Private
	// Window"/"Private Tab". Separated by "|" as they contain spaces.
	privateTitleMarks = "private browsing|incognito|inprivate|private window|(private)|private tab"
	// Browsers whose every window is private.
	privateAppNames = "torbrowser"
	// Command-line switches that open private windows. A browser started
	// with one may later open normal windows in the same process; those
	// are excluded too, on the safe side.
	privateFlagNames = "--incognito -incognito --private-window -private-window -private --private " +
		"--inprivate -inprivate --tor"
)

// NewExclusions returns the built-in rules plus the user's: apps are
// application names ("Signal", "Slack"), matched against the window's
// app name, WM_CLASS and process name, ignoring case, spaces and
// punctuation; titles are substrings of the window title, ignoring case.
func NewExclusions(userApps, userTitles []string) *Exclusions {
	e := &Exclusions{
		passwordManagers:      strings.Fields(passwordManagerNames),
		passwordManagersExact: strings.Fields(passwordManagerExactNames),
		privateTitles:         strings.Split(privateTitleMarks, "|"),
		privateApps:           strings.Fields(privateAppNames),
		privateFlags:          strings.Fields(privateFlagNames),
		vaultSuffixes:         append([]string{""}, strings.Fields(vaultSuffixNames)...),
	}
	for _, a := range userApps {
		if n := normName(a); n != "" {
			e.userApps = append(e.userApps, n)
		}
	}
	for _, t := range userTitles {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			e.userTitles = append(e.userTitles, t)
		}
	}
	return e
}

// ExcludeAll returns exclusions that exclude every window: what Spirit
// applies when it cannot read the lawyer's lists, since any window may be
// on them (ReasonListUnknown). A glance missed costs little; a window
// the lawyer excluded, read, does not.
func ExcludeAll() *Exclusions { return &Exclusions{all: true} }

// Match reports whether w must be excluded and why.
func (e *Exclusions) Match(w platform.Window) (excluded bool, reason string) {
	if e == nil {
		e = NewExclusions(nil, nil)
	}
	if e.all {
		return true, ReasonListUnknown
	}
	if w.NoCapture {
		return true, ReasonNoCapture
	}
	names := appNames(w)
	title := strings.ToLower(w.Title)
	if e.isPasswordManager(names, title) {
		return true, ReasonPasswordManager
	}
	if e.isPrivateBrowsing(names, title, w.Args) {
		return true, ReasonPrivateBrowsing
	}
	for _, u := range e.userApps {
		for _, n := range names {
			// Short names must match whole ("Mail" is not "Gmail"),
			// longer ones may be part of an id or executable name
			// ("signal" in "signal-desktop").
			if n == u || (len(u) >= 6 && strings.Contains(n, u)) {
				return true, ReasonUserList
			}
		}
	}
	for _, t := range e.userTitles {
		if strings.Contains(title, t) {
			return true, ReasonUserList
		}
	}
	return false, ""
}

func (e *Exclusions) isPasswordManager(names []string, lowerTitle string) bool {
	for _, n := range names {
		for _, pm := range e.passwordManagers {
			if strings.Contains(n, pm) {
				return true
			}
		}
		for _, pm := range e.passwordManagersExact {
			if n == pm {
				return true
			}
		}
	}
	if strings.Contains(lowerTitle, ".kdbx") || strings.Contains(lowerTitle, ".kdb ") || strings.HasSuffix(lowerTitle, ".kdb") {
		return true // a KeePass database is open, whatever shows it
	}
	// In titles only a whole segment counts ("Passwords.kdbx - KeePassXC",
	// "Bitwarden Web vault"), so that an e-mail about a LastPass invoice
	// is still seen.
	for _, seg := range titleSegments(lowerTitle) {
		n := normName(seg)
		if n == "" {
			continue
		}
		if e.isManagerName(n, e.passwordManagers) || e.isManagerName(n, e.passwordManagersExact) {
			return true
		}
	}
	return false
}

// isManagerName reports whether n is one of names, optionally followed by
// a vault suffix.
func (e *Exclusions) isManagerName(n string, names []string) bool {
	for _, pm := range names {
		rest, ok := strings.CutPrefix(n, pm)
		if !ok {
			continue
		}
		for _, s := range e.vaultSuffixes {
			if rest == s {
				return true
			}
		}
	}
	return false
}

func (e *Exclusions) isPrivateBrowsing(names []string, lowerTitle string, args []string) bool {
	for _, p := range e.privateTitles {
		if strings.Contains(lowerTitle, p) {
			return true
		}
	}
	for _, n := range names {
		for _, p := range e.privateApps {
			if strings.Contains(n, p) {
				return true
			}
		}
	}
	for _, a := range args {
		flag, _, _ := strings.Cut(strings.ToLower(a), "=")
		for _, f := range e.privateFlags {
			if flag == f {
				return true
			}
		}
	}
	return false
}

// appNames returns the normalised names w's application goes by.
func appNames(w platform.Window) []string {
	var out []string
	add := func(s string) {
		if n := normName(s); n != "" {
			out = append(out, n)
		}
	}
	add(w.Name)
	add(w.Class)
	add(w.Instance)
	add(w.Process)
	if len(w.Args) > 0 {
		add(filepath.Base(w.Args[0]))
		// An interpreter's program is the app: "mono KeePass.exe".
		if len(w.Args) > 1 && isInterpreter(normName(filepath.Base(w.Args[0]))) {
			add(filepath.Base(w.Args[1]))
		}
	}
	return out
}

func isInterpreter(n string) bool {
	switch strings.TrimRight(n, "0123456789") {
	case "mono", "wine", "wine64", "python", "java", "node", "electron":
		return true
	}
	return false
}

// normName lower-cases s, drops an executable or bundle suffix and keeps
// only letters and digits: "KeePassXC", "keepassxc" and "KeePassXC.exe"
// are all "keepassxc"; "Keychain Access.app" is "keychainaccess".
func normName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, ext := range []string{".exe", ".app", ".appimage", ".desktop"} {
		s = strings.TrimSuffix(s, ext)
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// titleSegments splits a title at the separators applications put between
// document and app name.
func titleSegments(title string) []string {
	return strings.FieldsFunc(title, func(r rune) bool {
		switch r {
		case '-', '—', '–', '|', ':', '·', '•', '[', ']', '(', ')':
			return true
		}
		return false
	})
}
