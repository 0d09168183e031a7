package mail

import (
	"regexp"
	"strings"
	"unicode"
)

// Me is the lawyer as mail knows them: their name and their own
// addresses, in any case.
type Me struct {
	Name      string   `json:"name"`
	Addresses []string `json:"addresses"`
}

// Is reports whether addr is one of the lawyer's addresses.
func (m Me) Is(addr string) bool {
	addr = strings.TrimSpace(addr)
	for _, a := range m.Addresses {
		if strings.EqualFold(strings.TrimSpace(a), addr) {
			return true
		}
	}
	return false
}

// Audience is how a message reaches the lawyer: what its recipients and
// its text make of them.
type Audience int

// The audiences. Unknown is the zero value, so a thread built without
// reading its recipients is never dropped for them; the rest run from the
// least addressed up.
const (
	// Unknown: the lawyer's addresses are not known, so nothing can be
	// told; treated as addressed.
	Unknown Audience = iota
	// Unlisted: in neither To nor Cc. Blind-copied, or reached through a
	// list or an address that is not theirs: someone else was written to.
	Unlisted
	// Copied: in Cc, and not called on by name: kept informed.
	Copied
	// CalledOn: in Cc, and the text turns to them by name ("Nadia, could
	// you…", "Leah and Nadia,").
	CalledOn
	// Addressed: among the To addressees.
	Addressed
)

// ToMe reports whether a message with this audience is to the lawyer: they
// are among its To addressees, or called on by name when only copied; and
// when who they are is not known.
func (a Audience) ToMe() bool { return a == Unknown || a >= CalledOn }

func (a Audience) String() string {
	switch a {
	case Unlisted:
		return "not among the recipients"
	case Copied:
		return "copied"
	case CalledOn:
		return "copied and called on by name"
	case Addressed:
		return "addressed"
	}
	return "unknown"
}

// AudienceOf says how a message with recipients to and cc and the sender's
// own text body reaches me.
func AudienceOf(to, cc []Address, body string, me Me) Audience {
	if len(me.Addresses) == 0 {
		return Unknown
	}
	for _, a := range to {
		if me.Is(a.Email) {
			return Addressed
		}
	}
	for _, a := range cc {
		if me.Is(a.Email) {
			if CallsOn(ownText(body), me.Name) {
				return CalledOn
			}
			return Copied
		}
	}
	return Unlisted
}

// CallsOn reports whether text turns to the person named name by their
// name: a line, or a sentence, that opens by calling on them, alone or
// with others ("Nadia,", "Hi Gil and Nadia –", "Thanks Gil. Nadia, could
// you…"), their title and surname ("Ms. Brennan:"), or "@Nadia". A name
// said in passing ("copying Nadia for the file", "Nadia mentioned…") does
// not call on anyone.
func CallsOn(text, name string) bool {
	forms := nameForms(name)
	if len(forms) == 0 {
		return false
	}
	for _, line := range strings.Split(text, "\n") {
		for _, s := range sentenceStarts(line) {
			for _, n := range Vocative(s) {
				for _, f := range forms {
					if strings.EqualFold(n, f) {
						return true
					}
				}
			}
		}
		for _, m := range atNameRe.FindAllStringSubmatch(line, -1) {
			for _, f := range forms {
				if strings.EqualFold(m[1], f) {
					return true
				}
			}
		}
	}
	return false
}

// nameForms are the ways a message calls on name: the first name, the
// whole name, and the surname after a title.
func nameForms(name string) []string {
	f := strings.FieldsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
	if len(f) == 0 {
		return nil
	}
	out := []string{f[0], strings.Join(f, " ")}
	if len(f) > 1 {
		last := f[len(f)-1]
		for _, t := range []string{"Ms.", "Ms", "Mr.", "Mr", "Mrs.", "Mrs", "Dr.", "Dr", "Counsel", "Counselor"} {
			out = append(out, t+" "+last)
		}
	}
	return out
}

// sentenceStarts are line and the sentences after each full stop,
// question or exclamation mark in it.
func sentenceStarts(line string) []string {
	out := []string{line}
	for i, r := range line {
		if (r == '.' || r == '?' || r == '!') && i+1 < len(line) && line[i+1] == ' ' {
			out = append(out, strings.TrimSpace(line[i+1:]))
		}
	}
	return out
}

// Vocative returns the names a line opens by calling on ("Gil," → Gil;
// "Hi Leah and Nadia –" → Leah, Nadia; "Dear Ms. Brennan:" → Ms.
// Brennan), or nil when it does not open that way. A name, or names
// joined by "and", "&", "/" or commas, after an optional greeting, must
// be followed by a comma, colon, dash or the end of the line; each name is
// one to three capitalised words. Greetings and group words ("All,",
// "Team –") are returned as written, for the caller to read.
func Vocative(line string) []string {
	s := strings.TrimSpace(line)
	if m := greetingRe.FindString(s); m != "" {
		s = s[len(m):]
	}
	m := vocativeListRe.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	var names []string
	for _, n := range vocativeSepRe.Split(m[1], -1) {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}

var (
	greetingRe = regexp.MustCompile(`^(?i:hi|hello|hey|dear|good (?:morning|afternoon|evening)|morning|afternoon|thanks|thank you|many thanks)\b,?\s+`)
	// One name: a capitalised word, optionally a title before it and up
	// to two more capitalised words (a surname, a middle initial).
	vocName        = `(?:(?:Ms|Mr|Mrs|Dr)\.?\s+)?\p{Lu}[\p{L}'’\-]*(?:\s+\p{Lu}[\p{L}'’\-]*\.?){0,2}`
	vocativeListRe = regexp.MustCompile(`^(` + vocName + `(?:\s*(?:,|&|/|\band\b|,\s*and\b)\s*` + vocName + `)*)\s*(?:[,:–—!]|\s-\s|-$|$)`)
	vocativeSepRe  = regexp.MustCompile(`\s*(?:,\s*and\b|,|&|/|\band\b)\s*`)
	atNameRe       = regexp.MustCompile(`(?:^|\s)@(\p{L}[\p{L}'’\-]*)`)
)
