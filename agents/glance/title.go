package glance

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail/index"
)

// TitleInfo is what a window title says about the email on screen.
type TitleInfo struct {
	// Client names the mail client recognised ("outlook", "thunderbird",
	// "gmail", "webmail", "apple-mail", "outlook-web"); empty when the
	// window is not a known mail client.
	Client string
	// List is true when the window shows a folder or message list rather
	// than one message: the title then carries no subject, and the screen
	// text must say which message is open.
	List bool
	// Subject is the subject as the title shows it (possibly truncated
	// with "…"); empty when the title has none.
	Subject string
	// NotMessage names the kind of a mail client's window that shows no
	// received message (WindowCompose, WindowPrompt, WindowDialog,
	// WindowSettings, WindowCalendar, WindowContacts); List and Subject
	// are then unset. Empty for a message or a list view.
	NotMessage string
}

// Mail reports whether the title is a known mail client's window showing
// mail: a message or a list of them. A compose window, a prompt, a
// dialog, settings, a calendar or an address book is not, so nothing
// reads its screen for a message.
func (t TitleInfo) Mail() bool { return t.Client != "" && t.NotMessage == "" }

// other is the TitleInfo of client's window of the given kind, or ok
// false when kind is "" (the window may show mail).
func other(client, kind string) (TitleInfo, bool) {
	return TitleInfo{Client: client, NotMessage: kind}, kind != ""
}

var (
	// Outlook for Windows names a message window "<subject> - Message
	// (HTML)"; the format part varies with the message.
	outlookMessageRe = regexp.MustCompile(`(?i)^(.*?)\s+-\s+Message\s+\((?:HTML|Plain Text|Rich Text)\)$`)
	// An email address, the account part of webmail titles.
	titleAddrRe = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)
	// A folder or view name: a title that is only this is a list view.
	folderRe = regexp.MustCompile(`(?i)^(?:mail|inbox|outbox|sent(?: items| mail)?|drafts?|starred|snoozed|important|all mail|spam|junk(?: email)?|trash|deleted items|archive|search results?|calendar|people|contacts|focused|other|unread|flagged|home)(?:\s*\(\d+\))?(?:\s*[-–—•]\s*\d+ (?:messages?|unread).*)?$`)
	// A webmail product name closing a browser title: "Gmail", "Calloway
	// Finch Mail", "Yahoo Mail", "Proton Mail", "Outlook", "Fastmail".
	webmailRe = regexp.MustCompile(`(?i)^(?:.*\bmail|gmail|outlook|fastmail|mail\.com|zoho mail|roundcube webmail|webmail)$`)
	// Browser names that close a browser window's title.
	browserSuffixRe = regexp.MustCompile(`(?i)\s+[-–—]\s+(?:Google Chrome|Chromium|Mozilla Firefox|Firefox|Microsoft\x{200b}?\s*Edge|Brave|Opera|Vivaldi|Safari|Arc)(?:\s+.*)?$`)
	// Thunderbird closes every title with its name.
	thunderbirdSuffixRe = regexp.MustCompile(`(?i)\s+[-–—]\s+(?:Mozilla\s+)?Thunderbird$`)
	// Browser app names.
	browserAppRe = regexp.MustCompile(`(?i)chrome|chromium|firefox|edge|brave|opera|vivaldi|safari|\barc\b`)
)

// titleSep splits titles into their " - " parts; clients use hyphens, en
// and em dashes and bullets interchangeably as separators.
var titleSepRe = regexp.MustCompile(`\s+[-–—•|]\s+`)

// ParseTitle reads a window title the way the triage needs it: whether it
// is a mail client, whether it shows one message, and that message's
// subject. Only the title's structure is used, never its words beyond
// client and folder names, so that it works for any subject.
func ParseTitle(app, title string) TitleInfo {
	title = strings.TrimSpace(capTitle(title))
	lowApp := strings.ToLower(app)
	switch {
	case strings.Contains(lowApp, "thunderbird") || thunderbirdSuffixRe.MatchString(title):
		return parseThunderbird(title)
	case browserAppRe.MatchString(lowApp) || browserSuffixRe.MatchString(title):
		return parseWebmail(browserSuffixRe.ReplaceAllString(title, ""))
	case strings.Contains(lowApp, "outlook"):
		return parseOutlook(title)
	case lowApp == "mail" || lowApp == "apple mail" || strings.Contains(lowApp, "com.apple.mail"):
		return parseAppleMail(title)
	}
	// An Outlook message window is recognisable whatever the app is
	// called (a process name like "OUTLOOK.EXE" or an empty name).
	if m := outlookMessageRe.FindStringSubmatch(title); m != nil {
		return outlookMessage(m[1])
	}
	return TitleInfo{}
}

// outlookMessage reads the subject part of Outlook's "<subject> - Message
// (HTML)": "Untitled" is a new message being written.
func outlookMessage(subject string) TitleInfo {
	subject = strings.TrimSpace(subject)
	if ti, ok := other("outlook", notMessageKind("outlook", subject)); ok {
		return ti
	}
	return TitleInfo{Client: "outlook", Subject: subject}
}

func parseThunderbird(title string) TitleInfo {
	rest := strings.TrimSpace(thunderbirdSuffixRe.ReplaceAllString(title, ""))
	if ti, ok := other("thunderbird", notMessageKind("thunderbird", rest)); ok {
		return ti
	}
	if rest == "" || strings.EqualFold(rest, "Thunderbird") || strings.EqualFold(rest, "Mozilla Thunderbird") || isFolder(rest) {
		return TitleInfo{Client: "thunderbird", List: true}
	}
	// A folder view may name its account: "Inbox - dana@x.com".
	parts := titleSepRe.Split(rest, -1)
	if len(parts) == 2 && isFolder(parts[0]) && titleAddrRe.MatchString(parts[1]) {
		return TitleInfo{Client: "thunderbird", List: true}
	}
	return TitleInfo{Client: "thunderbird", Subject: rest}
}

func parseOutlook(title string) TitleInfo {
	if m := outlookMessageRe.FindStringSubmatch(title); m != nil {
		return outlookMessage(m[1])
	}
	parts := titleSepRe.Split(title, -1)
	if len(parts) >= 2 && strings.EqualFold(strings.TrimSpace(parts[len(parts)-1]), "Outlook") {
		// The part before the account's name says which view it is.
		view := parts[0]
		if len(parts) > 2 {
			view = strings.Join(parts[:len(parts)-2], " - ")
		}
		if ti, ok := other("outlook-web", notMessageKind("outlook-web", view)); ok {
			return ti
		}
		// New Outlook and Outlook on the web: "<view> - <account or
		// name> - Outlook". The main window always shows a list; a
		// popped-out message shows its subject first.
		if isFolder(parts[0]) || len(parts) == 2 {
			return TitleInfo{Client: "outlook-web", List: true}
		}
		return TitleInfo{Client: "outlook-web", Subject: strings.Join(parts[:len(parts)-2], " - ")}
	}
	if ti, ok := other("outlook", notMessageKind("outlook", title)); ok {
		return ti
	}
	// Outlook for Mac titles a message window with its subject alone and
	// the main window with the folder ("Inbox • dana@x.com").
	if title == "" || strings.EqualFold(title, "Outlook") || strings.EqualFold(title, "Microsoft Outlook") || isFolder(parts[0]) {
		return TitleInfo{Client: "outlook", List: true}
	}
	return TitleInfo{Client: "outlook", Subject: title}
}

func parseAppleMail(title string) TitleInfo {
	// Apple Mail's viewer is titled "Inbox – 12 messages, 3 unread"; a
	// message window carries the subject alone.
	if ti, ok := other("apple-mail", notMessageKind("apple-mail", title)); ok {
		return ti
	}
	parts := titleSepRe.Split(title, -1)
	if title == "" || strings.EqualFold(title, "Mail") || isFolder(parts[0]) {
		return TitleInfo{Client: "apple-mail", List: true}
	}
	return TitleInfo{Client: "apple-mail", Subject: title}
}

// parseWebmail reads a browser title without the browser's name:
// "<subject> - <account address> - <product>", where the subject may
// itself contain " - ". Without an account address or a mail product at
// the end the page is not webmail.
func parseWebmail(title string) TitleInfo {
	parts := titleSepRe.Split(title, -1)
	if len(parts) < 2 {
		return TitleInfo{}
	}
	last := strings.TrimSpace(parts[len(parts)-1])
	if !webmailRe.MatchString(last) {
		return TitleInfo{}
	}
	client := "webmail"
	switch strings.ToLower(last) {
	case "gmail":
		client = "gmail"
	case "outlook":
		client = "outlook-web"
	}
	rest := parts[:len(parts)-1]
	// Drop the account segment (an address, or the user's name for
	// Outlook on the web) that sits between the subject and the product.
	if n := len(rest); n >= 2 && (titleAddrRe.MatchString(strings.TrimSpace(rest[n-1])) || client == "outlook-web") {
		rest = rest[:n-1]
	} else if client == "webmail" && !titleAddrRe.MatchString(strings.TrimSpace(rest[n-1])) && n == 1 {
		// "Something - Foo Mail" without an account is too weak a sign
		// unless the product is a known one.
		if !strings.Contains(strings.ToLower(last), "mail") {
			return TitleInfo{}
		}
	}
	if len(rest) > 0 {
		if ti, ok := other(client, notMessageKind(client, strings.Join(rest, " - "))); ok {
			return ti
		}
	}
	if len(rest) == 0 || isFolder(rest[0]) {
		return TitleInfo{Client: client, List: true}
	}
	subject := strings.TrimSpace(strings.Join(rest, " - "))
	if subject == "" {
		return TitleInfo{Client: client, List: true}
	}
	return TitleInfo{Client: client, Subject: subject}
}

// A title is read as its first titleHeadRunes runes and its last
// titleTailRunes: the subject comes first, and the names that say which
// client shows it (" - Message (HTML)", an account, a webmail product, a
// browser and its profile) come last and are short. A longer title is
// not a mail client's: no subject is longer than index.MaxSubjectRunes.
const (
	titleHeadRunes = index.MaxSubjectRunes
	titleTailRunes = 500
)

// capTitle joins a long title's head and tail with a space, so that the
// parser finds the client's names at the end as in the whole title, and
// the subject it finds is at least the head, which index.CapSubject then
// cuts to exactly the head. The joint is not an ellipsis: that would make
// the subject a truncated one, matched as a prefix of longer subjects. It
// reads only the head and the tail, so parsing costs the same for a title
// of any length.
func capTitle(title string) string {
	head := 0
	for n := 0; n < titleHeadRunes && head < len(title); n++ {
		_, size := utf8.DecodeRuneInString(title[head:])
		head += size
	}
	tail := len(title)
	for n := 0; n < titleTailRunes && tail > head; n++ {
		_, size := utf8.DecodeLastRuneInString(title[:tail])
		tail -= size
	}
	if tail <= head {
		return title
	}
	return title[:head] + " " + title[tail:]
}

func isFolder(s string) bool { return folderRe.MatchString(strings.TrimSpace(s)) }
