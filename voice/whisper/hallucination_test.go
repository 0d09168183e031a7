package whisper

import "testing"

func TestIsHallucination(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		// Stock phrases over silence, as whisper writes them.
		{"Thank you.", true},
		{" Thank you. ", true},
		{"thank you", true},
		{"Thank you very much.", true},
		{"Thanks for watching!", true},
		{"Thank you for watching.", true},
		{"Thank you. Thank you.", true},
		{"Thanks for watching, and see you next time!", true},
		{"Please subscribe.", true},
		{"you", true},
		{"You", true},
		{"Bye.", true},
		{"Bye-bye.", true},
		{"Subtitles by the Amara.org community", true},
		{"Amara.org", true},
		// Tags, notes and punctuation only.
		{"[BLANK_AUDIO]", true},
		{"(music)", true},
		{"[Music]", true},
		{"(silence)", true},
		{"[ Silence ]", true},
		{"(upbeat music)", true},
		{"[MUSIC PLAYING] (applause)", true},
		{"* music *", true},
		{"♪", true},
		{"♪♪♪", true},
		{"...", true},
		{"-", true},
		{"BLANK_AUDIO", true},
		// Speech.
		{"", false},
		{"Remind me to call the client at five.", false},
		{"Thank you. Remind me at five.", false},
		{"Thank you for the draft, send it to Maria.", false},
		{"you need to file by Friday", false},
		{"Young v. Smith", false},
		{"[Music] remind me tomorrow", false},
		{"(a) the tenant shall pay", false},
		{"Section 2(b)", false},
		{"Call me [unbalanced", false},
		{"Subscribe me to the court's docket alerts", false},
		{"2024", false},
		{"Transcription by Friday, please.", false},
		{"Transcription by CastingWords", true},
	}
	for _, c := range cases {
		if got := IsHallucination(c.text); got != c.want {
			t.Errorf("IsHallucination(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
