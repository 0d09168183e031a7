package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/secrets"
)

const calendarUsage = `usage:
  spirit calendar add FILE.ics [--name NAME]               (an iCalendar file)
  spirit calendar add URL [--name NAME]                    (a subscription: webcal://, https://)
  spirit calendar add URL --caldav --user USER [--name NAME]
                                   (CalDAV: a server or calendar URL; every calendar with events
                                    is added; password from $SPIRIT_CALDAV_PASSWORD or asked for)
  spirit calendar add microsoft --account ID               (the Outlook calendar of Microsoft 365 mail account ID)
  spirit calendar add google --account ID [--calendar CAL] (a Google calendar of Gmail account ID: its id or
                                    name, the main one by default; without --calendar the others are listed)
  spirit calendar list
  spirit calendar sync [ID]
  spirit calendar upcoming [--hours N]                     (the next N hours, 24 by default)
  spirit calendar remove ID                                (deletes its events)`

// calendarHTTPTimeout bounds one fetch of a subscription or CalDAV query.
const calendarHTTPTimeout = time.Minute

// calendarEnv is what the calendar commands open.
type calendarEnv struct {
	dir string
	st  *store.Store
	sec secrets.Store // opened on first need: only CalDAV has a password
	hc  *http.Client
}

func (env *calendarEnv) secrets() (secrets.Store, error) {
	if env.sec == nil {
		sec, err := secrets.Open(env.dir)
		if err != nil {
			return nil, err
		}
		env.sec = sec
	}
	return env.sec, nil
}

// lazyCalendarSecrets opens the keychain only when a CalDAV sync reads a
// password.
type lazyCalendarSecrets struct{ env *calendarEnv }

func (l lazyCalendarSecrets) Get(ctx context.Context, key string) (string, error) {
	sec, err := l.env.secrets()
	if err != nil {
		return "", err
	}
	return sec.Get(ctx, key)
}

// Set keeps a cloud calendar's refreshed sign-in.
func (l lazyCalendarSecrets) Set(ctx context.Context, key, value string) error {
	sec, err := l.env.secrets()
	if err != nil {
		return err
	}
	return sec.Set(ctx, key, value)
}

func (l lazyCalendarSecrets) Delete(ctx context.Context, key string) error {
	sec, err := l.env.secrets()
	if err != nil {
		return err
	}
	return sec.Delete(ctx, key)
}

// Backend is where the store keeps its key once opened, "" before.
func (l lazyCalendarSecrets) Backend() string {
	if l.env.sec == nil {
		return ""
	}
	return l.env.sec.Backend()
}

// syncOptions are a sync's: the HTTP client, the keychain for CalDAV
// passwords, and the mail accounts' sign-ins for cloud calendars.
func (env *calendarEnv) syncOptions() calendar.SyncOptions {
	sec := lazyCalendarSecrets{env}
	return calendar.SyncOptions{HTTP: env.hc, Secrets: sec,
		Cloud: calendar.MailAccounts{Index: index.New(env.st), Secrets: sec, HTTP: env.hc}}
}

// calendarAddCloud adds a Microsoft or Google calendar of a mail account
// (calendar.AddCloudCalendar, as Settings does) and says what it read.
func calendarAddCloud(ctx context.Context, env *calendarEnv, kind string, account int64, calendarID, name string, stdout, stderr io.Writer) error {
	if account <= 0 {
		fmt.Fprintf(stderr, "spirit: calendar add %s needs --account ID (see spirit mail list)\n", kind)
		return errUsage
	}
	if kind == store.CalendarMicrosoft && calendarID != "" {
		fmt.Fprintln(stderr, "spirit: Spirit reads the main Outlook calendar only; leave out --calendar")
		return errUsage
	}
	opt := env.syncOptions()
	a, err := opt.Cloud.CloudAccount(ctx, account)
	if err != nil {
		return err
	}
	if a.Kind != kind {
		return fmt.Errorf("mail account %d (%s) is not a %s account", account, a.Name, cloudServiceName(kind))
	}
	c, res, err := calendar.AddCloudCalendar(ctx, env.st, opt.Cloud, account, calendarID, opt)
	switch {
	case errors.Is(err, calendar.ErrNoCalendarAccess):
		fmt.Fprintf(stderr, "spirit: %s: %v\n  Run `spirit mail signin %d`, then add the calendar again.\n", a.Name, err, account)
		return errProblems
	case err != nil && c.ID == 0:
		return err
	case err != nil:
		fmt.Fprintf(stdout, "Added %s (calendar %d), but its first sync failed: %v\n", calendarName(c), c.ID, err)
		return errProblems
	}
	if name != "" {
		fmt.Fprintln(stderr, "spirit: --name is not used for Outlook and Google calendars: they keep the service's name")
	}
	fmt.Fprintf(stdout, "Added %s (calendar %d): %d events.\n", calendarName(c), c.ID, res.Events)
	if kind == store.CalendarGoogle && calendarID == "" {
		if cals, err := calendar.CloudCalendars(ctx, a); err == nil && len(cals) > 1 {
			fmt.Fprintln(stdout, "The account's other calendars (add one with --calendar ID):")
			for _, o := range cals {
				if o.ID != c.Source {
					fmt.Fprintf(stdout, "  %s  %s\n", o.ID, o.Name)
				}
			}
		}
	}
	if syncRunning(ctx, env.dir, (*api.Client).SyncCalendars) {
		fmt.Fprintln(stdout, "The running Spirit is syncing it now.")
	}
	return nil
}

// cloudServiceName names a cloud calendar kind as the lawyer knows it.
func cloudServiceName(kind string) string {
	if kind == store.CalendarMicrosoft {
		return "Microsoft 365"
	}
	return "Gmail"
}

func runCalendar(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, calendarUsage)
		return errUsage
	}
	sub, rest := args[0], args[1:]
	fs, dataDir := flags("calendar "+sub, stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, calendarUsage) }
	name := fs.String("name", "", "add: a name for the calendar")
	useCalDAV := fs.Bool("caldav", false, "add: the URL is a CalDAV server or calendar")
	user := fs.String("user", "", "add --caldav: the CalDAV user name")
	account := fs.Int64("account", 0, "add microsoft|google: the mail account (see spirit mail list)")
	calendarID := fs.String("calendar", "", "add google: the calendar's id or name (the main one by default)")
	hours := fs.Int("hours", 24, "upcoming: how many hours ahead")
	maxArgs := 1
	switch sub {
	case "list", "upcoming":
		maxArgs = 0
	case "add", "sync", "remove":
	default:
		fmt.Fprintln(stderr, calendarUsage)
		return errUsage
	}
	pos, err := parse(fs, rest, maxArgs)
	if err != nil {
		return err
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	readOnly := sub == "list" || sub == "upcoming"
	var st *store.Store
	if readOnly {
		st, err = store.OpenDirReadOnly(ctx, dir, store.ReadOnlyOptions{})
	} else {
		st, err = store.OpenDir(ctx, dir)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	env := &calendarEnv{dir: dir, st: st, hc: &http.Client{Timeout: calendarHTTPTimeout}}

	switch sub {
	case "add":
		if len(pos) != 1 {
			fmt.Fprintln(stderr, "spirit: calendar add needs a FILE, a URL, or microsoft|google --account ID")
			return errUsage
		}
		if pos[0] == store.CalendarMicrosoft || pos[0] == store.CalendarGoogle {
			return calendarAddCloud(ctx, env, pos[0], *account, *calendarID, *name, stdout, stderr)
		}
		return calendarAdd(ctx, env, pos[0], *name, *useCalDAV, *user, stdout, stderr)
	case "list":
		return calendarList(ctx, env, stdout)
	case "sync":
		id, err := calendarIDArg(pos)
		if err != nil {
			fmt.Fprintln(stderr, "spirit: calendar sync takes an optional calendar id")
			return errUsage
		}
		return calendarSync(ctx, env, id, stdout, stderr)
	case "upcoming":
		if *hours <= 0 || *hours > maxUpcomingHours {
			fmt.Fprintf(stderr, "spirit: --hours must be from 1 to %d (a year)\n", maxUpcomingHours)
			return errUsage
		}
		return calendarUpcoming(ctx, env, time.Duration(*hours)*time.Hour, stdout)
	}
	// remove
	id, err := calendarIDArg(pos)
	if err != nil || id == 0 {
		fmt.Fprintln(stderr, "spirit: calendar remove needs a calendar id (see spirit calendar list)")
		return errUsage
	}
	c, err := st.Calendar(ctx, id)
	if err != nil {
		return err
	}
	var keys calendar.SecretSetter
	if c.Kind == store.CalendarCalDAV {
		if sec, err := env.secrets(); err == nil {
			keys = sec
		}
	}
	if err := calendar.Remove(ctx, st, keys, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Removed %s and its events.\n", calendarName(c))
	return nil
}

func calendarIDArg(pos []string) (int64, error) {
	if len(pos) == 0 {
		return 0, nil
	}
	return strconv.ParseInt(pos[0], 10, 64)
}

func calendarName(c store.Calendar) string {
	if c.Name != "" {
		return oneLine(c.Name, 120)
	}
	return oneLine(c.Source, 200)
}

// maxUpcomingHours bounds `calendar upcoming --hours`: a year, far inside
// what a time.Duration holds.
const maxUpcomingHours = 366 * 24

// calendarAdd adds a file, a subscription or a CalDAV account's
// calendars (calendar.Add, as Settings does), and syncs what it added once.
func calendarAdd(ctx context.Context, env *calendarEnv, arg, name string, useCalDAV bool, user string, stdout, stderr io.Writer) error {
	nc := calendar.NewCalendar{Kind: store.CalendarFile, Source: arg, Name: name}
	var keys calendar.SecretSetter
	switch {
	case useCalDAV:
		if user == "" {
			fmt.Fprintln(stderr, "spirit: calendar add --caldav needs --user")
			return errUsage
		}
		if u, err := url.Parse(arg); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			fmt.Fprintf(stderr, "spirit: %q is not an http(s) URL\n", arg)
			return errUsage
		}
		password := os.Getenv("SPIRIT_CALDAV_PASSWORD")
		if password == "" {
			var err error
			if password, err = askSecret(stderr, "Password (an app password if your provider uses them): "); err != nil {
				return err
			}
		}
		sec, err := env.secrets()
		if err != nil {
			return err
		}
		nc.Kind, nc.User, nc.Password, keys = store.CalendarCalDAV, user, password, sec
	case isURL(arg):
		nc.Kind = store.CalendarURL
	}
	added, err := calendar.AddAndSync(ctx, env.st, keys, env.hc, nc, env.syncOptions(), nil)
	var bad *calendar.FieldError
	if errors.As(err, &bad) && bad.Field == calendar.FieldURL {
		fmt.Fprintf(stderr, "spirit: %s\n", oneLine(err.Error(), 0))
		return errUsage
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, a := range added {
		if a.Err != nil {
			failed++
			fmt.Fprintf(stdout, "Could not read %s, so it was not added: %s\n", calendarName(a.Calendar),
				oneLine(calendar.Plain(calendar.SyncErrorText(a.Err)), 0))
			continue
		}
		fmt.Fprintf(stdout, "Added %s (calendar %d): %d events.\n", calendarName(a.Calendar), a.Calendar.ID, a.Events)
	}
	if syncRunning(ctx, env.dir, (*api.Client).SyncCalendars) {
		fmt.Fprintln(stdout, "The running Spirit is syncing it now.")
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}

func isURL(s string) bool {
	low := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"webcal://", "webcals://", "https://", "http://"} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return false
}

func calendarList(ctx context.Context, env *calendarEnv, stdout io.Writer) error {
	cs, err := env.st.Calendars(ctx)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		fmt.Fprintln(stdout, "No calendars. Add one with `spirit calendar add …`.")
		return nil
	}
	for _, c := range cs {
		n, err := env.st.CountCalendarEvents(ctx, c.ID)
		if err != nil {
			return err
		}
		state := "never synced"
		if !c.LastSync.IsZero() {
			state = "synced " + c.LastSync.Local().Format("Jan 2 15:04")
		}
		if c.LastError != "" {
			state += "; last sync failed " + c.ErrorAt.Local().Format("Jan 2 15:04") + ": " + oneLine(c.LastError, 300)
		}
		if c.Held {
			state += fmt.Sprintf(" (not read by itself any more: `spirit calendar sync %d` tries it again)", c.ID)
		}
		user := ""
		if c.Username != "" {
			user = " as " + oneLine(c.Username, 80)
		}
		if c.Account != 0 {
			user = fmt.Sprintf(" of mail account %d", c.Account)
		}
		fmt.Fprintf(stdout, "%d  %-6s %s  %s%s  %d events  %s\n", c.ID, c.Kind, calendarName(c), oneLine(c.Source, 200), user, n, state)
	}
	return nil
}

func calendarSync(ctx context.Context, env *calendarEnv, only int64, stdout, stderr io.Writer) error {
	cs, err := env.st.Calendars(ctx)
	if err != nil {
		return err
	}
	failed, found := 0, false
	for _, c := range cs {
		if only != 0 && c.ID != only {
			continue
		}
		found = true
		if store.CloudCalendar(c.Kind) {
			fmt.Fprintf(stderr, "%s: reading…\n", calendarName(c))
		}
		res, err := calendar.Sync(ctx, env.st, c, env.syncOptions())
		switch {
		case err != nil:
			failed++
			fmt.Fprintf(stderr, "%s: %s\n", calendarName(c), oneLine(err.Error(), 0))
			if errors.Is(err, calendar.ErrNoCalendarAccess) {
				fmt.Fprintf(stderr, "  (spirit mail signin %d signs in again)\n", c.Account)
			}
		case res.Unchanged:
			fmt.Fprintf(stdout, "%s: unchanged\n", calendarName(c))
		case res.Incremental:
			fmt.Fprintf(stdout, "%s: %d events changed, %d removed\n", calendarName(c), res.Events, res.Removed)
		default:
			fmt.Fprintf(stdout, "%s: %d events\n", calendarName(c), res.Events)
		}
	}
	if only != 0 && !found {
		return fmt.Errorf("calendar %d: %w", only, store.ErrNotFound)
	}
	if failed > 0 {
		return errProblems
	}
	return nil
}

func calendarUpcoming(ctx context.Context, env *calendarEnv, ahead time.Duration, stdout io.Writer) error {
	now := time.Now()
	occs, err := calendar.Upcoming(ctx, env.st, now, now.Add(ahead), time.Local)
	if err != nil {
		return err
	}
	if len(occs) == 0 {
		fmt.Fprintf(stdout, "Nothing in the next %d hours.\n", int(ahead/time.Hour))
		return nil
	}
	for _, o := range occs {
		when := o.Start.Local().Format("Mon Jan 2 15:04") + "–" + o.End.Local().Format("15:04")
		if o.AllDay {
			when = o.Start.Format("Mon Jan 2") + " (all day)"
		}
		var notes []string
		switch {
		case o.Status == calendar.StatusCancelled:
			notes = append(notes, "cancelled")
		case o.Transparent:
			notes = append(notes, "free")
		}
		var people []string
		for _, p := range o.People() {
			people = append(people, oneLine(p.Display(), 60))
		}
		line := when + "  " + oneLine(o.Summary, 120)
		if len(people) > 0 {
			line += "  with " + strings.Join(people, ", ")
		}
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintln(stdout, line)
	}
	return nil
}
