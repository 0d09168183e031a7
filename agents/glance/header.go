package glance

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spirit-app/spirit/screen/ocr/layout"
)

// Reading a message header by layout: from the lines OCR found in a
// reading pane or a message window, with their positions, find the header
// block at the top (the sender, the To/Cc and date lines, the subject) and
// stop at the first line of the body, so that quoted history further down
// ("From: … Sent: … Subject: …", "On … wrote:") is never taken for the
// open message's header. Clients differ in wording and order:
//
//   - Thunderbird (three-pane and message tab): the sender's name and
//     address on two lines (or "Name <addr>"), "To" and "Cc" labels, the
//     subject below them, the date at the right of the sender's line;
//   - Gmail: the subject as a heading, then "Name <addr>" and "to me";
//   - Outlook on the web and new Outlook: the subject as a heading, then
//     "Name <addr>" (or the name above the address) and "To: …";
//   - Outlook classic: From/To/Cc/Subject labels, or the subject heading
//     and "Name <addr>" with the sender's initials in front.
//
// What they share is used, not any client's wording.

var (
	// headerLabelRe is a header label at the start of a row, with or
	// without a colon, and its value.
	headerLabelRe = regexp.MustCompile(`(?i)^\s*(from|to|cc|bcc|subject|date|sent|reply-to)\b\s*:?\s*(.*)$`)
	// lostAtRe is an address whose "@" OCR read as a space.
	lostAtRe = regexp.MustCompile(`^([A-Za-z0-9._%+\-]+)\s+([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})$`)
	// leadLRe is a word opening with "\\", "|" or "(" before an address's
	// local part: OCR's reading of an "l".
	leadLRe = regexp.MustCompile(`(?:^| )[\\|(][A-Za-z0-9._%+\-]+@[^\s]*`)
	// spacedAtRe: OCR splits "name @host" at the at sign.
	spacedAtRe = regexp.MustCompile(`\s*@\s*`)
	// headerDateRe finds a date or a time as mail clients print them.
	headerDateRe = regexp.MustCompile(`(?i)(?:\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:\b\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,2}:\d{2}\b|\b(?:today|yesterday)\b)`)
	// dateRestRe is what goes with a date on its line: the year, the
	// time, "at", AM/PM, "(2 hours ago)".
	dateRestRe = regexp.MustCompile(`(?i)\b\d{4}\b|\b\d{1,2}:\d{2}\b|\b(?:at|am|pm|a\.m\.|p\.m\.)\b|\(\s*\d+\s+\w+\s+ago\s*\)|[,()]`)
	// quoteStartRe is the start of quoted or forwarded history.
	quoteStartRe = regexp.MustCompile(`(?i)^\s*>|-{2,}\s*(?:original|forwarded)\s+message|^\s*on\s.{3,}\bwrote:?\s*$|^\s*begin forwarded message`)
	// greetingRe opens a body.
	greetingRe = regexp.MustCompile(`(?i)^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening))\b`)
	// initialsRe is the avatar with the sender's initials in front of the
	// name (Outlook).
	initialsRe = regexp.MustCompile(`^[A-Z]{1,3}$`)
	// toMeRe is Gmail's recipients line, which OCR reads as "tome".
	toMeRe = regexp.MustCompile(`(?i)^\s*to\s?me\b`)
	// gmailChipRe is the label chip Gmail shows after a subject.
	gmailChipRe = regexp.MustCompile(`(?i)\s+inbox\s*[x×]?\s*$`)
)

// headerRow is a visual row of the pane and what it looks like.
type headerRow struct {
	layout.Row
	text  string
	label string // lower-case header label, or ""
	value string // the label's value
}

// ParseHeader reads the message header from the lines of a reading pane
// or message window (from screen/ocr's ReadLines), top to bottom. It finds
// the topmost sender (a "From" label, "Name <addr>", or a name with its
// address on the next row) and reads the header block around it; a body
// line (prose, a greeting, quoted history) before any sender means no
// header is in view, and one after it ends the block. ScreenInfo.Email is
// set as ParseScreen sets it: a sender plus recipients, a date or reply
// controls.
func ParseHeader(lines []layout.Line) ScreenInfo {
	// The same cap as ParseScreen's: more is not text off a screen, and
	// the header is at the top.
	budget := maxScreenRunes
	for i, l := range lines {
		budget -= utf8.RuneCountInString(l.Text)
		if budget < 0 {
			lines = lines[:i]
			break
		}
	}
	var rows []headerRow
	for _, r := range layout.Rows(lines) {
		hr := headerRow{Row: r, text: strings.TrimSpace(r.Text())}
		if m := headerLabelRe.FindStringSubmatch(hr.text); m != nil && !startsSentence(hr.text) {
			hr.label, hr.value = strings.ToLower(m[1]), strings.TrimSpace(m[2])
		} else if toMeRe.MatchString(hr.text) {
			hr.label, hr.value = "to", "me"
		}
		rows = append(rows, hr)
	}
	textH := medianHeight(rows)
	var info ScreenInfo
	start, sender := -1, -1
	for i, r := range rows {
		if r.label == "" && isBody(r, textH) {
			return ScreenInfo{}
		}
		if name, addr, ok := senderOf(rows, i, textH); ok {
			info.SenderName, info.SenderEmail = name, addr
			sender, start = i, i
			if r.label == "" && addr != "" && name == "" && i > 0 && isNameRow(rows[i-1], textH) {
				info.SenderName = nameOf(rows[i-1])
				start = i - 1
			}
			break
		}
	}
	if sender < 0 {
		return ScreenInfo{}
	}
	var recipients, dated, controls bool
	note := func(r headerRow) {
		switch r.label {
		case "to", "cc", "bcc":
			recipients = true
		case "date", "sent":
			dated = true
			if info.Date == "" {
				info.Date = r.value
			}
		case "subject":
			if info.Subject == "" {
				info.Subject = r.value
			}
		}
		for _, l := range r.Lines {
			if l.Text != "" && isDateText(l.Text) {
				dated = true
				if info.Date == "" {
					info.Date = strings.TrimSpace(l.Text)
				}
			}
		}
		if replyRe.MatchString(r.text) || isToolbar(r.text) {
			controls = true
		}
	}
	// The sender's rows, and the rows above them: chrome, a subject
	// heading, labels some clients put first.
	for i := 0; i <= sender; i++ {
		note(rows[i])
	}
	if d := dateIn(rows[sender]); d != "" && info.Date == "" {
		info.Date, dated = d, true
	}
	// Down from the sender to the first body row. Unlabelled rows closely
	// under the labels are Thunderbird's subject (the largest of them; a
	// misread label stays smaller); a row after a wider gap, or prose, is
	// the body.
	var below []headerRow
	for j := sender + 1; j < len(rows); j++ {
		r := rows[j]
		gap := r.Box.Min.Y - rows[j-1].Box.Max.Y
		// Thunderbird leaves up to about two lines between the labels and
		// the subject; the body starts further down.
		if r.label == "from" || gap > 3*textH {
			break // another message's header (a thread, quoted history), or the body
		}
		if r.label != "" || isDateText(r.text) || isAddressRow(r) || replyRe.MatchString(r.text) || isToolbar(r.text) {
			note(r)
			continue
		}
		if len(below) < 3 && !isBody(r, textH) {
			below = append(below, r)
			continue
		}
		break
	}
	if info.Subject == "" {
		// The subject is the larger of the heading above the sender
		// (Gmail, Outlook) and the rows below the labels (Thunderbird):
		// subjects are set larger than what surrounds them.
		var best *headerRow
		for k := range below {
			if best == nil || wordHeight(below[k]) >= wordHeight(*best) {
				best = &below[k]
			}
		}
		if above, ok := headingAbove(rows, start); ok && (best == nil || wordHeight(above) > wordHeight(*best)) {
			info.Subject = widest(above)
		} else if best != nil {
			info.Subject = best.text
		}
	}
	info.Subject = strings.TrimSpace(gmailChipRe.ReplaceAllString(info.Subject, ""))
	info.Email = (info.SenderEmail != "" || info.SenderName != "") && (recipients || dated || controls)
	return info
}

// senderOf reads the sender from row i: a From label's value, or a row
// (not a label) holding an address. An address alone may come with the
// name on the row above; the caller looks there.
func senderOf(rows []headerRow, i, textH int) (name, addr string, ok bool) {
	r := rows[i]
	switch r.label {
	case "from":
		v := repairAt(r.value)
		if a := bareAddrRe.FindString(v); a != "" {
			return cleanSender(strings.Replace(v, a, "", 1)), fixOCRAddress(a), true
		}
		name = cleanSender(v)
		if i+1 < len(rows) {
			addr = rowAddress(rows[i+1])
		}
		return name, addr, name != "" || addr != ""
	case "":
	default:
		return "", "", false
	}
	if isBody(r, textH) {
		return "", "", false
	}
	// The first column holds the sender; a date or buttons may follow.
	segs := r.Lines
	if len(segs) > 1 && initialsRe.MatchString(strings.TrimSpace(segs[0].Text)) {
		segs = segs[1:]
	}
	for k, l := range segs {
		v := repairAt(l.Text)
		a := bareAddrRe.FindString(v)
		if a == "" {
			if k == 0 && len(r.Lines) == len(segs) {
				if a = rowAddress(r); a != "" {
					return "", a, true // an address with its "@" lost, alone
				}
			}
			continue
		}
		rest := strings.Replace(v, a, "", 1)
		if k > 0 && strings.TrimSpace(strings.Trim(rest, "<>()[] ")) == "" {
			// "Name   <addr>" split in two columns.
			rest = segs[k-1].Text
		}
		if d := headerDateRe.FindStringIndex(rest); d != nil {
			rest = rest[:d[0]]
		}
		rest = strings.TrimPrefix(strings.TrimSpace(rest), "From")
		if f := strings.Fields(rest); len(f) > 1 && initialsRe.MatchString(f[0]) && isInitialsOf(f[0], f[1:]) {
			rest = strings.Join(f[1:], " ")
		}
		return cleanSender(rest), fixOCRAddress(a), true
	}
	return "", "", false
}

// isInitialsOf reports whether ini are the initials of words ("JD" for
// Jane Doe): Outlook's avatar, read into the name's line.
func isInitialsOf(ini string, words []string) bool {
	if len(words) < len(ini) {
		return false
	}
	for k, c := range ini {
		w := []rune(words[k])
		if len(w) == 0 || unicode.ToUpper(w[0]) != c {
			return false
		}
	}
	return true
}

// cleanSender strips what surrounds a name: brackets, quotes, a trailing
// colon or "via …".
func cleanSender(s string) string {
	s = strings.NewReplacer("<", " ", ">", " ", "(", " ", ")", " ").Replace(s)
	// OCR reads the space before a bracket or an icon as "=", "—", "|".
	s = strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '"' && r != '\'' })
	return cleanName(strings.Join(strings.Fields(s), " "))
}

// isAddressRow reports whether r's first column is an address and little
// else (Thunderbird's second sender row, a wrapped recipient).
func isAddressRow(r headerRow) bool { return rowAddress(r) != "" }

// rowAddress returns the address that is r's whole first column, or "".
// Alone on its row an address is read even with its "@" lost, as OCR
// loses it in small grey text ("lgray grayhold.com").
func rowAddress(r headerRow) string {
	if r.label != "" || len(r.Lines) == 0 {
		return ""
	}
	v := strings.Trim(repairAt(r.Lines[0].Text), " <>()[],;")
	if a := bareAddrRe.FindString(v); a != "" {
		if len(strings.Fields(strings.Trim(strings.Replace(v, a, "", 1), " <>()[],;"))) == 0 {
			return fixOCRAddress(a)
		}
		return ""
	}
	raw := strings.TrimSpace(r.Lines[0].Text)
	lead := ""
	if strings.ContainsAny(raw[:1], `\|`) || raw[0] == '(' && !strings.Contains(raw, ")") {
		lead, v = "l", strings.TrimLeft(v, `\|(`)
	}
	if m := lostAtRe.FindStringSubmatch(v); m != nil {
		return fixOCRAddress(lead + m[1] + "@" + m[2])
	}
	return ""
}

// repairAt undoes OCR's slips around an address: "name @host" split at
// the at sign, and an "l" opening the local part read as "\", "|" or an
// unclosed "(".
func repairAt(s string) string {
	s = spacedAtRe.ReplaceAllString(s, "@")
	return leadLRe.ReplaceAllStringFunc(s, func(m string) string {
		lead, rest := "", m
		if rest[0] == ' ' {
			lead, rest = " ", rest[1:]
		}
		if rest[0] == '(' && strings.Contains(rest, ")") {
			return m // a real bracket
		}
		return lead + "l" + rest[1:]
	})
}

// isNameRow reports whether r looks like a person's name alone (a date or
// buttons may follow in other columns): a few capitalised words, no
// larger than the text around (a subject heading is).
func isNameRow(r headerRow, textH int) bool {
	if r.label != "" || isToolbar(r.text) || wordHeight(r) > textH*13/10 {
		return false
	}
	n := nameOf(r)
	f := strings.Fields(n)
	if len(f) == 0 || len(f) > 5 {
		return false
	}
	for _, w := range f {
		rs := []rune(w)
		if !unicode.IsUpper(rs[0]) && !slices.Contains([]string{"van", "von", "de", "der", "da", "del", "di", "du", "la", "le", "bin"}, w) {
			return false
		}
		for _, c := range rs {
			if unicode.IsDigit(c) || c == '@' {
				return false
			}
		}
	}
	return true
}

// nameOf is r's first column without a date the recogniser joined to it.
func nameOf(r headerRow) string {
	s := r.Lines[0].Text
	if d := headerDateRe.FindStringIndex(s); d != nil {
		s = s[:d[0]]
	}
	return cleanSender(s)
}

// dateIn returns a date written in r's columns after the first.
func dateIn(r headerRow) string {
	for _, l := range r.Lines {
		if d := headerDateRe.FindStringIndex(l.Text); d != nil {
			return strings.TrimSpace(l.Text[d[0]:])
		}
	}
	return ""
}

// isDateText reports whether s is a date and what goes with one, nothing
// more ("Mon 24/11/2026, 11:02", "Today at 9:14 AM (2 hours ago)").
func isDateText(s string) bool {
	if !headerDateRe.MatchString(s) {
		return false
	}
	rest := dateRestRe.ReplaceAllString(headerDateRe.ReplaceAllString(s, " "), " ")
	return len(strings.Fields(rest)) <= 1
}

// isBody reports whether r is a line of a message body rather than of a
// header or the window's chrome: quoted history, a greeting, a
// salutation ("Dana,"), or a sentence in body-sized text. A subject
// heading is larger than the body and is never taken for it.
func isBody(r headerRow, textH int) bool {
	t := r.text
	if quoteStartRe.MatchString(t) || greetingRe.MatchString(t) {
		return true
	}
	if strings.HasSuffix(t, ",") {
		return true
	}
	if textH > 0 && wordHeight(r) > textH*13/10 {
		return false
	}
	words := strings.Fields(t)
	return len(words) >= 5 && strings.ContainsAny(t[len(t)-1:], ".;:!")
}

// startsSentence tells "To whom it may concern" or "Date night" from a
// label: a label's value follows a colon, or a second column, or is short.
func startsSentence(t string) bool {
	m := headerLabelRe.FindStringSubmatch(t)
	if m == nil {
		return false
	}
	rest := strings.TrimSpace(t)[len(m[1]):]
	if strings.HasPrefix(strings.TrimLeft(rest, " "), ":") || strings.HasPrefix(rest, "  ") {
		return false
	}
	words := strings.Fields(m[2])
	return len(words) >= 6 && strings.ContainsAny(t[len(t)-1:], ".;!,")
}

// headingAbove returns the row above start that may be the subject's
// heading (Gmail, Outlook): the nearest that is neither chrome nor a label
// nor a date.
func headingAbove(rows []headerRow, start int) (headerRow, bool) {
	for i := start - 1; i >= 0 && i >= start-3; i-- {
		r := rows[i]
		if r.label != "" || isToolbar(r.text) || isDateText(r.text) {
			continue
		}
		return r, true
	}
	return headerRow{}, false
}

// widest is r's widest column: a tab strip or a label chip may share a
// heading's row.
func widest(r headerRow) string {
	s := ""
	for _, l := range r.Lines {
		if len([]rune(l.Text)) > len([]rune(s)) {
			s = strings.TrimSpace(l.Text)
		}
	}
	return s
}

// wordHeight is the median height of r's words: the size of its text,
// which a word's box with a misread stroke or a tall neighbour does not
// sway as much as the row's box.
func wordHeight(r headerRow) int {
	var hs []int
	for _, l := range r.Lines {
		for _, w := range l.Words {
			hs = append(hs, w.Box.Dy())
		}
	}
	if len(hs) == 0 {
		return r.Box.Dy()
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// medianHeight is the median height of the words on the pane: the size
// of the body and header text.
func medianHeight(rows []headerRow) int {
	var hs []int
	for _, r := range rows {
		for _, l := range r.Lines {
			for _, w := range l.Words {
				hs = append(hs, w.Box.Dy())
			}
		}
	}
	if len(hs) == 0 {
		return 0
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// LinesText flattens lines into the text ReadText would give: visual
// rows top to bottom, one per line, columns two spaces apart. A caller
// that reads lines sets it as Input.ScreenText beside Input.ScreenLines,
// for what reads the flat text (the model stages' prompts).
func LinesText(lines []layout.Line) string {
	rows := layout.Rows(lines)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Text()
	}
	return strings.Join(out, "\n")
}
