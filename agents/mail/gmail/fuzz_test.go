package gmail

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
)

// FuzzConvert builds messages.get answers (format=raw) around arbitrary
// message bytes and an arbitrary internalDate, sends them through JSON as
// Gmail would, and converts them. Gmail's base64url comes with or without
// padding; either way the message is the one mail.Parse reads from the
// same bytes, dated by internalDate when its Date header fails; and the
// folder is chosen from the labels as documented (a draft is a draft,
// then sent beats inbox), or the message is not one Spirit syncs.
func FuzzConvert(f *testing.F) {
	f.Add([]byte("From: Marcy Howard <mhoward@example.com>\r\nTo: dana@firm.com\r\nSubject: RE: SNDA\r\nMessage-ID: <m1@x.com>\r\n"+
		"Date: Thu, 18 Jun 2026 10:00:58 -0400\r\n\r\nCan you confirm?\r\n"), "1781791258000", "INBOX,UNREAD", false)
	f.Add([]byte("Subject: no date\r\nContent-Type: text/html\r\n\r\n<p>hi</p>"), "1781791258000", "SENT,INBOX", true)
	f.Add([]byte("not a header line\r\n"), "x", "DRAFT", false)
	f.Add([]byte(""), "-62135596800001", "CATEGORY_PROMOTIONS", true)
	c := &Connector{log: slog.New(slog.DiscardHandler)}
	f.Fuzz(func(t *testing.T, raw []byte, internal, labels string, padded bool) {
		enc := base64.RawURLEncoding
		if padded {
			enc = base64.URLEncoding
		}
		body, err := json.Marshal(rawMessage{ID: "m1", ThreadID: "t1", LabelIDs: strings.Split(labels, ","), InternalDate: internal, Raw: enc.EncodeToString(raw)})
		if err != nil {
			t.Fatal(err)
		}
		var rm rawMessage
		if err := json.Unmarshal(body, &rm); err != nil {
			t.Fatal(err)
		}

		folder, ok := folderOf(rm.LabelIDs)
		switch has := func(l string) bool { return strings.Contains(","+labels+",", ","+l+",") }; {
		case has("DRAFT"):
			ok = ok && folder == "Drafts"
		case has("SENT"):
			ok = ok && folder == "Sent"
		case has("INBOX"):
			ok = ok && folder == "INBOX"
		default:
			if ok {
				t.Fatalf("labels %q chose folder %q", labels, folder)
			}
			ok = true
		}
		if !ok {
			t.Fatalf("labels %q chose folder %q", labels, folder)
		}

		got, err := c.convert(rm)
		wantMsg, wantErr := mail.Parse(bytes.NewReader(raw))
		if wantErr != nil && !errors.Is(wantErr, mail.ErrPartialBody) {
			if err == nil {
				t.Fatalf("convert took a message mail.Parse refuses (%v)", wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("convert: %v, though mail.Parse reads the message", err)
		}
		if wantMsg.Date.IsZero() {
			wantMsg.Date = internalDate(internal)
			if ms, err := strconv.ParseInt(internal, 10, 64); err == nil && got.Date.UnixMilli() != ms {
				t.Fatalf("internalDate %q gave %v", internal, got.Date)
			}
		}
		if !reflect.DeepEqual(got, wantMsg) {
			t.Fatalf("convert = %+v, mail.Parse = %+v", got, wantMsg)
		}
	})
}
