package screen

import (
	"strings"
	"testing"

	"github.com/spirit-app/spirit/platform"
)

// FuzzExclusions decides on windows with arbitrary titles, app names and
// command lines: what programs and web pages call their windows. It is
// the rule that keeps Spirit from reading password managers and private
// windows, so its promises are checked against any input:
//   - a reason is given exactly when a window is excluded, and is one of
//     the documented ones (never the title);
//   - a title showing a private window's mark or an open KeePass database,
//     or a private-window flag on the command line, excludes the window
//     whatever else it says;
//   - the user's lists only ever add exclusions, and a user title found
//     in the title (ignoring case) excludes;
//   - a nil *Exclusions applies the built-in rules.
func FuzzExclusions(f *testing.F) {
	for _, s := range [][6]string{
		{"RE: SNDA - Brooklyn Gardens - Message (HTML)", "", "OUTLOOK.EXE", "", "", ""},
		{"Passwords.kdbx - KeePassXC", "keepassxc", "KeePassXC", "keepassxc", "", ""},
		{"Vaults | Bitwarden Web vault — Mozilla Firefox", "firefox", "Navigator", "firefox", "/usr/lib/firefox/firefox", ""},
		{"New Incognito Tab - Google Chrome (Incognito)", "Google-chrome", "google-chrome", "chrome", "/opt/google/chrome/chrome", "--incognito"},
		{"LastPass invoice - Gmail - Google Chrome", "Google-chrome", "google-chrome", "chrome", "chrome", ""},
		{"Signal", "Signal", "signal", "signal-desktop", "/usr/bin/mono", "KeePass.exe"},
		{"Private Browsing - Mozilla Firefox", "firefox", "", "", "", "-private-window=https://x"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], "signal", "confidential")
	}
	f.Fuzz(func(t *testing.T, title, class, instance, process, arg0, arg1, userApp, userTitle string) {
		w := platform.Window{Title: title, Class: class, Instance: instance, Process: process}
		if arg0 != "" || arg1 != "" {
			w.Args = []string{arg0, arg1}
		}
		base := NewExclusions(nil, nil)
		user := NewExclusions([]string{userApp}, []string{userTitle})

		ex, reason := base.Match(w)
		checkReason(t, w, ex, reason)
		if nex, nreason := (*Exclusions)(nil).Match(w); nex != ex || nreason != reason {
			t.Fatalf("nil Exclusions: %v %q, built-in rules: %v %q", nex, nreason, ex, reason)
		}
		uex, ureason := user.Match(w)
		checkReason(t, w, uex, ureason)
		if ex && !uex {
			t.Fatalf("%+v: excluded by the built-in rules (%s) but not with user lists %q, %q", w, reason, userApp, userTitle)
		}
		if ut := strings.ToLower(strings.TrimSpace(userTitle)); ut != "" && strings.Contains(strings.ToLower(title), ut) && !uex {
			t.Fatalf("%+v: title holds the user's %q, yet not excluded", w, userTitle)
		}

		for _, mark := range []string{" (Incognito)", " [InPrivate]", " — Mozilla Firefox Private Browsing", " (Private)", " - Private Window"} {
			pw := w
			pw.Title = title + mark
			if ex, _ := base.Match(pw); !ex {
				t.Fatalf("%+v: a private window's title, not excluded", pw)
			}
		}
		kw := w
		kw.Title = "Passwords.kdbx - " + title
		if ex, _ := base.Match(kw); !ex {
			t.Fatalf("%+v: a KeePass database's title, not excluded", kw)
		}
		fw := w
		fw.Args = append([]string{arg0, arg1}, "--incognito")
		if ex, _ := base.Match(fw); !ex {
			t.Fatalf("%+v: started with --incognito, not excluded", fw)
		}
	})
}

func checkReason(t *testing.T, w platform.Window, excluded bool, reason string) {
	t.Helper()
	switch {
	case !excluded && reason != "":
		t.Fatalf("%+v: not excluded, yet reason %q", w, reason)
	case excluded && reason != ReasonPasswordManager && reason != ReasonPrivateBrowsing && reason != ReasonUserList:
		t.Fatalf("%+v: excluded with reason %q", w, reason)
	}
}
