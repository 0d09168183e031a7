package index

import (
	"slices"
	"testing"

	"github.com/spirit-app/spirit/agents/mail"
)

// skippingConn is a connector that also reports what it left out.
type skippingConn struct {
	fakeConn
	skipped []mail.Skip
}

func (s *skippingConn) Skipped() []mail.Skip { return s.skipped }

func TestSyncAccountReportsSkips(t *testing.T) {
	big := mail.TooLarge("INBOX", "UID 7", 80<<20, mail.MaxMessageBytes)
	bad := mail.Skip{Folder: "INBOX", Where: "UID 9", Reason: "no mail headers"}
	msgs := []mail.Message{msg("m1", "Estoppel", "bob@x.com", 1), msg("m2", "SNDA", "bob@x.com", 2)}
	for _, tc := range []struct {
		name     string
		conn     mail.Connector
		wantSkip []mail.Skip
		want     string
	}{
		{"a connector without skips", &fakeConn{msgs: msgs}, nil, "synced 2 messages"},
		{"nothing skipped", &skippingConn{fakeConn: fakeConn{msgs: msgs}}, nil, "synced 2 messages"},
		{"too large", &skippingConn{fakeConn: fakeConn{msgs: msgs}, skipped: []mail.Skip{big, big}}, []mail.Skip{big, big},
			"synced 2 messages; skipped 2 too large to read (over 50 MB)"},
		{"too large and unreadable", &skippingConn{fakeConn: fakeConn{msgs: msgs}, skipped: []mail.Skip{big, bad}}, []mail.Skip{big, bad},
			"synced 2 messages; skipped 1 too large to read (over 50 MB) and 1 unreadable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newTestIndex(t)
			a := addAccount(t, x, "me@firm.com")
			res, err := x.SyncAccount(t.Context(), a.ID, tc.conn, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Applied != 2 || !slices.Equal(res.Skipped, tc.wantSkip) {
				t.Errorf("result %+v", res)
			}
			if got := res.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}
