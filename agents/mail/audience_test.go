package mail

import (
	"slices"
	"testing"
)

func TestAudienceOf(t *testing.T) {
	me := Me{Name: "Nadia Brennan", Addresses: []string{"nbrennan@brennanwolfe.com", "Nadia@BrennanWolfe.com"}}
	nadia := Address{Name: "Nadia Brennan", Email: "NBrennan@brennanwolfe.com"}
	alias := Address{Email: "nadia@brennanwolfe.com"}
	gil := Address{Name: "Gil Ferreira", Email: "gferreira@brennanwolfe.com"}
	leah := Address{Name: "Leah Sorensen", Email: "lsorensen@sorensenkeel.com"}
	tests := []struct {
		name   string
		to, cc []Address
		body   string
		me     Me
		want   Audience
	}{
		{name: "in To", to: []Address{nadia}, body: "Can you send it?", want: Addressed},
		{name: "in To by an alias", to: []Address{leah, alias}, body: "Thoughts?", want: Addressed},
		{name: "in To and Cc", to: []Address{nadia}, cc: []Address{nadia}, want: Addressed},
		{name: "in Cc, the greeting to the one in To", to: []Address{gil}, cc: []Address{nadia}, body: "Hi Gil,\n\nCan you chase the other two?", want: Copied},
		{name: "in Cc, copied for the file", to: []Address{leah}, cc: []Address{nadia}, body: "Tomás,\n\nCopying Nadia for the file only. Could you confirm the wire?", want: Copied},
		{name: "in Cc, mentioned", to: []Address{gil}, cc: []Address{nadia}, body: "Gil –\n\nNadia mentioned the lender wants a guaranty. Still so?", want: Copied},
		{name: "in Cc, cc'ing her", to: []Address{gil}, cc: []Address{nadia}, body: "+Nadia for visibility. Gil, can you look?", want: Copied},
		{name: "in Cc, called on in a later paragraph", to: []Address{gil}, cc: []Address{nadia}, body: "Gil, the rent roll is attached.\n\nNadia, could you tell me whether they need estoppels?", want: CalledOn},
		{name: "in Cc, called on mid-line", to: []Address{gil}, cc: []Address{nadia}, body: "Thanks Gil. Nadia, could you confirm?", want: CalledOn},
		{name: "in Cc, greeted with another", to: []Address{leah}, cc: []Address{nadia}, body: "Leah and Nadia,\n\nCan you both confirm?", want: CalledOn},
		{name: "in Cc, greeted among three", to: []Address{leah}, cc: []Address{nadia}, body: "Hi Leah, Tomás and Nadia –\nWorks?", want: CalledOn},
		{name: "in Cc, by title and surname", to: []Address{leah}, cc: []Address{nadia}, body: "Dear Ms. Brennan:\nPlease advise.", want: CalledOn},
		{name: "in Cc, by @name", to: []Address{leah}, cc: []Address{nadia}, body: "Looping in @Nadia on the carve-out question.", want: CalledOn},
		{name: "in Cc, her name in a forwarded part only", to: []Address{gil}, cc: []Address{nadia},
			body: "Gil, see below.\n\n---------- Forwarded message ---------\nNadia, can you review?", want: Copied},
		{name: "blind-copied", to: []Address{leah}, body: "Leah, can your client agree?", want: Unlisted},
		{name: "the court's robot in To", to: []Address{{Email: "efile-notices@ecf.example"}}, body: "Nadia Brennan", want: Unlisted},
		{name: "no addresses known", to: []Address{leah}, me: Me{Name: "Nadia"}, want: Unknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := me
			if tc.me.Name != "" || tc.me.Addresses != nil {
				m = tc.me
			}
			got := AudienceOf(tc.to, tc.cc, tc.body, m)
			if got != tc.want {
				t.Errorf("AudienceOf() = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestToMe(t *testing.T) {
	for a, want := range map[Audience]bool{Unlisted: false, Copied: false, CalledOn: true, Addressed: true, Unknown: true} {
		if got := a.ToMe(); got != want {
			t.Errorf("%v.ToMe() = %v, want %v", a, got, want)
		}
	}
}

func TestVocative(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"Gil,", []string{"Gil"}},
		{"Gil, the rent roll is attached.", []string{"Gil"}},
		{"Hi Gil,", []string{"Gil"}},
		{"Hi Gil and Nadia –", []string{"Gil", "Nadia"}},
		{"Leah, Tomás, and Nadia:", []string{"Leah", "Tomás", "Nadia"}},
		{"Dear Ms. Brennan:", []string{"Ms. Brennan"}},
		{"Good morning Hal Whitcombe,", []string{"Hal Whitcombe"}},
		{"Ray - please circulate", []string{"Ray"}},
		{"All,", []string{"All"}},
		{"Nadia", []string{"Nadia"}},
		{"Nadia mentioned the lender", nil},
		{"Copying Nadia for the file only.", nil},
		{"thanks, see attached", nil},
		{"", nil},
	}
	for _, tc := range tests {
		if got := Vocative(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("Vocative(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}
