package calendar

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spirit-app/spirit/agents/store"
)

// The fields of a new calendar, as FieldError names them: the page shows
// the error under the field, the command line names it.
const (
	FieldFile     = "file"
	FieldURL      = "url"
	FieldServer   = "server"
	FieldUser     = "user"
	FieldPassword = "password"
	FieldName     = "name"
)

// FieldError is a new calendar that cannot be added because of one field:
// Field is one of the Field constants, Err says why in the lawyer's words.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Err: fmt.Errorf(format, a...)}
}

// NewCalendar is what the lawyer gives to add calendars: a file, a
// subscription, or a CalDAV account (Source is then the server's or one
// calendar's URL).
type NewCalendar struct {
	Kind     string // store.CalendarFile, CalendarURL or CalendarCalDAV
	Source   string
	Name     string // optional: a file is named for itself, CalDAV for the server's names
	User     string // CalDAV
	Password string // CalDAV; kept in the keychain, never in the database
}

// SecretSetter is the part of the keychain Add writes and Remove deletes
// (platform/secrets.Store).
type SecretSetter interface {
	Set(ctx context.Context, key, value string) error
	Delete(ctx context.Context, key string) error
}

// Add checks nc and adds its calendars to the store: a file that reads as
// iCalendar, a subscription URL, or every calendar with events a CalDAV
// account has (only that one when Source is a calendar's own URL), its
// password in keys. Nothing is added when it fails; a *FieldError names
// the field at fault. The calendars added have not been synced yet.
func Add(ctx context.Context, st *store.Store, keys SecretSetter, hc *http.Client, nc NewCalendar) ([]store.Calendar, error) {
	name := strings.TrimSpace(nc.Name)
	have, err := st.Calendars(ctx)
	if err != nil {
		return nil, err
	}
	switch nc.Kind {
	case store.CalendarFile:
		p, err := checkFile(nc.Source)
		if err != nil {
			return nil, err
		}
		if err := notAdded(have, p, FieldFile); err != nil {
			return nil, err
		}
		if name == "" {
			name = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		}
		if err := replaceLeftover(ctx, st, keys, have, store.CalendarFile, p); err != nil {
			return nil, err
		}
		c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarFile, Source: p, Name: name})
		if err != nil {
			return nil, err
		}
		return []store.Calendar{c}, nil
	case store.CalendarURL:
		if strings.TrimSpace(nc.Source) == "" {
			return nil, fieldErr(FieldURL, "the calendar's address is needed")
		}
		src, err := SubscriptionURL(nc.Source)
		if err != nil {
			return nil, &FieldError{Field: FieldURL, Err: err}
		}
		if err := notAdded(have, src, FieldURL); err != nil {
			return nil, err
		}
		if name == "" {
			name = subscriptionName(src)
		}
		if err := replaceLeftover(ctx, st, keys, have, store.CalendarURL, src); err != nil {
			return nil, err
		}
		c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarURL, Source: src, Name: name})
		if err != nil {
			return nil, err
		}
		return []store.Calendar{c}, nil
	case store.CalendarCalDAV:
		return addCalDAV(ctx, st, keys, hc, nc, name, have)
	}
	return nil, fmt.Errorf("add calendar: unknown kind %q", nc.Kind)
}

// checkFile is the absolute path of an .ics file that reads as a calendar.
func checkFile(path string) (string, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return "", fieldErr(FieldFile, "choose a calendar file (.ics)")
	}
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return "", &FieldError{Field: FieldFile, Err: err}
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fieldErr(FieldFile, "there is no file at %s", p)
	case err != nil:
		return "", fieldErr(FieldFile, "%s cannot be read: %v", p, err)
	case st.IsDir():
		return "", fieldErr(FieldFile, "%s is a folder: choose the .ics file in it", p)
	case !st.Mode().IsRegular():
		return "", fieldErr(FieldFile, "%s is not a file but a device or a pipe: choose an .ics file", p)
	case st.Size() > maxCalendarBytes:
		return "", fieldErr(FieldFile, "%s is larger than %d MiB, more than any calendar Spirit reads", filepath.Base(p), maxCalendarBytes>>20)
	}
	if err := isCalendarFile(p); err != nil {
		return "", fieldErr(FieldFile, "%s is not an iCalendar (.ics) file Spirit can read", filepath.Base(p))
	}
	return p, nil
}

// subscriptionName names a subscription for its address: the host and the
// file's name ("calendar.example.com · holidays").
func subscriptionName(src string) string {
	u, err := url.Parse(src)
	if err != nil {
		return src
	}
	base := strings.TrimSuffix(filepath.Base(u.Path), filepath.Ext(u.Path))
	if base == "" || base == "." || base == "/" {
		return u.Host
	}
	return u.Host + " · " + base
}

// notAdded says, under field, that a calendar from source is there
// already.
func notAdded(have []store.Calendar, source, field string) error {
	for _, c := range have {
		if c.Source == source && !leftover(c) {
			return fieldErr(field, "this calendar is already added, as ‘%s’", c.Name)
		}
	}
	return nil
}

func addCalDAV(ctx context.Context, st *store.Store, keys SecretSetter, hc *http.Client, nc NewCalendar, name string, have []store.Calendar) ([]store.Calendar, error) {
	server := strings.TrimSpace(nc.Source)
	u, err := url.Parse(server)
	switch {
	case server == "":
		return nil, fieldErr(FieldServer, "the server's address is needed, e.g. https://caldav.fastmail.com")
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return nil, fieldErr(FieldServer, "‘%s’ is not a web address (https://…)", server)
	}
	user := strings.TrimSpace(nc.User)
	if user == "" {
		return nil, fieldErr(FieldUser, "the user name is needed")
	}
	if nc.Password == "" {
		return nil, fieldErr(FieldPassword, "the password is needed (an app password if your provider uses them)")
	}
	if keys == nil {
		return nil, errors.New("add calendar: no keychain to keep the password in")
	}
	d, err := NewCalDAV(hc, server, user, nc.Password)
	if err != nil {
		return nil, &FieldError{Field: FieldServer, Err: err}
	}
	// The same bound as a sync: a server that answers a byte at a time is
	// given up on.
	fctx, cancel := context.WithTimeout(ctx, SyncDeadline)
	defer cancel()
	found, err := d.FindCalendars(fctx)
	if err != nil {
		return nil, connectError(err)
	}
	// A calendar's own URL adds that calendar; a server's, all of them.
	var pick []RemoteCalendar
	for _, rc := range found {
		if rc.Events && strings.TrimSuffix(rc.Path, "/") == strings.TrimSuffix(u.Path, "/") {
			pick = []RemoteCalendar{rc}
			break
		}
		if rc.Events {
			pick = append(pick, rc)
		}
	}
	if len(pick) == 0 {
		return nil, fieldErr(FieldServer, "this account has no calendar with events at %s", server)
	}
	// Calendars added before are left as they are; all of them is a
	// mistake worth saying.
	var fresh []RemoteCalendar
	var dup error
	for _, rc := range pick {
		src := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: rc.Path}).String()
		if err := notAdded(have, src, FieldServer); err != nil {
			dup = err
			continue
		}
		fresh = append(fresh, rc)
	}
	if len(fresh) == 0 {
		if len(pick) > 1 {
			return nil, fieldErr(FieldServer, "every calendar of this account is already added")
		}
		return nil, dup
	}
	pick = fresh
	var added []store.Calendar
	undo := func() {
		for _, c := range added {
			_ = st.RemoveCalendar(context.WithoutCancel(ctx), c.ID)
			_ = keys.Delete(context.WithoutCancel(ctx), PasswordKey(c.ID))
		}
	}
	for _, rc := range pick {
		src := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: rc.Path}).String()
		n := rc.Name
		if name != "" {
			n = name
			if len(pick) > 1 {
				n = name + " – " + rc.Name
			}
		}
		if n == "" {
			n = rc.Path
		}
		if err := replaceLeftover(ctx, st, keys, have, store.CalendarCalDAV, src); err != nil {
			undo()
			return nil, err
		}
		c, err := st.AddCalendar(ctx, store.Calendar{Kind: store.CalendarCalDAV, Source: src, Name: n, Username: user})
		if err != nil {
			undo()
			return nil, err
		}
		added = append(added, c)
		if err := keys.Set(ctx, PasswordKey(c.ID), nc.Password); err != nil {
			undo()
			return nil, fmt.Errorf("keep the password in the keychain: %w", err)
		}
	}
	return added, nil
}

// connectError is a failure to reach a CalDAV account, put on the field
// the lawyer can fix: a refused sign-in on the password, the rest on the
// server's address.
func connectError(err error) error {
	if fe := redirectFieldError(err); fe != nil {
		return fe
	}
	field := FieldServer
	if plainKind(err.Error()) == plainSignIn {
		field = FieldPassword
	}
	return &FieldError{Field: field, Err: errors.New(Plain(err.Error()))}
}

// Remove removes a calendar, its events and its password.
func Remove(ctx context.Context, st *store.Store, keys SecretSetter, c store.Calendar) error {
	if err := st.RemoveCalendar(ctx, c.ID); err != nil {
		return err
	}
	if c.Kind == store.CalendarCalDAV && c.Username != "" && keys != nil {
		_ = keys.Delete(ctx, PasswordKey(c.ID)) // gone already is fine
	}
	return nil
}

// What a sync's failure comes down to, for the lawyer.
const (
	plainOther = iota
	plainSignIn
	plainUnreachable
	plainGone
	plainNotCalendar
	plainMissingFile
	plainServer
	plainNoPassword
	plainHeld
	plainRedirect
	plainTooLarge
)

// plainKind sorts an error's text into what the lawyer can do about it.
func plainKind(msg string) int {
	low := strings.ToLower(msg)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has(strings.ToLower(HeldMessage)):
		return plainHeld
	case has("the server sent spirit to another address"):
		return plainRedirect
	case has("too large", "larger than"):
		return plainTooLarge
	// Status codes go with their text: a bare "401" may be in a port.
	case has("401 unauthorized", "403 forbidden", "unauthorized", "forbidden"):
		return plainSignIn
	case has("password: ", "no keychain"):
		return plainNoPassword
	case has("no such file", "no file at"):
		return plainMissingFile
	case has("ical:", "parse calendar", "not an icalendar", "begin:vcalendar"):
		return plainNotCalendar
	case has("404 not found", "410 gone", "not found"):
		return plainGone
	case has("no such host", "connection refused", "timeout", "deadline exceeded", "network is unreachable",
		"connection reset", "tls:", "certificate", "eof"):
		return plainUnreachable
	case has("500 internal server error", "502 bad gateway", "503 service unavailable", "504 gateway timeout"):
		return plainServer
	}
	return plainOther
}

// Plain says a calendar's sync error in the lawyer's words: what went
// wrong and what to do, not the protocol's message. An error it does not
// know is given as it is.
func Plain(msg string) string {
	switch plainKind(msg) {
	case plainSignIn:
		return "The server refused the user name or password. Check them (many providers want an app password), then remove the calendar and add it again."
	case plainNoPassword:
		return "Spirit cannot read this calendar's password from the keychain. Remove the calendar and add it again."
	case plainMissingFile:
		return "The calendar file is not there any more. If it moved, remove the calendar and add the file from its new place."
	case plainGone:
		return "There is no calendar at this address any more. Check the address with whoever shared it."
	case plainUnreachable:
		return "The server could not be reached. Spirit tries again every 5 minutes; check the address if it stays this way."
	case plainNotCalendar:
		return "What is at this address is not a calendar Spirit can read (iCalendar, .ics)."
	case plainServer:
		return "The calendar's server had a problem. Spirit tries again every 5 minutes."
	case plainTooLarge:
		return "This calendar is larger than Spirit reads (a file up to 64 MiB, a server's answer up to 32 MiB). Ask whoever shares it for a shorter span of time."
	case plainRedirect:
		return "The server sent Spirit to another address, and Spirit does not take your password there. If the calendar really moved, remove it and add it again with its new address."
	case plainHeld:
		return "Spirit stopped while reading this calendar last time, so it no longer reads it by itself. Choose Sync now (or run spirit calendar sync) to try it again; if Spirit stops again, remove the calendar."
	}
	return msg
}
