// Package intent turns a transcript into what the lawyer asked Spirit to do.
package intent

import (
	"regexp"
	"strings"
	"time"
)

// Kind names an intent, as in shared/cases/README.md.
type Kind string

const (
	Remind         Kind = "remind"
	Cancel         Kind = "cancel"
	Snooze         Kind = "snooze"
	ListReminders  Kind = "list_reminders"
	PauseListening Kind = "pause_listening"
	PauseWatching  Kind = "pause_watching"
	Resume         Kind = "resume"
	Task           Kind = "task"
	None           Kind = "none"
)

// Intent is one parsed command.
type Intent struct {
	Kind    Kind       `json:"intent"`
	Task    string     `json:"task,omitempty"`
	Due     *time.Time `json:"due,omitempty"`
	Every   string     `json:"every,omitempty"`
	Minutes int        `json:"minutes,omitempty"`
}

var (
	fillerRe = regexp.MustCompile(`^(?:(?:hey|ok|okay)\s+spirit|spirit|um+|uh+|so|okay|ok|please|oh)[\s,.!]+`)
	rules    = []struct {
		re   *regexp.Regexp
		kind Kind
	}{
		{regexp.MustCompile(`^(?:please\s+)?(?:stop|pause|mute)\s+(?:listening|the mic(?:rophone)?)\b`), PauseListening},
		{regexp.MustCompile(`^(?:please\s+)?(?:stop|pause)\s+(?:watching|looking at (?:my|the) screen)\b`), PauseWatching},
		{regexp.MustCompile(`^(?:please\s+)?(?:resume|start (?:listening|watching) again|unpause|you can (?:listen|watch) again)\b`), Resume},
		{regexp.MustCompile(`^(?:never\s*mind|cancel (?:that|it)|forget (?:that|it)|undo (?:that|it))\b`), Cancel},
		{regexp.MustCompile(`^(?:what are my reminders|list (?:my )?reminders|what reminders do i have)\b`), ListReminders},
	}
)

// Parse reads a transcript heard at now. It recognises the privacy controls
// and simple commands; everything else is None, because doing nothing is the
// safe answer to speech Spirit does not understand.
func Parse(text string, now time.Time) Intent {
	s := normalize(text)
	for _, r := range rules {
		if r.re.MatchString(s) {
			return Intent{Kind: r.kind}
		}
	}
	return Intent{Kind: None}
}

func normalize(text string) string {
	s := strings.ToLower(strings.TrimSpace(text))
	s = strings.Join(strings.Fields(s), " ")
	for {
		t := fillerRe.ReplaceAllString(s, "")
		if t == s {
			break
		}
		s = t
	}
	return strings.Trim(s, " .!?,")
}
