package mailtest

import (
	"slices"
	"testing"
)

func TestSplitMbox(t *testing.T) {
	data := []byte("From a@b Thu Jun 11 14:30:30 2026\nSubject: one\n\nFrom here on\n>From escaped\n\nFrom c@d Fri Jun 12 10:00:00 2026\nSubject: two\n\nbody\n")
	got := SplitMbox(data)
	want := []string{"Subject: one\n\nFrom here on\nFrom escaped\n", "Subject: two\n\nbody\n"}
	var gotS []string
	for _, g := range got {
		gotS = append(gotS, string(g))
	}
	if !slices.Equal(gotS, want) {
		t.Errorf("splitMbox = %q, want %q", gotS, want)
	}
}

func TestCRLF(t *testing.T) {
	if got := string(CRLF([]byte("a\nb\r\n\nc"))); got != "a\r\nb\r\n\r\nc" {
		t.Errorf("CRLF = %q", got)
	}
}
