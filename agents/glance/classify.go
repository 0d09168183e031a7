package glance

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail"
)

var (
	// Explicit statements that nothing is asked; they win over anything
	// that looks like a request.
	noActionRe = regexp.MustCompile(`(?i)\bno (?:further )?(?:action|response|reply) (?:is |needed|required|necessary)|\bno need to (?:reply|respond|do anything)|\bnothing (?:further |else )?(?:is )?(?:needed|required) (?:from|on) your|\bnothing for you to do\b`)
	// Courtesy phrases that look like requests but ask nothing.
	courtesyRe = regexp.MustCompile(`(?i)(?:please |do |and )?(?:let (?:me|us) know|feel free to (?:reach out|contact|call)|(?:please )?do not hesitate to (?:reach out|contact|call)|don't hesitate to (?:reach out|contact|call))[^.?!\n]*?\b(?:any|further|other) (?:questions?|comments?|concerns?)[^.?!\n]*[.?!]?|(?:please )?(?:find|see) (?:the )?attached\b|please note\b|(?:hope|trust) (?:this|that|you)[^.?!\n]*[.?!]|how are you\?|hope all is well[.?!]?`)
	// Requests to the reader.
	requestRe = regexp.MustCompile(`(?i)\b(?:can|could|would|will) you\b|\bplease\b|\blet (?:me|us) know\b|\bwe need\b|\bi need\b|\bneed (?:you|your|it|them|this|the)\b|\b(?:can|could) we\b|\bconfirm\b|\bsend (?:me|us|over)\b|\bby (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|eod|cob|end of (?:the )?day|noon)\b|\bdeadline\b|\bwaiting (?:on|for) (?:you|your)\b|\bthoughts\?|\bany objection`)
	// Signature and quoted-history starts; the ask is above them.
	sigStartRe = regexp.MustCompile(`(?i)^(?:--\s*|sent from my\b|get outlook for\b|best(?: regards)?,?|regards,?|thanks,?|thank you,?|cheers,?|sincerely,?|kind regards,?|all the best,?)$`)
	listItemRe = regexp.MustCompile(`^(?:[-*•–]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s`)
)

// findAsk reports whether body asks the user for something, and the
// first thing asked. Lines addressed by name to someone else ("Ray –
// please circulate…") are skipped: a nudge is for what the user owes.
//
// others holds the first names of the message's other recipients: only
// they count as addressees, so that "Tomorrow, we…" is not taken for one.
// The work grows with the body, which the index does not cap, so ctx is
// checked on every line: an error means the time ran out.
func findAsk(ctx context.Context, body, me string, others []string) (ask string, needs bool, err error) {
	if noActionRe.MatchString(body) {
		return "", false, nil
	}
	toOther := false
	for _, line := range logicalLines(body) {
		if err := ctx.Err(); err != nil {
			return "", false, fmt.Errorf("find ask: %w", err)
		}
		// A line that opens by calling on people, greeting included ("Hi
		// Gil,", "Leah and Nadia –"), turns the text to them until the
		// next one.
		var called []string
		for _, n := range mail.Vocative(line) {
			if w := firstName(n); w != "" && !isGreeting(w) {
				called = append(called, w)
			}
		}
		switch {
		case me != "" && mail.CallsOn(line, me), slices.ContainsFunc(called, isGroup):
			toOther = false
		case slices.ContainsFunc(called, func(w string) bool { return containsFold(others, w) }):
			toOther = true
		}
		if toOther {
			continue
		}
		text := courtesyRe.ReplaceAllString(line, " ")
		for _, s := range sentences(text) {
			if strings.HasSuffix(s, "?") || requestRe.MatchString(s) {
				return shorten(listItemRe.ReplaceAllString(s, ""), 160), true, nil
			}
		}
	}
	return "", false, nil
}

func firstName(name string) string {
	if f := strings.Fields(name); len(f) > 0 {
		return strings.Trim(f[0], ",.")
	}
	return ""
}

// isGreeting tells an opening word ("Hi,", "Thanks,") from a name.
func isGreeting(w string) bool {
	switch strings.ToLower(w) {
	case "hi", "hello", "dear", "hey", "thanks", "thank", "great", "perfect", "ok", "okay", "yes", "no", "sure", "also", "separately", "note", "re", "fyi", "update", "attached", "sorry", "morning", "afternoon", "good", "agreed", "understood", "noted", "confirmed", "correct", "next", "first", "second", "finally", "one", "two", "and", "but", "so":
		return true
	}
	return false
}

// isGroup tells a word addressing everyone ("All,", "Team –").
func isGroup(w string) bool {
	switch strings.ToLower(w) {
	case "all", "everyone", "team", "folks", "gentlemen", "colleagues":
		return true
	}
	return false
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// logicalLines undoes the hard wrapping of plain-text mail: a line that
// does not end a sentence continues on the next, unless that one starts a
// list item. It stops at the signature.
func logicalLines(body string) []string {
	var out []string
	// The logical line being joined is built in place: appending each
	// wrapped line to a finished string would copy it again per line,
	// quadratic in a long paragraph.
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	open := false // the last logical line continues
	for _, raw := range strings.Split(body, "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
			open = false
			continue
		case sigStartRe.MatchString(line):
			flush()
			return out
		}
		if open && !listItemRe.MatchString(line) {
			cur.WriteByte(' ')
		} else {
			flush()
		}
		cur.WriteString(line)
		// A short line ending in a comma is a salutation ("Hi Priya,").
		salutation := strings.HasSuffix(line, ",") && len(strings.Fields(line)) <= 3
		open = !salutation && !strings.ContainsAny(line[len(line)-1:], ".?!:;")
	}
	flush()
	return out
}

// sentences splits text at sentence ends. A full stop ends a sentence
// only before a space and a capital letter, and not after a number or a
// short abbreviation ("Section 4.2", "No. 2", "Inc. and").
func sentences(text string) []string {
	var out []string
	r := []rune(text)
	start := 0
	flush := func(end int) {
		if s := strings.TrimSpace(string(r[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(r); i++ {
		switch r[i] {
		case '?', '!':
			for i+1 < len(r) && (r[i+1] == '?' || r[i+1] == '!' || r[i+1] == ')' || r[i+1] == '"') {
				i++
			}
			flush(i + 1)
		case '.':
			if i+2 < len(r) && r[i+1] == ' ' && unicode.IsUpper(r[i+2]) && !abbrevBefore(r[start:i]) {
				flush(i + 1)
			}
		}
	}
	flush(len(r))
	return out
}

// abbrevBefore reports whether the word before a full stop is a number
// or a short abbreviation rather than the end of a sentence. Only that
// last word is read, backwards from the stop: splitting all of r into
// words would reread the sentence at every abbreviation in it.
func abbrevBefore(r []rune) bool {
	end := len(r)
	for end > 0 && unicode.IsSpace(r[end-1]) {
		end--
	}
	begin := end
	for begin > 0 && !unicode.IsSpace(r[begin-1]) {
		begin--
	}
	if begin == end {
		return true
	}
	w := strings.TrimLeft(string(r[begin:end]), "(\"'")
	if w == "" {
		return true
	}
	if strings.Trim(w, "0123456789.") == "" {
		return true // "Section 4." or a list number "1."
	}
	return utf8.RuneCountInString(w) <= 3 && unicode.IsUpper([]rune(w)[0])
}
