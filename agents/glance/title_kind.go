package glance

import (
	"regexp"
	"slices"
	"strings"
)

// Kinds of mail-client window that show no received message
// (TitleInfo.NotMessage). A glance at one is silent without a search: a
// compose window's subject is the user's own reply, and a dialog's title
// is no subject at all.
const (
	// WindowCompose: a new message, a reply or a draft being written.
	WindowCompose = "compose"
	// WindowPrompt: a password, sign-in or authentication prompt.
	WindowPrompt = "prompt"
	// WindowDialog: an alert, a file or print dialog, an About box.
	WindowDialog = "dialog"
	// WindowSettings: preferences, account settings, filters, add-ons.
	WindowSettings = "settings"
	// WindowCalendar: the calendar, tasks, events and reminders.
	WindowCalendar = "calendar"
	// WindowContacts: the address book and contacts.
	WindowContacts = "contacts"
	// WindowChat: a client's chat or instant-messaging tab.
	WindowChat = "chat"
)

var (
	// A window that writes a message names itself before the subject:
	// Thunderbird's "Write: Re: …", "[Draft] …" or "(Draft) …".
	composePrefixRe = regexp.MustCompile(`(?i)^(?:write\s*:|\[draft\]|\(draft\))`)
	// Outlook's and Apple Mail's compose windows before a subject is
	// typed, and webmail compose pages. Matched against the whole title
	// part, never a word inside a subject.
	composeNameRe = regexp.MustCompile(`(?i)^(?:compose(?: mail| message| email)?|new (?:message|mail|email)|untitled|draft)$`)
	// Password prompts. Some titles go on with the account or server
	// ("Enter your password for dana@x.com", "Password Required for
	// Outgoing (SMTP) Server …"): for those the opening words count, for
	// the rest (which could open a subject) the whole name.
	promptRe = regexp.MustCompile(`(?i)^(?:password required\b|enter (?:your )?password\b|authentication required\b|(?:sign|log)[ -]?in(?: to your account)?$|authentication(?: failed)?$|password$|mail server password$)`)
	// Dialogs, settings, calendar and address-book views, by their whole
	// name; trailing words after a dialog's name are its detail ("Save
	// Message As…").
	dialogNameRe   = regexp.MustCompile(`(?i)^(?:alert|warning|error|confirm(?:ation)?|question|save (?:message |attachments? )?as|save attachments?(?:\(s\))?|save (?:message|draft|changes)\??|discard (?:message|draft|changes)\??|unsaved changes|print(?: preview)?|page setup|attach file(?:s|\(s\))?|insert (?:file|attachment)s?|open|browse|choose (?:a )?file|select (?:a )?file|check spelling|spelling|find|find in message|about (?:mozilla thunderbird|thunderbird|mail|microsoft outlook|outlook)|connection doctor|activity)$`)
	settingsNameRe = regexp.MustCompile(`(?i)^(?:(?:thunderbird |outlook |mail |account |gmail |email )?(?:preferences|settings|options)|account setup|account manager|accounts|add-?ons(?: manager| and themes)?|extensions|themes|activity manager|(?:message )?filters?|filter rules|rules(?: and alerts)?|manage rules(?: & alerts| and alerts)?|config editor|advanced preferences|troubleshooting information|junk mail controls|signatures|mailbox behaviors)$`)
	calendarNameRe = regexp.MustCompile(`(?i)^(?:calendar|calendars|tasks|to ?do|today pane|new event|edit event|new task|edit task|new appointment|new meeting|event reminders?|reminders?|scheduling assistant)$`)
	chatNameRe     = regexp.MustCompile(`(?i)^(?:chat|chats|instant messaging|chat accounts)$`)
	contactsNameRe = regexp.MustCompile(`(?i)^(?:address book(?::.*)?|address books|contacts|people|new contact|edit contact|contact|distribution list)$`)
	// Outlook for Windows titles an item window "<name> - <item type>":
	// appointments, meetings, contacts and tasks are not messages.
	outlookItemRe = regexp.MustCompile(`(?i)\s+-\s+(?:(contact|contact group|distribution list)|appointment|appointment series|meeting|meeting series|meeting occurrence|task|task request|journal entry)$`)
	// Apple Mail's Settings window is titled with the open pane's name.
	appleMailPaneRe = regexp.MustCompile(`(?i)^(?:general|accounts|junk mail|fonts (?:&|and) colou?rs|viewing|composing|signatures|rules|extensions|privacy)$`)
	// Counts and ellipses that close a view's name ("Tasks (3)").
	viewTailRe = regexp.MustCompile(`\s*(?:\(\d+\)|…|\.\.\.)$`)
)

// notMessageKind says which kind of window part names, a title of mail
// client client without the client's and browser's names and without an
// account given by name ("Write: Re: SNDA - Brooklyn Gardens", "Account
// Settings", "Settings - dana@x.com"), or "" when it may show a received
// message.
//
// Only a title's structure is read: a kind is named by a prefix a client
// puts before the subject ("Write:") or by a whole title part that is a
// window's name ("Address Book"), never by a word inside a subject, so
// "Re: Account settings for closing" and "FW: Calendar for the closing"
// stay messages. Where the title cannot tell — Outlook titles a reply it
// composes "RE: <subject> - Message (HTML)" exactly like the message it
// answers — the window is taken for a message, as before: a compose
// window missed costs a needless search, a message missed costs a nudge.
func notMessageKind(client, part string) string {
	part = strings.TrimSpace(part)
	if part == "" {
		return ""
	}
	if composePrefixRe.MatchString(part) {
		return WindowCompose
	}
	if calendarView(part) {
		return WindowCalendar
	}
	if client == "outlook" {
		if m := outlookItemRe.FindStringSubmatch(part); m != nil {
			if m[1] != "" {
				return WindowContacts
			}
			return WindowCalendar
		}
	}
	// The window's name is the title part without an account address
	// that follows it ("Settings - dana@x.com").
	parts := titleSepRe.Split(part, -1)
	for len(parts) > 1 && titleAddrRe.MatchString(strings.TrimSpace(parts[len(parts)-1])) {
		parts = parts[:len(parts)-1]
	}
	name := strings.TrimSpace(viewTailRe.ReplaceAllString(strings.TrimSpace(parts[0]), ""))
	whole := len(parts) == 1
	switch {
	case promptRe.MatchString(name):
		return WindowPrompt
	case !whole:
		// A name followed by more than an account is a subject that
		// starts with a window's name ("Settings - closing binder").
		return ""
	case composeNameRe.MatchString(name):
		return WindowCompose
	case dialogNameRe.MatchString(name):
		return WindowDialog
	case settingsNameRe.MatchString(name):
		return WindowSettings
	case calendarNameRe.MatchString(name):
		return WindowCalendar
	case contactsNameRe.MatchString(name):
		return WindowContacts
	case chatNameRe.MatchString(name):
		return WindowChat
	case client == "apple-mail" && appleMailPaneRe.MatchString(name):
		return WindowSettings
	}
	return ""
}

// calendarView reports whether a title part is only a date or a range of
// dates: a calendar view's title, as Thunderbird's calendar tab names the
// window after the days it shows ("December 6 – 12, 2026", "6.–12.
// Dezember 2026", "Thursday, December 3, 2026", "Week 49") in the
// lawyer's locale. Every word must be a month's or a weekday's name, a
// number or a week's name, with at least one number and one name: a
// subject that has a single other word ("December 6 hearing", "Re:
// December 2026") stays a subject.
func calendarView(part string) bool {
	words := strings.FieldsFunc(strings.ToLower(part), func(r rune) bool {
		switch r {
		case ' ', '\t', ',', '.', '/', '-', '–', '—':
			return true
		}
		return false
	})
	var number, name bool
	for _, w := range words {
		switch {
		case len(w) <= 4 && strings.Trim(w, "0123456789") == "":
			number = true
		case calendarWord(w, monthNames), calendarWord(w, weekdayNames):
			name = true
		case slices.Contains(weekWords, w):
			name = true
		case slices.Contains(rangeWords, w):
		default:
			return false
		}
	}
	return number && name
}

// calendarWord reports whether w is one of names or the start of one, as
// calendars abbreviate them ("Dec", "déc", "Thurs"), three letters at least.
func calendarWord(w string, names []string) bool {
	if len([]rune(w)) < 3 {
		return false
	}
	for _, n := range names {
		if strings.HasPrefix(n, w) {
			return true
		}
	}
	return false
}

// The names calendar views are titled with, in the languages of the
// lawyers Spirit is set up for: English, German, French, Spanish,
// Italian, Dutch and Portuguese.
var (
	monthNames = strings.Fields(`january february march april may june july august september october november december
		januar februar märz mai juni juli oktober dezember
		janvier février mars avril juin juillet août septembre octobre novembre décembre
		enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
		gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre
		januari februari maart mei augustus
		janeiro fevereiro março maio junho julho setembro outubro novembro dezembro`)
	weekdayNames = strings.Fields(`monday tuesday wednesday thursday friday saturday sunday
		montag dienstag mittwoch donnerstag freitag samstag sonntag
		lundi mardi mercredi jeudi vendredi samedi dimanche
		lunes martes miércoles jueves viernes sábado domingo
		lunedì martedì mercoledì giovedì venerdì sabato domenica
		maandag dinsdag woensdag donderdag vrijdag zaterdag zondag
		segunda terça quarta quinta sexta`)
	weekWords  = strings.Fields(`week wk kw cw woche semaine semana settimana`)
	rangeWords = strings.Fields(`to of bis au du de del al tot a à`)
)
