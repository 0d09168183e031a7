package glance

import (
	"regexp"
	"strings"
)

// ScreenInfo is what the screen text says about an open email.
type ScreenInfo struct {
	// Email is true when the text shows a received message: a sender
	// with an address plus a recipients or date line or reply controls.
	Email   bool
	Subject string
	// SenderName and SenderEmail are the From line's parts; either may
	// be empty.
	SenderName, SenderEmail string
	// Date is the header's date as shown ("24/11/2026, 11:02"), when
	// ParseHeader found one; ParseScreen leaves it empty.
	Date string
}

var (
	// "Name <addr>" as a header shows it, with OCR's usual slips in the
	// address left for fixOCRAddress.
	nameAddrRe = regexp.MustCompile(`^(?:([A-Z]{1,3})\s{2,})?\s*(?:(?i:from)\s*:?\s+)?(.*?)\s*<\s*([^<>\s]+ ?@ ?[^<>\s]+)\s*>\s*$`)
	fromLineRe = regexp.MustCompile(`(?i)^\s*from\s*:?\s+(.+)$`)
	subjLineRe = regexp.MustCompile(`(?i)^\s*subject\s*:?\s+(.+)$`)
	toLineRe   = regexp.MustCompile(`(?i)^\s*(?:to|cc)\s*:?\s+\S`)
	dateLineRe = regexp.MustCompile(`(?i)^\s*(?:(?:date|sent)\s*:?\s+\S|(?:mon|tue|wed|thu|fri|sat|sun)\w*,?\s+\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}/\d{1,2}/\d{2,4},?\s+\d{1,2}:\d{2})`)
	replyRe    = regexp.MustCompile(`(?i)\breply(?:\s+all)?\b.*\bforward\b`)
	bareAddrRe = regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	// Words of mail client toolbars and menus: a line made only of them
	// is chrome, never a subject.
	toolbarWords = "file home view help send receive folder reply all forward meeting more new mail delete archive report sweep move to search q get messages write chat address book tag quick filter junk outlook options message insert draw format text review tools / v ... … print mark as unread read flag"
)

// maxScreenRunes caps the screen text read. A 4K screen filled wall to
// wall with 8×18-pixel text holds about 58,000 characters, and OCR of a
// real window gives a fraction of that; more is not text off a screen. The
// header block the triage looks for sits near the top, which the cut
// keeps, and every regular expression below then runs over bounded text.
const maxScreenRunes = 64 << 10

// ParseScreen reads OCR text of a window for an open email's subject and
// sender. It uses the layout mail clients share (a From line or a
// "Name <address>" line under the subject, To/Cc/date lines, Reply and
// Forward controls), not any client's exact wording.
func ParseScreen(text string) ScreenInfo {
	var info ScreenInfo
	text = headRunes(text, maxScreenRunes)
	if strings.TrimSpace(text) == "" {
		return info
	}
	lines := strings.Split(text, "\n")
	senderLine := -1
	var recipients, dated, controls bool
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if replyRe.MatchString(line) {
			controls = true
		}
		if info.Subject == "" {
			if m := subjLineRe.FindStringSubmatch(line); m != nil {
				info.Subject = strings.TrimSpace(m[1])
				continue
			}
		}
		if senderLine < 0 && !toLineRe.MatchString(line) {
			if m := nameAddrRe.FindStringSubmatch(line); m != nil {
				info.SenderName = cleanName(m[2])
				info.SenderEmail = fixOCRAddress(m[3])
				senderLine = i
				continue
			}
			if m := fromLineRe.FindStringSubmatch(line); m != nil {
				v := m[1]
				if a := bareAddrRe.FindString(v); a != "" {
					info.SenderEmail = fixOCRAddress(a)
					v = strings.Replace(v, a, "", 1)
				}
				info.SenderName = cleanName(v)
				senderLine = i
				continue
			}
		}
		if senderLine >= 0 && i-senderLine <= 4 {
			if toLineRe.MatchString(line) {
				recipients = true
			}
			if dateLineRe.MatchString(line) {
				dated = true
			}
		}
	}
	if senderLine < 0 {
		return info
	}
	// Lines above the sender (within a few) may also hold To and Date,
	// as in Thunderbird's header pane.
	for i := max(0, senderLine-4); i < senderLine; i++ {
		line := strings.TrimSpace(lines[i])
		if toLineRe.MatchString(line) {
			recipients = true
		}
		if dateLineRe.MatchString(line) {
			dated = true
		}
	}
	if info.Subject == "" {
		// Outlook and webmail show the subject as a heading just above
		// the sender, under the toolbar.
		for i := senderLine - 1; i >= 0 && i >= senderLine-3; i-- {
			line := strings.TrimSpace(lines[i])
			if line == "" || isToolbar(line) {
				continue
			}
			info.Subject = line
			break
		}
	}
	info.Email = (info.SenderEmail != "" || info.SenderName != "") && (recipients || dated || controls)
	return info
}

// isToolbar reports whether every word of line is a toolbar or menu word.
func isToolbar(line string) bool {
	known := strings.Fields(toolbarWords)
	for _, w := range strings.Fields(strings.ToLower(line)) {
		w = strings.Trim(w, ".,:;")
		if w == "" {
			continue
		}
		found := false
		for _, k := range known {
			if w == k {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func cleanName(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `"'`))
	return strings.TrimSpace(strings.TrimSuffix(s, ":"))
}

// fixOCRAddress repairs the misreadings OCR makes in addresses that would
// otherwise stop a sender from matching: "rn" read for "m" in the
// top-level domain ("corn" for "com"), "|" for "l", trailing punctuation.
func fixOCRAddress(a string) string {
	a = strings.ToLower(strings.Trim(a, ".,;:()[]"))
	// Tesseract often reads "name@host" as "name @host" inside brackets.
	a = strings.ReplaceAll(a, " ", "")
	a = strings.ReplaceAll(a, "|", "l")
	if i := strings.LastIndexByte(a, '.'); i >= 0 {
		switch a[i+1:] {
		case "corn", "c0m", "coin":
			a = a[:i+1] + "com"
		case "0rg":
			a = a[:i+1] + "org"
		}
	}
	return a
}

// headRunes returns the first n runes of s, reading no further.
func headRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
