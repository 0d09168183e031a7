package glance

import "testing"

func TestParseTitle(t *testing.T) {
	tests := []struct {
		app, title string
		want       TitleInfo
	}{
		{"Microsoft Outlook", "RE: SNDA - Brooklyn Gardens - Message (HTML)", TitleInfo{Client: "outlook", Subject: "RE: SNDA - Brooklyn Gardens"}},
		{"Microsoft Outlook", "Quarterly report - Message (Plain Text)", TitleInfo{Client: "outlook", Subject: "Quarterly report"}},
		{"OUTLOOK.EXE", "Lease draft - Message (Rich Text)", TitleInfo{Client: "outlook", Subject: "Lease draft"}},
		{"Microsoft Outlook", "Inbox - dana@example.com - Outlook", TitleInfo{Client: "outlook-web", List: true}},
		{"Outlook (new)", "Mail - Dana Whitfield - Outlook", TitleInfo{Client: "outlook-web", List: true}},
		{"Microsoft Outlook", "Inbox • dana@example.com", TitleInfo{Client: "outlook", List: true}},
		{"Microsoft Outlook", "Re: Tax opinion", TitleInfo{Client: "outlook", Subject: "Re: Tax opinion"}},
		{"Thunderbird", "Re: Engagement Letter – Acme LLC - Mozilla Thunderbird", TitleInfo{Client: "thunderbird", Subject: "Re: Engagement Letter – Acme LLC"}},
		{"Thunderbird", "Inbox - Mozilla Thunderbird", TitleInfo{Client: "thunderbird", List: true}},
		{"thunderbird", "Inbox - graham@example.com - Mozilla Thunderbird", TitleInfo{Client: "thunderbird", List: true}},
		{"Thunderbird", "RE: Purchase Agreement – Seller's Responses to Buyer's Du… - Mozilla Thunderbird", TitleInfo{Client: "thunderbird", Subject: "RE: Purchase Agreement – Seller's Responses to Buyer's Du…"}},
		{"Google Chrome", "Subject here - dana@example.com - Gmail - Google Chrome", TitleInfo{Client: "gmail", Subject: "Subject here"}},
		{"Google Chrome", "Inbox (3) - dana@example.com - Gmail - Google Chrome", TitleInfo{Client: "gmail", List: true}},
		{"Google Chrome", "Re: A – B - nadia@example.com - Calloway Finch Mail - Google Chrome", TitleInfo{Client: "webmail", Subject: "Re: A - B"}},
		{"Firefox", "Re: Budget - me@example.com - Gmail — Mozilla Firefox", TitleInfo{Client: "gmail", Subject: "Re: Budget"}},
		{"Microsoft Edge", "Re: Budget - Dana Whitfield - Outlook - Microsoft Edge", TitleInfo{Client: "outlook-web", Subject: "Re: Budget"}},
		{"Mail", "Inbox – 12 messages, 3 unread", TitleInfo{Client: "apple-mail", List: true}},
		{"Mail", "Re: Closing documents", TitleInfo{Client: "apple-mail", Subject: "Re: Closing documents"}},
		{"Google Chrome", "CM/ECF - U.S. District Court:ilnd - Civil Events - Google Chrome", TitleInfo{}},
		{"Microsoft Word", "Estoppel Certificate – Corvid comments - Word", TitleInfo{}},
		{"Adobe Acrobat Reader", "Report.pdf - Adobe Acrobat Reader (64-bit)", TitleInfo{}},
		{"gnome-terminal", "user@host: ~/src", TitleInfo{}},
	}
	for _, tt := range tests {
		if got := ParseTitle(tt.app, tt.title); got != tt.want {
			t.Errorf("ParseTitle(%q, %q) = %+v, want %+v", tt.app, tt.title, got, tt.want)
		}
	}
}

func TestParseScreen(t *testing.T) {
	tests := []struct {
		name, text string
		want       ScreenInfo
	}{
		{"outlook reading pane", "Reply   Reply All   Forward\nRE: Closing Checklist\nJC   Janet Cole <jcole@example.com>\nTo   Dana Whitfield\nThu 6/18/2026 3:02 PM\nAll,",
			ScreenInfo{Email: true, Subject: "RE: Closing Checklist", SenderName: "Janet Cole", SenderEmail: "jcole@example.com"}},
		{"ocr slips", "New mail v   Delete   Archive   Reply   Reply all   Forward\nEstoppel Certifcate — 44 Pine\nGE   Grant Ellison <gellison@example.corn>\n     To: Dana Whitfield\n     Fri 6/19/2026 9:05 AM",
			ScreenInfo{Email: true, Subject: "Estoppel Certifcate — 44 Pine", SenderName: "Grant Ellison", SenderEmail: "gellison@example.com"}},
		{"ocr spaces the at sign", "Reply   Reply All   Forward\nSNDA - Brooklyn Gardens\nMH   Marcy Howard <mhoward @greenleafmarkets.com>\nTo   Dana Whitfield\nThu 6/18/2026 3:02 PM",
			ScreenInfo{Email: true, Subject: "SNDA - Brooklyn Gardens", SenderName: "Marcy Howard", SenderEmail: "mhoward@greenleafmarkets.com"}},
		{"header block", "Get Messages   Write\nFrom   Marisol Alvarez <marisol@example.com>\nSubject   Re: Engagement Letter\nTo   Graham Oduya <graham@example.com>\nDate   6/18/26, 9:58 AM\nReply   Forward   Archive",
			ScreenInfo{Email: true, Subject: "Re: Engagement Letter", SenderName: "Marisol Alvarez", SenderEmail: "marisol@example.com"}},
		{"document with To and Re", "TENANT ESTOPPEL CERTIFICATE\nTo: Pine Street Owner LLC\nRe: Lease dated March 3, 2021\nPage 2 of 3", ScreenInfo{}},
	}
	for _, tt := range tests {
		if got := ParseScreen(tt.text); got != tt.want {
			t.Errorf("%s: ParseScreen = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestFindAsk(t *testing.T) {
	tests := []struct {
		body   string
		others []string
		needs  bool
	}{
		{"Thanks, no action needed.\nBest,\nAnna", nil, false},
		{"Perfect, thank you! That's all I needed.\nMarisol", nil, false},
		{"FYI, the signed copy is attached for your records.\nPlease let me know if you have any questions.", nil, false},
		{"Can you confirm the closing date?\nThanks", nil, true},
		{"We need the signed certificate by Wednesday.", nil, true},
		{"Ray – please circulate the pro forma.", []string{"Ray"}, false},
		{"Dana – two questions:\n1. Do you expect the estoppels by Tuesday?\nRay – please circulate the pro forma.", []string{"Ray"}, true},
	}
	for _, tt := range tests {
		_, needs, err := findAsk(t.Context(), tt.body, "Dana Whitfield", tt.others)
		if err != nil || needs != tt.needs {
			t.Errorf("findAsk(%q) = %v, %v, want %v", tt.body, needs, err, tt.needs)
		}
	}
}

func TestNudgeLength(t *testing.T) {
	m := waitingMessage("Someone With A Long Name", "A very long subject line that goes on and on about the purchase and sale agreement and its schedules")
	if n := len([]rune(m)); n > maxMessage {
		t.Errorf("nudge is %d runes: %q", n, m)
	}
}

func TestSentences(t *testing.T) {
	got := sentences("The cap is 10%. Is that fine? See Section 4.2 and No. 2 of the list. Done")
	want := []string{"The cap is 10%.", "Is that fine?", "See Section 4.2 and No. 2 of the list.", "Done"}
	if len(got) != len(want) {
		t.Fatalf("sentences = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sentence %d = %q, want %q", i, got[i], want[i])
		}
	}
}
