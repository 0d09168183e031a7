package imap

import (
	"path/filepath"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/store"

	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// benchMessage generates a realistic message of about 3 KB: a reply in a
// thread, quoted-printable UTF-8 text, every fourth one a newsletter with a
// text/html alternative.
func benchMessage(i int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: Sender %d <sender%d@example.com>\r\n", i%97, i%97)
	b.WriteString("To: Nadia Petrov <nadia.petrov@callowayfinch.com>\r\n")
	fmt.Fprintf(&b, "Subject: =?utf-8?q?Re=3A_Matter_%d_=E2=80=93_closing_documents?=\r\n", i%400)
	fmt.Fprintf(&b, "Date: %s\r\n", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <bench-%d@example.com>\r\n", i)
	if i > 0 {
		fmt.Fprintf(&b, "In-Reply-To: <bench-%d@example.com>\r\nReferences: <bench-%d@example.com>\r\n", i-1, i-1)
	}
	para := "Please find the revised estoppel certificate attached; the tenant=E2=80=99s counsel asked for changes to section 4(b) and the SNDA. =\r\nLet me know by Friday whether the lender will accept them.\r\n\r\n"
	if i%4 == 0 {
		b.WriteString("List-Id: Property Law Daily <daily.news.example.com>\r\nPrecedence: bulk\r\n")
		b.WriteString("MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\n")
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
		b.WriteString(strings.Repeat(para, 6))
		b.WriteString("--b\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<html><body>")
		b.WriteString(strings.Repeat("<p>"+para+"</p>", 6))
		b.WriteString("</body></html>\r\n--b--\r\n")
	} else {
		b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n")
		b.WriteString(strings.Repeat(para, 10))
	}
	return []byte(b.String())
}

// TestBenchIMAPSync measures a full first sync of 5,000 messages from the
// in-process IMAP server over loopback TCP: LIST, EXAMINE, UID SEARCH,
// UID FETCH BODY.PEEK[] in batches, and MIME parsing. The callback only
// collects; the index is not in the loop. Run with SPIRIT_BENCH=1.
func TestBenchIMAPSync(t *testing.T) {
	if os.Getenv("SPIRIT_BENCH") != "1" {
		t.Skip("set SPIRIT_BENCH=1 to run the IMAP sync benchmark")
	}
	const n = 5000
	ts := newTestServer(t, serverOpts{})
	var bytes int
	for i := range n {
		raw := benchMessage(i)
		bytes += len(raw)
		ts.appendRaw(t, "INBOX", raw)
	}
	c := newConnector(t, ts.config())

	// The figure is the whole path a lawyer waits for: IMAP fetch and
	// parse, then the index's threading and full-text insert in SQLite.
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ix := index.New(st)
	acct, err := ix.AddAccount(context.Background(), index.Account{Kind: index.KindIMAP, Name: "bench", Address: "dana@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := ix.Sync(context.Background(), acct.ID, c, nil)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Fatalf("synced %d messages, want %d", got, n)
	}
	rate := float64(n) / elapsed.Seconds()
	t.Logf("%d messages, %.1f MB in %v (%.1f MB/s), indexed", n, float64(bytes)/1e6, elapsed.Round(time.Millisecond), float64(bytes)/1e6/elapsed.Seconds())
	fmt.Printf("BENCH index_sync_msgs_per_s %.0f msg/s\n", rate)
}
