// Package commit hears the lawyer commit to something in speech that is not
// a command to Spirit: "okay, I'll send you the revised redline by Friday"
// on a call is a promise with a deadline, worth a reminder; "I'll look into
// it" is an open commitment, worth a note; almost everything else said in a
// call (questions, other people's promises, things already done,
// hypotheticals, refusals, media, small talk) is nothing at all.
//
// The detector is code only: it looks for a first-person commitment frame
// ("I'll", "I will", "I'm going to", "let me … by …", "I can get you … by
// …", "you'll have it by …"), refuses it when the sentence hedges, asks,
// negates, reports or sets a condition, and reads the deadline with the
// command grammar's time rules (voice/intent), so a commitment's deadline
// and a reminder's due time follow the same README rules. The format it is
// measured on is the ambient.jsonl section of shared/cases/README.md.
//
// Detect reads a window of utterances at once (the eval's unit); Hear reads
// the newest utterance of a live stream against the recent ones, so that a
// commitment said twice is offered once.
package commit

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"time"

	"github.com/spirit-app/spirit/voice/intent"
)

// Commitment is one thing the lawyer said they would do.
type Commitment struct {
	// Task is what the lawyer must do, read as a task ("send the revised
	// redline"), never as a quote ("I'll send you…").
	Task string
	// Deadline is the time promised, in the location Detect or Hear was
	// given; zero when HasTime is false.
	Deadline time.Time
	// HasTime is false for an open commitment ("I'll look into the
	// indemnity question"): it is logged, and nobody is nudged.
	HasTime bool
	// Words is the utterance the commitment was heard in, kept so the
	// lawyer can see why Spirit offers it.
	Words string
	// Key names the commitment for deduplication: the same task with the
	// same deadline gives the same Key whenever it is said.
	Key string
	// Replaces is the Key of the commitment this one corrects ("…by
	// Friday." "Actually, make that Monday."): the later time wins.
	Replaces string
}

// Utterance is one stretch of speech as the recogniser gave it, and the
// moment it ended (the "now" its time words are resolved against).
type Utterance struct {
	Text string
	End  time.Time
}

// Limits that keep a pathological transcript cheap: whisper's segments are
// a few dozen words, and the local API's /say takes 2000 characters.
const (
	maxUtterance = 2000 // bytes of one utterance that are read
	maxRecent    = 32   // recent utterances compared against the newest
)

// sameWindow is how far apart two deadlines may be and still be one
// commitment: "in two hours" said twice a few minutes apart is one promise.
const sameWindow = 30 * time.Minute

// Detect reads utterances (oldest first; now is when the last one ended)
// and returns the commitment to offer: the first one with a time (as
// corrected later, if it was), or else the first open commitment. ok is
// false when nothing was committed to. Times are resolved in loc (now's
// own location when loc is nil).
func Detect(utterances []string, now time.Time, loc *time.Location) (Commitment, bool) {
	if loc != nil {
		now = now.In(loc)
	}
	if broadcast(utterances) {
		return Commitment{}, false
	}
	var t talk
	var timed, open *Commitment
	for i, u := range utterances {
		for _, c := range t.hear(u, now, utterances[:i]) {
			c := c
			switch {
			case c.Replaces != "" && timed != nil && timed.Key == c.Replaces:
				timed = &c
			case c.HasTime && timed == nil:
				timed = &c
			case !c.HasTime && open == nil:
				open = &c
			}
		}
	}
	switch {
	case timed != nil:
		return *timed, true
	case open != nil:
		return *open, true
	}
	return Commitment{}, false
}

// Hear reads the newest utterance u of a live stream and returns the
// commitments it makes that none of the recent utterances (oldest first,
// u not among them) already made: the same commitment said twice is
// offered once, and an open commitment restated with a time is offered
// again, now with its time. Each utterance is resolved at its own End, in
// loc (u.End's location when loc is nil).
func Hear(u Utterance, recent []Utterance, loc *time.Location) []Commitment {
	if len(recent) > maxRecent {
		recent = recent[len(recent)-maxRecent:]
	}
	texts := make([]string, 0, len(recent)+1)
	for _, r := range recent {
		texts = append(texts, r.Text)
	}
	texts = append(texts, u.Text)
	if broadcast(texts) {
		return nil
	}
	at := func(t time.Time) time.Time {
		if loc != nil {
			return t.In(loc)
		}
		return t
	}
	var t talk
	var before []Commitment
	for i, r := range recent {
		before = append(before, t.hear(r.Text, at(r.End), texts[:i])...)
	}
	var out []Commitment
	for _, c := range t.hear(u.Text, at(u.End), texts[:len(recent)]) {
		if !madeIn(c, before) && !madeIn(c, out) {
			out = append(out, c)
		}
	}
	return out
}

// madeIn reports whether c repeats one of cs. A commitment with a time is
// only repeated by one with a time: restating an open one with a deadline
// is news.
func madeIn(c Commitment, cs []Commitment) bool {
	for _, d := range cs {
		if c.HasTime && !d.HasTime {
			continue
		}
		if Same(c, d) || (!c.HasTime && d.HasTime && overlap(keyWords(c.Task), keyWords(d.Task))) {
			return true
		}
	}
	return false
}

// Same reports whether a and b are one commitment said twice: both open or
// both with deadlines within half an hour of each other, and about the same
// things (a shared key word, or a task that only points back, as in "I'll
// send it over").
func Same(a, b Commitment) bool {
	if a.HasTime != b.HasTime {
		return false
	}
	ka, kb := keyWords(a.Task), keyWords(b.Task)
	if !a.HasTime {
		return overlap(ka, kb) || (len(ka) == 0 && len(kb) == 0)
	}
	d := a.Deadline.Sub(b.Deadline)
	if d < -sameWindow || d > sameWindow {
		return false
	}
	return overlap(ka, kb) || len(ka) == 0 || len(kb) == 0
}

func overlap(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// key is a stable name for a commitment: its key words and its deadline.
func key(task string, deadline time.Time, hasTime bool) string {
	when := "open"
	if hasTime {
		when = deadline.UTC().Format(time.RFC3339)
	}
	sum := sha256.Sum256([]byte("commit/v1|" + when + "|" + strings.Join(keyWords(task), " ")))
	return "commit-" + hex.EncodeToString(sum[:8])
}

// keyWords are the words of a task that say what it is about: not its
// first word (the verb), nor function words; lower case, plurals folded.
func keyWords(task string) []string {
	ws := intent.Words(task)
	seen := map[string]bool{}
	var out []string
	for i, w := range ws {
		n := strings.TrimSuffix(w.Norm, "'s")
		if i == 0 || n == "" || stopWords[n] || particles[n] {
			continue
		}
		if len(n) > 3 && strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") {
			n = strings.TrimSuffix(n, "s")
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

var stopWords = set("a", "an", "the", "it", "them", "that", "this", "those", "these", "to",
	"of", "on", "in", "for", "with", "and", "or", "my", "our", "their", "his", "her", "its",
	"me", "us", "him", "at", "from", "by", "as", "well", "too", "also", "all", "some", "any",
	"one", "thing", "things", "stuff", "so", "then", "there", "here", "what", "which")

// particles complete a verb ("send it over", "call him back").
var particles = set("over", "back", "out", "up", "off", "across", "through", "down", "around", "along")

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}
