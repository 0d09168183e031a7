package calendar

import (
	"context"
	"encoding/xml"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// report sends a calendar-query or calendar-multiget REPORT (RFC 4791 §7.8,
// §7.9) and reads the objects of its answer, each with decode.go's bounded
// parser: an object that cannot be read is left out with a warning, never
// the whole answer.
func (d *CalDAV) report(ctx context.Context, path, body string) ([]Object, error) {
	ms, _, _, err := d.davRequest(ctx, "REPORT", path, "1", body)
	if err != nil {
		return nil, err
	}
	out, skipped := objectsOf(ms)
	if skipped > 0 {
		slog.WarnContext(ctx, "calendar: objects the server sent could not be read and were left out", "skipped", skipped)
	}
	return out, nil
}

// objectsOf reads the calendar objects of a REPORT's answer; skipped
// counts those that could not be read.
func objectsOf(ms multistatus) (out []Object, skipped int) {
	for _, r := range ms.Responses {
		if len(r.Href) == 0 {
			continue
		}
		p := r.Href[0]
		if u, err := url.Parse(p); err == nil {
			p = u.Path
		}
		for _, ps := range r.Propstat {
			if !statusOK(ps.Status) || strings.TrimSpace(ps.Prop.CalendarData) == "" {
				continue
			}
			cal, err := ParseBytes([]byte(ps.Prop.CalendarData))
			if err != nil {
				skipped++
				continue
			}
			out = append(out, Object{Path: p, ETag: strings.TrimSpace(ps.Prop.ETag), Calendar: cal})
		}
	}
	return out, skipped
}

const (
	reportHead = `<?xml version="1.0" encoding="utf-8"?>`
	reportProp = `<D:prop><D:getetag/><C:calendar-data/></D:prop>`
)

// calendarQueryBody asks for the event objects with an occurrence in
// [from, to).
func calendarQueryBody(from, to time.Time) string {
	const f = "20060102T150405Z"
	return reportHead + `<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` + reportProp +
		`<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">` +
		`<C:time-range start="` + from.UTC().Format(f) + `" end="` + to.UTC().Format(f) + `"/>` +
		`</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
}

// calendarMultigetBody asks for the objects at paths.
func calendarMultigetBody(paths []string) string {
	var b strings.Builder
	b.WriteString(reportHead + `<C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` + reportProp)
	for _, p := range paths {
		b.WriteString("<D:href>")
		_ = xml.EscapeText(&b, []byte(p))
		b.WriteString("</D:href>")
	}
	b.WriteString(`</C:calendar-multiget>`)
	return b.String()
}
