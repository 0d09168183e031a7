package commit

import (
	"strings"
	"testing"
	"time"
)

// wed is a Wednesday morning in a zone west of UTC; every case below is
// heard then unless it says otherwise.
var wed = time.Date(2026, 10, 28, 10, 0, 0, 0, time.FixedZone("EDT", -4*3600))

// day returns wed's date moved by days, at h:m.
func day(days, h, m int) time.Time {
	return time.Date(wed.Year(), wed.Month(), wed.Day()+days, h, m, 0, 0, wed.Location())
}

// open marks a commitment without a time in the table below.
var open = time.Time{}

// TestDetect: one named case per rule, each with what the lawyer should
// see: the task (empty for nothing at all) and the deadline (open for an
// open commitment).
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name       string
		utterances []string
		task       string
		deadline   time.Time
	}{
		// Frames.
		{"ill", []string{"I'll get the signed estoppels to the lender by Wednesday"}, "get the signed estoppels to the lender", day(7, 9, 0)},
		{"i-will-filler", []string{"I will uh file the reply tomorrow"}, "file the reply", day(1, 9, 0)},
		{"going-to", []string{"I'm going to call the court clerk tomorrow at 10"}, "call the court clerk", day(1, 10, 0)},
		{"gonna", []string{"yep I'm gonna send the demand letter out tomorrow"}, "send the demand letter out", day(1, 9, 0)},
		{"we-will", []string{"we will get you a signed copy tomorrow morning"}, "send a signed copy", day(1, 9, 0)},
		{"let-me", []string{"Let me send you the executed copy in ten minutes"}, "send the executed copy", day(0, 10, 10)},
		{"i-can", []string{"I can have comments to you by Tuesday"}, "send comments", day(6, 9, 0)},
		{"youll-have-inbox", []string{"you'll have the executed amendment in your inbox by end of day"}, "send the executed amendment", day(0, 17, 0)},
		{"expect-from-me", []string{"Expect the draft from me by Thursday"}, "send the draft", day(1, 9, 0)},
		{"be-sending", []string{"I'll be getting you the closing memo tomorrow at noon"}, "send the closing memo", day(1, 12, 0)},
		{"present-for-future", []string{"I'm filing the answer on Friday"}, "file the answer", day(2, 9, 0)},
		{"why-dont-i", []string{"why don't I send a blackline over by three"}, "send a blackline over", day(0, 15, 0)},
		{"what-ill-do", []string{"what I'll do is call the appraiser this afternoon"}, "call the appraiser", day(0, 14, 0)},
		{"go-ahead-and", []string{"I'll go ahead and file the stipulation tomorrow"}, "file the stipulation", day(1, 9, 0)},
		// Where the time is.
		{"time-first", []string{"Tonight I'm going to finish the brief"}, "finish the brief", day(0, 20, 0)},
		{"give-me-till", []string{"Give me till Friday and I'll have the memo done"}, "have the memo done", day(2, 9, 0)},
		{"time-after-pause", []string{"Okay. I'll send it over. By Friday."}, "send it over", day(2, 9, 0)},
		{"time-next-utterance", []string{"I'll send you the title report", "by end of day tomorrow"}, "send the title report", day(1, 17, 0)},
		{"within-the-hour", []string{"I'll update the closing statement and send it back within the hour"}, "update the closing statement and send it back", day(0, 11, 0)},
		{"in-the-next-minutes", []string{"I'll call the bank in the next twenty minutes"}, "call the bank", day(0, 10, 20)},
		{"tag-question", []string{"I'll send it over this afternoon, does that work for you?"}, "send it over", day(0, 14, 0)},
		{"courtesy-if", []string{"I'll send the redline by Friday if that works"}, "send the redline", day(2, 9, 0)},
		{"two-times-two-promises", []string{"I'll review the lease abstract tonight and send you my notes in the morning"}, "review the lease abstract", day(0, 20, 0)},
		// The reader's words: the other side is "them", never "you".
		{"call-you-back", []string{"I'll call you back in an hour"}, "call them back", day(0, 11, 0)},
		{"let-you-know", []string{"I'll let you know by Thursday whether we can accept"}, "let them know whether we can accept", day(1, 9, 0)},
		{"have-assistant-send", []string{"I'll have Jenna send you the closing set by Friday"}, "have Jenna send the closing set", day(2, 9, 0)},
		{"no-subject-will", []string{"will send the revised schedules first thing tomorrow"}, "send the revised schedules", day(1, 9, 0)},
		{"make-sure-you-have", []string{"I'll make sure you have the consent by Friday"}, "send the consent", day(2, 9, 0)},
		// A pronoun points back to the document named before.
		{"points-back", []string{"the motion to compel is in final form", "I'm going to file it Thursday"}, "file the motion to compel", day(1, 9, 0)},
		{"points-back-same-utterance", []string{"the seller's wire instructions changed, so I'll confirm them in half an hour"}, "confirm the seller's wire instructions", day(0, 10, 30)},
		{"points-back-not-to-a-person", []string{"Marcy asked again", "I'll call her back at two"}, "call her back", day(0, 14, 0)},
		{"points-back-nothing-named", []string{"I'll send it over by Friday"}, "send it over", day(2, 9, 0)},
		// Open commitments: logged, no time.
		{"open-look-into", []string{"I'll look into the indemnity question"}, "look into the indemnity question", open},
		{"open-get-back", []string{"I'll get back to you"}, "get back to them", open},
		{"timed-beats-open", []string{"I'll look into the title issue", "and I'll order the survey tomorrow"}, "order the survey", day(1, 9, 0)},
		// Nothing.
		{"question", []string{"Will you have it by Monday?"}, "", open},
		{"question-no-mark", []string{"are you going to file it tomorrow"}, "", open},
		{"question-will-you", []string{"will you send the revised schedules tomorrow"}, "", open},
		{"question-mark", []string{"I'll send it to you Friday?"}, "", open},
		{"their-promise", []string{"They'll get back to us by Monday"}, "", open},
		{"colleague-promise", []string{"my associate will circulate the draft tonight"}, "", open},
		{"reported", []string{"she thinks I'll file it Monday"}, "", open},
		{"their-task", []string{"you'll send me the comps by Monday"}, "", open},
		{"their-obligation", []string{"you will need to file it by Friday"}, "", open},
		{"past", []string{"I sent the draft over last night"}, "", open},
		{"past-intention", []string{"I was going to send it Friday"}, "", open},
		{"would", []string{"I'd send it tomorrow if I had the signature pages"}, "", open},
		{"could", []string{"I could get it to you by Monday"}, "", open},
		{"if-before", []string{"If the judge rules tomorrow I'll file the appeal on Monday"}, "", open},
		{"when-after", []string{"I'll send it when I get the numbers from the client tomorrow"}, "", open},
		{"unless-after", []string{"I'll send it tomorrow unless the client objects"}, "", open},
		{"hedge-before", []string{"Hopefully I'll have it by Friday"}, "", open},
		{"hedge-across-but", []string{"no promises but I'll send it tomorrow"}, "", open},
		{"hedge-after", []string{"I'll send it tomorrow, I think"}, "", open},
		{"try", []string{"I'll try and call you tomorrow"}, "", open},
		{"lower-bound", []string{"I'll send the redline Friday at the earliest"}, "", open},
		{"see-if", []string{"I'll see if I can get it to you by Friday"}, "", open},
		{"habit", []string{"usually I'll send it on Friday"}, "", open},
		{"refusal", []string{"I will not sign it by Monday"}, "", open},
		{"never", []string{"I'll never get it done by Friday"}, "", open},
		{"cant", []string{"I can't do Friday, I'm in trial"}, "", open},
		{"availability", []string{"I can make it at 2 tomorrow"}, "", open},
		{"state", []string{"I'll be on vacation next week"}, "", open},
		{"see-you", []string{"Thanks, I'll see you next Tuesday"}, "", open},
		{"mutual", []string{"we'll circle back next week"}, "", open},
		{"leisure", []string{"I'm going to watch the game tonight"}, "", open},
		{"let-me-know", []string{"Let me know if you need anything by Friday"}, "", open},
		{"let-me-no-time", []string{"let me check on that"}, "", open},
		{"relative-clause", []string{"the draft I'll send you tomorrow has the changes"}, "", open},
		{"embedded", []string{"that's what I'll be sending tomorrow"}, "", open},
		{"command", []string{"remind me to send the draft tomorrow"}, "", open},
		{"command-named", []string{"hey spirit I'll send the redline tomorrow"}, "", open},
		{"note-to-self", []string{"note to self, call the clerk at 3"}, "", open},
		{"media", []string{"welcome back to the show", "today I'll walk you through closings by Friday"}, "", open},
		{"empty", []string{"", "   "}, "", open},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := Detect(tc.utterances, wed, nil)
			if tc.task == "" {
				if ok {
					t.Errorf("Detect(%q) = %q (time %v), want nothing", tc.utterances, c.Task, c.HasTime)
				}
				return
			}
			if !ok {
				t.Fatalf("Detect(%q): nothing, want %q", tc.utterances, tc.task)
			}
			if c.Task != tc.task {
				t.Errorf("task %q, want %q", c.Task, tc.task)
			}
			if c.HasTime != !tc.deadline.IsZero() || !c.Deadline.Equal(tc.deadline) {
				t.Errorf("deadline %v (has time %v), want %v", c.Deadline, c.HasTime, tc.deadline)
			}
			if c.Key == "" || !strings.Contains(strings.Join(tc.utterances, "\n"), c.Words) || c.Words == "" {
				t.Errorf("key %q, words %q: want a key and the utterance it came from", c.Key, c.Words)
			}
		})
	}
}

// TestDetectLocation: the deadline is resolved and reported in the
// location given, whatever now's own.
func TestDetectLocation(t *testing.T) {
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Skipf("no zone data: %v", err)
	}
	now := time.Date(2026, 10, 28, 23, 30, 0, 0, time.UTC) // 16:30 in Los Angeles
	c, ok := Detect([]string{"I'll file the reply tonight"}, now, la)
	want := time.Date(2026, 10, 28, 20, 0, 0, 0, la)
	if !ok || !c.Deadline.Equal(want) || c.Deadline.Location() != la {
		t.Errorf("got %v %v, want %v in %v", c.Deadline, ok, want, la)
	}
}
