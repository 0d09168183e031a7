package whisper

import (
	"strings"
	"unicode"
)

// stockPhrase reports whether s is what whisper models say over silence and
// noise: phrases over-represented in their training subtitles. s is
// normalised (see normalize).
func stockPhrase(s string) bool {
	switch s {
	case "you", "thank you", "thank you very much", "thank you so much", "thanks",
		"thanks for watching", "thank you for watching", "thanks for listening",
		"thank you for listening", "thanks for watching and see you next time", "see you next time",
		"please subscribe", "subscribe", "like and subscribe", "please like and subscribe",
		"don't forget to like and subscribe", "bye", "bye-bye", "bye bye", "the end",
		"blank_audio", "blank audio", "silence", "music", "applause", "laughter", "inaudible", "no audio",
		"transcription by castingwords":
		return true
	}
	// Subtitle credits. Not "transcription by": a lawyer may well ask for
	// one by Friday.
	for _, p := range []string{"subtitles by", "subtitled by", "captions by", "captioning by", "amara org"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// IsHallucination reports whether text is something whisper produces for
// near-silence rather than speech: a known stock phrase ("Thank you.",
// "Thanks for watching!", "you"), possibly repeated; a subtitle credit; a
// transcript made only of bracketed or parenthesised tags ("[BLANK_AUDIO]",
// "(music)", "[Music]"), music notes or punctuation. Empty text is not a
// hallucination, just nothing.
func IsHallucination(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" {
		return false
	}
	rest := stripTags(text)
	if !strings.ContainsFunc(rest, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return true // tags, notes and punctuation only
	}
	if stockPhrase(normalize(rest)) {
		return true // judged whole first: sentence splitting would cut "Amara.org"
	}
	// Every sentence must be a stock phrase: "Thank you. Thank you." is one,
	// "Thank you. Remind me at five." is not.
	for _, s := range strings.FieldsFunc(rest, func(r rune) bool { return strings.ContainsRune(".!?…", r) }) {
		if n := normalize(s); n != "" && !stockPhrase(n) {
			return false
		}
	}
	return true
}

// stripTags removes [bracketed], (parenthesised) and *starred* spans.
func stripTags(s string) string {
	var b strings.Builder
	var close rune
	for _, r := range s {
		switch {
		case close != 0:
			if r == close {
				close = 0
			}
		case r == '[':
			close = ']'
		case r == '(':
			close = ')'
		case r == '*':
			close = '*'
		default:
			b.WriteRune(r)
		}
	}
	if close != 0 {
		return s // unbalanced: not a tag, keep the text as it was
	}
	return b.String()
}

// normalize lower-cases s, unifies apostrophes, turns punctuation other
// than apostrophes and hyphens into spaces and collapses them.
func normalize(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\'' || r == '’':
			return '\''
		case r == '-' || r == '_':
			return r
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Trim(strings.Join(strings.Fields(s), " "), "'-")
}
