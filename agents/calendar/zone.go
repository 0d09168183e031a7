package calendar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"

	// A calendar names zones by IANA name (America/New_York) on every
	// platform, Windows included, where Go finds no zoneinfo of the OS's.
	_ "time/tzdata"
)

// Zone transitions are generated for this span of years; an event outside
// it keeps the offset of the nearest end, which is what a calendar made
// today says about that far a future anyway.
const (
	zoneFirstYear = 1900
	zoneLastYear  = 2100
)

// Bounds on a VTIMEZONE, which comes from outside with its calendar: two
// changes a year over the span, with room for history; and few enough
// observances that their local time types fit TZif's one-byte index.
const (
	maxOnsets      = 2 * (zoneLastYear - zoneFirstYear + 50)
	maxObservances = 200
)

// zones resolves the TZID parameters of one calendar: a VTIMEZONE of the
// calendar itself first (RFC 5545 makes it authoritative, and Outlook
// names its zones "Eastern Standard Time"), then an IANA name. It is made
// per call of Occurrences: no state outlives a calendar.
type zones struct {
	defs  map[string]*ical.Component
	cache map[string]*time.Location
}

func newZones(cal *ical.Calendar) *zones {
	z := &zones{defs: map[string]*ical.Component{}, cache: map[string]*time.Location{}}
	if cal == nil {
		return z
	}
	for _, c := range cal.Children {
		if c.Name != ical.CompTimezone {
			continue
		}
		if id := c.Props.Get(ical.PropTimezoneID); id != nil && strings.TrimSpace(id.Value) != "" {
			z.defs[strings.TrimSpace(id.Value)] = c
		}
	}
	return z
}

// location returns the zone named tzid, or ok false when neither the
// calendar nor the IANA database knows it.
func (z *zones) location(tzid string) (*time.Location, bool) {
	tzid = strings.Trim(strings.TrimSpace(tzid), `"`)
	if l, ok := z.cache[tzid]; ok {
		return l, l != nil
	}
	var loc *time.Location
	if def, ok := z.defs[tzid]; ok {
		if l, err := vtimezoneLocation(tzid, def); err == nil {
			loc = l
		}
	}
	if loc == nil {
		loc = ianaLocation(tzid)
	}
	z.cache[tzid] = loc
	return loc, loc != nil
}

// ianaLocation loads tzid from the IANA database, also in the forms
// exporters wrap it in ("/mozilla.org/20050126_1/America/New_York",
// "/citadel.org/20190914_1/Europe/Berlin").
func ianaLocation(tzid string) *time.Location {
	for name := tzid; name != ""; {
		if l, err := time.LoadLocation(name); err == nil && name != "" && name != "Local" {
			return l
		}
		i := strings.IndexByte(strings.TrimPrefix(name, "/"), '/')
		if i < 0 {
			break
		}
		name = strings.TrimPrefix(name, "/")[i+1:]
	}
	return nil
}

// zoneType is one local time type of a zone: UTC offset, DST flag, name.
type zoneType struct {
	off  int // seconds east of UTC
	dst  bool
	abbr string
}

type zoneTransition struct {
	at int64 // unix seconds
	t  zoneType
}

// vtimezoneLocation builds a time.Location from a VTIMEZONE: every onset
// of its STANDARD and DAYLIGHT observances (DTSTART, RRULE, RDATE) between
// zoneFirstYear and zoneLastYear becomes a transition, and the zone is
// handed to Go as TZif data, so that wall-clock arithmetic (a weekly
// meeting at 09:00 across a DST change) is Go's own.
func vtimezoneLocation(tzid string, def *ical.Component) (*time.Location, error) {
	var trans []zoneTransition
	var before *zoneTransition // the last onset before zoneFirstYear
	limit := time.Date(zoneLastYear, 12, 31, 0, 0, 0, 0, time.UTC)
	first := time.Date(zoneFirstYear, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	observances := 0
	for _, obs := range def.Children {
		if obs.Name != ical.CompTimezoneStandard && obs.Name != ical.CompTimezoneDaylight {
			continue
		}
		from, err := utcOffset(obs.Props.Get("TZOFFSETFROM"))
		if err != nil {
			return nil, err
		}
		to, err := utcOffset(obs.Props.Get("TZOFFSETTO"))
		if err != nil {
			return nil, err
		}
		t := zoneType{off: to, dst: obs.Name == ical.CompTimezoneDaylight}
		if n := obs.Props.Get("TZNAME"); n != nil {
			t.abbr = n.Value
		}
		// Onsets are wall-clock times in the offset in force before them.
		fromLoc := time.FixedZone("", from)
		ds := obs.Props.Get(ical.PropDateTimeStart)
		if ds == nil {
			return nil, fmt.Errorf("VTIMEZONE %s: observance without DTSTART", tzid)
		}
		start, err := time.ParseInLocation("20060102T150405", strings.TrimSuffix(ds.Value, "Z"), fromLoc)
		if err != nil {
			return nil, fmt.Errorf("VTIMEZONE %s: %w", tzid, err)
		}
		onsets := []time.Time{start}
		if rr := obs.Props.Get(ical.PropRecurrenceRule); rr != nil {
			opt, err := rrule.StrToROptionInLocation(rr.Value, fromLoc)
			if err != nil {
				return nil, fmt.Errorf("VTIMEZONE %s: %w", tzid, err)
			}
			// Zones change their clocks a few times a year at most: a rule
			// more frequent than monthly, or with more than one onset a
			// day, is no zone's (and a minutely one would make millions).
			if opt.Freq != rrule.YEARLY && opt.Freq != rrule.MONTHLY {
				return nil, fmt.Errorf("VTIMEZONE %s: observance repeats %v", tzid, opt.Freq)
			}
			opt.Dtstart = start
			if err := checkRule(opt); err != nil {
				return nil, fmt.Errorf("VTIMEZONE %s: %w", tzid, err)
			}
			if start.Year() < zoneFirstYear-1 && opt.Count == 0 {
				// rrule-go walks at most a time.Duration (292 years) from
				// DTSTART, and Outlook starts its rules in 1601: start the
				// walk the year before the span instead, which moves no
				// onset of a rule without COUNT.
				opt.Dtstart = time.Date(zoneFirstYear-1, start.Month(), start.Day(), start.Hour(), start.Minute(), start.Second(), 0, fromLoc)
			}
			r, err := rrule.NewRRule(*opt)
			if err != nil {
				return nil, fmt.Errorf("VTIMEZONE %s: %w", tzid, err)
			}
			next := r.Iterator()
			for {
				o, ok := next()
				if !ok || o.After(limit) {
					break
				}
				if len(onsets) >= maxOnsets {
					return nil, fmt.Errorf("VTIMEZONE %s: more than %d changes of offset", tzid, maxOnsets)
				}
				onsets = append(onsets, o)
			}
		}
		for _, p := range obs.Props.Values(ical.PropRecurrenceDates) {
			for _, v := range strings.Split(p.Value, ",") {
				if t, err := time.ParseInLocation("20060102T150405", strings.TrimSuffix(v, "Z"), fromLoc); err == nil {
					onsets = append(onsets, t)
				}
			}
		}
		if len(onsets) > maxOnsets {
			return nil, fmt.Errorf("VTIMEZONE %s: more than %d changes of offset", tzid, maxOnsets)
		}
		if observances++; observances > maxObservances {
			return nil, fmt.Errorf("VTIMEZONE %s: more than %d observances", tzid, maxObservances)
		}
		for _, o := range onsets {
			zt := zoneTransition{at: o.Unix(), t: t}
			if zt.at < first {
				if before == nil || zt.at > before.at {
					before = &zt
				}
				continue
			}
			trans = append(trans, zt)
		}
	}
	if len(trans) == 0 && before == nil {
		return nil, fmt.Errorf("VTIMEZONE %s: no observance", tzid)
	}
	slices.SortFunc(trans, func(a, b zoneTransition) int { return cmpInt64(a.at, b.at) })
	trans = slices.CompactFunc(trans, func(a, b zoneTransition) bool { return a.at == b.at })
	initial := zoneType{}
	switch {
	case before != nil:
		initial = before.t
	default:
		// Before the first onset the zone is in that onset's "from"
		// offset; its standard observance is the best guess of a name.
		initial = trans[0].t
		for _, t := range trans {
			if !t.t.dst {
				initial = t.t
				break
			}
		}
	}
	data := tzif(initial, trans)
	return time.LoadLocationFromTZData(tzid, data)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// utcOffset reads a UTC-OFFSET value: "-0500", "+0530", "+013045".
func utcOffset(p *ical.Prop) (int, error) {
	if p == nil {
		return 0, fmt.Errorf("missing UTC offset")
	}
	v := strings.TrimSpace(p.Value)
	if len(v) != 5 && len(v) != 7 || (v[0] != '+' && v[0] != '-') {
		return 0, fmt.Errorf("bad UTC offset %q", v)
	}
	h, err1 := strconv.Atoi(v[1:3])
	m, err2 := strconv.Atoi(v[3:5])
	s := 0
	var err3 error
	if len(v) == 7 {
		s, err3 = strconv.Atoi(v[5:7])
	}
	if err1 != nil || err2 != nil || err3 != nil {
		return 0, fmt.Errorf("bad UTC offset %q", v)
	}
	off := h*3600 + m*60 + s
	if v[0] == '-' {
		off = -off
	}
	return off, nil
}

// tzif encodes a zone as TZif version 2 data (RFC 8536): an empty version
// 1 block, then 64-bit transitions. Type 0 is the zone before its first
// transition, which is how Go's loader reads an unused first type.
func tzif(initial zoneType, trans []zoneTransition) []byte {
	types := []zoneType{initial}
	index := map[zoneType]int{}
	idx := make([]byte, len(trans))
	for i, t := range trans {
		k, ok := index[t.t]
		if !ok {
			k = len(types)
			types = append(types, t.t)
			index[t.t] = k
		}
		idx[i] = byte(k)
	}
	var chars []byte
	abbrAt := map[string]int{}
	for _, t := range types {
		if _, ok := abbrAt[t.abbr]; !ok {
			abbrAt[t.abbr] = len(chars)
			chars = append(append(chars, t.abbr...), 0)
		}
	}
	var b bytes.Buffer
	header := func(timecnt int) {
		b.WriteString("TZif2")
		b.Write(make([]byte, 15))
		for _, n := range []int{0, 0, 0, timecnt, len(types), len(chars)} {
			binary.Write(&b, binary.BigEndian, uint32(n))
		}
	}
	typesAndChars := func() {
		for _, t := range types {
			binary.Write(&b, binary.BigEndian, int32(t.off))
			if t.dst {
				b.WriteByte(1)
			} else {
				b.WriteByte(0)
			}
			b.WriteByte(byte(abbrAt[t.abbr]))
		}
		b.Write(chars)
	}
	header(0)
	typesAndChars()
	header(len(trans))
	for _, t := range trans {
		binary.Write(&b, binary.BigEndian, t.at)
	}
	b.Write(idx)
	typesAndChars()
	b.WriteString("\n\n")
	return b.Bytes()
}
