package imap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail"
)

// What Spirit itself parses of an IMAP server's data is little: go-imap's
// client reads the protocol, and Spirit works on what it hands over. So
// FuzzIMAPSync fuzzes the server: a scripted one on 127.0.0.1 answers a
// real Connector's Sync with fuzzed LIST, EXAMINE, UID SEARCH and UID
// FETCH responses. That covers go-imap's response parser on data a
// hostile or broken server sends, and Spirit's conversions of it: folder
// choice (pickFolders), UIDVALIDITY and UID bookkeeping (the cursor), and
// message parsing (parseMessage on the BODY[] literal).

// fuzzTagMark in a scripted response stands for the tag of the command
// it answers (ESEARCH names its command's tag).
const fuzzTagMark = "$TAG"

// fuzzScript is one server's answers: untagged data sent before the
// tagged OK of each command.
type fuzzScript struct {
	caps                     string
	list, sel, search, fetch []byte
	greetingHasCaps          bool
	// rejectBatches refuses a UID FETCH of more than one UID, as Exchange
	// does when one message in the set is damaged.
	rejectBatches bool
}

// serve answers one connection. It hangs up when the client falls silent
// for idle: a client waiting for bytes a fuzzed response promised but never
// sent then sees the connection close rather than waiting out its
// command timeout, which keeps each input fast.
func (s *fuzzScript) serve(conn net.Conn, idle time.Duration) {
	defer conn.Close()
	w := bufio.NewWriter(conn)
	r := bufio.NewReader(conn)
	if s.greetingHasCaps {
		fmt.Fprintf(w, "* OK [CAPABILITY %s] fuzz ready\r\n", s.caps)
	} else {
		w.WriteString("* OK fuzz ready\r\n")
	}
	for {
		if w.Flush() != nil {
			return
		}
		conn.SetReadDeadline(time.Now().Add(idle))
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			return
		}
		tag, cmd := f[0], strings.ToUpper(f[1])
		if cmd == "UID" && len(f) > 2 {
			cmd += " " + strings.ToUpper(f[2])
		}
		data := func(b []byte) {
			b = bytes.ReplaceAll(b, []byte(fuzzTagMark), []byte(tag))
			w.Write(b)
			if len(b) > 0 && !bytes.HasSuffix(b, []byte("\r\n")) {
				w.WriteString("\r\n")
			}
		}
		switch cmd {
		case "CAPABILITY":
			fmt.Fprintf(w, "* CAPABILITY %s\r\n", s.caps)
		case "AUTHENTICATE":
			w.WriteString("+ \r\n")
			w.Flush()
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
		case "LIST":
			data(s.list)
		case "SELECT", "EXAMINE":
			data(s.sel)
		case "UID SEARCH":
			data(s.search)
		case "UID FETCH":
			if !s.rejectBatches || len(f) < 4 || !strings.ContainsAny(f[3], ":,") {
				data(s.fetch)
			}
		case "LOGOUT":
			w.WriteString("* BYE fuzz\r\n")
			fmt.Fprintf(w, "%s OK bye\r\n", tag)
			w.Flush()
			return
		}
		if s.rejectBatches && cmd == "UID FETCH" && len(f) > 3 && strings.ContainsAny(f[3], ":,") {
			fmt.Fprintf(w, "%s NO fuzz says no\r\n", tag)
		} else {
			fmt.Fprintf(w, "%s OK done\r\n", tag)
		}
	}
}

// fuzzFetch is a UID FETCH response for one message.
func fuzzFetch(seq, uid int, msg string) string {
	return fmt.Sprintf("* %d FETCH (UID %d FLAGS (\\Seen) INTERNALDATE \"18-Jun-2026 10:00:58 -0400\" BODY[] {%d}\r\n%s)\r\n", seq, uid, len(msg), msg)
}

// FuzzIMAPSync runs a first Sync against a server answering with fuzzed
// data. Whatever the server says, the sync ends promptly, with an error or
// with messages and a cursor; it never panics (a panic in the connector's
// goroutines takes Spirit down). When it succeeds: the cursor it returns
// can be read back (or every later sync silently starts over); a first
// sync delivers no tombstones; every message has a RemoteID of its
// folder, UIDVALIDITY and a non-zero UID, is in one of the three synced
// roles, and has a valid UTF-8 body without trailing blank space.
func FuzzIMAPSync(f *testing.F) {
	msg1 := "From: Marcy Howard <mhoward@example.com>\r\nTo: dana@firm.com\r\nSubject: RE: SNDA\r\nMessage-ID: <m1@x.com>\r\n" +
		"Date: Thu, 18 Jun 2026 10:00:58 -0400\r\n\r\nCan you confirm?\r\n"
	msg2 := "From: a@b.c\r\nSubject: =?UTF-8?B?w6k=?=\r\nContent-Type: text/html\r\n\r\n<p>hi</p><blockquote>old</blockquote>\r\n"
	list := "* LIST (\\HasNoChildren) \"/\" \"INBOX\"\r\n* LIST (\\HasNoChildren \\Sent) \"/\" \"Sent Items\"\r\n* LIST (\\Drafts) \"/\" Drafts\r\n"
	sel := "* 2 EXISTS\r\n* 0 RECENT\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 4] ok\r\n* FLAGS (\\Seen \\Draft)\r\n"
	for _, s := range []struct {
		caps                     string
		list, sel, search, fetch string
		greetingCaps, reject     bool
	}{
		{"IMAP4rev1", list, sel, "* SEARCH 1 3\r\n", fuzzFetch(1, 1, msg1) + fuzzFetch(2, 3, msg2), true, false},
		{"IMAP4rev1 SPECIAL-USE LIST-EXTENDED", list, sel, "* SEARCH 1 3\r\n", fuzzFetch(1, 1, msg1) + "* 2 FETCH (FLAGS (\\Seen))\r\n", false, false},
		{"IMAP4rev2", list, sel, "* ESEARCH (TAG \"" + fuzzTagMark + "\") UID ALL 1,3:4\r\n", fuzzFetch(1, 3, msg2), true, false},
		{"IMAP4rev1 ESEARCH", "* LIST () \".\" INBOX.Sent\r\n", "* OK [UIDVALIDITY 0]\r\n", "* SEARCH\r\n", "", true, false},
		{"IMAP4rev1 LOGINDISABLED AUTH=PLAIN", "", sel, "* SEARCH 2\r\n", fuzzFetch(1, 2, "not a message"), true, false},
		{"IMAP4rev1", list, sel, "* SEARCH 1 3\r\n", fuzzFetch(1, 1, msg1), true, true},
	} {
		f.Add(s.caps, []byte(s.list), []byte(s.sel), []byte(s.search), []byte(s.fetch), s.greetingCaps, s.reject)
	}
	f.Fuzz(func(t *testing.T, caps string, list, sel, search, fetch []byte, greetingCaps, reject bool) {
		if strings.ContainsAny(caps, "\r\n]") {
			t.Skip("capabilities are one line")
		}
		if fuzzLargeUIDSet(search) {
			// A mailbox of thousands of messages is real, and Sync would
			// fetch it in as many batches, each answered with the same
			// fuzzed FETCH: slow, and no different from a few. Sets over
			// maxSearchUIDs stay in: Sync must refuse them at once.
			t.Skip("a large mailbox: slow to fetch, nothing new to find")
		}
		script := &fuzzScript{caps: caps, list: list, sel: sel, search: search, fetch: fetch, greetingHasCaps: greetingCaps, rejectBatches: reject}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				go script.serve(conn, 100*time.Millisecond)
			}
		}()
		addr := ln.Addr().(*net.TCPAddr)
		c, err := New(Config{
			Host: "127.0.0.1", Port: addr.Port, TLS: TLSNone,
			Username: "dana@firm.com", Password: "app-password",
			DialTimeout: 2 * time.Second, CommandTimeout: 2 * time.Second,
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}

		var (
			msgs []mail.Message
			next string
		)
		done := make(chan struct{})
		go func() {
			defer close(done)
			next, err = c.Sync(context.Background(), "", func(m mail.Message) error {
				msgs = append(msgs, m)
				return nil
			})
		}()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			// The command timeouts end any wait for the server within a
			// few seconds. Close is not called: it would wait for the
			// stuck Sync too, and the finding would be a hung run.
			t.Fatal("Sync did not return within 15s")
		}
		defer c.Close()
		if err != nil {
			return
		}
		if _, err := decodeCursor(next); err != nil {
			t.Fatalf("Sync returned a cursor it cannot read back (%v): %s", err, next)
		}
		for _, m := range msgs {
			if m.Deleted {
				t.Fatalf("a first sync delivered a tombstone: %+v", m)
			}
			i := strings.LastIndexByte(m.RemoteID, '/')
			j := strings.LastIndexByte(m.RemoteID[:max(i, 0)], '/')
			if i < 0 || j < 0 {
				t.Fatalf("RemoteID %q is not folder/uidvalidity/uid", m.RemoteID)
			}
			if uid, err := strconv.ParseUint(m.RemoteID[i+1:], 10, 32); err != nil || uid == 0 {
				t.Fatalf("RemoteID %q has no UID", m.RemoteID)
			}
			if _, err := strconv.ParseUint(m.RemoteID[j+1:i], 10, 32); err != nil {
				t.Fatalf("RemoteID %q has no UIDVALIDITY", m.RemoteID)
			}
			switch m.Folder {
			case RoleInbox, RoleSent, RoleDrafts:
			default:
				t.Fatalf("message %q in folder %q", m.RemoteID, m.Folder)
			}
			if !utf8.ValidString(m.Body) || m.Body != strings.TrimRight(m.Body, " \t\r\n") {
				t.Fatalf("message %q body %q", m.RemoteID, m.Body)
			}
		}
	})
}

// FuzzCursorUIDs reads arbitrary UID sets as a stored cursor holds them
// (and as formatUIDs writes what a server's SEARCH answered). parseUIDs
// refuses what it cannot read and allocates for no more UIDs than it
// allows; what it reads comes out sorted and unique and is written back
// by formatUIDs as a set that reads back the same.
func FuzzCursorUIDs(f *testing.F) {
	for _, s := range []string{"", "1:480,483,490:512", "7", "3,1,2,2", "0", "5:4", "4294967295", "1:2:3", ",", "1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<10 {
			t.Skip("longer than the ranges worth fuzzing")
		}
		var span uint64
		for _, m := range fuzzRangeRe.FindAllStringSubmatch(s, -1) {
			lo, _ := strconv.ParseUint(m[1], 10, 32)
			hi, _ := strconv.ParseUint(m[2], 10, 32)
			span += max(lo, hi) - min(lo, hi)
		}
		if span > 1<<20 {
			// parseUIDs takes seconds for the millions it allows, which
			// the fuzzing engine reports as a hung worker; no wrong answer.
			t.Skip("a cursor of over a million UIDs")
		}
		uids, err := parseUIDs(s)
		if err != nil {
			return
		}
		for i, u := range uids {
			if u == 0 || (i > 0 && u <= uids[i-1]) {
				t.Fatalf("parseUIDs(%q): %d at %d, not sorted, unique and non-zero", s, u, i)
			}
		}
		back, err := parseUIDs(formatUIDs(uids))
		if err != nil || !slices.Equal(back, uids) {
			t.Fatalf("parseUIDs(formatUIDs(parseUIDs(%q))) = %v, %v", s, len(back), err)
		}
	})
}

var fuzzRangeRe = regexp.MustCompile(`(\d+)\s*:\s*(\d+)`)

// fuzzLargeUIDSet reports whether the UID ranges of a SEARCH answer span
// more than 4096 UIDs in all, but not more than Sync accepts.
func fuzzLargeUIDSet(b []byte) bool {
	var n uint64
	for _, m := range fuzzRangeRe.FindAllSubmatch(b, -1) {
		lo, err1 := strconv.ParseUint(string(m[1]), 10, 32)
		hi, err2 := strconv.ParseUint(string(m[2]), 10, 32)
		if err1 != nil || err2 != nil {
			continue // not a UID: the client refuses it
		}
		n += max(lo, hi) - min(lo, hi) + 1
	}
	return n > 4096 && n <= maxSearchUIDs
}
