package calendar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail/accounts"
	"github.com/spirit-app/spirit/agents/mail/gmail"
	"github.com/spirit-app/spirit/agents/mail/graph"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/platform/secrets"
)

// ErrNoCalendarAccess is a mail account whose sign-in was given before
// Spirit read calendars: its token lacks the calendar scopes, or the
// service refuses the calendar for lack of them. The text is what the
// lawyer reads, wherever it is shown.
var ErrNoCalendarAccess = errors.New("this account's sign-in does not include calendar access yet: sign in to the mail account again to allow it")

// DefaultGoogleCalendarURL is Google Calendar's API root.
const DefaultGoogleCalendarURL = "https://www.googleapis.com/calendar/v3"

// CloudAccount is a mail account's signed-in way to its calendars.
type CloudAccount struct {
	ID int64
	// Kind is store.CalendarMicrosoft or store.CalendarGoogle.
	Kind string
	// Name and Address are the account's; Address is the lawyer's own at
	// the service (their answer to an invitation is theirs).
	Name, Address string
	// API sends the authorized requests; BaseURL is the service's root
	// (Graph's v1.0, Google Calendar's v3).
	API     *oauth.Client
	BaseURL string
	// Scopes are what the sign-in was last granted; nil: not known.
	Scopes []string
}

// CloudAuth opens a mail account's calendars.
type CloudAuth interface {
	CloudAccount(ctx context.Context, account int64) (CloudAccount, error)
}

// MailAccounts is the CloudAuth of Spirit's mail accounts: a Microsoft
// 365 or Gmail account's stored sign-in, refreshed (and the refresh kept
// in the keychain) as the mail connectors do.
type MailAccounts struct {
	Index   *index.Index
	Secrets secrets.Store
	// HTTP sends the calendar requests and refreshes; nil: a client with
	// a minute's timeout.
	HTTP   *http.Client
	Logger *slog.Logger
}

// CloudAccount implements CloudAuth.
func (m MailAccounts) CloudAccount(ctx context.Context, id int64) (CloudAccount, error) {
	a, err := m.Index.Account(ctx, id)
	if err != nil {
		return CloudAccount{}, fmt.Errorf("mail account %d: %w", id, err)
	}
	var kind, service string
	switch a.Kind {
	case index.KindGraph:
		kind, service = store.CalendarMicrosoft, "Microsoft Graph"
	case index.KindGmail:
		kind, service = store.CalendarGoogle, "Google Calendar"
	default:
		return CloudAccount{}, fmt.Errorf("%s is not a Microsoft 365 or Gmail account: its calendar cannot be read with its sign-in", a.Name)
	}
	var c accounts.OAuthConfig
	if err := json.Unmarshal(a.Config, &c); err != nil {
		return CloudAccount{}, fmt.Errorf("account %d settings: %w", a.ID, err)
	}
	cfg, err := accounts.OAuth2Config(ctx, a.Kind, c, a.ID, m.Secrets)
	if err != nil {
		return CloudAccount{}, err
	}
	tok, err := secrets.LoadToken(ctx, m.Secrets, accounts.TokenKey(a.ID))
	if err != nil {
		return CloudAccount{}, fmt.Errorf("account %s: %w (%v)", a.Name, accounts.ErrSignIn, err)
	}
	scopes, err := accounts.GrantedScopes(ctx, m.Secrets, a.ID)
	if err != nil {
		return CloudAccount{}, err
	}
	hc := m.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: time.Minute}
	}
	log := m.Logger
	if log == nil {
		log = slog.Default()
	}
	sec := m.Secrets
	ts := oauth.NewTokenSource(cfg, tok, oauth.TokenSourceOptions{HTTPClient: hc, Logger: log,
		Save: func(t *oauth2.Token) error { return accounts.SaveToken(context.Background(), sec, a.ID, t) }})
	ca := CloudAccount{ID: a.ID, Kind: kind, Name: a.Name, Address: strings.ToLower(a.Address), Scopes: scopes,
		API: &oauth.Client{Service: service, Tokens: ts, HTTP: hc, Logger: log}}
	if kind == store.CalendarMicrosoft {
		ca.API.Decode = graph.DecodeError
		ca.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
		if ca.BaseURL == "" {
			ca.BaseURL = graph.DefaultBaseURL
		}
	} else {
		ca.API.Decode = gmail.DecodeError
		ca.BaseURL = strings.TrimSuffix(c.CalendarURL, "/")
		if ca.BaseURL == "" {
			ca.BaseURL = DefaultGoogleCalendarURL
		}
	}
	// The token goes to the service's address only: a next link, a delta
	// link kept as the sync token, elsewhere is refused.
	ca.API.Origin = ca.BaseURL
	return ca, nil
}

// calendarScopes are the scopes a cloud calendar needs, by kind.
var calendarScopes = map[string][]string{
	store.CalendarMicrosoft: {oauth.MicrosoftScopeCalendarsReadWrite},
	store.CalendarGoogle:    {oauth.GoogleScopeCalendarEvents, oauth.GoogleScopeCalendarListReadonly},
}

// MissingScopes lists the calendar scopes of kind that granted lacks; nil
// when granted is nil (not known: the service will say). Microsoft names
// Graph's scopes bare or under the Graph resource; either counts.
func MissingScopes(kind string, granted []string) []string {
	if granted == nil {
		return nil
	}
	var missing []string
	for _, want := range calendarScopes[kind] {
		if !slices.ContainsFunc(granted, func(g string) bool {
			return strings.EqualFold(g, want) || strings.EqualFold(g[strings.LastIndexByte(g, '/')+1:], want) && kind == store.CalendarMicrosoft
		}) {
			missing = append(missing, want)
		}
	}
	return missing
}

// checkAccess is ErrNoCalendarAccess when the account's grant is known
// to lack a calendar scope.
func (a CloudAccount) checkAccess() error {
	if len(MissingScopes(a.Kind, a.Scopes)) > 0 {
		return ErrNoCalendarAccess
	}
	return nil
}

// accessError turns the service's refusal for lack of scope into
// ErrNoCalendarAccess; other errors stay.
func accessError(err error) error {
	var api *oauth.APIError
	if !errors.As(err, &api) || api.Status != http.StatusForbidden || api.Throttled {
		return err
	}
	switch api.Code {
	case "ErrorAccessDenied", "AccessDenied", "Authorization_RequestDenied", // Graph
		"insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "PERMISSION_DENIED": // Google
		return ErrNoCalendarAccess
	}
	return err
}

// CloudCalendar is a calendar a cloud account offers.
type CloudCalendar struct {
	ID, Name string
	Primary  bool
	// ReadOnly marks a calendar the lawyer cannot add events to.
	ReadOnly bool
}

// CloudCalendars lists the calendars of account a: Outlook's main
// calendar, or Google's calendar list. A sign-in without calendar access
// is ErrNoCalendarAccess.
func CloudCalendars(ctx context.Context, a CloudAccount) ([]CloudCalendar, error) {
	if err := a.checkAccess(); err != nil {
		return nil, err
	}
	var cals []CloudCalendar
	var err error
	if a.Kind == store.CalendarMicrosoft {
		cals, err = graphCalendars(ctx, a)
	} else {
		cals, err = googleCalendars(ctx, a)
	}
	return cals, accessError(err)
}

// AddCloudCalendar adds the calendar calendarID ("" for the main one) of
// mail account account, after checking that the account's sign-in reaches
// it, and syncs it once. A sign-in without calendar access adds nothing
// and is ErrNoCalendarAccess. The calendar is named after the service's
// name for it and the account. It is what `spirit calendar add
// microsoft|google` and Settings → Calendars call.
func AddCloudCalendar(ctx context.Context, st *store.Store, auth CloudAuth, account int64, calendarID string, opt SyncOptions) (store.Calendar, SyncResult, error) {
	a, err := auth.CloudAccount(ctx, account)
	if err != nil {
		return store.Calendar{}, SyncResult{}, err
	}
	cals, err := CloudCalendars(ctx, a)
	if err != nil {
		return store.Calendar{}, SyncResult{}, err
	}
	pick, err := pickCloudCalendar(cals, calendarID)
	if err != nil {
		return store.Calendar{}, SyncResult{}, err
	}
	c, err := st.AddCalendar(ctx, store.Calendar{Kind: a.Kind, Source: pick.ID, Name: CloudCalendarName(a.Kind, pick.Name, a.Address), Account: a.ID})
	if err != nil {
		return store.Calendar{}, SyncResult{}, err
	}
	if opt.Cloud == nil {
		opt.Cloud = auth
	}
	res, err := Sync(ctx, st, c, opt)
	if errors.Is(err, ErrNoCalendarAccess) {
		// The list answered but the events did not: nothing is added.
		_ = st.RemoveCalendar(context.WithoutCancel(ctx), c.ID)
		return store.Calendar{}, SyncResult{}, ErrNoCalendarAccess
	}
	return c, res, err
}

// CloudCalendarName is how a cloud calendar is listed: its name at the
// service, said as the lawyer knows it (Outlook's main calendar is
// "Calendar", Google's main one is named after the address), and the
// account's address.
func CloudCalendarName(kind, name, address string) string {
	switch {
	case kind == store.CalendarMicrosoft && (name == "" || strings.EqualFold(name, "Calendar")):
		name = "Outlook Calendar"
	case kind == store.CalendarGoogle && (name == "" || strings.EqualFold(name, address)):
		name = "Google Calendar"
	}
	if address == "" {
		return name
	}
	return name + " (" + address + ")"
}

// pickCloudCalendar finds id among cals ("" picks the main calendar).
func pickCloudCalendar(cals []CloudCalendar, id string) (CloudCalendar, error) {
	id = strings.TrimSpace(id)
	for _, c := range cals {
		if (id == "" && c.Primary) || (id != "" && (c.ID == id || strings.EqualFold(c.Name, id))) {
			return c, nil
		}
	}
	if id == "" && len(cals) > 0 {
		return cals[0], nil
	}
	var names []string
	for _, c := range cals {
		names = append(names, fmt.Sprintf("%q (%s)", c.Name, c.ID))
	}
	if len(names) == 0 {
		return CloudCalendar{}, errors.New("the account has no calendar")
	}
	return CloudCalendar{}, fmt.Errorf("no calendar %q at this account; its calendars are: %s", id, strings.Join(names, ", "))
}

// syncCloud syncs a Microsoft or Google calendar.
func syncCloud(ctx context.Context, st *store.Store, c store.Calendar, now time.Time, opt SyncOptions) (SyncResult, error) {
	if opt.Cloud == nil {
		return SyncResult{}, errors.New("the mail account's sign-in is not available here")
	}
	a, err := opt.Cloud.CloudAccount(ctx, c.Account)
	if err != nil {
		return SyncResult{}, err
	}
	if a.Kind != c.Kind {
		return SyncResult{}, fmt.Errorf("mail account %d is not a %s account", c.Account, c.Kind)
	}
	if err := a.checkAccess(); err != nil {
		return SyncResult{}, err
	}
	var res SyncResult
	if c.Kind == store.CalendarMicrosoft {
		res, err = syncGraph(ctx, st, c, a, now, opt)
	} else {
		res, err = syncGoogle(ctx, st, c, a, now, opt)
	}
	return res, accessError(err)
}

// cloudEvent is one event instance as a cloud service gives it, in the
// terms of iCalendar.
type cloudEvent struct {
	// ID is the instance's id at the service, SeriesID its series' ("" for
	// a one-off event); OriginalStart its start in the series.
	ID, SeriesID  string
	OriginalStart time.Time
	Start, End    time.Time
	AllDay        bool
	Summary       string
	Location      string
	Description   string
	Organizer     *Person
	Attendees     []Person
	Status        string // STATUS
	Free          bool   // TRANSP:TRANSPARENT
	// Mine is the lawyer's own answer (PARTSTAT); "" when not known.
	Mine string
}

// vevent writes e as a VEVENT: UID the series (or the event), with
// RECURRENCE-ID its original start, so that one occurrence is one key
// whatever it is moved to; me is the lawyer's address, whose answer is
// Mine.
func (e cloudEvent) vevent(me string) *ical.Component {
	ev := ical.NewEvent()
	uid := e.ID
	if e.SeriesID != "" {
		uid = e.SeriesID
	}
	ev.Props.SetText(ical.PropUID, uid)
	ev.Props.SetDateTime(ical.PropDateTimeStamp, time.Unix(0, 0).UTC())
	setTime := func(name string, t time.Time) {
		if e.AllDay {
			ev.Props.SetDate(name, t)
			return
		}
		ev.Props.SetDateTime(name, t.UTC())
	}
	setTime(ical.PropDateTimeStart, e.Start)
	setTime(ical.PropDateTimeEnd, e.End)
	if e.SeriesID != "" && !e.OriginalStart.IsZero() {
		setTime(ical.PropRecurrenceID, e.OriginalStart)
	}
	if e.Summary != "" {
		ev.Props.SetText(ical.PropSummary, e.Summary)
	}
	if e.Location != "" {
		ev.Props.SetText(ical.PropLocation, e.Location)
	}
	if e.Description != "" {
		ev.Props.SetText(ical.PropDescription, e.Description)
	}
	if e.Status != "" {
		ev.Props.SetText(ical.PropStatus, e.Status)
	}
	if e.Free {
		ev.Props.SetText(ical.PropTransparency, "TRANSPARENT")
	}
	if e.Organizer != nil && e.Organizer.Email != "" {
		ev.Props.Add(personProp(ical.PropOrganizer, *e.Organizer))
	}
	me = strings.ToLower(me)
	mineListed := false
	for _, a := range e.Attendees {
		if a.Email == "" {
			continue
		}
		if me != "" && strings.EqualFold(a.Email, me) && e.Mine != "" {
			a.PartStat, mineListed = e.Mine, true
		}
		p := personProp(ical.PropAttendee, a)
		if a.PartStat != "" {
			p.Params.Set(ical.ParamParticipationStatus, a.PartStat)
		}
		if a.Role != "" {
			p.Params.Set(ical.ParamRole, a.Role)
		}
		ev.Props.Add(p)
	}
	organizer := e.Organizer != nil && strings.EqualFold(e.Organizer.Email, me)
	if me != "" && !mineListed && e.Mine != "" && !organizer && len(e.Attendees) > 0 {
		p := personProp(ical.PropAttendee, Person{Email: me})
		p.Params.Set(ical.ParamParticipationStatus, e.Mine)
		ev.Props.Add(p)
	}
	return ev.Component
}

// row is e as the store keeps it.
func (e cloudEvent) row(me string) (store.CalendarEvent, error) {
	cal := ical.NewCalendar()
	cal.Children = append(cal.Children, e.vevent(me))
	x := &expander{z: newZones(cal), loc: time.UTC}
	return x.row(cal.Children[0], e.ID, "")
}

// cloudChanges is what one cloud sync read: every event (whole) or the
// changes, and where the next sync starts.
type cloudChanges struct {
	events  []cloudEvent
	removed []string // instance or series ids
	next    string   // delta link or sync token
}

// add gathers one listed event: gone (an instance, or a whole series by
// its id), or read by cloud. An entry without an id is passed over.
func (ch *cloudChanges) add(id string, gone bool, cloud func() (cloudEvent, error)) error {
	switch {
	case id == "":
	case gone:
		ch.removed = append(ch.removed, id)
	default:
		e, err := cloud()
		if err != nil {
			return fmt.Errorf("event %s: %w", id, err)
		}
		ch.events = append(ch.events, e)
	}
	return nil
}

// pageThrough reads a listing page by page from cursor: page gathers one
// page into ch and returns the next page's cursor (a link, a page token),
// or "" on the last page, having set ch.next, where the next sync starts.
func pageThrough(service string, maxPages int, cursor string, page func(cursor string, ch *cloudChanges) (string, error)) (cloudChanges, error) {
	var ch cloudChanges
	for range maxPages {
		next, err := page(cursor, &ch)
		switch {
		case err != nil:
			return cloudChanges{}, err
		case next != "":
			cursor = next
		case ch.next == "":
			return cloudChanges{}, fmt.Errorf("%s: a last page without where the next sync starts", service)
		default:
			return ch, nil
		}
	}
	return cloudChanges{}, fmt.Errorf("%s: more than %d pages of events", service, maxPages)
}

// store applies what a cloud sync read: a whole read replaces the
// calendar's events, changes update them.
func (ch cloudChanges) store(ctx context.Context, st *store.Store, c store.Calendar, me string, now time.Time, whole bool) (SyncResult, error) {
	var rows []store.CalendarEvent
	for _, e := range ch.events {
		r, err := e.row(me)
		if err != nil {
			slog.WarnContext(ctx, "calendar: event not stored", "calendar", c.ID, "id", e.ID, "err", err)
			continue
		}
		rows = append(rows, r)
	}
	sync := store.CalendarSync{SyncToken: ch.next, At: now}
	if whole {
		return SyncResult{Events: len(rows)}, st.ReplaceCalendarEvents(ctx, c.ID, rows, sync)
	}
	res := SyncResult{Events: len(rows), Removed: len(ch.removed), Incremental: true}
	if len(rows) == 0 && len(ch.removed) == 0 {
		res.Unchanged = true
		return res, st.MarkCalendarSynced(ctx, c.ID, sync)
	}
	// A removed id is an instance (by href) or a whole series (by UID).
	return res, st.UpdateCalendarEvents(ctx, c.ID, store.CalendarChanges{Events: rows, RemovedHref: ch.removed, RemovedUID: ch.removed}, sync)
}

// CreateCloudEvent adds e to the Microsoft or Google calendar c, with
// the sign-in of its mail account (the service sends the invitations),
// and returns the event's id there. Only an approved
// calendar_create_event calls it.
func CreateCloudEvent(ctx context.Context, auth CloudAuth, c store.Calendar, e NewEvent) (string, error) {
	if auth == nil {
		return "", errors.New("the mail account's sign-in is not available here")
	}
	a, err := auth.CloudAccount(ctx, c.Account)
	if err != nil {
		return "", err
	}
	if err := a.checkAccess(); err != nil {
		return "", err
	}
	switch c.Kind {
	case store.CalendarMicrosoft:
		return graphCreate(ctx, a, e)
	case store.CalendarGoogle:
		return googleCreate(ctx, a, c.Source, e)
	}
	return "", fmt.Errorf("calendar %d is not a Microsoft or Google calendar", c.ID)
}
