package screen

import (
	"testing"

	"github.com/spirit-app/spirit/platform"
)

func TestExclusions(t *testing.T) {
	user := NewExclusions([]string{"Signal", "WhatsApp", "Mail"}, []string{"Privileged & Confidential", "HR -"})
	for _, tc := range []struct {
		name string
		w    platform.Window
		want string // reason; "" means not excluded
	}{
		// Password managers, by every name they go by.
		{"KeePassXC class", platform.Window{Class: "KeePassXC", Title: "Clients.kdbx - KeePassXC"}, ReasonPasswordManager},
		{"KeePassXC process only", platform.Window{Process: "keepassxc", Title: "Unlock database"}, ReasonPasswordManager},
		{"KeePassXC flatpak id", platform.Window{Class: "org.keepassxc.KeePassXC", Title: "x"}, ReasonPasswordManager},
		{"KeePass 2 on Windows", platform.Window{Process: "KeePass", Name: "KeePass", Title: "Database.kdbx - KeePass"}, ReasonPasswordManager},
		{"KeePass under mono", platform.Window{Process: "mono", Args: []string{"mono", "/usr/lib/keepass2/KeePass.exe"}, Title: "Open Database"}, ReasonPasswordManager},
		{"kdbx title under mono", platform.Window{Process: "mono", Title: "Work.kdbx - KeePass"}, ReasonPasswordManager},
		{"1Password", platform.Window{Class: "1Password", Title: "All Items — 1Password"}, ReasonPasswordManager},
		{"1Password 7 Windows", platform.Window{Process: "1Password7", Name: "1Password 7", Title: "1Password"}, ReasonPasswordManager},
		{"Bitwarden desktop", platform.Window{Class: "Bitwarden", Process: "bitwarden", Title: "Vault - Bitwarden"}, ReasonPasswordManager},
		{"Bitwarden web vault in Chrome", platform.Window{Class: "Google-chrome", Title: "Vaults | Bitwarden Web vault - Google Chrome"}, ReasonPasswordManager},
		{"Keychain Access", platform.Window{Name: "Keychain Access", Process: "Keychain Access", Title: "Keychain Access"}, ReasonPasswordManager},
		{"LastPass", platform.Window{Name: "LastPass", Title: "LastPass"}, ReasonPasswordManager},
		{"LastPass vault tab", platform.Window{Class: "firefox", Title: "LastPass Vault — Mozilla Firefox"}, ReasonPasswordManager},
		{"Dashlane", platform.Window{Process: "Dashlane", Title: "Dashlane"}, ReasonPasswordManager},
		{"Enpass", platform.Window{Class: "Enpass", Title: "Enpass"}, ReasonPasswordManager},
		{"QtPass", platform.Window{Class: "QtPass", Title: "QtPass"}, ReasonPasswordManager},
		{"pass in a terminal", platform.Window{Process: "pass", Title: "pass"}, ReasonPasswordManager},
		{"GNOME Passwords and Keys", platform.Window{Class: "Seahorse", Title: "Passwords and Keys"}, ReasonPasswordManager},
		// Look-alikes that are not password managers.
		{"compass is not pass", platform.Window{Process: "compass", Title: "MongoDB Compass"}, ""},
		{"passport application", platform.Window{Class: "libreoffice-writer", Title: "Passport application.odt - LibreOffice Writer"}, ""},
		{"e-mail about LastPass", platform.Window{Class: "thunderbird", Title: "Re: LastPass invoice - Mozilla Thunderbird"}, ""},
		{"e-mail about a password", platform.Window{Class: "thunderbird", Title: "Your password expires - Mozilla Thunderbird"}, ""},

		// Private browsing.
		{"Firefox private", platform.Window{Class: "firefox", Title: "Mozilla Firefox Private Browsing"}, ReasonPrivateBrowsing},
		{"Firefox private page", platform.Window{Class: "firefox-esr", Title: "Search — Mozilla Firefox Private Browsing"}, ReasonPrivateBrowsing},
		{"Chrome incognito", platform.Window{Class: "Google-chrome", Title: "New Tab - Google Chrome (Incognito)"}, ReasonPrivateBrowsing},
		{"Chromium incognito tab", platform.Window{Class: "Chromium", Title: "New Incognito tab - Chromium"}, ReasonPrivateBrowsing},
		{"Edge InPrivate", platform.Window{Name: "Microsoft Edge", Title: "[InPrivate] Bing - Microsoft Edge"}, ReasonPrivateBrowsing},
		{"Edge InPrivate tab", platform.Window{Name: "Microsoft Edge", Title: "New InPrivate tab - Personal - Microsoft\u200b Edge"}, ReasonPrivateBrowsing},
		{"Brave private", platform.Window{Class: "Brave-browser", Title: "New Private Tab - Brave (Private)"}, ReasonPrivateBrowsing},
		{"Safari private window", platform.Window{Name: "Safari", Title: "Private Window"}, ReasonPrivateBrowsing},
		{"Tor Browser", platform.Window{Class: "Tor Browser", Title: "Explore. Privately."}, ReasonPrivateBrowsing},
		{"chromium --incognito", platform.Window{Class: "Chromium", Args: []string{"/usr/lib/chromium/chromium", "--incognito"}, Title: "Gmail - Chromium"}, ReasonPrivateBrowsing},
		{"firefox -private-window", platform.Window{Class: "firefox", Args: []string{"firefox", "-private-window", "https://example.com"}, Title: "Example"}, ReasonPrivateBrowsing},
		{"edge --inprivate", platform.Window{Class: "Microsoft-edge", Args: []string{"msedge", "--InPrivate"}, Title: "Bing"}, ReasonPrivateBrowsing},
		{"normal Chrome", platform.Window{Class: "Google-chrome", Args: []string{"chrome", "--enable-features=Foo"}, Title: "Gmail - Google Chrome"}, ""},
		{"normal Firefox", platform.Window{Class: "firefox", Title: "Court listings — Mozilla Firefox"}, ""},

		// Private browsing on Windows, as window_windows.go reads it:
		// the class is the toolkit's, the name the executable's
		// FileDescription.
		{"Windows Chrome incognito", platform.Window{Class: "Chrome_WidgetWin_1", Process: "chrome", Name: "Google Chrome", Title: "Settlement draft - Google Chrome (Incognito)"}, ReasonPrivateBrowsing},
		{"Windows Edge InPrivate", platform.Window{Class: "Chrome_WidgetWin_1", Process: "msedge", Name: "Microsoft Edge", Title: "Bing and 1 more page - [InPrivate] - Microsoft​ Edge"}, ReasonPrivateBrowsing},
		{"Windows Firefox private", platform.Window{Class: "MozillaWindowClass", Process: "firefox", Name: "Firefox", Title: "Court listings — Mozilla Firefox Private Browsing"}, ReasonPrivateBrowsing},
		{"Windows Chrome", platform.Window{Class: "Chrome_WidgetWin_1", Process: "chrome", Name: "Google Chrome", Title: "Settlement draft - Google Chrome"}, ""},
		{"Windows Edge", platform.Window{Class: "Chrome_WidgetWin_1", Process: "msedge", Name: "Microsoft Edge", Title: "Court listings - Work - Microsoft​ Edge"}, ""},

		// Windows the application keeps out of captures (display
		// affinity), whatever they show.
		{"protected from capture", platform.Window{Name: "Contoso Bank", Process: "bank", Title: "Accounts", NoCapture: true}, ReasonNoCapture},
		{"protected Outlook window", platform.Window{Name: "Microsoft Outlook", Process: "OUTLOOK", Title: "Inbox - Outlook", NoCapture: true}, ReasonNoCapture},

		// The user's list.
		{"user app by class", platform.Window{Class: "Signal", Title: "Signal"}, ReasonUserList},
		{"user app by process", platform.Window{Process: "signal-desktop", Title: "Mum"}, ReasonUserList},
		{"user app by Windows name", platform.Window{Name: "WhatsApp", Process: "WhatsApp", Title: "WhatsApp"}, ReasonUserList},
		{"short user app name matches whole", platform.Window{Class: "Mail", Title: "Inbox"}, ReasonUserList},
		{"short user app name not inside others", platform.Window{Class: "Gmail", Title: "Inbox"}, ""},
		{"user title", platform.Window{Class: "libreoffice-writer", Title: "PRIVILEGED & CONFIDENTIAL memo.odt - LibreOffice"}, ReasonUserList},
		{"user title with separator", platform.Window{Class: "thunderbird", Title: "HR - salary review - Mozilla Thunderbird"}, ReasonUserList},
		{"ordinary work", platform.Window{Class: "thunderbird", Process: "thunderbird", Title: "Settlement offer - Mozilla Thunderbird"}, ""},
		{"Outlook", platform.Window{Name: "Microsoft Outlook", Process: "OUTLOOK", Title: "Inbox - jane@firm.example - Outlook"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, why := user.Match(tc.w)
			if ex != (tc.want != "") || why != tc.want {
				t.Errorf("Match(%+v) = %v, %q; want %q", tc.w, ex, why, tc.want)
			}
		})
	}
}

func TestExclusionsNilAppliesBuiltIns(t *testing.T) {
	var e *Exclusions
	if ex, why := e.Match(platform.Window{Class: "KeePassXC"}); !ex || why != ReasonPasswordManager {
		t.Errorf("nil Exclusions: KeePassXC = %v, %q", ex, why)
	}
	if ex, _ := e.Match(platform.Window{Class: "thunderbird", Title: "Inbox"}); ex {
		t.Error("nil Exclusions excluded thunderbird")
	}
}

// TestExcludeAll: with the lawyer's lists unreadable, every window is
// excluded, and says why; the built-in reasons still come first.
func TestExcludeAll(t *testing.T) {
	e := ExcludeAll()
	for _, tc := range []struct {
		name string
		w    platform.Window
		why  string
	}{
		{name: "mail", w: platform.Window{Class: "thunderbird", Title: "Inbox"}, why: ReasonListUnknown},
		{name: "a window with no name", w: platform.Window{}, why: ReasonListUnknown},
		{name: "a password manager", w: platform.Window{Class: "KeePassXC"}, why: ReasonListUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if ex, why := e.Match(tc.w); !ex || why != tc.why {
				t.Errorf("Match(%+v) = %v, %q; want excluded, %q", tc.w, ex, why, tc.why)
			}
		})
	}
}
