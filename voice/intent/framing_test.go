package intent

import (
	"testing"
	"time"
)

// TestFraming pins what the words around a command allow: a permission
// frame overheard in a room only carries the commands that are harmless to
// act on wrongly, a bare pause needs to be said to Spirit, and a wake
// phrase (or Spirit's name) lifts both limits.
func TestFraming(t *testing.T) {
	now := time.Date(2026, 6, 12, 8, 0, 0, 0, time.FixedZone("", -4*3600))
	strict := ParseOptions{RequireWake: true}
	for _, c := range []struct {
		name, text string
		opts       ParseOptions
		want       string
	}{
		{"permission carries a privacy control", "you can stop listening now", ParseOptions{}, `pause_listening`},
		{"permission carries a reminder", "you can remind me to call Ines at 4", ParseOptions{}, `remind task="call Ines" due=2026-06-12T16:00:00-04:00`},
		{"permission overheard carries no undo", "you can forget it", ParseOptions{}, `none`},
		{"permission said to Spirit carries undo", "spirit, you can forget it", ParseOptions{}, `cancel`},
		{"permission overheard carries no snooze", "let's push that back", ParseOptions{}, `none`},
		{"permission overheard carries no work", "you can send the exhibits to Marcy", ParseOptions{}, `none`},
		{"permission with the wake phrase carries work", "hey spirit you can send the exhibits to Marcy", strict,
			`task task="send the exhibits to Marcy"`},
		{"a wish to be reminded is the request itself", "I want to be reminded to call Ines at 4", ParseOptions{}, `remind task="call Ines" due=2026-06-12T16:00:00-04:00`},
		{"bare resume after a permission is for a witness", "you can resume now", ParseOptions{}, `none`},
		{"resume naming a sense after a permission", "you can resume listening now", ParseOptions{}, `resume`},
		{"bare pause alone", "pause", ParseOptions{}, `pause_listening`},
		{"bare pause with more words overheard", "pause for a second", ParseOptions{}, `none`},
		{"bare pause with more words to Spirit", "hey spirit, pause for a second", strict, `pause_listening`},
		{"bare pause on something else", "hey spirit, hit pause on the video", strict, `none`},
		{"gerund after would you mind", "would you mind snoozing it for 5 minutes", ParseOptions{}, `snooze minutes=5`},
		{"doubled consonant gerund", "do you mind stopping the mic", ParseOptions{}, `pause_listening`},
		{"mind without a gerund", "do you mind if I pause the tape", ParseOptions{}, `none`},
		{"time first after the wake phrase", "hey spirit, at 5 remind me to call Ines", strict,
			`remind task="call Ines" due=2026-06-12T17:00:00-04:00`},
		{"time first before the wake phrase is not addressed", "at 5 hey spirit remind me to call Ines", strict, `none`},
		{"privacy control on something else", "stop watching the clock", ParseOptions{}, `none`},
		{"privacy control with a reason", "stop listening, I'm on with a client", ParseOptions{}, `pause_listening`},
		{"thank you after the name is a courtesy", "remind me to call Ines thank you spirit", ParseOptions{}, `remind task="call Ines"`},
		{"draft a thank you keeps its words", "draft a thank you", ParseOptions{}, `task task="draft a thank you"`},
		{"message verb overheard needs a time", "ping me about the exhibits", ParseOptions{}, `none`},
		{"message verb to Spirit needs no time", "spirit, ping me about the exhibits", ParseOptions{}, `remind task="the exhibits"`},
		{"message verb with a condition", "ping me if the clerk calls", ParseOptions{}, `none`},
		{"reminder about it is a snooze", "remind me about it in 20 minutes", ParseOptions{}, `snooze minutes=20`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := describe(ParseWith(c.text, now, c.opts)); got != c.want {
				t.Errorf("ParseWith(%q, %+v)\n got %s\nwant %s", c.text, c.opts, got, c.want)
			}
		})
	}
}
