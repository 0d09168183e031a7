package digest

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/glance"
)

// MaxHUDWords bounds the HUD line, whoever wrote it.
const MaxHUDWords = 15

// HUD line texts that are not about a window.
const (
	HUDIdle    = "Idle"
	HUDPrivate = "Private window: not looked at"
)

var (
	// callTitleRe finds a meeting in a call app's or a browser's title.
	callTitleRe = regexp.MustCompile(`(?i)\b(meeting|call with|on a call|in a call)\b|^meet\s+[-–—]|google meet|zoom meeting|webex meeting`)
	// docSuffixRe is the product name that closes an editor's or reader's
	// title: "SNDA v3.docx - Word", "lease.odt - LibreOffice Writer".
	docSuffixRe = regexp.MustCompile(`\s+[-–—|]\s+(?:Microsoft\s+)?(?:Word|LibreOffice Writer|LibreOffice Calc|LibreOffice Impress|Excel|PowerPoint|Pages|Adobe Acrobat.*|Acrobat.*|Document Viewer|Okular|Foxit.*)$`)
	// browserSuffixRe closes a browser's title.
	browserSuffixRe = regexp.MustCompile(`(?i)\s+[-–—]\s+(?:Google Chrome|Chromium|Mozilla Firefox|Firefox|Microsoft\x{200b}?\s*Edge|Brave|Safari)$`)
	// untitledRe is a document that has no name yet.
	untitledRe = regexp.MustCompile(`(?i)^(?:document\d*|untitled(?:\s*\d+)?|new document)(?:\.\w+)?$`)
	// readOnlyRe is Word's and Writer's note on a title.
	readOnlyRe = regexp.MustCompile(`(?i)\s*[\[(](?:read-only|compatibility mode|protected view)[\])]`)
)

// IsCall reports whether a window in front means the lawyer is on a call:
// a call app's meeting or call window, or a browser showing a meeting.
func IsCall(app, title string) bool {
	switch {
	case callApps[app]:
		// Teams' and Zoom's main windows (chat, contacts) are not calls;
		// their meeting windows say so.
		return callTitleRe.MatchString(title) || (app == "Zoom" && strings.EqualFold(strings.TrimSpace(title), "zoom"))
	case browsers[app]:
		return callTitleRe.MatchString(title)
	}
	return false
}

// HUD is the line the orb shows, written by code from the context: what
// the lawyer is doing now, in at most MaxHUDWords words, naming the
// product ("Reading ‘RE: SNDA’ in Outlook", "On a call · 14 min",
// "Drafting in Word"). It never names a private window.
func HUD(c Context) string {
	cur := c.Current
	switch {
	case cur == nil:
		return HUDIdle
	case cur.Private:
		return HUDPrivate
	case !c.CallSince.IsZero():
		return CallLine(c.Now.Sub(c.CallSince))
	}
	app, title := cur.App, strings.TrimSpace(cur.Title)
	var line string
	switch {
	case mailApps[app]:
		t := glance.ParseTitle(mailClientName(app), title)
		switch {
		case t.Subject != "":
			line = "Reading " + quote(t.Subject) + " in " + app
		case t.NotMessage == glance.WindowCompose:
			line = "Writing an email in " + app
		default:
			line = "Going through mail in " + app
		}
	case writers[app]:
		if doc := document(title); doc != "" {
			line = "Drafting " + quote(doc) + " in " + app
		} else {
			line = "Drafting in " + app
		}
	case readers[app]:
		if doc := document(title); doc != "" {
			line = "Reading " + quote(doc) + " in " + app
		} else {
			line = "Reading a document in " + app
		}
	case browsers[app]:
		if page := strings.TrimSpace(browserSuffixRe.ReplaceAllString(title, "")); page != "" {
			line = "Reading " + quote(page) + " in " + app
		} else {
			line = "Browsing in " + app
		}
	default:
		line = "In " + app
	}
	return limitWords(line, MaxHUDWords)
}

// CallLine is the HUD line of a call that has lasted d.
func CallLine(d time.Duration) string {
	if d < time.Minute {
		return "On a call"
	}
	return fmt.Sprintf("On a call · %d min", int(d/time.Minute))
}

// mailClientName is the app name glance.ParseTitle recognises.
func mailClientName(app string) string {
	switch app {
	case "Outlook":
		return "Microsoft Outlook"
	case "Thunderbird":
		return "thunderbird"
	}
	return app
}

// document is the document's name in an editor's or reader's title, ""
// for an unnamed one.
func document(title string) string {
	doc := strings.TrimSpace(readOnlyRe.ReplaceAllString(docSuffixRe.ReplaceAllString(title, ""), ""))
	if doc == "" || untitledRe.MatchString(doc) {
		return ""
	}
	return doc
}

// quote puts a name in the quotes the HUD uses, shortened so the line
// stays short.
func quote(s string) string { return "‘" + clip(s, 48) + "’" }

// limitWords keeps the first n words of s.
func limitWords(s string, n int) string {
	w := strings.Fields(s)
	if len(w) <= n {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:n], " ") + "…"
}

// codeDigest describes the context in plain factual sentences, for when
// no model writes the digest.
func codeDigest(c Context, hud string) string {
	var b strings.Builder
	if hud == HUDIdle {
		b.WriteString("Nothing seen in front yet.")
	} else {
		b.WriteString(strings.TrimSuffix(hud, "…") + ".")
	}
	if apps := c.AppHistory(); len(apps) > 1 {
		fmt.Fprintf(&b, " In the last %s the lawyer moved through %s.", minutes(c.Window), strings.Join(apps, " → "))
	}
	if c.Screen != nil {
		if c.Screen.Text != "" {
			fmt.Fprintf(&b, " On screen: %s", strings.TrimSuffix(c.Screen.Text, ".")+".")
		} else {
			fmt.Fprintf(&b, " Spirit read %d characters off this window.", c.Screen.Chars)
		}
	}
	if n := len(c.Utterances); n > 0 {
		fmt.Fprintf(&b, " %d stretch(es) of speech heard; the latest: “%s”.", n, clip(c.Utterances[n-1].Text, 160))
	}
	return b.String()
}

func minutes(d time.Duration) string {
	if d%time.Minute == 0 {
		if d == time.Minute {
			return "minute"
		}
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return d.String()
}
