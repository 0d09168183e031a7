package index

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Reply and forward prefixes in the languages a lawyer's correspondents
// write in, with Outlook's counters ("RE[2]:", "Re(3):", "Re^2:") and the
// French space before the colon ("RE :"). Single letters (Italian "R:",
// "I:") are left out: they would eat real subjects like "I: Scope".
var (
	replyPrefixRe = regexp.MustCompile(`^(?i:re|aw|antw|antwort|sv|svar|vs|odp|ynt|rif|res|vá|回复|答复)\s*(?:\[\d+\]|\(\d+\)|\^\d+)?\s*[:：]\s*`)
	fwdPrefixRe   = regexp.MustCompile(`^(?i:fwd?|wg|tr|rv|enc|pd|vb|vl|fs|doorst|továbbítás|转发)\s*(?:\[\d+\]|\(\d+\)|\^\d+)?\s*[:：]\s*`)
	// Security tags mail gateways put in front of the subject on the way
	// in ("*EXTERNAL*", "(External)", "EXTERNAL:"); the bracketed ones are
	// removed wherever they are by tagAnywhereRe. Other brackets stay: a
	// matter number like "[2024-0113]" or a list name tells threads apart.
	leadTagRe     = regexp.MustCompile(`^(?:\*\s*(?i:external|ext|caution|spam|secure)[^*]{0,20}\*|\(\s*(?i:external|ext|caution|spam|secure)[^()]{0,20}\)|(?i:external(?: email| sender| message)?|ext)\s*[:：])\s*`)
	tagAnywhereRe = regexp.MustCompile(`\[\s*(?i:external(?:\s+(?:email|sender|message))?|ext|caution(?:\s*-?\s*external(?:\s+email)?)?|spam|suspected spam|secure|encrypt(?:ed)?)\s*\]`)
	// Netscape's "[Fwd: subject]" wrapping and the old "subject (fwd)".
	wrappedFwdRe = regexp.MustCompile(`^\[(?i:fwd?)\s*:\s*(.*)\]$`)
	trailFwdRe   = regexp.MustCompile(`\s*\((?i:fwd)\)$`)
	// A separator dash: any run of dash-like characters with a space on at
	// least one side, so "SNDA – Brooklyn", "SNDA - Brooklyn" and
	// "SNDA -- Brooklyn" agree; "6-17" and "co-tenancy" keep theirs.
	sepDashRe = regexp.MustCompile(`\s+-+\s*|\s*-+\s+`)
	spaceRe   = regexp.MustCompile(`\s+`)
)

// dashes maps the dash and quote variants mail clients and word processors
// substitute for one another to ASCII. Em dashes and horizontal bars are
// separators even without spaces ("Lease—Amendment").
var dashes = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2212", "-", "\ufe63", "-", "\uff0d", "-",
	"\u2014", " - ", "\u2015", " - ",
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u2032", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`,
)

// NormalizeSubject reduces a subject (or the subject part of a window
// title) to the form the index compares: reply and forward prefixes and
// gateway tags stripped however often they repeat, dashes, quotes and
// whitespace unified, case folded, and a trailing ellipsis dropped. It is
// idempotent, so a caller may normalise a title fragment first.
func NormalizeSubject(s string) string {
	n, _ := normalizeSubject(s)
	return n
}

// SubjectMatches reports whether query, a subject as a window title or a
// screen shows it, names the message subject full. A query that ends in
// "…" or "..." was truncated by the client and matches as a prefix of the
// normalised subject; otherwise the normalised forms must be equal.
func SubjectMatches(query, full string) bool {
	q, truncated := normalizeSubject(query)
	if q == "" {
		return false
	}
	f := NormalizeSubject(full)
	if truncated {
		return strings.HasPrefix(f, q)
	}
	return q == f
}

// normalizeSubject is NormalizeSubject that also says whether s ended in
// an ellipsis.
func normalizeSubject(s string) (norm string, truncated bool) {
	s = cleanSubject(s)
	s, truncated = trimEllipsis(s)
	// Each pass removes what it finds by slicing, never by building a new
	// string: a subject of thousands of "RE: " would otherwise be copied
	// once per prefix, quadratic in its length (this runs on every
	// indexed message's raw subject). The prefix patterns are anchored,
	// so each look costs only the prefix it reads.
	for {
		before := len(s)
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "[") {
			if m := wrappedFwdRe.FindStringSubmatchIndex(s); m != nil {
				s = s[m[2]:m[3]]
			}
		}
		s = trimPrefixMatch(replyPrefixRe, s)
		s = trimPrefixMatch(fwdPrefixRe, s)
		s = trimPrefixMatch(leadTagRe, s)
		s = strings.TrimLeft(s, "-:;, ")
		if len(s) == before {
			break
		}
	}
	s = trailFwdRe.ReplaceAllString(s, "")
	// Truncation may have cut just after a separator ("SNDA –…").
	if truncated {
		s = strings.TrimRight(s, " -")
	}
	return strings.TrimSpace(s), truncated
}

// trimPrefixMatch removes the match of re, a pattern anchored at the
// start, from the front of s.
func trimPrefixMatch(re *regexp.Regexp, s string) string {
	if loc := re.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// cleanSubject applies the character-level normalisation: compatibility
// forms, dashes and quotes, gateway tags, whitespace and case.
func cleanSubject(s string) string {
	// NFKC turns no-break spaces, full-width colons and the like into
	// their plain forms (and "…" into "...").
	s = norm.NFKC.String(s)
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Zs, r) {
			return ' '
		}
		if unicode.Is(unicode.Cf, r) { // zero-width joiners, BOMs, bidi marks
			return -1
		}
		return r
	}, s)
	s = dashes.Replace(s)
	s = tagAnywhereRe.ReplaceAllString(s, " ")
	s = sepDashRe.ReplaceAllString(s, " - ")
	s = spaceRe.ReplaceAllString(s, " ")
	// A Caser keeps state, so one per call rather than a shared one.
	return strings.TrimSpace(cases.Fold().String(s))
}

// trimEllipsis removes a trailing "..." (NFKC has already turned "…" into
// three dots) and reports whether there was one.
func trimEllipsis(s string) (string, bool) {
	t := strings.TrimRight(s, " ")
	if !strings.HasSuffix(t, "...") {
		return s, false
	}
	return strings.TrimRight(strings.TrimRight(t, "."), " "), true
}

// replyLike reports whether a raw subject starts, after any tags, with a
// reply prefix: such a message claims to answer another one.
func replyLike(subject string) bool {
	s := cleanSubject(subject)
	for range 8 {
		s = strings.TrimSpace(s)
		if replyPrefixRe.MatchString(s) {
			return true
		}
		t := leadTagRe.ReplaceAllString(s, "")
		if t == s {
			return false
		}
		s = t
	}
	return false
}

// forwardLike reports whether a raw subject starts with a forward prefix;
// a forward's "quoted" text is its point, so it is indexed whole.
func forwardLike(subject string) bool {
	s := cleanSubject(subject)
	for range 8 {
		s = strings.TrimSpace(s)
		if fwdPrefixRe.MatchString(s) || wrappedFwdRe.MatchString(s) {
			return true
		}
		if replyPrefixRe.MatchString(s) {
			return false
		}
		t := leadTagRe.ReplaceAllString(s, "")
		if t == s {
			return false
		}
		s = t
	}
	return false
}

// subjectTokens splits a normalised subject into the words the fuzzy
// subject match compares.
func subjectTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
