package intent

import (
	"testing"
	"time"
)

func TestParsePrivacyControls(t *testing.T) {
	now := time.Date(2026, 11, 20, 10, 15, 0, 0, time.UTC)
	for text, want := range map[string]Kind{
		"pause listening":                     PauseListening,
		"Hey Spirit, stop listening please.":  PauseListening,
		"stop watching":                       PauseWatching,
		"okay resume":                         Resume,
		"never mind":                          Cancel,
		"what are my reminders?":              ListReminders,
		"I keep telling him to stop watching": None,
		"the court will resume at two":        None,
		"":                                    None,
	} {
		if got := Parse(text, now).Kind; got != want {
			t.Errorf("Parse(%q) = %s, want %s", text, got, want)
		}
	}
}
