//go:build unix

package accounts

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/spirit-app/spirit/agents/mail/index"
	"github.com/spirit-app/spirit/agents/mail/mbox"
)

const (
	fromLine = "From a Thu Jun 11 14:30:30 2026\n"
	me       = "dana@firm.com"
)

func message(id, subject string) string {
	return "Message-ID: <" + id + "@test>\nDate: Thu, 11 Jun 2026 10:30:30 -0400\nFrom: Grant Ellison <gellison@ellisonmarsh.com>\n" +
		"To: Dana <" + me + ">\nSubject: " + subject + "\n\nBody of " + subject + ".\n"
}

func fileAccount(t *testing.T, kind, path string) index.Account {
	t.Helper()
	cfg, err := json.Marshal(FileConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return index.Account{Kind: kind, Name: filepath.Base(path), Address: me, Config: cfg}
}

// wantNotMailbox fails unless err is the clear refusal: it wraps
// mbox.ErrNotMailbox, names the path and what it is, and says what to do.
func wantNotMailbox(t *testing.T, err error, path, why string) {
	t.Helper()
	if !errors.Is(err, mbox.ErrNotMailbox) {
		t.Fatalf("err %v, want mbox.ErrNotMailbox", err)
	}
	for _, want := range []string{path, why, "choose an mbox file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
}

// TestAddRefusesWhatIsNotMail is `spirit mail add mbox /dev/zero` and the
// same from Settings: both go through Add, which refuses a device or a
// named pipe with the clear error and keeps no account.
func TestAddRefusesWhatIsNotMail(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, kind, path, why string
	}{
		{"mbox /dev/zero", index.KindMbox, "/dev/zero", "a device"},
		{"mbox named pipe", index.KindMbox, fifo, "a named pipe"},
		{"maildir /dev/zero", index.KindMaildir, "/dev/zero", "a device"},
		{"maildir named pipe", index.KindMaildir, fifo, "a named pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			ix, sec := setup(t)
			_, err := Add(ctx, ix, sec, fileAccount(t, tc.kind, tc.path), Credentials{})
			wantNotMailbox(t, err, tc.path, tc.why)
			if as, _ := ix.Accounts(ctx); len(as) != 0 {
				t.Errorf("account kept: %+v", as)
			}
		})
	}
}

// TestSyncRefusesPathThatBecameDevice: an mbox account whose file was
// replaced by a device after it was added fails its sync with the clear
// error instead of reading the device, whether the connector is made
// after the swap (as every background sync does) or before it.
func TestSyncRefusesPathThatBecameDevice(t *testing.T) {
	for _, tc := range []struct {
		name          string
		connectBefore bool
	}{
		{"connected after the swap", false},
		{"connected before the swap", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			ix, sec := setup(t)
			path := filepath.Join(t.TempDir(), "Inbox")
			if err := os.WriteFile(path, []byte(fromLine+message("1", "One")), 0o600); err != nil {
				t.Fatal(err)
			}
			a, err := Add(ctx, ix, sec, fileAccount(t, index.KindMbox, path), Credentials{})
			if err != nil {
				t.Fatal(err)
			}
			conn, err := Connect(ctx, a, sec, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if n, err := ix.Sync(ctx, a.ID, conn, nil); err != nil || n != 1 {
				t.Fatalf("first sync: %d, %v", n, err)
			}
			// /dev/null, not /dev/zero: were the device read, the test
			// would fail on a count rather than take the machine's memory.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/dev/null", path); err != nil {
				t.Fatal(err)
			}
			if !tc.connectBefore {
				conn.Close()
				if conn, err = Connect(ctx, a, sec, nil); err != nil {
					wantNotMailbox(t, err, path, "a device")
					return
				}
			}
			_, err = ix.Sync(ctx, a.ID, conn, nil)
			wantNotMailbox(t, err, path, "a device")
			if st, _ := ix.Stats(ctx); st.Messages != 1 {
				t.Errorf("%d messages indexed after the refused sync, want the 1 kept", st.Messages)
			}
		})
	}
}

// TestSyncHugeMessageBoundedMemory syncs, end to end, an mbox file whose
// middle message is a 300 MiB line of zeros (a sparse file: no disk
// used). The message is skipped and counted, the ones before and after
// are indexed, and the sync allocates a small fraction of the file.
func TestSyncHugeMessageBoundedMemory(t *testing.T) {
	const huge = 300 << 20
	ctx := t.Context()
	ix, sec := setup(t)
	path := filepath.Join(t.TempDir(), "Inbox")
	head := fromLine + message("1", "Before") + "\n" + fromLine + message("big", "Big")
	tail := "\n\n" + fromLine + message("2", "After")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(head)
	if err == nil {
		_, err = f.WriteAt([]byte(tail), int64(len(head))+huge) // the gap reads as zeros
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	a, err := Add(ctx, ix, sec, fileAccount(t, index.KindMbox, path), Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Connect(ctx, a, sec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := ix.Sync(ctx, a.ID, conn, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("synced %d messages, want 2", n)
	}
	ids, err := ix.RemoteIDs(ctx, a.ID)
	if err != nil || len(ids) != 2 {
		t.Errorf("indexed %v (%v), want Before and After", ids, err)
	}
	for _, subject := range []string{"Before", "After"} {
		if hits, err := ix.SearchEmail(ctx, index.SearchQuery{Subject: subject}); err != nil || len(hits) != 1 {
			t.Errorf("search %q: %d hits, %v", subject, len(hits), err)
		}
	}
	sk := conn.(interface{ Skipped() []mbox.Skip }).Skipped()
	if len(sk) != 1 || !strings.Contains(sk[0].Reason, "a line longer than the 1 MiB") {
		t.Errorf("skipped %+v, want the big message", sk)
	}
	// TotalAlloc bounds the peak heap from above and cannot miss a spike;
	// reading the line whole, as before, allocates several times its size.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("the sync of %d MiB allocated %d MiB; heap in use %d MiB after", (len(head)+len(tail)+huge)>>20, alloc>>20, after.HeapInuse>>20)
	const bound = 64 << 20
	if alloc > bound {
		t.Errorf("the sync allocated %d MiB, want at most %d MiB", alloc>>20, bound>>20)
	}
}
