package calendar

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/emersion/go-ical"
)

// NewEvent is an event Spirit writes for the lawyer (an approved
// calendar_create_event).
type NewEvent struct {
	UID        string
	Title      string
	Start, End time.Time
	// Organizer is the lawyer; nil leaves ORGANIZER out (no attendees).
	Organizer   *Person
	Attendees   []Person
	Location    string
	Description string
}

// NewUID is a fresh, unguessable UID for an event Spirit writes.
func NewUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on the platforms Spirit runs on
	return hex.EncodeToString(b[:]) + "@spirit"
}

// Calendar is e as a VCALENDAR stamped at stamp. Times are written in UTC:
// every calendar shows them in its reader's zone, and no VTIMEZONE is
// needed.
func (e NewEvent) Calendar(stamp time.Time) *ical.Calendar {
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, "-//Spirit//calendar_create_event//EN")
	ev := ical.NewEvent()
	ev.Props.SetText(ical.PropUID, e.UID)
	ev.Props.SetDateTime(ical.PropDateTimeStamp, stamp.UTC())
	ev.Props.SetDateTime(ical.PropDateTimeStart, e.Start.UTC())
	ev.Props.SetDateTime(ical.PropDateTimeEnd, e.End.UTC())
	ev.Props.SetText(ical.PropSummary, e.Title)
	if e.Location != "" {
		ev.Props.SetText(ical.PropLocation, e.Location)
	}
	if e.Description != "" {
		ev.Props.SetText(ical.PropDescription, e.Description)
	}
	ev.Props.SetText(ical.PropStatus, StatusConfirmed)
	if e.Organizer != nil && len(e.Attendees) > 0 {
		ev.Props.Add(personProp(ical.PropOrganizer, *e.Organizer))
		me := personProp(ical.PropAttendee, *e.Organizer)
		me.Params.Set(ical.ParamParticipationStatus, PartStatAccepted)
		ev.Props.Add(me)
	}
	for _, a := range e.Attendees {
		p := personProp(ical.PropAttendee, a)
		p.Params.Set(ical.ParamRole, "REQ-PARTICIPANT")
		p.Params.Set(ical.ParamParticipationStatus, PartStatNeedsAction)
		p.Params.Set(ical.ParamRSVP, "TRUE")
		ev.Props.Add(p)
	}
	cal.Children = append(cal.Children, ev.Component)
	return cal
}

func personProp(name string, p Person) *ical.Prop {
	prop := ical.NewProp(name)
	prop.SetValueType(ical.ValueCalendarAddress)
	prop.Value = "mailto:" + p.Email
	if n := strings.TrimSpace(p.Name); n != "" {
		prop.Params.Set(ical.ParamCommonName, n)
	}
	return prop
}

// PutEvent stores e as a new calendar object in the collection at
// collection (a path or URL), named after its UID, and returns the
// object's path.
func (d *CalDAV) PutEvent(ctx context.Context, collection string, e NewEvent, stamp time.Time) (string, error) {
	if e.UID == "" {
		return "", errors.New("caldav: an event needs a UID")
	}
	p := collection
	if i := strings.Index(p, "://"); i >= 0 {
		// A collection URL: its path.
		if j := strings.IndexByte(p[i+3:], '/'); j >= 0 {
			p = p[i+3+j:]
		} else {
			p = "/"
		}
	}
	p = path.Join(p, safeName(e.UID)+".ics")
	obj, err := d.c.PutCalendarObject(ctx, p, e.Calendar(stamp))
	if err != nil {
		return "", d.clean(fmt.Errorf("caldav: save event: %w", err))
	}
	return obj.Path, nil
}

// WriteICS saves e as an .ics file in dir, named after its date and
// title, for the lawyer to open in their calendar app; it never replaces
// a file. It returns the file's path.
func WriteICS(dir string, e NewEvent, stamp time.Time, loc *time.Location) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("save event: %w", err)
	}
	var b bytes.Buffer
	cal := e.Calendar(stamp)
	cal.Props.SetText(ical.PropMethod, "PUBLISH")
	if err := ical.NewEncoder(&b).Encode(cal); err != nil {
		return "", fmt.Errorf("save event: %w", err)
	}
	if loc == nil {
		loc = time.UTC
	}
	base := e.Start.In(loc).Format("2006-01-02 1504") + " " + safeName(e.Title)
	for i := 1; ; i++ {
		name := base + ".ics"
		if i > 1 {
			name = fmt.Sprintf("%s (%d).ics", base, i)
		}
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("save event: %w", err)
		}
		_, err = f.Write(b.Bytes())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(p)
			return "", fmt.Errorf("save event: %w", err)
		}
		return p, nil
	}
}

// safeName keeps a title or UID usable as a file name everywhere: letters,
// digits, spaces and a few marks; at most 60 characters.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ' ', r == '-', r == '_', r == '.', r == '@':
			b.WriteRune(r)
		case r > 127 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	out := strings.Trim(b.String(), " .")
	if rs := []rune(out); len(rs) > 60 {
		out = strings.TrimSpace(string(rs[:60]))
	}
	if out == "" {
		out = "event"
	}
	return out
}
