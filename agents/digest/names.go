package digest

import (
	"path/filepath"
	"strings"
)

// products maps an executable's name (lower case, without .exe or .bin) or
// an X11 WM_CLASS to the product name the lawyer knows. Several names of
// one product (Outlook classic and new Outlook, Chrome's and Chromium's
// binaries) map to one entry.
var products = map[string]string{
	// Mail and calendars.
	"outlook":         "Outlook",
	"olk":             "Outlook", // the new Outlook for Windows
	"thunderbird":     "Thunderbird",
	"thunderbird-bin": "Thunderbird",
	"mail":            "Mail",
	"evolution":       "Evolution",
	// Word processing, spreadsheets, slides, PDFs.
	"winword":             "Word",
	"excel":               "Excel",
	"powerpnt":            "PowerPoint",
	"soffice":             "LibreOffice Writer", // the suite's one binary; see byClass for the others
	"libreoffice":         "LibreOffice Writer",
	"libreoffice-writer":  "LibreOffice Writer",
	"libreoffice-calc":    "LibreOffice Calc",
	"libreoffice-impress": "LibreOffice Impress",
	"libreoffice-draw":    "LibreOffice Draw",
	"pages":               "Pages",
	"acrobat":             "Acrobat",
	"acrord32":            "Acrobat Reader",
	"acrord64":            "Acrobat Reader",
	"evince":              "Document Viewer",
	"okular":              "Okular",
	"foxitpdfeditor":      "Foxit PDF Editor",
	"foxitreader":         "Foxit Reader",
	// Browsers.
	"chrome":           "Chrome",
	"google-chrome":    "Chrome",
	"google chrome":    "Chrome",
	"chromium":         "Chromium",
	"chromium-browser": "Chromium",
	"firefox":          "Firefox",
	"firefox-esr":      "Firefox",
	"msedge":           "Edge",
	"microsoft-edge":   "Edge",
	"safari":           "Safari",
	"brave":            "Brave",
	// Calls and chat.
	"teams":           "Teams",
	"ms-teams":        "Teams",
	"zoom":            "Zoom",
	"zoom.us":         "Zoom",
	"webex":           "Webex",
	"ciscowebexstart": "Webex",
	"slack":           "Slack",
	// The rest of a desk.
	"explorer":       "File Explorer",
	"nautilus":       "Files",
	"finder":         "Finder",
	"code":           "VS Code",
	"gnome-terminal": "Terminal",
	"xterm":          "Terminal",
	"terminal":       "Terminal",
	"notepad":        "Notepad",
}

// callApps are the products whose foreground window means a call.
var callApps = map[string]bool{"Teams": true, "Zoom": true, "Webex": true}

// mailApps, writers and readers choose the verb of the HUD line.
var (
	mailApps = map[string]bool{"Outlook": true, "Thunderbird": true, "Mail": true, "Evolution": true}
	writers  = map[string]bool{"Word": true, "LibreOffice Writer": true, "Pages": true}
	readers  = map[string]bool{"Acrobat": true, "Acrobat Reader": true, "Document Viewer": true, "Okular": true,
		"Foxit PDF Editor": true, "Foxit Reader": true}
	browsers = map[string]bool{"Chrome": true, "Chromium": true, "Firefox": true, "Edge": true, "Safari": true, "Brave": true}
)

// Product names the application of a window the way the lawyer says it:
// "soffice.bin" is LibreOffice Writer, "OUTLOOK.EXE" is Outlook. process is
// the executable's name or path, class X11's WM_CLASS class, app the
// watcher's human name; any may be empty. The first one known wins; an
// unknown application keeps the watcher's name.
func Product(process, class, app string) string {
	// WM_CLASS tells LibreOffice's modules apart; its binary does not.
	if c := key(class); strings.HasPrefix(c, "libreoffice-") {
		if p, ok := products[c]; ok {
			return p
		}
	}
	for _, n := range []string{process, class, app} {
		if p, ok := products[key(n)]; ok {
			return p
		}
	}
	// "Microsoft Outlook", "Microsoft Word": the watcher's name with the
	// vendor in front.
	if rest, ok := strings.CutPrefix(strings.TrimSpace(app), "Microsoft "); ok {
		if p, ok := products[key(rest)]; ok {
			return p
		}
	}
	for _, n := range []string{app, class, process} {
		if n = strings.TrimSpace(n); n != "" {
			return n
		}
	}
	return "an unknown app"
}

// key is a name's lookup form: the base name, lower case, without .exe
// or .bin.
func key(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if strings.ContainsAny(name, `/\`) {
		name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	}
	for _, ext := range []string{".exe", ".bin", ".app"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}
