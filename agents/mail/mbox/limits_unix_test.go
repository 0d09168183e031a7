//go:build unix

package mbox

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// mkfifo makes a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}

// wantNotMailbox fails unless err wraps ErrNotMailbox, names path and
// says why (why) and what to do instead.
func wantNotMailbox(t *testing.T, err error, path, why string) {
	t.Helper()
	if !errors.Is(err, ErrNotMailbox) {
		t.Fatalf("err %v, want ErrNotMailbox", err)
	}
	for _, want := range []string{path, why, "choose an mbox file, a Maildir"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q lacks %q", err, want)
		}
	}
}

// TestCheckRefusesWhatIsNotMail: adding a device, a named pipe, a socket
// or a folder without mail is refused with an error that says what to
// choose; mail files and folders pass.
func TestCheckRefusesWhatIsNotMail(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	zeroLink := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o700)
	documents := filepath.Join(dir, "Documents")
	writeFile(t, filepath.Join(documents, "TODO"), "") // empty, no extension: like an empty mbox file
	notes := filepath.Join(dir, "notes.txt")
	writeFile(t, notes, "Call Marcy.\n")
	mboxFile := filepath.Join(dir, "archive.mbox")
	writeFile(t, mboxFile, from+plainMessage("1", "One", "x\n"))
	thunderbird := filepath.Join(dir, "Local Folders")
	writeFile(t, filepath.Join(thunderbird, "Trash"), "")
	writeFile(t, filepath.Join(thunderbird, "Trash.msf"), "")
	maildir := filepath.Join(dir, "Maildir")
	os.MkdirAll(filepath.Join(maildir, ".Sent", "cur"), 0o700)

	for _, tc := range []struct {
		name  string
		check func(string) error
		path  string
		why   string // "" when the path is accepted
	}{
		{"mbox /dev/zero", CheckMbox, "/dev/zero", "a device"},
		{"mbox symlink to /dev/zero", CheckMbox, zeroLink, "a device"},
		{"mbox named pipe", CheckMbox, fifo, "a named pipe"},
		{"mbox socket", CheckMbox, sock, "a socket"},
		{"mbox folder without mail", CheckMbox, empty, "a folder without mbox files"},
		{"mbox folder with only an empty file", CheckMbox, documents, "a folder without mbox files"},
		{"mbox file that is not mbox", CheckMbox, notes, `does not start with a "From " line`},
		{"maildir /dev/zero", CheckMaildir, "/dev/zero", "a device"},
		{"maildir named pipe", CheckMaildir, fifo, "a named pipe"},
		{"maildir file", CheckMaildir, mboxFile, "a file, not a Maildir folder"},
		{"maildir folder without one", CheckMaildir, empty, "a folder without a Maildir"},
		{"mbox file", CheckMbox, mboxFile, ""},
		{"Thunderbird folder with only Trash", CheckMbox, thunderbird, ""},
		{"Maildir++ without an INBOX", CheckMaildir, maildir, ""},
		{"open mbox /dev/zero", func(p string) error { _, err := OpenMbox(p, Options{}); return err }, "/dev/zero", "a device"},
		{"open mbox named pipe", func(p string) error { _, err := OpenMbox(p, Options{}); return err }, fifo, "a named pipe"},
		{"open maildir /dev/zero", func(p string) error { _, err := OpenMaildir(p, Options{}); return err }, "/dev/zero", "a device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check(tc.path)
			if tc.why == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			wantNotMailbox(t, err, tc.path, tc.why)
		})
	}
	if err := CheckMbox(maildir); err == nil || !strings.Contains(err.Error(), "add it as a Maildir") {
		t.Errorf("a Maildir added as mbox: %v, want the advice to add it as a Maildir", err)
	}
}

// syncOrHang runs c.Sync and fails the test if it does not return: a
// regression would block in open(2) on the pipe at fifo, which the
// watchdog then unblocks by opening its other end.
func syncOrHang(t *testing.T, c mail.Connector, fifo string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := c.Sync(t.Context(), "", func(mail.Message) error { return nil })
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second): // a watchdog, not synchronisation
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("the sync blocked on a named pipe")
		return nil
	}
}

// TestSyncRefusesPathThatBecameNotMail: an account added with a good path
// whose path was later replaced by a device or a pipe fails its sync with
// the clear error, without reading it.
func TestSyncRefusesPathThatBecameNotMail(t *testing.T) {
	for _, tc := range []struct {
		name    string
		open    func(path string) (mail.Connector, error)
		make    func(t *testing.T, path string) // the good mailbox
		replace string                          // "fifo" or a device to link to
		why     string
	}{
		{"mbox file to named pipe", openMbox, makeMbox, "fifo", "a named pipe"},
		{"mbox file to /dev/null", openMbox, makeMbox, "/dev/null", "a device"},
		{"mbox folder to named pipe", openMbox, makeMboxDir, "fifo", "a named pipe"},
		{"maildir to named pipe", openMaildir, makeMaildir, "fifo", "a named pipe"},
		{"maildir to /dev/null", openMaildir, makeMaildir, "/dev/null", "a device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mail")
			tc.make(t, path)
			c, err := tc.open(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := collect(t, c, ""); len(got) != 1 {
				t.Fatalf("before: %q", subjects(got))
			}
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
			if tc.replace == "fifo" {
				mkfifo(t, path)
			} else if err := os.Symlink(tc.replace, path); err != nil {
				t.Fatal(err)
			}
			err = syncOrHang(t, c, path)
			wantNotMailbox(t, err, path, tc.why)
		})
	}
}

func openMbox(path string) (mail.Connector, error) { return OpenMbox(path, Options{}) }

func openMaildir(path string) (mail.Connector, error) { return OpenMaildir(path, Options{}) }

func makeMbox(t *testing.T, path string) {
	writeFile(t, path, from+plainMessage("1", "One", "x\n"))
}

func makeMboxDir(t *testing.T, path string) {
	writeFile(t, filepath.Join(path, "Inbox"), from+plainMessage("1", "One", "x\n"))
}

func makeMaildir(t *testing.T, path string) {
	writeFile(t, filepath.Join(path, "cur", "1718000000.M1P1.host:2,S"), plainMessage("1", "One", "x\n"))
}

// TestDraftRefusesNonRegularDrafts: a Drafts "file" that is a pipe or a
// device is not appended to: the draft would be lost or the write hang.
func TestDraftRefusesNonRegularDrafts(t *testing.T) {
	for _, tc := range []struct {
		name, replace, why string
	}{
		{"named pipe", "fifo", "a named pipe"},
		{"/dev/null", "/dev/null", "a device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "Inbox"), from+plainMessage("1", "One", "x\n"))
			drafts := filepath.Join(dir, "Drafts")
			if tc.replace == "fifo" {
				mkfifo(t, drafts)
			} else if err := os.Symlink(tc.replace, drafts); err != nil {
				t.Fatal(err)
			}
			c, err := OpenMbox(dir, Options{From: mail.Address{Email: "dana@firm.com"}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.CreateDraft(t.Context(), mail.Draft{Subject: "RE: One", Body: "Agreed."})
			wantNotMailbox(t, err, drafts, tc.why)
		})
	}
}
