package mbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spirit-app/spirit/agents/mail"
)

// DefaultMaxMessageBytes is the largest message a sync reads when
// Options.MaxMessageBytes is 0: the cap every connector applies (see
// mail.MaxMessageBytes for why this size).
const DefaultMaxMessageBytes = mail.MaxMessageBytes

// maxLineBytes caps one line of a local mail file. RFC 5322 allows 998
// bytes; real HTML mail has lines of some hundred kilobytes at worst. A
// longer "line" (a gigabyte of zeros without a newline) is not mail, and
// reading it whole is what made a sync of /dev/zero take gigabytes, so a
// message with one is skipped and the rest of the line read and dropped.
const maxLineBytes = 1 << 20

// ErrNotMailbox marks a path that is neither an mbox file, a Maildir nor
// a folder of them: a device, a named pipe, a socket, a directory without
// mail. Reading one would block forever or never end.
var ErrNotMailbox = errors.New("not a mail file or folder")

// choose is what the errors wrapping ErrNotMailbox tell the user to do.
const choose = "choose an mbox file, a Maildir (a folder with cur, new and tmp inside) or a folder of mbox files such as Thunderbird's Local Folders"

// limits bound what one message of a local file may cost.
type limits struct {
	message int64 // bytes of one message; a larger one is skipped
	line    int   // bytes of one line; a message with a longer one is skipped
}

var defaultLimits = limits{message: DefaultMaxMessageBytes, line: maxLineBytes}

func (o Options) limits() limits {
	l := defaultLimits
	if o.MaxMessageBytes > 0 {
		l.message = o.MaxMessageBytes
	}
	return l
}

// tooLarge is the Skip reason for a message over the cap.
func (l limits) tooLarge(size int64) string {
	return fmt.Sprintf("too large: %s, over the %s a message may have", mib(size), mib(l.message))
}

// lineTooLong is the Skip reason for a message with a line over the cap.
func (l limits) lineTooLong() string {
	return fmt.Sprintf("a line longer than the %s a line may have (not a mail message?)", mib(int64(l.line)))
}

// mib writes a size for people: "50 MiB", "1.5 MiB", "312 KiB".
func mib(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// kindOf names what a file that is neither regular nor a directory is.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}

// notMailbox is the error for path, which is not a mailbox because of
// why ("a device", kindOf's words, or what is missing inside).
func notMailbox(path, why string) error {
	return fmt.Errorf("%s is %w (%s): %s", path, ErrNotMailbox, why, choose)
}

// statMailbox stats path, following links, and refuses anything but a
// regular file or a directory.
func statMailbox(path string) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return nil, notMailbox(path, kindOf(st.Mode()))
	}
	return st, nil
}

// openRegular opens path for reading only if it is a regular file. The
// open does not block (a named pipe without a writer would hang a plain
// open forever) and the type is checked on the open file, so a path
// swapped for a device between a stat and the open is refused too.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		// Before opening: opening a socket fails with a less helpful error.
		return nil, nil, notMailbox(path, kindOf(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, notMailbox(path, kindOf(st.Mode()))
	}
	return f, st, nil
}

// CheckMbox reports whether path can be added as an mbox account: a
// regular file that is empty or starts with a "From " line, or a folder
// with mbox files in it (one not empty) or Thunderbird's summary files,
// as its Local Folders are. The error wraps ErrNotMailbox and says what
// to choose instead.
func CheckMbox(path string) error {
	st, err := statMailbox(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		if !isMboxFile(path) {
			return notMailbox(path, "it does not start with a \"From \" line, as mbox files do")
		}
		return nil
	}
	folders, err := (&Mbox{path: path, dir: true}).folders()
	if err != nil {
		return fmt.Errorf("mbox %s: %w", path, err)
	}
	// An empty file without an extension passes isMboxFile; alone it
	// does not make a folder of mail (any folder may hold one).
	for _, f := range folders {
		if st, err := os.Stat(f.path); err == nil && st.Size() > 0 {
			return nil
		}
	}
	if hasThunderbirdSummary(path) {
		return nil
	}
	if maildirs, err := (&Maildir{root: path}).folders(); err == nil && len(maildirs) > 0 {
		return fmt.Errorf("%s is a Maildir, not a folder of mbox files: add it as a Maildir", path)
	}
	return notMailbox(path, "a folder without mbox files")
}

// hasThunderbirdSummary reports whether dir has Thunderbird's ".msf"
// summary files: a Local Folders directory whose folders are all empty
// or thrown away (Trash) is still a mail folder.
func hasThunderbirdSummary(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.msf"))
	return len(m) > 0
}

// CheckMaildir reports whether path can be added as a Maildir account: a
// Maildir (a folder with cur inside) or a folder of Maildirs. The error
// wraps ErrNotMailbox and says what to choose instead.
func CheckMaildir(path string) error {
	st, err := statMailbox(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return notMailbox(path, "a file, not a Maildir folder; add an mbox file as mbox")
	}
	folders, err := (&Maildir{root: path}).folders()
	if err != nil {
		return fmt.Errorf("maildir %s: %w", path, err)
	}
	if len(folders) == 0 {
		return notMailbox(path, "a folder without a Maildir: no cur folder in it or its subfolders")
	}
	return nil
}

// boundedReader passes a Maildir message file through, failing the read
// once the message exceeds its cap or a line exceeds the line cap: the
// parser buffers a header line whole, and a file may grow after it was
// listed. over is the Skip reason once a cap was hit.
type boundedReader struct {
	r     io.Reader
	lim   limits
	total int64 // bytes read
	line  int64 // bytes of the current line so far
	over  string
	large bool // over is for the message's size, not a line's
}

// errOverCap ends the parser's read of a message over a cap; the caller
// skips the message with boundedReader.over as the reason.
var errOverCap = errors.New("over the size cap")

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.over != "" {
		return 0, errOverCap
	}
	// One byte past the cap tells a message at the cap from one over it.
	if room := b.lim.message + 1 - b.total; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.r.Read(p)
	b.total += int64(n)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			b.line += int64(len(rest))
			rest = nil
		} else {
			b.line += int64(i)
			rest = rest[i+1:]
		}
		if b.line > int64(b.lim.line) {
			b.over = b.lim.lineTooLong()
			return n, errOverCap
		}
		if i >= 0 {
			b.line = 0
		}
	}
	if b.total > b.lim.message {
		b.over, b.large = b.lim.tooLarge(b.total), true
		return n, errOverCap
	}
	return n, err
}
