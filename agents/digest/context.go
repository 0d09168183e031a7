package digest

import (
	"strings"
	"time"
)

// Limits of the context window, so a chatty hour cannot grow a prompt or
// the memory the loop keeps.
const (
	maxUtterances     = 5   // the last ones in the window
	maxUtteranceRunes = 300 // of each
	maxScreenRunes    = 600 // of the current window's text
	maxTimeline       = 20  // app switches kept in the window
	// keepInputs bounds each buffer whatever the window, so a flood of
	// events between two ticks costs a bounded amount of memory.
	keepInputs = 256
)

// Switch is one app switch as the digest keeps it: never a private or
// excluded window's title.
type Switch struct {
	At      time.Time `json:"at"`
	App     string    `json:"app"` // the product name (Product)
	Title   string    `json:"title,omitempty"`
	Private bool      `json:"private,omitempty"` // an excluded window: no title, never described
}

// Utterance is speech heard around the lawyer (not a command to Spirit).
type Utterance struct {
	At   time.Time `json:"at"`
	Text string    `json:"text"`
}

// ScreenRead is text the glance already read off a window. The digest
// never captures the screen: it only knows what the glance reported.
type ScreenRead struct {
	At    time.Time `json:"at"`
	App   string    `json:"app"` // the product name
	Chars int       `json:"chars"`
	// Text is what was read, while its window is in front: it is dropped
	// at the next switch, on a pause and for a private window, and is
	// never stored (see inputs.read).
	Text string `json:"text,omitempty"`
	// switched is the At of the switch the read belongs to.
	switched time.Time
}

// Current is the window in front.
type Current struct {
	App     string    `json:"app"`
	Title   string    `json:"title,omitempty"`
	Since   time.Time `json:"since"`
	Private bool      `json:"private,omitempty"`
}

// Context is the window of recent activity one analysis looks at.
type Context struct {
	Now    time.Time     `json:"now"`
	Window time.Duration `json:"-"` // the API shows it in seconds
	// Current is the window in front; nil before the first switch.
	Current *Current `json:"current,omitempty"`
	// Timeline is the app switches within the window, oldest first,
	// consecutive ones to the same app and title merged.
	Timeline []Switch `json:"timeline"`
	// Screen is what the glance read off the current window since it
	// came to the front; nil if it read nothing.
	Screen *ScreenRead `json:"screen,omitempty"`
	// Utterances is the speech heard within the window, oldest first.
	Utterances []Utterance `json:"utterances"`
	// CallSince is when the current call began (a call app in front);
	// zero when not on a call.
	CallSince time.Time `json:"call_since,omitzero"`
}

// AppHistory is the timeline's apps in order, repeats merged: "Outlook →
// Word → Outlook".
func (c Context) AppHistory() []string {
	var out []string
	for _, s := range c.Timeline {
		if len(out) == 0 || out[len(out)-1] != s.App {
			out = append(out, s.App)
		}
	}
	return out
}

// inputs is what the loop has been told since it started, bounded.
type inputs struct {
	switches   []Switch
	utterances []Utterance
	reads      []ScreenRead
	current    *Current
	callSince  time.Time
	// lastSwitch is the At of the latest switch, private ones included:
	// only a read of that switch's window may keep its text.
	lastSwitch time.Time
	// paused is set by a pause of the screen watcher and cleared by the
	// next switch (the watcher reports one when it resumes): reads that
	// end meanwhile keep no text.
	paused bool
}

// switched records a switch. A private window replaces the current one
// with one that has no title, so the window before it is not described
// as if it were still in front. The text read off the window left behind
// is forgotten: it was "on screen" only while it was in front.
func (in *inputs) switched(s Switch) {
	if s.Private {
		s.Title = ""
	}
	in.forgetText()
	in.lastSwitch, in.paused = s.At, false
	in.switches = appendBounded(in.switches, s)
	same := in.current != nil && in.current.App == s.App && in.current.Title == s.Title && in.current.Private == s.Private
	if !same {
		in.current = &Current{App: s.App, Title: s.Title, Since: s.At, Private: s.Private}
	}
	switch {
	case s.Private || !IsCall(s.App, s.Title):
		in.callSince = time.Time{}
	case in.callSince.IsZero():
		in.callSince = s.At
	}
}

func (in *inputs) heard(u Utterance) {
	if strings.TrimSpace(u.Text) == "" {
		return
	}
	in.utterances = appendBounded(in.utterances, u)
}

// read records what the glance read. Its text is kept, cut to
// maxScreenRunes, only when it was read off the window in front now: not
// a private window's, not one left behind since (a read that ended after
// a switch), not while the watcher is paused.
func (in *inputs) read(r ScreenRead) {
	keep := !in.paused && in.current != nil && !in.current.Private &&
		!in.lastSwitch.IsZero() && r.switched.Equal(in.lastSwitch)
	if keep {
		r.Text = clip(r.Text, maxScreenRunes)
	} else {
		r.Text = ""
	}
	in.reads = appendBounded(in.reads, r)
}

// pausedWatching forgets the screen's text and keeps none until the next
// switch.
func (in *inputs) pausedWatching() {
	in.forgetText()
	in.paused = true
}

// forgetText drops the text of every read, keeping how much was read.
func (in *inputs) forgetText() {
	for i := range in.reads {
		in.reads[i].Text = ""
	}
}

// prune drops what fell out of the window before now.
func (in *inputs) prune(cutoff time.Time) {
	in.switches = dropBefore(in.switches, cutoff, func(s Switch) time.Time { return s.At })
	in.utterances = dropBefore(in.utterances, cutoff, func(u Utterance) time.Time { return u.At })
	in.reads = dropBefore(in.reads, cutoff, func(r ScreenRead) time.Time { return r.At })
}

// context builds the window ending at now.
func (in *inputs) context(now time.Time, window time.Duration) Context {
	cutoff := now.Add(-window)
	c := Context{Now: now, Window: window, Timeline: []Switch{}, Utterances: []Utterance{}, CallSince: in.callSince}
	if in.current != nil {
		cur := *in.current
		c.Current = &cur
	}
	for _, s := range in.switches {
		if s.At.Before(cutoff) {
			continue
		}
		if n := len(c.Timeline); n > 0 && c.Timeline[n-1].App == s.App && c.Timeline[n-1].Title == s.Title {
			continue
		}
		c.Timeline = append(c.Timeline, s)
	}
	if n := len(c.Timeline); n > maxTimeline {
		c.Timeline = c.Timeline[n-maxTimeline:]
	}
	// The last few within the window, clipped: walk back from the newest.
	first := len(in.utterances)
	for first > 0 && len(in.utterances)-first < maxUtterances && !in.utterances[first-1].At.Before(cutoff) {
		first--
	}
	for _, u := range in.utterances[first:] {
		c.Utterances = append(c.Utterances, Utterance{At: u.At, Text: clip(u.Text, maxUtteranceRunes)})
	}
	// Only what was read off the window now in front, after it came to
	// the front: text of a window left behind is not "on screen".
	if cur := c.Current; cur != nil && !cur.Private {
		for i := len(in.reads) - 1; i >= 0; i-- {
			r := in.reads[i]
			// The glance names the app as the window list does, the switch
			// as the process does: the read's switch says it is this window.
			this := r.App == cur.App || (!r.switched.IsZero() && r.switched.Equal(in.lastSwitch))
			if this && !r.At.Before(cur.Since) {
				c.Screen = &r
				break
			}
		}
	}
	return c
}

func appendBounded[T any](s []T, v T) []T {
	s = append(s, v)
	if len(s) > keepInputs {
		s = append(s[:0], s[len(s)-keepInputs:]...)
	}
	return s
}

func dropBefore[T any](s []T, cutoff time.Time, at func(T) time.Time) []T {
	i := 0
	for i < len(s) && at(s[i]).Before(cutoff) {
		i++
	}
	if i == 0 {
		return s
	}
	return append(s[:0], s[i:]...)
}

// clip puts s on one line and shortens it to n runes.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n { // bytes ≥ runes: short enough
		return s
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
