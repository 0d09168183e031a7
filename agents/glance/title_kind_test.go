package glance

import "testing"

// TestParseTitleNotMessage covers the windows of each mail client that
// show no received message, and messages whose subjects use the same
// words, which must stay messages.
func TestParseTitleNotMessage(t *testing.T) {
	msg := func(client, subject string) TitleInfo { return TitleInfo{Client: client, Subject: subject} }
	not := func(client, kind string) TitleInfo { return TitleInfo{Client: client, NotMessage: kind} }
	tests := []struct {
		name, app, title string
		want             TitleInfo
	}{
		// Thunderbird.
		{"thunderbird compose reply", "Thunderbird", "Write: Re: SNDA - Brooklyn Gardens - Mozilla Thunderbird", not("thunderbird", WindowCompose)},
		{"thunderbird compose new", "thunderbird", "Write: (no subject) - Thunderbird", not("thunderbird", WindowCompose)},
		{"thunderbird password prompt", "Thunderbird", "Password Required - Mozilla Thunderbird", not("thunderbird", WindowPrompt)},
		{"thunderbird password prompt with server", "Thunderbird", "Password Required for Outgoing (SMTP) Server smtp.example.com", not("thunderbird", WindowPrompt)},
		{"thunderbird enter password", "Thunderbird", "Enter your password for dana@example.com", not("thunderbird", WindowPrompt)},
		{"thunderbird authentication", "Thunderbird", "Authentication Required - Mozilla Thunderbird", not("thunderbird", WindowPrompt)},
		{"thunderbird alert", "Thunderbird", "Alert", not("thunderbird", WindowDialog)},
		{"thunderbird error", "Thunderbird", "Error - Mozilla Thunderbird", not("thunderbird", WindowDialog)},
		{"thunderbird save as", "Thunderbird", "Save Message As", not("thunderbird", WindowDialog)},
		{"thunderbird close-draft prompt", "Thunderbird", "Save Message", not("thunderbird", WindowDialog)},
		{"thunderbird close-draft prompt with suffix", "Thunderbird", "Save Message - Mozilla Thunderbird", not("thunderbird", WindowDialog)},
		{"outlook discard prompt", "Microsoft Outlook", "Discard changes?", not("outlook", WindowDialog)},
		{"thunderbird print", "Thunderbird", "Print", not("thunderbird", WindowDialog)},
		{"thunderbird attach", "Thunderbird", "Attach File(s)", not("thunderbird", WindowDialog)},
		{"thunderbird about", "Thunderbird", "About Mozilla Thunderbird", not("thunderbird", WindowDialog)},
		{"thunderbird settings tab", "Thunderbird", "Settings - Mozilla Thunderbird", not("thunderbird", WindowSettings)},
		{"thunderbird account settings", "Thunderbird", "Account Settings - Mozilla Thunderbird", not("thunderbird", WindowSettings)},
		{"thunderbird preferences", "Thunderbird", "Thunderbird Preferences", not("thunderbird", WindowSettings)},
		{"thunderbird add-ons", "Thunderbird", "Add-ons Manager - Mozilla Thunderbird", not("thunderbird", WindowSettings)},
		{"thunderbird activity", "Thunderbird", "Activity Manager", not("thunderbird", WindowSettings)},
		{"thunderbird filters", "Thunderbird", "Message Filters", not("thunderbird", WindowSettings)},
		{"thunderbird calendar", "Thunderbird", "Calendar - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird tasks", "Thunderbird", "Tasks - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird address book", "Thunderbird", "Address Book - Mozilla Thunderbird", not("thunderbird", WindowContacts)},
		// Thunderbird's calendar tab titles the window with the view's
		// dates, in the lawyer's locale; its Chat tab with its name.
		{"thunderbird calendar week view", "Thunderbird", "December 6 – 12, 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar week across months", "Thunderbird", "November 29 – December 5, 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar week across years", "Thunderbird", "Dec 27, 2026 – Jan 2, 2027 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar month view", "Thunderbird", "December 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar day view", "Thunderbird", "Thursday, December 3, 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar week, British", "Thunderbird", "6–12 December 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar week, German", "Thunderbird", "6.–12. Dezember 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar week, French", "Thunderbird", "6 – 12 déc. 2026 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird calendar week number", "Thunderbird", "Week 49 - Mozilla Thunderbird", not("thunderbird", WindowCalendar)},
		{"thunderbird chat tab", "Thunderbird", "Chat - Mozilla Thunderbird", not("thunderbird", WindowChat)},
		// Outlook classic.
		{"outlook new message", "Microsoft Outlook", "Untitled - Message (HTML)", not("outlook", WindowCompose)},
		{"outlook new plain message", "OUTLOOK.EXE", "Untitled - Message (Plain Text)", not("outlook", WindowCompose)},
		{"outlook new message any app", "", "Untitled - Message (Rich Text)", not("outlook", WindowCompose)},
		{"outlook appointment", "Microsoft Outlook", "Closing call - Appointment", not("outlook", WindowCalendar)},
		{"outlook meeting", "Microsoft Outlook", "Untitled - Meeting", not("outlook", WindowCalendar)},
		{"outlook task", "Microsoft Outlook", "Send estoppels - Task", not("outlook", WindowCalendar)},
		{"outlook contact", "Microsoft Outlook", "Janet Cole - Contact", not("outlook", WindowContacts)},
		{"outlook options", "Microsoft Outlook", "Outlook Options", not("outlook", WindowSettings)},
		{"outlook rules", "Microsoft Outlook", "Rules and Alerts", not("outlook", WindowSettings)},
		{"outlook account settings", "Microsoft Outlook", "Account Settings", not("outlook", WindowSettings)},
		{"outlook password", "Microsoft Outlook", "Enter Password", not("outlook", WindowPrompt)},
		{"outlook sign in", "Microsoft Outlook", "Sign in", not("outlook", WindowPrompt)},
		{"outlook warning", "Microsoft Outlook", "Warning", not("outlook", WindowDialog)},
		{"outlook address book", "Microsoft Outlook", "Address Book: Offline Global Address List", not("outlook", WindowContacts)},
		// New Outlook and Outlook on the web.
		{"new outlook calendar", "Outlook (new)", "Calendar - Dana Whitfield - Outlook", not("outlook-web", WindowCalendar)},
		{"new outlook people", "Outlook (new)", "People - Dana Whitfield - Outlook", not("outlook-web", WindowContacts)},
		{"new outlook compose", "Outlook (new)", "New message - Dana Whitfield - Outlook", not("outlook-web", WindowCompose)},
		{"new outlook draft", "Outlook (new)", "[Draft] Re: Budget - Dana Whitfield - Outlook", not("outlook-web", WindowCompose)},
		{"new outlook settings", "Outlook (new)", "Settings - Dana Whitfield - Outlook", not("outlook-web", WindowSettings)},
		{"outlook web calendar", "Microsoft Edge", "Calendar - Dana Whitfield - Outlook - Microsoft\u200b Edge", not("outlook-web", WindowCalendar)},
		{"outlook web compose", "Microsoft Edge", "Untitled - Dana Whitfield - Outlook - Microsoft Edge", not("outlook-web", WindowCompose)},
		// Gmail and other webmail.
		{"gmail compose", "Google Chrome", "Compose Mail - dana@example.com - Gmail - Google Chrome", not("gmail", WindowCompose)},
		{"gmail settings", "Google Chrome", "Settings - dana@example.com - Gmail - Google Chrome", not("gmail", WindowSettings)},
		{"gmail contacts", "Firefox", "Contacts - dana@example.com - Gmail — Mozilla Firefox", not("gmail", WindowContacts)},
		{"webmail compose", "Firefox", "Compose - nadia@example.com - Calloway Finch Mail — Mozilla Firefox", not("webmail", WindowCompose)},
		// Apple Mail.
		{"apple mail new message", "Mail", "New Message", not("apple-mail", WindowCompose)},
		{"apple mail settings pane", "Mail", "Accounts", not("apple-mail", WindowSettings)},
		{"apple mail signatures", "Mail", "Signatures", not("apple-mail", WindowSettings)},
		{"apple mail about", "Mail", "About Mail", not("apple-mail", WindowDialog)},
		{"apple mail connection doctor", "Mail", "Connection Doctor", not("apple-mail", WindowDialog)},

		// Messages whose subjects use the same words stay messages.
		{"outlook subject with draft", "Microsoft Outlook", "RE: Draft SPA - Message (HTML)", msg("outlook", "RE: Draft SPA")},
		{"outlook subject draft alone", "Microsoft Outlook", "Draft - Message (HTML)", not("outlook", WindowCompose)},
		{"outlook reply looks like a message", "Microsoft Outlook", "RE: SNDA - Brooklyn Gardens - Message (HTML)", msg("outlook", "RE: SNDA - Brooklyn Gardens")},
		{"thunderbird subject with settings", "Thunderbird", "Re: Account settings for closing - Mozilla Thunderbird", msg("thunderbird", "Re: Account settings for closing")},
		{"thunderbird subject with calendar", "Thunderbird", "FW: Calendar for the closing - Mozilla Thunderbird", msg("thunderbird", "FW: Calendar for the closing")},
		{"thunderbird subject with a date", "Thunderbird", "Closing on December 6 - Mozilla Thunderbird", msg("thunderbird", "Closing on December 6")},
		{"thunderbird subject a date and a word", "Thunderbird", "December 6 hearing - Mozilla Thunderbird", msg("thunderbird", "December 6 hearing")},
		{"thunderbird subject a reply to a date", "Thunderbird", "Re: December 2026 - Mozilla Thunderbird", msg("thunderbird", "Re: December 2026")},
		{"thunderbird subject with chat", "Thunderbird", "Chat about the closing - Mozilla Thunderbird", msg("thunderbird", "Chat about the closing")},
		{"thunderbird subject a month and a matter", "Thunderbird", "May - Brooklyn Gardens - Mozilla Thunderbird", msg("thunderbird", "May - Brooklyn Gardens")},
		{"thunderbird subject about writing", "Thunderbird", "Re: Write-up of the closing - Mozilla Thunderbird", msg("thunderbird", "Re: Write-up of the closing")},
		{"thunderbird subject opens with settings", "Thunderbird", "Settings - closing binder - Mozilla Thunderbird", msg("thunderbird", "Settings - closing binder")},
		{"gmail subject with compose", "Google Chrome", "Re: Compose the closing memo - dana@example.com - Gmail - Google Chrome", msg("gmail", "Re: Compose the closing memo")},
		{"gmail subject with password", "Google Chrome", "Password for the data room - dana@example.com - Gmail - Google Chrome", msg("gmail", "Password for the data room")},
		{"new outlook subject with calendar", "Microsoft Edge", "Calendar for the closing - Dana Whitfield - Outlook - Microsoft Edge", msg("outlook-web", "Calendar for the closing")},
		{"apple mail subject about", "Mail", "About the closing", msg("apple-mail", "About the closing")},
		{"apple mail subject sign in", "Mail", "Sign in to the data room", msg("apple-mail", "Sign in to the data room")},
		{"outlook mac subject with meeting", "Microsoft Outlook", "Re: Meeting notes", msg("outlook", "Re: Meeting notes")},
		{"thunderbird drafts folder is a list", "Thunderbird", "Drafts - dana@example.com - Mozilla Thunderbird", TitleInfo{Client: "thunderbird", List: true}},
		{"gmail drafts folder is a list", "Google Chrome", "Drafts (2) - dana@example.com - Gmail - Google Chrome", TitleInfo{Client: "gmail", List: true}},
		{"word document is no client", "Microsoft Word", "Settings - Word", TitleInfo{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseTitle(tt.app, tt.title)
			if got != tt.want {
				t.Errorf("ParseTitle(%q, %q) = %+v, want %+v", tt.app, tt.title, got, tt.want)
			}
			if got.NotMessage != "" && got.Mail() {
				t.Errorf("ParseTitle(%q, %q).Mail() = true for a %s window", tt.app, tt.title, got.NotMessage)
			}
		})
	}
}

// TestWindowCases runs the labelled cases of windows that are not
// messages. They live apart from testdata/glance, whose titles seed
// FuzzParseTitle's Outlook property ("<title> - Message (HTML)" gives
// back its subject), which a compose or prompt title does not keep.
func TestWindowCases(t *testing.T) {
	runEval(t, "testdata/windows")
}
