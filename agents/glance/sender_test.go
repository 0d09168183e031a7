package glance

import (
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/index"
)

func TestMisread(t *testing.T) {
	tests := []struct {
		name, got, want string
		ok              bool
	}{
		{"a letter changed in a name", "Priva Natarajan", "Priya Natarajan", true},
		{"a letter changed at the end", "Kevin Ose!", "Kevin Osei", true},
		{"the first letter lost beside the picture", "natarajan@hartleyross.com", "pnatarajan@hartleyross.com", true},
		{"two letters in an 18-rune address", `\osei@oset-law.com`, "kosei@osei-law.com", true},
		{"case and spaces do not count", "rachel  KIM", "Rachel Kim", true},
		{"a short name one letter off is someone else", "Ann Lea", "Ann Lee", false},
		{"two letters in a 15-rune name", "Prlva Natarajen", "Priya Natarajan", false},
		{"another person at the same firm", "hcole@hartleyross.com", "pnatarajan@hartleyross.com", false},
		{"nothing read", "", "Priya Natarajan", false},
		{"at most three letters however long", "xxxxaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@example.com", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@example.com", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := misread(tt.got, tt.want); got != tt.ok {
				t.Errorf("misread(%q, %q) = %v, want %v", tt.got, tt.want, got, tt.ok)
			}
		})
	}
}

func TestMatchSender(t *testing.T) {
	priya := index.Thread{ID: 1, Messages: []index.ThreadMessage{
		{From: mail.Address{Name: "Dana Whitfield", Email: "dana.whitfield@hartleyross.com"}},
		{From: mail.Address{Name: "Priya  Natarajan", Email: "pnatarajan@hartleyross.com"}},
	}}
	tests := []struct {
		name string
		cand candidate
		want senderMatch
	}{
		{"no sender read", candidate{}, senderExact},
		{"the address", candidate{SenderEmail: "PNatarajan@hartleyross.com"}, senderExact},
		{"the name, spaced otherwise", candidate{SenderName: "Priya Natarajan", SenderFromScreen: true}, senderExact},
		{"a misread name off the screen", candidate{SenderName: "Priva Natarajan", SenderFromScreen: true}, senderNear},
		{"a misread address off the screen", candidate{SenderEmail: "natarajan@hartleyross.com", SenderFromScreen: true}, senderNear},
		{"an exact header is not misread", candidate{SenderName: "Priva Natarajan"}, senderNone},
		{"someone else", candidate{SenderName: "Hannah Cole", SenderEmail: "hcole@hartleyross.com", SenderFromScreen: true}, senderNone},
		{"a misread name and an exact address", candidate{SenderName: "Prlva Natarajen", SenderEmail: "pnatarajan@hartleyross.com", SenderFromScreen: true}, senderExact},
		{"the name whole, an address without its @ run into its row", candidate{SenderName: "Priya Natarajan pnatarajanhartleyrosscom", SenderFromScreen: true}, senderNear},
		{"the name whole beside a badge", candidate{SenderName: "(External) Priya Natarajan", SenderFromScreen: true}, senderNear},
		{"the address's letters run together, read as the name", candidate{SenderName: "pnatarajanhartleyrosscom", SenderFromScreen: true}, senderNear},
		{"the address's letters run together, m read as rn", candidate{SenderName: "pnatarajanhartleyrosscorn", SenderFromScreen: true}, senderNear},
		{"the address's letters, dots kept, @ lost", candidate{SenderEmail: "pnatarajan.hartleyross.com", SenderFromScreen: true}, senderNear},
		{"a garbled address is no one's from an exact header", candidate{SenderName: "Priya Natarajan pnatarajanhartleyrosscom"}, senderNone},
		{"someone else at the firm, garbled", candidate{SenderName: "Hannah Cole hcolehartleyrosscom", SenderFromScreen: true}, senderNone},
		{"one word of the name and a garble", candidate{SenderName: "Priya qzxwvhartleyrossc", SenderFromScreen: true}, senderNone},
		{"letters too few to tell", candidate{SenderName: "Hannah pnatar", SenderFromScreen: true}, senderNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchSender(priya, tt.cand); got != tt.want {
				t.Errorf("matchSender(%+v) = %d, want %d", tt.cand, got, tt.want)
			}
		})
	}
}

func TestPickThreads(t *testing.T) {
	a, b, c := index.Thread{ID: 1}, index.Thread{ID: 2}, index.Thread{ID: 3}
	ids := func(ts []index.Thread) []int64 {
		var out []int64
		for _, t := range ts {
			out = append(out, t.ID)
		}
		return out
	}
	tests := []struct {
		name        string
		exact, near []index.Thread
		want        []int64
	}{
		{"none", nil, nil, nil},
		{"an exact sender wins over a near one", []index.Thread{a}, []index.Thread{b}, []int64{1}},
		{"a near sender alone", nil, []index.Thread{b}, []int64{2}},
		{"two near senders tie: the caller stays silent", nil, []index.Thread{b, c}, []int64{2, 3}},
		{"two exact senders tie as before", []index.Thread{a, b}, []index.Thread{c}, []int64{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(pickThreads(tt.exact, tt.near))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}
