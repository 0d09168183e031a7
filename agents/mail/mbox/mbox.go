// Package mbox connects Spirit's mail index to mail kept on the user's
// disk: mbox files (Thunderbird's local folders, exported archives) and
// Maildir directories. Both implement mail.Connector.
//
// Neither format has a change log, so a sync compares a signature of each
// folder (size and modification time of an mbox file, modification times
// of a Maildir's cur and new) with the cursor and re-reads the folders that
// changed. Given the RemoteIDs the index holds (SetKnown, which the index's
// Sync calls), a re-read delivers only new messages and reports those that
// vanished as Deleted tombstones.
package mbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// Options configure a connector.
type Options struct {
	// From is the user's address at this account, written into drafts'
	// From header (required by CreateDraft).
	From mail.Address
	// Folder names the folder of a single mbox file; "INBOX" if empty.
	Folder string
	// Logger receives the messages skipped as unreadable; slog.Default()
	// if nil.
	Logger *slog.Logger
	// Known, if set, lists the RemoteIDs already indexed, with their
	// folders. The index's Sync sets it through SetKnown.
	Known func(ctx context.Context) (map[string]string, error)
	// Now stamps drafts; time.Now if nil.
	Now func() time.Time
	// MaxMessageBytes caps one message; a sync skips a larger one unread
	// (Skipped lists it). 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int64
}

func (o *Options) defaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Skip is a message a sync left out, and why; Where is "offset 1234" in
// an mbox file, the file name in a Maildir. Cap is set for a message
// skipped because it is over the size cap.
type Skip = mail.Skip

// Mbox is a mail.Connector over mbox files: one file, or a directory of
// them as Thunderbird keeps its local folders ("Inbox", "Sent",
// "Archives.sbd/2025"). It is safe for concurrent use.
type Mbox struct {
	path  string
	dir   bool
	local // its lock also guards writes to the Drafts file
}

var _ mail.Connector = (*Mbox)(nil)

// OpenMbox returns a connector for the mbox file or the directory of mbox
// files at path. Anything else (a device, a named pipe, a socket) is
// refused with an error wrapping ErrNotMailbox; CheckMbox also looks
// inside, for adding an account.
func OpenMbox(path string, opt Options) (*Mbox, error) {
	opt.defaults()
	st, err := statMailbox(path)
	if err != nil {
		return nil, fmt.Errorf("open mbox: %w", err)
	}
	if opt.Folder == "" {
		opt.Folder = "INBOX"
	}
	return &Mbox{path: path, dir: st.IsDir(), local: local{opt: opt}}, nil
}

// local is what the mbox and Maildir connectors share: their options and
// the messages the last Sync skipped, under one lock.
type local struct {
	opt     Options
	mu      sync.Mutex // guards opt.Known and skipped
	skipped []Skip
}

// SetKnown sets Options.Known.
func (c *local) SetKnown(known func(ctx context.Context) (map[string]string, error)) {
	c.mu.Lock()
	c.opt.Known = known
	c.mu.Unlock()
}

// Skipped lists the messages the last Sync left out.
func (c *local) Skipped() []Skip {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.skipped)
}

// Close does nothing: no file stays open between calls.
func (c *local) Close() error { return nil }

// skipFolder reports whether a folder holds mail the user threw away or
// the server judged spam: the glance must not surface it, and a reply the
// user deleted is no reply.
func skipFolder(name string) bool {
	switch strings.ToLower(strings.TrimPrefix(strings.TrimSuffix(name, ".sbd"), ".")) {
	case "trash", "junk", "spam", "deleted items", "deleted messages", "junk e-mail", "junk email", "bin":
		return true
	}
	return false
}

// folder is one mbox file of the account.
type folder struct{ name, path string }

// draftsPath is the mbox file CreateDraft appends to: "Drafts" next to a
// single file, or inside the directory.
func (c *Mbox) draftsPath() string {
	if c.dir {
		return filepath.Join(c.path, "Drafts")
	}
	return filepath.Join(filepath.Dir(c.path), "Drafts")
}

// folders lists the account's mbox files.
func (c *Mbox) folders() ([]folder, error) {
	if !c.dir {
		fs := []folder{{c.opt.Folder, c.path}}
		if d := c.draftsPath(); d != c.path && isMboxFile(d) {
			fs = append(fs, folder{"Drafts", d})
		}
		return fs, nil
	}
	var out []folder
	var walk func(dir, prefix string) error
	walk = func(dir, prefix string) error {
		des, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			name := de.Name()
			p := filepath.Join(dir, name)
			switch {
			case strings.HasPrefix(name, "."):
			case de.IsDir() && strings.HasSuffix(name, ".sbd"): // Thunderbird's subfolders of "name"
				if err := walk(p, prefix+strings.TrimSuffix(name, ".sbd")+"/"); err != nil {
					return err
				}
			case skipFolder(name):
			case de.Type().IsRegular() && filepath.Ext(name) == "" && isMboxFile(p):
				out = append(out, folder{prefix + name, p})
			case de.Type().IsRegular() && strings.EqualFold(filepath.Ext(name), ".mbox") && isMboxFile(p):
				out = append(out, folder{prefix + strings.TrimSuffix(name, filepath.Ext(name)), p})
			}
		}
		return nil
	}
	if err := walk(c.path, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// isMboxFile reports whether path is a regular file that is empty or
// starts with a "From " line.
func isMboxFile(path string) bool {
	f, _, err := openRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 5)
	n, _ := io.ReadFull(f, head)
	return n == 0 || string(head[:n]) == "From "
}

// signature is what tells a changed file from an unchanged one.
type signature struct {
	Path     string `json:"path"`
	Size     int64  `json:"size,omitempty"`      // mbox: the file's size
	MTime    int64  `json:"mtime"`               // unix ns: the mbox file's, or a Maildir's cur/
	NewMTime int64  `json:"new_mtime,omitempty"` // a Maildir's new/
}

// cursor is the connectors' cursor: each folder's signature at the last
// sync. (Exported fields for JSON only; the cursor is opaque to callers.)
type cursor struct {
	V       int                  `json:"v"`
	Folders map[string]signature `json:"folders"`
}

func parseCursor(s string) cursor {
	var c cursor
	if s == "" || json.Unmarshal([]byte(s), &c) != nil || c.V != 1 || c.Folders == nil {
		return cursor{V: 1, Folders: map[string]signature{}}
	}
	return c
}

func (c cursor) String() string {
	b, _ := json.Marshal(c) // maps of plain structs always marshal
	return string(b)
}

// Sync re-reads the mbox files whose size or modification time changed
// since cursor and delivers their messages: all of them, or with Known
// only those not yet indexed, followed by tombstones for the indexed ones
// that are gone. Unreadable messages, and those over the size caps, are
// skipped and logged (Skipped lists them); a last message still being
// written (no final newline) is skipped too and picked up by the sync
// after the write completes, because the file's signature changes. A path
// that has become a device, a named pipe or a socket since the account
// was added fails the sync with an error wrapping ErrNotMailbox, unread.
func (c *Mbox) Sync(ctx context.Context, cur string, fn func(mail.Message) error) (string, error) {
	prev := parseCursor(cur)
	next := cursor{V: 1, Folders: map[string]signature{}}
	c.mu.Lock()
	knownFn := c.opt.Known
	c.skipped = nil
	c.mu.Unlock()
	defer c.logSkipped(ctx, "mbox", c.path)

	st, err := statMailbox(c.path)
	if err != nil {
		return cur, fmt.Errorf("mbox: %w", err)
	}
	if st.IsDir() != c.dir {
		what := "a file"
		if st.IsDir() {
			what = "a folder"
		}
		return cur, fmt.Errorf("mbox: %s is %s now; remove the account and add it again", c.path, what)
	}
	folders, err := c.folders()
	if err != nil {
		return cur, fmt.Errorf("mbox %s: %w", c.path, err)
	}
	var known map[string]string
	if knownFn != nil {
		if known, err = knownFn(ctx); err != nil {
			return cur, fmt.Errorf("mbox %s: indexed messages: %w", c.path, err)
		}
	}
	for _, f := range folders {
		// The signature is taken before reading: a write during the read
		// changes the file's signature again, and the next sync re-reads.
		st, err := os.Stat(f.path)
		if err != nil {
			return cur, fmt.Errorf("mbox %s: %w", f.path, err)
		}
		sig := signature{Path: f.path, Size: st.Size(), MTime: st.ModTime().UnixNano()}
		next.Folders[f.name] = sig
		if prev.Folders[f.name] == sig {
			continue
		}
		seen, err := c.readFolder(ctx, f, known, fn)
		if err != nil {
			return cur, err
		}
		if err := tombstones(known, f.name, seen, fn); err != nil {
			return cur, err
		}
	}
	// Folders that are gone: their messages too.
	for name := range prev.Folders {
		if _, ok := next.Folders[name]; !ok {
			if err := tombstones(known, name, nil, fn); err != nil {
				return cur, err
			}
		}
	}
	return next.String(), nil
}

// tombstones delivers Deleted for the indexed messages of folder that were
// not seen.
func tombstones(known map[string]string, folder string, seen map[string]bool, fn func(mail.Message) error) error {
	if known == nil {
		return nil
	}
	ids := make([]string, 0)
	for id, f := range known {
		if f == folder && !seen[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := fn(mail.Message{RemoteID: id, Folder: folder, Deleted: true}); err != nil {
			return err
		}
	}
	return nil
}

// readFolder parses one mbox file and delivers its messages that known
// lacks (all of them when known is nil). It returns the RemoteIDs seen.
func (c *Mbox) readFolder(ctx context.Context, f folder, known map[string]string, fn func(mail.Message) error) (map[string]bool, error) {
	file, _, err := openRegular(f.path)
	if err != nil {
		return nil, fmt.Errorf("mbox %s: %w", f.path, err)
	}
	defer file.Close()
	seen := map[string]bool{}
	occurrences := map[string]int{}
	isDrafts := strings.EqualFold(f.name, "drafts") || strings.HasSuffix(strings.ToLower(f.name), "/drafts")
	err = c.opt.limits().scanMbox(file, func(raw rawMessage) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		where := "offset " + strconv.FormatInt(raw.offset, 10)
		if raw.skip != "" {
			c.skip(ctx, Skip{Folder: f.name, Where: where, Reason: raw.skip, Cap: raw.cap})
			return nil
		}
		if !raw.complete {
			c.skip(ctx, Skip{Folder: f.name, Where: where, Reason: "incomplete: the file ends inside this message (a client may still be writing it)"})
			return nil
		}
		m, err := parseMessage(bytes.NewReader(raw.data), raw.fromDate)
		if errors.Is(err, mail.ErrPartialBody) {
			c.opt.Logger.WarnContext(ctx, "mbox: message body read in part", "folder", f.name, "where", where, "err", err)
		} else if err != nil {
			c.skip(ctx, Skip{Folder: f.name, Where: where, Reason: err.Error()})
			return nil
		}
		basis := identity(m)
		n := occurrences[basis]
		occurrences[basis] = n + 1
		m.RemoteID = remoteID(f.name, basis, n)
		m.Folder = f.name
		m.Draft = m.Draft || isDrafts
		seen[m.RemoteID] = true
		if known != nil {
			if _, ok := known[m.RemoteID]; ok {
				return nil
			}
		}
		return fn(m)
	})
	if err != nil {
		return nil, fmt.Errorf("mbox %s: %w", f.path, err)
	}
	return seen, nil
}

func (c *Mbox) skip(ctx context.Context, s Skip) {
	s.Reason = strings.TrimSpace(s.Reason)
	c.opt.Logger.WarnContext(ctx, "mbox: skipped a message", "path", c.path, "folder", s.Folder, "where", s.Where, "reason", s.Reason)
	c.addSkip(s)
}

func (c *local) addSkip(s Skip) {
	c.mu.Lock()
	c.skipped = append(c.skipped, s)
	c.mu.Unlock()
}

// logSkipped ends a sync's log with how many messages it left out, so
// the count shows next to the index's "synced" line and not only as one
// warning per message.
func (c *local) logSkipped(ctx context.Context, kind, path string) {
	c.mu.Lock()
	n := len(c.skipped)
	c.mu.Unlock()
	if n > 0 {
		c.opt.Logger.WarnContext(ctx, kind+": sync skipped messages", "path", path, "skipped", n)
	}
}

// identity is what makes a message itself for its RemoteID: the
// Message-ID, or for the rare message without one, a digest of what the
// reader sees. Byte offsets would do within one read, but Thunderbird's
// "compact folder" shifts every message after a deleted one, and the index
// would then drop and re-add the rest of the folder.
func identity(m mail.Message) string {
	if m.MessageID != "" {
		return "mid:" + m.MessageID
	}
	return fmt.Sprintf("sum:%d\x00%s\x00%s\x00%s", m.Date.Unix(), m.From.Email, m.Subject, m.Body)
}

// remoteID is folder/hash, with "~n" for the n-th repeat of an identity in
// the folder (the same message saved twice).
func remoteID(folder, basis string, n int) string {
	sum := sha256.Sum256([]byte(basis))
	id := folder + "/" + hex.EncodeToString(sum[:10])
	if n > 0 {
		id += "~" + strconv.Itoa(n)
	}
	return id
}

// rawMessage is one message as cut out of an mbox file.
type rawMessage struct {
	offset   int64     // of its "From " line
	fromDate time.Time // the date on the "From " line, zero if unreadable
	data     []byte    // the message, ">From " unescaped; nil when skip is set
	complete bool      // false when the file ended without a final newline
	size     int64     // of the message in the file, separator line excluded
	// skip, when set, is why the message was left unread: it is over the
	// message or line cap; cap is the message cap when it is over that.
	skip string
	cap  int64
}

// asctimeFromRe is a "From " line with a ctime date, for separators not
// preceded by an empty line (some writers omit it).
var asctimeFromRe = regexp.MustCompile(`^From \S+ +(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) +(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} +\d{1,2}:\d{2}(?::\d{2})?(?: +[+-]?\w+)? +\d{4}\s*$`)

// scanMbox cuts an mbox stream into messages, with the default caps.
func scanMbox(r io.Reader, fn func(rawMessage) error) error {
	return defaultLimits.scanMbox(r, fn)
}

// scanMbox cuts an mbox stream into messages. A line starting "From " is
// a separator at the start of the file or after an empty line (mboxrd
// writers escape body lines that start so, as ">From "), or anywhere if it
// carries a ctime date. Lines of ">From ", ">>From "… lose one ">"; the
// empty line before a separator belongs to the separator.
//
// Memory stays within the caps whatever the stream holds: a message over
// l.message, or with a line over l.line, is passed to fn with skip set and
// no data, its bytes read past and dropped as they come.
func (l limits) scanMbox(r io.Reader, fn func(rawMessage) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	// A file that does not start like mbox is refused before its first
	// line is read: that "line" may be a gigabyte of zeros.
	if head, err := br.Peek(5); len(head) > 0 && string(head) != "From " {
		return errors.New("not an mbox file: it does not start with a \"From \" line")
	} else if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	var (
		cur       *rawMessage
		buf       bytes.Buffer
		offset    int64
		prevBlank = true
		line      []byte
		// Why the current message is being read past instead of kept.
		overLine, overSize bool
	)
	emit := func(complete bool) error {
		if cur == nil {
			return nil
		}
		cur.complete = complete
		switch {
		case overLine:
			cur.skip = l.lineTooLong()
		case overSize:
			cur.skip, cur.cap = l.tooLarge(cur.size), l.message
		default:
			data := buf.Bytes()
			// Drop the separator's empty line.
			if bytes.HasSuffix(data, []byte("\r\n\r\n")) {
				data = data[:len(data)-2]
			} else if bytes.HasSuffix(data, []byte("\n\n")) {
				data = data[:len(data)-1]
			}
			if buf.Cap() > 1<<20 {
				// A large buffer goes with its message rather than being
				// copied (that would double the peak) or kept for the
				// next, small one.
				cur.data = data
				buf = bytes.Buffer{}
			} else {
				cur.data = bytes.Clone(data)
			}
		}
		err := fn(*cur)
		cur, overLine, overSize = nil, false, false
		buf.Reset()
		return err
	}
	for {
		var (
			err error
			n   int64
		)
		line, n, err = readLine(br, line[:0], l.line)
		if n > 0 {
			long := n > int64(len(line))
			switch {
			case bytes.HasPrefix(line, []byte("From ")) && (prevBlank || !long && asctimeFromRe.Match(bytes.TrimRight(line, "\r\n"))):
				if err := emit(true); err != nil {
					return err
				}
				cur = &rawMessage{offset: offset, fromDate: fromLineDate(line)}
				overLine = long // a "From " line of a gigabyte: not mail
			case cur == nil:
			case overLine || overSize:
				cur.size += n
			case long:
				overLine = true
				cur.size += n
				buf = bytes.Buffer{} // what was kept is of no use now
			case cur.size+n > l.message:
				overSize = true
				cur.size += n
				buf = bytes.Buffer{}
			default:
				cur.size += n
				if isEscapedFrom(line) {
					buf.Write(line[1:])
				} else {
					buf.Write(line)
				}
			}
			prevBlank = !long && len(bytes.TrimRight(line, "\r\n")) == 0
			offset += n
		}
		if errors.Is(err, io.EOF) {
			// ReadSlice ends with io.EOF only on a line without "\n": the
			// file ends inside the last message.
			return emit(n == 0)
		}
		if err != nil {
			return err
		}
	}
}

// readLine appends the next line, with its "\n", to dst, keeping at most
// limit bytes of it: the rest of a longer line is read and dropped, so a
// "line" of a gigabyte without a newline costs no memory. n is the
// line's whole length; n > len(line) tells a line was cut.
func readLine(br *bufio.Reader, dst []byte, limit int) (line []byte, n int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if room := limit - len(dst); room > 0 {
			dst = append(dst, chunk[:min(room, len(chunk))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return dst, n, err
		}
	}
}

// isEscapedFrom reports whether line is ">From ", ">>From "…: an mboxrd
// escape of a body line.
func isEscapedFrom(line []byte) bool {
	i := 0
	for i < len(line) && line[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(line[i:], []byte("From "))
}

// fromLineDate reads the ctime date of a "From sender date" line.
func fromLineDate(line []byte) time.Time {
	f := strings.Fields(string(line))
	if len(f) < 7 {
		return time.Time{}
	}
	s := strings.Join(f[2:], " ")
	for _, layout := range []string{"Mon Jan _2 15:04:05 2006", "Mon Jan 2 15:04:05 2006", "Mon Jan 2 15:04:05 -0700 2006", "Mon Jan 2 15:04:05 MST 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// CreateDraft appends d, as an RFC 5322 message with In-Reply-To and
// References, to the Drafts mbox file next to the account's file (inside
// its directory for a directory of folders), creating it if needed.
func (c *Mbox) CreateDraft(ctx context.Context, d mail.Draft) (mail.DraftRef, error) {
	if err := ctx.Err(); err != nil {
		return mail.DraftRef{}, err
	}
	now := c.opt.Now()
	raw, mid, err := composeDraft(d, c.opt.From, now)
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("mbox draft: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("From - " + now.UTC().Format("Mon Jan _2 15:04:05 2006") + "\n")
	for _, l := range bytes.SplitAfter(raw, []byte("\n")) {
		if isEscapedFrom(l) || bytes.HasPrefix(l, []byte("From ")) {
			b.WriteByte('>')
		}
		b.Write(l)
	}
	b.WriteString("\n")

	c.mu.Lock()
	defer c.mu.Unlock()
	path := c.draftsPath()
	if err := appendMbox(path, b.Bytes()); err != nil {
		return mail.DraftRef{}, fmt.Errorf("mbox draft: %w", err)
	}
	return mail.DraftRef{RemoteID: remoteID("Drafts", "mid:"+mid, 0), MessageID: mid, Folder: "Drafts"}, nil
}

// appendMbox appends one message (separator line included) to an mbox
// file, adding the empty line the previous message may lack, and syncs it.
// Only a regular file is written: a draft "appended" to a device or a
// named pipe would be lost, or the write would hang.
func appendMbox(path string, msg []byte) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return notMailbox(path, kindOf(st.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND|oNonblock, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if !st.Mode().IsRegular() { // swapped after the check above
		f.Close()
		return notMailbox(path, kindOf(st.Mode()))
	}
	var lead []byte
	if n := st.Size(); n > 0 {
		tail := make([]byte, min(n, 2))
		if _, err := f.ReadAt(tail, n-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
			f.Close()
			return err
		}
		switch {
		case !bytes.HasSuffix(tail, []byte("\n")):
			lead = []byte("\n\n")
		case !bytes.Equal(tail, []byte("\n\n")):
			lead = []byte("\n")
		}
	}
	// One write, so a concurrent reader sees the message whole or not
	// at all as far as the OS allows.
	if _, err := f.Write(append(lead, msg...)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
