package intent

import "time"

// This file lends the command grammar's reading of words and times to
// voice/commit, which reads commitments in speech that is not a command
// ("I'll send you the redline by Friday"). Sharing it keeps one set of
// README time rules: a commitment's deadline and a reminder's due time are
// resolved by the same code.

// Word is one word of a transcript as the grammar reads it.
type Word struct {
	Raw  string // as heard, punctuation kept; "" for the second half of a split word ("3pm")
	Norm string // lower case, surrounding punctuation stripped, "p.m." as "pm"
}

// Words splits a transcript the way the command grammar does: typographic
// quotes and dashes folded, hesitations ("um", "uh") dropped, a glued time
// ("3pm") split in two.
func Words(text string) []Word {
	ts := tokenize(text)
	ws := make([]Word, len(ts))
	for i, t := range ts {
		ws[i] = Word{Raw: t.raw, Norm: t.word}
	}
	return ws
}

// LiftTime takes the time expressions out of ws, as the reminder grammar
// does, and resolves them at now in now's location. ok is false when they
// name no time or one that will not come again; vague reports words that
// mean a time without giving one ("later", "at some point"). rest holds the
// other words, in order.
func LiftTime(ws []Word, now time.Time) (due time.Time, ok, vague bool, rest []Word) {
	ts := make([]token, len(ws))
	for i, w := range ws {
		ts[i] = token{raw: w.Raw, word: w.Norm}
	}
	w, left := extractWhen(ts)
	rest = make([]Word, len(left))
	for i, t := range left {
		rest[i] = Word{Raw: t.raw, Norm: t.word}
	}
	if d := w.due(now); d != nil {
		return *d, true, w.vague, rest
	}
	return time.Time{}, false, w.vague, rest
}

// ReadBack rebuilds what was said from ws as the user would read it back:
// their own spelling, without the punctuation and spaces around it.
func ReadBack(ws []Word) string {
	ts := make([]token, len(ws))
	for i, w := range ws {
		ts[i] = token{raw: w.Raw, word: w.Norm}
	}
	return readBack(ts)
}

// Repair applies the command grammar's speech repairs to ws ("on
// Wednesday, no, Thursday" is "on Thursday"); withdrawn reports that the
// speaker took back what they said instead of correcting it ("…, no,
// leave it", "…, actually Jenny will do it").
func Repair(ws []Word) (out []Word, withdrawn bool) {
	ts := make([]token, len(ws))
	for i, w := range ws {
		ts[i] = token{raw: w.Raw, word: w.Norm}
	}
	ts, withdrawn = repair(ts)
	out = make([]Word, len(ts))
	for i, t := range ts {
		out[i] = Word{Raw: t.raw, Norm: t.word}
	}
	return out, withdrawn
}
