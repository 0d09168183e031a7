package imap

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// cursorVersion changes when the cursor format does; an older or unknown
// cursor makes Sync start over rather than misread it.
const cursorVersion = 1

// cursor is what Sync hands back between runs, JSON-encoded. Per mailbox
// it keeps the UIDVALIDITY the UIDs belong to and the set of UIDs already
// delivered: comparing that set with UID SEARCH ALL is the only portable
// way to see expunges (QRESYNC would do it cheaper, but few servers
// outside Dovecot and Gmail offer it).
type cursor struct {
	Version int                     `json:"v"`
	Folders map[string]*folderState `json:"folders"`
}

type folderState struct {
	Role        string `json:"role"`
	UIDValidity uint32 `json:"uidvalidity"`
	// UIDNext and Count let an unchanged mailbox skip the UID SEARCH: if
	// neither moved, nothing was added (every APPEND bumps UIDNEXT) and
	// nothing expunged (the count would drop).
	UIDNext uint32 `json:"uidnext,omitempty"`
	Count   uint32 `json:"count"`
	MaxUID  uint32 `json:"max_uid"`
	// UIDs is the set of known UIDs in IMAP sequence-set syntax
	// ("1:480,483,490:512"), compact for the usual mostly-contiguous case.
	UIDs string `json:"uids"`
}

func decodeCursor(s string) (*cursor, error) {
	c := &cursor{Version: cursorVersion, Folders: map[string]*folderState{}}
	if s == "" {
		return c, nil
	}
	var in cursor
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return c, fmt.Errorf("imap: unreadable sync cursor: %w", err)
	}
	if in.Version != cursorVersion {
		return c, fmt.Errorf("imap: sync cursor version %d, want %d", in.Version, cursorVersion)
	}
	for name, st := range in.Folders {
		if st == nil {
			continue
		}
		if _, err := parseUIDs(st.UIDs); err != nil {
			return c, fmt.Errorf("imap: sync cursor for %q: %w", name, err)
		}
		c.Folders[name] = st
	}
	return c, nil
}

func (c *cursor) encode() string {
	b, err := json.Marshal(c)
	if err != nil {
		// Only maps, strings and integers: Marshal cannot fail.
		panic(err)
	}
	return string(b)
}

// formatUIDs writes sorted, duplicate-free uids as an IMAP sequence set.
func formatUIDs(uids []uint32) string {
	var b strings.Builder
	for i := 0; i < len(uids); {
		j := i
		for j+1 < len(uids) && uids[j+1] == uids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(uint64(uids[i]), 10))
		if j > i {
			b.WriteByte(':')
			b.WriteString(strconv.FormatUint(uint64(uids[j]), 10))
		}
		i = j + 1
	}
	return b.String()
}

// parseUIDs reads what formatUIDs wrote, returning sorted unique UIDs.
func parseUIDs(s string) ([]uint32, error) {
	if s == "" {
		return nil, nil
	}
	var out []uint32
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, ":")
		a, err := strconv.ParseUint(lo, 10, 32)
		if err != nil || a == 0 {
			return nil, fmt.Errorf("bad UID set %q", part)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 32); err != nil || b < a {
				return nil, fmt.Errorf("bad UID range %q", part)
			}
		}
		// A corrupt cursor claiming UIDs 1:4294967295 must not allocate
		// 16 GB; no real mailbox holds more than a few million messages.
		if b-a > 1<<24 || len(out) > 1<<24 {
			return nil, fmt.Errorf("UID range %q too large", part)
		}
		for u := a; u <= b; u++ {
			out = append(out, uint32(u))
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// diffUIDs returns the elements of a not in b and of b not in a; both
// inputs sorted.
func diffUIDs(a, b []uint32) (onlyA, onlyB []uint32) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i++
			j++
		case a[i] < b[j]:
			onlyA = append(onlyA, a[i])
			i++
		default:
			onlyB = append(onlyB, b[j])
			j++
		}
	}
	onlyA = append(onlyA, a[i:]...)
	onlyB = append(onlyB, b[j:]...)
	return onlyA, onlyB
}
