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

// TestGeneralisedFraming pins the rules that carry the three families
// (time first, other verbs, framing) to wording no case file holds, each
// with the overheard speech it must leave alone.
func TestGeneralisedFraming(t *testing.T) {
	now := time.Date(2026, 6, 10, 10, 0, 0, 0, time.FixedZone("", -4*3600))
	for _, c := range []struct{ name, text, want string }{
		// A button pressed is the button's own command.
		{"press a button", "could you hit resume please", `resume`},
		{"the button named", "press the snooze button", `snooze minutes=10`},
		{"mute pressed", "tap mute", `pause_listening`},
		{"a button on something else", "could you hit resume on the video", `none`},
		{"a button pressed is never work", "hit cancel on the order form", `none`},
		{"no button", "push the button", `none`},

		// Lead-in clauses and tail courtesies.
		{"thanks before a permission", "okay spirit thanks you can resume now", `resume`},
		{"thanks before speech", "thanks, I'll send it tomorrow", `none`},
		{"a correction before undo", "that's wrong, cancel it", `cancel`},
		{"a state before resume", "okay I'm back, you can listen again", `resume`},
		{"before I forget", "before I forget, remind me to call Ruth tomorrow",
			`remind task="call Ruth" due=2026-06-11T09:00:00-04:00`},
		{"that'd be great", "if you could remind me to send the redline tonight that'd be great",
			`remind task="send the redline" due=2026-06-10T20:00:00-04:00`},
		{"a tag question", "stop listening would you", `pause_listening`},

		// Request frames.
		{"grateful frame", "i'd be grateful if you could remind me to call Ruth at 3",
			`remind task="call Ruth" due=2026-06-10T15:00:00-04:00`},
		{"any chance", "any chance you could snooze that for ten minutes", `snooze minutes=10`},
		{"if you wouldn't mind with a gerund", "if you wouldn't mind pausing listening", `pause_listening`},
		{"if you don't mind as a courtesy", "if you don't mind, stop watching my screen", `pause_watching`},
		{"a frame around another person", "would you mind reminding the client that the retainer is due", `none`},
		{"not after a frame", "spirit, could you not watch my screen for a while", `pause_watching`},
		{"not on something else", "would you not watch the door", `none`},

		// Hesitations anywhere.
		{"hesitations in the task", "remind me to uh call the bank at um four",
			`remind task="call the bank" due=2026-06-10T16:00:00-04:00`},
		{"an approximate length", "remind me in about ten minutes to call the bank",
			`remind task="call the bank" due=2026-06-10T10:10:00-04:00`},

		// A span or reason before a privacy control.
		{"span before pause", "while I'm on this call, stop listening", `pause_listening`},
		{"span before an infinitive", "while he was talking I had to stop listening", `none`},
		{"span before speech", "during the deposition we will stop listening", `none`},

		// Other verbs for the commands.
		{"taking screenshots", "stop taking screenshots", `pause_watching`},
		{"look again needs the screen", "you can look again at the contract", `none`},
		{"look at my screen again", "you can look at my screen again", `resume`},
		{"that's enough", "okay spirit that's enough listening for now", `pause_listening`},
		{"go through the list", "go through my reminders", `list_reminders`},
		{"a rundown", "give me a rundown of my reminders", `list_reminders`},
		{"tell me to", "tell me at 3 to call Ruth", `remind task="call Ruth" due=2026-06-10T15:00:00-04:00`},
		{"tell me about is work", "tell me about the Okafor lease", `task task="tell me about the Okafor lease"`},
		{"can I get a reminder", "could I get a reminder to call Ruth tomorrow",
			`remind task="call Ruth" due=2026-06-11T09:00:00-04:00`},
		{"a reminder letter", "can I get a reminder letter sent to the client", `none`},
		{"snooze someone's alarm", "hit snooze on your alarm", `none`},
		{"snooze a meeting", "snooze the meeting", `none`},
		{"knock it off is no snooze", "knock it off", `none`},

		// A deadline on work is for a colleague.
		{"work with a deadline overheard", "could you send me the redline by tomorrow morning please", `none`},
		{"work with a deadline to Spirit", "spirit, draft the cover letter by noon",
			`task task="draft the cover letter by noon"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := describe(Parse(c.text, now)); got != c.want {
				t.Errorf("Parse(%q)\n got %s\nwant %s", c.text, got, c.want)
			}
		})
	}
}
