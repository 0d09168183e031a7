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
	// without a colon, and its value. OCR may read a quote or a stroke
	// before it.
	headerLabelRe = regexp.MustCompile(`(?i)^[\s‘’'"|.,_]*(from|to|cc|bcc|subject|date|sent|reply-to)\b\s*:?\s*(.*)$`)
	// misreadToRe is a "To:" label OCR misread ("Yo:", "Jo:", "T0:"),
	// told from a word by its colon and the name after it.
	misreadToRe = regexp.MustCompile(`^\s*(?:[YJ]o|T0|Ta):\s*([A-Z"'].*)$`)
	// misreadCcRe is a "Cc" label read as "Ce", no word of its own.
	misreadCcRe = regexp.MustCompile(`^\s*Ce:?\s+([A-Z"'].*)$`)
	// lostAtRe is an address whose "@" OCR read as a space.
	lostAtRe = regexp.MustCompile(`^([A-Za-z0-9._%+\-]+)\s+([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})$`)
	// leadLRe is a word opening with "\\", "|" or "(" before an address's
	// local part: OCR's reading of an "l".
	leadLRe = regexp.MustCompile(`(?:^| )<?[\\|(][A-Za-z0-9._%+\-]+@[^\s]*`)
	// replyControlsRe is a row of reply buttons, whose icons OCR reads
	// into the words ("eReply || eReplyall || Forward").
	replyControlsRe = regexp.MustCompile(`(?i)reply.*forward`)
	// spacedAtRe: OCR splits "name @host" at the at sign.
	spacedAtRe = regexp.MustCompile(`\s*@\s*`)
	// headerDateRe finds a date or a time as mail clients print them.
	headerDateRe = regexp.MustCompile(`(?i)(?:\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?(?:\b\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\b\d{1,2}:\d{2}\b|\b(?:today|yesterday)\b)`)
	// dateRestRe is what goes with a date on its line: the year, the
	// time, "at", AM/PM, "(2 hours ago)".
	dateRestRe = regexp.MustCompile(`(?i)\b\d{4}\b|\b\d{1,2}:\d{2}\b|\b(?:at|am|pm|a\.m\.|p\.m\.)\b|\(\s*\d+\s+\w+\s+ago\s*\)|[,()]`)
	// quoteStartRe is the start of quoted or forwarded history. OCR
	// drops the dashes around "Original Message" (strokes without a
	// letter) or reads them as underscores.
	quoteStartRe = regexp.MustCompile(`(?i)^\s*>|-{2,}\s*(?:original|forwarded)\s+message|^[\W_]*(?:original|forwarded)\s+message[\W_]*$|^\s*on\s.{3,}\bwrote:?\s*$|^\s*begin forwarded message`)
	// greetingRe opens a body.
	greetingRe = regexp.MustCompile(`(?i)^\s*(?:hi|hello|hey|dear|good\s+(?:morning|afternoon|evening))\b`)
	// initialsRe is the avatar with the sender's initials in front of the
	// name (Outlook).
	initialsRe = regexp.MustCompile(`^[A-Z]{1,3}$`)
	// toMeRe is Gmail's recipients line, which OCR reads as "tome", or
	// "tomer", "tomey" with the menu arrow after it.
	toMeRe = regexp.MustCompile(`(?i)^\s*to\s?me(?:\b|[a-z]?\s*$)`)
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
// the topmost sender (a "From" label, "Name <addr>", a name with its
// address on the next row, or a name alone with a To row closely under it
// as Apple Mail shows it) and reads the header block around it; a body
// line (prose, a greeting, quoted history) before any sender means no
// header is in view, and one after it ends the block. ScreenInfo.Email is
// set as ParseScreen sets it: a sender plus recipients, a date or reply
// controls. To read a whole window, with a message list and other panes
// beside the header, use FindHeader first.
func ParseHeader(lines []layout.Line) ScreenInfo {
	rows := headerRowsOf(lines)
	return readHeader(rows, medianHeight(rows)).info
}

// headerRead is what readHeader found, and where.
type headerRead struct {
	info ScreenInfo
	// found is true when a sender was found; info.Email may still be
	// false (nothing else of a header around it).
	found bool
	// start and sender are the rows of the sender's first line (a name
	// above its address) and of the sender; last is the last row of the
	// header block, before the body.
	start, sender, last int
	// recipients and dated tell what the block holds besides the sender:
	// a To or Cc row, a date on the sender's rows or below them.
	recipients, dated bool
}

// headerRowsOf groups lines into visual rows, each with the header label
// it starts with, within the same budget as ParseScreen's: more is not
// text off a screen, and the header is at the top.
func headerRowsOf(lines []layout.Line) []headerRow {
	lines = withinBudget(lines)
	var rows []headerRow
	for _, r := range layout.Rows(dropOverlaps(dropSpecks(lines))) {
		hr := headerRow{Row: r, text: strings.TrimSpace(r.Text())}
		// A label without a value is a word alone, and a date label's
		// value is a date: "Sent" and "Sent Items" are folders.
		if m := headerLabelRe.FindStringSubmatch(hr.text); m != nil && strings.Trim(m[2], ":;,. ") != "" && !startsSentence(hr.text) &&
			(!strings.EqualFold(m[1], "sent") && !strings.EqualFold(m[1], "date") || headerDateRe.MatchString(m[2]) || strings.ContainsFunc(m[2], unicode.IsDigit)) {
			hr.label, hr.value = strings.ToLower(m[1]), strings.TrimSpace(m[2])
		} else if toMeRe.MatchString(hr.text) {
			hr.label, hr.value = "to", "me"
		} else if m := misreadToRe.FindStringSubmatch(hr.text); m != nil {
			hr.label, hr.value = "to", strings.TrimSpace(m[1])
		} else if m := misreadCcRe.FindStringSubmatch(hr.text); m != nil {
			hr.label, hr.value = "cc", strings.TrimSpace(m[1])
		}
		rows = append(rows, hr)
	}
	return rows
}

// dropSpecks drops the lines too flat to be text (3 pixels or less): a
// dot or a rule OCR read as a letter, which would part a header's rows.
func dropSpecks(lines []layout.Line) []layout.Line {
	out := make([]layout.Line, 0, len(lines))
	for _, l := range lines {
		if l.Box.Dy() > 3 && !isMisreadIcon(l) {
			out = append(out, l)
		}
	}
	return out
}

// isMisreadIcon reports whether l is one short word the recogniser
// hardly believes ("cu." beside a subject): an icon or a stroke read as
// letters, which would end a row as if with a sentence. A label ("To",
// "Cc") is kept however faintly read.
func isMisreadIcon(l layout.Line) bool {
	w := l.Words
	return len(w) == 1 && utf8.RuneCountInString(w[0].Text) <= 3 && w[0].Confidence < minSolidConfidence && !headerLabelRe.MatchString(w[0].Text)
}

// dropOverlaps drops the lines that lie mostly under another line read
// with more confidence: Tesseract sometimes reads a stretch of small grey
// text twice, once as garbage ("pryanene" over "priya.nair@…").
func dropOverlaps(lines []layout.Line) []layout.Line {
	conf := make([]float64, len(lines))
	for i, l := range lines {
		for _, w := range l.Words {
			conf[i] += w.Confidence / float64(len(l.Words))
		}
	}
	var out []layout.Line
	for i, l := range lines {
		over := false
		for j, o := range lines {
			if i == j || conf[j] <= conf[i] {
				continue
			}
			// Of about the same height: a tall box OCR drew around an icon
			// and the text beside it is no second reading of the text.
			if 2*abs(l.Box.Dy()-o.Box.Dy()) > max(l.Box.Dy(), o.Box.Dy()) {
				continue
			}
			// Mostly under the other: a bracket read on its own over a
			// sender's line leaves the line be.
			in := l.Box.Intersect(o.Box)
			if !in.Empty() && 2*in.Dx()*in.Dy() >= l.Box.Dx()*l.Box.Dy() {
				over = true
				break
			}
		}
		if !over {
			out = append(out, l)
		}
	}
	return out
}

// readHeader reads the header block from rows top to bottom, text of
// textH pixels being body-sized (see ParseHeader).
func readHeader(rows []headerRow, textH int) headerRead {
	var info ScreenInfo
	start, sender := -1, -1
	for i, r := range rows {
		// A row ending in a date column is no prose but a folded
		// message of a thread (Gmail) above the open one.
		if r.label == "" && isBody(r, textH) && !endsWithDate(r) {
			return headerRead{}
		}
		if name, addr, ok := senderOf(rows, i, textH); ok {
			info.SenderName, info.SenderEmail = name, addr
			sender, start = i, i
			// The name on the row above the address; a contact's badge
			// between them, read as a glyph, is passed over.
			k := i - 1
			for k > 0 && k >= i-2 && (isGlyphRow(rows[k]) || besideSender(rows[k], r, textH)) {
				k--
			}
			if r.label == "" && addr != "" && weakName(name) && k >= 0 {
				switch {
				case isNameRow(rows[k], textH):
					info.SenderName = nameOf(rows[k])
					start = k
				case nameLineOver(rows[k], r, textH) && isNameText(nameOf(rows[k])):
					// Touching the address, a name whose word boxes OCR
					// drew too tall is the sender's name all the same.
					info.SenderName = nameOf(rows[k])
					start = k
				case nameLineOver(rows[k], r, textH):
					// The name's line, misread (a contact's round
					// picture read into it): no subject heading either.
					start = k
				}
			}
			break
		}
	}
	if sender < 0 {
		return headerRead{}
	}
	info.SenderEmail = restoreInitial(restoreLocalPart(info.SenderEmail, info.SenderName), info.SenderName)
	info.SenderName = spellLikeAddress(info.SenderName, info.SenderEmail)
	last := sender
	var recipients, dated, datedNear, controls bool
	// note reads a row of the block; near is false for the rows more than
	// one above the sender, whose date may be another message's (a
	// message list's row above a list row with an address).
	note := func(r headerRow, near bool) {
		switch r.label {
		case "to", "cc", "bcc":
			recipients = true
		case "date", "sent":
			dated = true
			datedNear = datedNear || near
			if info.Date == "" && near {
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
				datedNear = datedNear || near
				if info.Date == "" && near {
					info.Date = strings.TrimSpace(l.Text)
				}
			}
		}
		if replyControlsRe.MatchString(r.text) || isToolbar(r.text) {
			controls = true
		}
	}
	// The date on the sender's row comes first (a folded message of a
	// thread may be right above, with its own).
	if d := dateIn(rows[sender]); d != "" {
		info.Date, dated, datedNear = d, true, true
	}
	// The sender's rows, and the rows above them: chrome, a subject
	// heading, labels some clients put first.
	for i := 0; i <= sender; i++ {
		note(rows[i], i >= start-1)
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
		// A labelled row may sit further down: under a sender's picture
		// taller than the sender's rows (Outlook 2016), or under a date
		// and buttons OCR did not read.
		if r.label == "from" || gap > 3*textH && (r.label == "" || gap > 5*textH) {
			break // another message's header (a thread, quoted history), or the body
		}
		if r.label != "" || isDateText(r.text) || endsWithDate(r) || isAddressRow(r) || replyControlsRe.MatchString(r.text) || isToolbar(r.text) {
			note(r, true)
			last = j
			continue
		}
		if isGlyphRow(r) {
			continue // icons between the header's rows
		}
		if len(below) < 3 && !isBody(r, textH) {
			below = append(below, r)
			last = j
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
		if above, k, ok := headingAbove(rows, start, textH); ok && (best == nil || wordHeight(above) > wordHeight(*best)) {
			info.Subject = headingLines(rows, k)
		} else if best != nil {
			info.Subject = subjectText(subjectLine(*best, rows[sender], textH), rows[sender], labelsLeft(rows[:last+1]), textH)
		}
	}
	info.Subject = strings.TrimSpace(gmailChipRe.ReplaceAllString(info.Subject, ""))
	info.Email = (info.SenderEmail != "" || info.SenderName != "") && (recipients || dated || controls)
	return headerRead{info: info, found: true, start: start, sender: sender, last: last, recipients: recipients, dated: datedNear}
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
		f := strings.Fields(rest)
		switch {
		case len(f) > 1 && initialsRe.MatchString(f[0]) && isInitialsOf(f[0], f[1:]):
			rest = strings.Join(f[1:], " ")
		case len(f) > 1 && len([]rune(f[0])) <= 3 && !strings.ContainsFunc(f[0], unicode.IsLetter):
			// A round picture with one initial, misread ("2) Jane Doe").
			rest = strings.Join(f[1:], " ")
		case len(f) == 1 && initialsRe.MatchString(f[0]) && len(f[0]) > 1:
			// The picture's initials alone on the address's row (new
			// Outlook puts the name above): no name here.
			rest = ""
		}
		return cleanSender(rest), fixOCRAddress(a), true
	}
	if isNameRow(r, textH) && recipientsFollow(rows, i, textH) {
		// Apple Mail shows the sender's name alone, the address only on
		// hover: a name with a To line closely under it (the subject may
		// sit between) is the sender. A message list's sender has none.
		return nameOf(r), "", true
	}
	return "", "", false
}

// recipientsFollow reports whether a To or Cc row follows row i within
// the next three rows, with no address, body or wide gap before it.
func recipientsFollow(rows []headerRow, i, textH int) bool {
	for j := i + 1; j < len(rows) && j <= i+3; j++ {
		r := rows[j]
		if r.Box.Min.Y-rows[j-1].Box.Max.Y > 2*textH {
			return false
		}
		switch r.label {
		case "to", "cc":
			return true
		case "":
		default:
			return false
		}
		if isAddressRow(r) || bareAddrRe.MatchString(repairAt(r.text)) || isBody(r, textH) {
			return false
		}
	}
	return false
}

// restoreLocalPart puts back the first letter OCR lost off an address
// made of the sender's names ("riya.nair@…" under "Priya Nair"): at the
// start of a line of small grey text it is often read into a stroke or
// a garbage word.
func restoreLocalPart(addr, name string) string {
	local, domain, ok := strings.Cut(addr, "@")
	names := strings.Fields(strings.ToLower(name))
	if !ok || len(names) < 2 {
		return addr
	}
	first, rest, ok := strings.Cut(local, ".")
	if !ok || rest != names[len(names)-1] {
		return addr
	}
	if f := []rune(names[0]); len(f) == len([]rune(first))+1 && string(f[1:]) == first {
		return string(f[0]) + local + "@" + domain
	}
	return addr
}

// restoreInitial undoes OCR's capital I for an l opening an address made
// of the first name's initial and the last name ("Igray@…" for Liam
// Gray's lgray@…).
func restoreInitial(addr, name string) string {
	names := strings.Fields(strings.ToLower(name))
	if len(names) < 2 || !strings.HasPrefix(names[0], "l") || !strings.HasPrefix(addr, "i"+names[len(names)-1]+"@") {
		return addr
	}
	return "l" + addr[1:]
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
	s = cleanName(strings.Join(strings.Fields(s), " "))
	if isGlyphText(s) {
		return "" // an icon beside the name or the address, read as a letter
	}
	return s
}

// isGlyphRow reports whether r is icons OCR read as characters rather
// than text (a toolbar's buttons drawn without labels read as "Q)", "a}",
// "3"; a contact's badge as "O"): never a header row, a subject or a
// name.
func isGlyphRow(r headerRow) bool { return isGlyphText(r.text) }

// isGlyphText reports whether s has no word of two letters or more, and
// is no date and no address: what OCR makes of icons.
func isGlyphText(s string) bool {
	if isDateText(s) || bareAddrRe.MatchString(repairAt(s)) {
		return false
	}
	for _, f := range strings.Fields(s) {
		run := 0
		for _, c := range f {
			if !unicode.IsLetter(c) {
				run = 0
				continue
			}
			if run++; run >= 2 {
				return false
			}
		}
	}
	return true
}

// nameLineOver reports whether r, right above the address row addr, is
// the sender's name line of a two-line sender, however OCR read it: it
// touches the address's row and starts where the address does. A
// subject heading stands further above.
func nameLineOver(r, addr headerRow, textH int) bool {
	if r.label != "" || isGlyphRow(r) || len(r.Lines) == 0 || len(addr.Lines) == 0 {
		return false
	}
	return addr.Box.Min.Y-r.Box.Max.Y <= textH/3 && abs(r.Lines[0].Box.Min.X-addr.Lines[0].Box.Min.X) <= 3*textH
}

// besideSender reports whether r, between a sender's name and address
// rows, lies off to their right: buttons beside the sender (Thunderbird's
// message toolbar in its classic layout), which OCR sets between the two
// rows by height.
func besideSender(r, addr headerRow, textH int) bool {
	if len(r.Lines) == 0 || len(addr.Lines) == 0 {
		return false
	}
	first := r.Lines[0].Text
	return r.Lines[0].Box.Min.X > addr.Lines[0].Box.Max.X+textH || isToolbar(first) || replyControlsRe.MatchString(first)
}

// weakName reports whether name is no name, or only what OCR made of
// the picture and icons around an address on its row ("Bs e", "RB"): no
// word of three letters. A name on the row above is then the sender's.
func weakName(name string) bool {
	for _, w := range strings.Fields(name) {
		if utf8.RuneCountInString(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) })) >= 3 {
			return false
		}
	}
	return true
}

// spellLikeAddress corrects the letters OCR confuses in a name (l, i,
// 1: "Alan Plerce") by the address, when the address holds the word
// with only those letters different ("apierce@…").
func spellLikeAddress(name, addr string) string {
	local, _, ok := strings.Cut(strings.ToLower(addr), "@")
	if !ok {
		return name
	}
	stroke := func(r rune) bool { return r == 'l' || r == 'i' || r == '1' || r == '|' }
	f := strings.Fields(name)
	for k, w := range f {
		lw := []rune(strings.ToLower(w))
		lr := []rune(local)
		if len(lw) < 4 {
			continue
		}
		for at := 0; at+len(lw) <= len(lr); at++ {
			cand, same, alike := lr[at:at+len(lw)], true, true
			for j := range lw {
				if cand[j] != lw[j] {
					same = false
					if !stroke(cand[j]) || !stroke(lw[j]) {
						alike = false
						break
					}
				}
			}
			if same || !alike {
				continue
			}
			out := []rune(w)
			for j := range out {
				if stroke(unicode.ToLower(out[j])) {
					out[j] = cand[j]
					if j == 0 && unicode.IsUpper([]rune(w)[0]) {
						out[j] = unicode.ToUpper(cand[j])
					}
				}
			}
			f[k] = string(out)
			break
		}
	}
	return strings.Join(f, " ")
}

// nameParticles are the lower-case words a person's name may hold.
var nameParticles = []string{"van", "von", "de", "der", "da", "del", "di", "du", "la", "le", "bin"}

// isNameText reports whether s reads as a person's name: one to five
// words, each capitalised or a particle, no digits and no address.
func isNameText(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 5 {
		return false
	}
	for _, w := range f {
		rs := []rune(w)
		if !unicode.IsUpper(rs[0]) && !slices.Contains(nameParticles, w) {
			return false
		}
		if strings.ContainsFunc(w, func(c rune) bool { return unicode.IsDigit(c) || c == '@' }) {
			return false
		}
	}
	return true
}

// dropAvatar drops what OCR read of the sender's picture before the name
// (a round badge with an initial, a square of initials): the initials
// of the words after it, a glyph, or a short word read with little
// confidence or in lower case where a name follows ("ig Kevin Osei").
func dropAvatar(ws []layout.Word) []layout.Word {
	for len(ws) > 1 {
		w, rest := ws[0], ws[1:]
		t := strings.TrimSpace(w.Text)
		r0, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(rest[0].Text, func(r rune) bool { return !unicode.IsLetter(r) }))
		if !unicode.IsUpper(r0) {
			return ws
		}
		names := make([]string, len(rest))
		for i, x := range rest {
			names[i] = x.Text
		}
		short := utf8.RuneCountInString(t) <= 3 && !slices.Contains(nameParticles, t)
		first, _ := utf8.DecodeRuneInString(t)
		switch {
		case initialsRe.MatchString(t) && isInitialsOf(t, names),
			isGlyphText(t),
			short && (!unicode.IsUpper(first) || w.Confidence < 40):
			ws = rest
		default:
			return ws
		}
	}
	return ws
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
		if rest[0] == '<' {
			lead, rest = lead+"<", rest[1:]
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
	return isNameText(n)
}

// nameOf is r's first column without a date the recogniser joined to it.
func nameOf(r headerRow) string {
	s := layout.NewLine(dropAvatar(r.Lines[0].Words)).Text
	if len(r.Lines[0].Words) == 0 {
		s = r.Lines[0].Text
	}
	if d := headerDateRe.FindStringIndex(s); d != nil {
		s = s[:d[0]]
	}
	return capitalShapes(cleanSender(s))
}

// capitalShapes capitalises the first letter of a name's words whose
// capital OCR cannot tell from the small letter ("kevin Osei"): c, k, o,
// p, s, u, v, w, x, z differ only in size, and a person's name is
// capitalised. The name particles stay as they are.
func capitalShapes(name string) string {
	f := strings.Fields(name)
	for i, w := range f {
		r, n := utf8.DecodeRuneInString(w)
		if strings.ContainsRune("ckopsuvwxz", r) && !slices.Contains(nameParticles, w) {
			f[i] = string(unicode.ToUpper(r)) + w[n:]
		}
	}
	return strings.Join(f, " ")
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

// endsWithDate reports whether r has columns and the last is a date.
func endsWithDate(r headerRow) bool {
	return len(r.Lines) > 1 && isDateText(r.Lines[len(r.Lines)-1].Text)
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
	// A salutation ("Dana,") alone on its row; a date column may end in
	// a comma OCR read in.
	if strings.HasSuffix(t, ",") && len(r.Lines) == 1 && len(strings.Fields(t)) <= 4 {
		return true
	}
	if textH > 0 && wordHeight(r) > textH*13/10 {
		return false
	}
	words := strings.Fields(t)
	return len(words) >= 5 && strings.ContainsAny(t[len(t)-1:], ".;:!?")
}

// startsSentence tells "To whom it may concern" or "Date night" from a
// label: a label's value follows a colon, or a second column, or is short.
func startsSentence(t string) bool {
	idx := headerLabelRe.FindStringSubmatchIndex(t)
	if idx == nil {
		return false
	}
	m := []string{t[idx[0]:idx[1]], t[idx[2]:idx[3]], t[idx[4]:idx[5]]}
	rest := t[idx[3]:]
	if strings.HasPrefix(strings.TrimLeft(rest, " "), ":") || strings.HasPrefix(rest, "  ") {
		return false
	}
	words := strings.Fields(m[2])
	if len(words) >= 6 && strings.ContainsAny(t[len(t)-1:], ".;!,") {
		return true
	}
	// Without a colon, a person label's value is a name or an address:
	// "to 22 are privileged", a message list's wrapped preview, is not.
	switch strings.ToLower(m[1]) {
	case "from", "to", "cc", "bcc":
		if len(words) > 0 && !strings.Contains(words[0], "@") {
			r, _ := utf8.DecodeRuneInString(words[0])
			return !unicode.IsUpper(r) && r != '"' && r != '\''
		}
	}
	return false
}

// headingAbove returns the row above start that may be the subject's
// heading (Gmail, Outlook): of the few rows above that are neither chrome
// nor a label nor a date, the one set largest (the nearest of equals). In
// a Gmail thread, the earlier messages folded to a line each sit between
// the subject and the open message's sender.
func headingAbove(rows []headerRow, start, textH int) (headerRow, int, bool) {
	best := -1
	for i := start - 1; i >= 0 && i >= start-4; i-- {
		r := rows[i]
		if r.label != "" || isToolbar(r.text) || isDateText(r.text) || replyControlsRe.MatchString(r.text) || isGlyphRow(r) {
			continue
		}
		if best < 0 || wordHeight(r) > max(wordHeight(rows[best]), textH*11/10) {
			best = i
		}
	}
	if best < 0 {
		return headerRow{}, 0, false
	}
	return rows[best], best, true
}

// headingLines joins a heading wrapped onto the rows above row i: rows
// of text the same size, closely above and aligned with it.
func headingLines(rows []headerRow, i int) string {
	text := headingText(widest(rows[i]))
	h := wordHeight(rows[i])
	for k := i - 1; k >= 0 && k >= i-2; k-- {
		r, below := rows[k], rows[k+1]
		if abs(wordHeight(r)-h)*5 > h || below.Box.Min.Y-r.Box.Max.Y > h || abs(r.Box.Min.X-below.Box.Min.X) > h {
			break
		}
		text = strings.TrimSpace(widest(r).Text) + " " + text
	}
	return text
}

// headingText is a heading's text without the label chips OCR read into
// its line after it (Gmail's "Inbox ×"): set apart by a wider space than
// the heading's words and in smaller text.
func headingText(l layout.Line) string {
	ws := l.Words
	if len(ws) < 2 {
		return strings.TrimSpace(l.Text)
	}
	gaps := make([]int, len(ws)-1)
	for i := range gaps {
		gaps[i] = ws[i+1].Box.Min.X - ws[i].Box.Max.X
	}
	g := slices.Clone(gaps)
	slices.Sort(g)
	// A word space: the chips' own wide gaps must not set it.
	space := max(g[(len(g)-1)/4], 2)
	for k := 1; k < len(ws); k++ {
		if gaps[k-1] <= 2*space || gaps[k-1] < 8 {
			continue
		}
		if medianWordHeight(ws[k:])*10 < medianWordHeight(ws[:k])*8 {
			return strings.TrimRight(layout.NewLine(ws[:k]).Text, "‘’'\"`")
		}
	}
	return strings.TrimSpace(l.Text)
}

func medianWordHeight(ws []layout.Word) int {
	hs := make([]int, len(ws))
	for i, w := range ws {
		hs[i] = w.Box.Dy()
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// subjectLine is the line of a subject row under the sender's: the
// widest of those starting no further right than the sender's text (a
// mailbox's name may stand at the right of Apple Mail's subject).
func subjectLine(r, sender headerRow, textH int) layout.Line {
	left := sender.Lines[0].Box.Min.X + 2*textH
	var out layout.Line
	for _, l := range r.Lines {
		if l.Box.Min.X <= left && len([]rune(l.Text)) > len([]rune(out.Text)) {
			out = l
		}
	}
	if out.Text == "" {
		return widest(r)
	}
	return out
}

// subjectText is the text of a subject row under the sender's. OCR reads
// the sender's picture (Outlook's square of initials, beside the sender
// and subject rows) into the subject's line as a word of capitals, left
// of where the sender's and the subject's text begin.
func subjectText(l layout.Line, sender headerRow, labels []int, textH int) string {
	if len(l.Words) >= 2 && len(sender.Lines) > 0 {
		left := sender.Lines[0].Box.Min.X
		w := l.Words[0]
		if slices.ContainsFunc(labels, func(x int) bool { return abs(x-w.Box.Min.X) <= textH/2 }) {
			// Where the To and Cc labels start: the subject's own
			// first word ("SNDA - …"), not a picture left of them.
			return strings.TrimSpace(l.Text)
		}
		t := strings.TrimFunc(w.Text, func(r rune) bool { return !unicode.IsLetter(r) })
		if len([]rune(t)) >= 2 && strings.ToUpper(t) == t && !strings.ContainsFunc(t, func(r rune) bool { return !unicode.IsLetter(r) }) &&
			w.Box.Min.X < left-textH/2 && l.Words[1].Box.Min.X >= left-textH {
			return layout.NewLine(l.Words[1:]).Text
		}
	}
	return strings.TrimSpace(l.Text)
}

// labelsLeft returns the left edges of the labelled rows among rows.
func labelsLeft(rows []headerRow) []int {
	var out []int
	for _, r := range rows {
		if r.label != "" && len(r.Lines) > 0 {
			out = append(out, r.Lines[0].Box.Min.X)
		}
	}
	return out
}

// widest is r's widest column: a tab strip or a label chip may share a
// heading's row.
func widest(r headerRow) layout.Line {
	var out layout.Line
	for _, l := range r.Lines {
		if len([]rune(l.Text)) > len([]rune(out.Text)) {
			out = l
		}
	}
	return out
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
