package mail

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// nested is a message of depth multiparts, one inside the other, each
// with a text part naming its level before the next level.
func nested(depth int) string {
	var b strings.Builder
	b.WriteString("From: a@x.com\nSubject: deep\nContent-Type: multipart/mixed; boundary=b0\n\n")
	for i := range depth {
		fmt.Fprintf(&b, "--b%d\nContent-Type: text/plain\n\nlevel %d\n--b%d\nContent-Type: multipart/mixed; boundary=b%d\n\n", i, i, i, i+1)
	}
	for i := depth; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\n", i)
	}
	return b.String()
}

// manyParts is a multipart message of n text parts "part 0"…. The
// message itself counts as a part too.
func manyParts(n int) string {
	var b strings.Builder
	b.WriteString("From: a@x.com\nSubject: many\nContent-Type: multipart/mixed; boundary=b\n\n")
	for i := range n {
		fmt.Fprintf(&b, "--b\n\npart %d\n", i)
	}
	b.WriteString("--b--\n")
	return b.String()
}

// withPartHeader is a multipart message whose second part has header,
// between two text parts.
func withPartHeader(delimiter, header string) string {
	return "From: a@x.com\nSubject: header bomb\nContent-Type: multipart/mixed; boundary=b\n\n" +
		"--b\nContent-Type: text/plain\n\nbefore\n" +
		delimiter + "\n" + header + "Content-Type: text/plain\n\nbomb\n" +
		"--b\nContent-Type: text/plain\n\nafter\n--b--\n"
}

func TestParseCaps(t *testing.T) {
	shortLines := strings.Repeat("X-A: b\n", 200000) // 1.4 MB, 200,000 lines
	attachment := "--b\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n\n" +
		strings.Repeat(strings.Repeat("A", 76)+"\n", 1400) // 107 KB
	for _, tc := range []struct {
		name string
		msg  string
		max  int64 // ParseOptions.MaxBytes
		// want: the error (nil, or wrapping ErrPartialBody or
		// ErrTooLarge, and cause when set), and what the body has and
		// has not.
		wantErr      error
		cause        error
		has, hasNot  []string
		wantFailHead bool // the header could not be read: no message
	}{
		{name: "a hundred thousand parts stop at the cap", msg: manyParts(100000),
			wantErr: ErrPartialBody, cause: errTooManyParts,
			has: []string{"part 0\n", fmt.Sprintf("part %d", maxParts-2)}, hasNot: []string{fmt.Sprintf("part %d", maxParts-1)}},
		{name: "parts up to the cap are all read", msg: manyParts(maxParts - 1),
			has: []string{"part 0\n", fmt.Sprintf("part %d", maxParts-2)}},
		{name: "nesting stops at the cap", msg: nested(5000),
			wantErr: ErrPartialBody, cause: errTooDeep,
			has: []string{"level 0\n", fmt.Sprintf("level %d", maxDepth-1)}, hasNot: []string{fmt.Sprintf("level %d", maxDepth)}},
		{name: "nesting within the cap is read", msg: nested(maxDepth - 1),
			has: []string{"level 0\n", fmt.Sprintf("level %d", maxDepth-2)}},
		{name: "a part header of 200,000 lines", msg: withPartHeader("--b", shortLines),
			wantErr: ErrPartialBody, cause: errHeaderBudget, has: []string{"before"}, hasNot: []string{"bomb", "after"}},
		{name: "a part header of one 3 MB line", msg: withPartHeader("--b", "X-Long: "+strings.Repeat("x", 3<<20)+"\n"),
			wantErr: ErrPartialBody, cause: errHeaderBudget, has: []string{"before"}, hasNot: []string{"bomb", "after"}},
		{name: "a header bomb after a delimiter with trailing blanks", msg: withPartHeader("--b "+strings.Repeat(" \t", 100), shortLines),
			wantErr: ErrPartialBody, cause: errHeaderBudget, has: []string{"before"}, hasNot: []string{"bomb", "after"}},
		{name: "a normal part header", msg: withPartHeader("--b", "Content-Disposition: inline\n"),
			has: []string{"before", "bomb", "after"}},
		{name: "a message header of 200,000 lines", msg: "From: a@x.com\n" + shortLines + "\nbody\n",
			wantFailHead: true, cause: errHeaderBudget},
		{name: "over MaxBytes", max: 64 << 10,
			msg:     "From: a@x.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\n\ntext\n" + attachment + "--b--\n",
			wantErr: ErrTooLarge},
		{name: "within MaxBytes", max: 256 << 10,
			msg: "From: a@x.com\nContent-Type: multipart/mixed; boundary=b\n\n--b\n\ntext\n" + attachment + "--b--\n",
			has: []string{"text"}},
		{name: "exactly MaxBytes", max: int64(len("From: a@x.com\n\nbody\n")), msg: "From: a@x.com\n\nbody\n",
			has: []string{"body"}},
		{name: "one byte over MaxBytes", max: int64(len("From: a@x.com\n\nbody\n")) - 1, msg: "From: a@x.com\n\nbody\n",
			wantErr: ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseOptions{MaxBytes: tc.max}.Parse(strings.NewReader(tc.msg))
			switch {
			case tc.wantFailHead:
				if err == nil || errors.Is(err, ErrPartialBody) || m.From.Email != "" {
					t.Fatalf("want the header refused, got %+v, %v", m.From, err)
				}
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Parse: %v", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("Parse: %v, want %v", err, tc.wantErr)
			}
			if tc.cause != nil && !strings.Contains(err.Error(), tc.cause.Error()) {
				t.Errorf("error %q does not say %q", err, tc.cause)
			}
			if errors.Is(tc.wantErr, ErrTooLarge) && m.From.Email != "" {
				t.Errorf("a message over the cap came back: %+v", m)
			}
			if !tc.wantFailHead && !errors.Is(tc.wantErr, ErrTooLarge) && m.From.Email != "a@x.com" {
				t.Errorf("From %q", m.From.Email)
			}
			for _, s := range tc.has {
				if !strings.Contains(m.Body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(m.Body, s) {
					t.Errorf("body has %q", s)
				}
			}
		})
	}
}

func TestSkipSummary(t *testing.T) {
	large := TooLarge("INBOX", "7", 80<<20, MaxMessageBytes)
	small := TooLarge("INBOX", "8", 0, 64<<10)
	bad := Skip{Folder: "INBOX", Where: "offset 12", Reason: "no mail headers"}
	for _, tc := range []struct {
		name  string
		skips []Skip
		want  string
	}{
		{"none", nil, ""},
		{"too large", []Skip{large, large}, "skipped 2 too large to read (over 50 MB)"},
		{"a lowered cap", []Skip{small}, "skipped 1 too large to read (over 64 KB)"},
		{"unreadable", []Skip{bad}, "skipped 1 unreadable"},
		{"both", []Skip{large, bad, large}, "skipped 2 too large to read (over 50 MB) and 1 unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := SkipSummary(tc.skips); got != tc.want {
				t.Errorf("SkipSummary = %q, want %q", got, tc.want)
			}
		})
	}
	if large.Reason != "too large: 80 MB, over the 50 MB a message may have" || small.Reason != "too large: over the 64 KB a message may have" {
		t.Errorf("reasons %q, %q", large.Reason, small.Reason)
	}
}

func TestFormatSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int64
		want string
	}{
		{"bytes", 300, "300 bytes"},
		{"kilobytes", 64 << 10, "64 KB"},
		{"a megabyte and a half", 3 << 19, "1.5 MB"},
		{"whole megabytes", 2 << 20, "2 MB"},
		{"the cap", MaxMessageBytes, "50 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatSize(tc.n); got != tc.want {
				t.Errorf("FormatSize(%d) = %q, want %q", tc.n, got, tc.want)
			}
		})
	}
}
