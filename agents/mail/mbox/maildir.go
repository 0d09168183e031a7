package mbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
)

// Maildir is a mail.Connector over a Maildir: the directory itself is the
// INBOX when it has cur/, and its subdirectories are folders, in the
// Maildir++ layout (".Sent", ".Archive.2025") or as plain directories
// ("Sent", Thunderbird's "Archives.sbd/2025"). A message's RemoteID is its
// file's base name without the ":2,flags" info, which stays the same when
// a client marks it read or moves it to another folder. It is safe for
// concurrent use.
type Maildir struct {
	root string
	local
}

var _ mail.Connector = (*Maildir)(nil)

// OpenMaildir returns a connector for the Maildir at root. A root that is
// not a directory is refused with an error wrapping ErrNotMailbox;
// CheckMaildir also looks inside, for adding an account.
func OpenMaildir(root string, opt Options) (*Maildir, error) {
	opt.defaults()
	if err := checkMaildirRoot(root); err != nil {
		return nil, fmt.Errorf("open maildir: %w", err)
	}
	return &Maildir{root: root, local: local{opt: opt}}, nil
}

// checkMaildirRoot refuses a root that is not (or no longer) a directory.
func checkMaildirRoot(root string) error {
	st, err := statMailbox(root)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return notMailbox(root, "a file, not a Maildir folder")
	}
	return nil
}

// IsMaildir reports whether dir is a Maildir (it has a cur folder).
func IsMaildir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "cur"))
	return err == nil && st.IsDir()
}

// folders lists the Maildir's folders.
func (c *Maildir) folders() ([]folder, error) {
	var out []folder
	if IsMaildir(c.root) {
		out = append(out, folder{"INBOX", c.root})
	}
	var walk func(dir, prefix string) error
	walk = func(dir, prefix string) error {
		des, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, de := range des {
			name := de.Name()
			p := filepath.Join(dir, name)
			if !de.IsDir() || name == "cur" || name == "new" || name == "tmp" || skipFolder(name) {
				continue
			}
			switch {
			case strings.HasPrefix(name, ".") && len(name) > 1 && IsMaildir(p): // Maildir++
				out = append(out, folder{prefix + strings.ReplaceAll(name[1:], ".", "/"), p})
			case strings.HasPrefix(name, "."):
			case strings.HasSuffix(name, ".sbd"):
				if err := walk(p, prefix+strings.TrimSuffix(name, ".sbd")+"/"); err != nil {
					return err
				}
			case IsMaildir(p):
				out = append(out, folder{prefix + name, p})
			}
		}
		return nil
	}
	if err := walk(c.root, ""); err != nil {
		return nil, err
	}
	return out, nil
}

// maildirSignature is a folder's cur/ and new/ modification times: adding,
// removing or renaming a message (flags live in the name) changes them.
func maildirSignature(f folder) (signature, error) {
	sig := signature{Path: f.path}
	for _, sub := range []string{"cur", "new"} {
		st, err := os.Stat(filepath.Join(f.path, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return sig, err
		}
		if sub == "cur" {
			sig.MTime = st.ModTime().UnixNano()
		} else {
			sig.NewMTime = st.ModTime().UnixNano()
		}
	}
	return sig, nil
}

// splitInfo splits a Maildir file name into its unique part and flags.
func splitInfo(name string) (id, flags string) {
	for _, sep := range []string{":2,", "!2,"} { // "!" where ":" is not allowed in names
		if i := strings.LastIndex(name, sep); i >= 0 {
			return name[:i], name[i+len(sep):]
		}
	}
	return name, ""
}

// Sync lists the Maildir when any folder changed since cur and delivers
// the messages: all files of the changed folders, or with Known the files
// not indexed or indexed under another folder (moved), followed by
// tombstones for indexed messages whose files are gone or flagged T
// (trashed). Message files that are not regular files are passed over;
// those over the size caps are skipped unread (Skipped lists them). A
// root that is no longer a directory fails the sync with an error
// wrapping ErrNotMailbox.
func (c *Maildir) Sync(ctx context.Context, cur string, fn func(mail.Message) error) (string, error) {
	prev := parseCursor(cur)
	next := cursor{V: 1, Folders: map[string]signature{}}
	c.mu.Lock()
	knownFn := c.opt.Known
	c.skipped = nil
	c.mu.Unlock()
	defer c.logSkipped(ctx, "maildir", c.root)

	if err := checkMaildirRoot(c.root); err != nil {
		return cur, fmt.Errorf("maildir: %w", err)
	}

	folders, err := c.folders()
	if err != nil {
		return cur, fmt.Errorf("maildir %s: %w", c.root, err)
	}
	changed := len(prev.Folders) != len(folders)
	for _, f := range folders {
		// Signatures first: a change during the listing shows at the next sync.
		sig, err := maildirSignature(f)
		if err != nil {
			return cur, fmt.Errorf("maildir %s: %w", f.path, err)
		}
		next.Folders[f.name] = sig
		if prev.Folders[f.name] != sig {
			changed = true
		}
	}
	if !changed {
		return cur, nil
	}
	var known map[string]string
	if knownFn != nil {
		if known, err = knownFn(ctx); err != nil {
			return cur, fmt.Errorf("maildir %s: indexed messages: %w", c.root, err)
		}
	}
	seen := map[string]bool{}
	for _, f := range folders {
		// Without Known only changed folders are read; with it every
		// folder is listed (cheap), so moves and deletions are seen.
		if known == nil && prev.Folders[f.name] == next.Folders[f.name] {
			continue
		}
		if err := c.readFolder(ctx, f, known, seen, fn); err != nil {
			return cur, err
		}
	}
	if known != nil {
		ids := make([]string, 0)
		for id := range known {
			if !seen[id] {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			if err := fn(mail.Message{RemoteID: id, Folder: known[id], Deleted: true}); err != nil {
				return cur, err
			}
		}
	}
	return next.String(), nil
}

func (c *Maildir) readFolder(ctx context.Context, f folder, known map[string]string, seen map[string]bool, fn func(mail.Message) error) error {
	isDrafts := strings.EqualFold(filepath.Base(f.name), "drafts")
	for _, sub := range []string{"new", "cur"} {
		des, err := os.ReadDir(filepath.Join(f.path, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("maildir %s: %w", f.path, err)
		}
		for _, de := range des {
			if err := ctx.Err(); err != nil {
				return err
			}
			name := de.Name()
			if strings.HasPrefix(name, ".") || !de.Type().IsRegular() {
				continue
			}
			id, flags := splitInfo(name)
			if strings.ContainsRune(flags, 'T') {
				continue // trashed: gone as far as the user is concerned
			}
			if seen[id] {
				continue // the same message in two folders: the first wins
			}
			seen[id] = true
			if known != nil {
				if folder, ok := known[id]; ok && folder == f.name {
					continue
				}
			}
			m, ok, err := c.readFile(ctx, f, filepath.Join(f.path, sub, name))
			if err != nil {
				return err
			}
			if !ok {
				delete(seen, id)
				continue
			}
			m.RemoteID, m.Folder = id, f.name
			m.Draft = m.Draft || isDrafts || strings.ContainsRune(flags, 'D')
			if err := fn(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// readFile parses one message file. ok is false when the file was skipped
// (logged) or vanished since the listing (a client moved it; the next sync
// sees it in its new place). A file over the message cap is skipped
// without reading it, and the read stops at a line over the line cap.
func (c *Maildir) readFile(ctx context.Context, f folder, path string) (mail.Message, bool, error) {
	file, st, err := openRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return mail.Message{}, false, nil
	}
	if errors.Is(err, ErrNotMailbox) {
		// Swapped for a device or pipe since the listing: not a message.
		c.skip(ctx, f, path, err.Error(), 0)
		return mail.Message{}, false, nil
	}
	if err != nil {
		return mail.Message{}, false, fmt.Errorf("maildir %s: %w", path, err)
	}
	defer file.Close()
	lim := c.opt.limits()
	if st.Size() > lim.message {
		c.skip(ctx, f, path, lim.tooLarge(st.Size()), lim.message)
		return mail.Message{}, false, nil
	}
	r := &boundedReader{r: file, lim: lim}
	m, err := parseMessage(r, fileDate(st, filepath.Base(path)))
	if r.over == "" {
		// The parser stops early (it keeps 1 MiB of text): read the rest
		// past, unkept, so a line over the cap skips the message as it
		// does in an mbox file, whichever part it is in. A read error
		// there is past what the parser needed; only r.over matters.
		_, _ = io.Copy(io.Discard, r)
	}
	switch {
	case r.over != "":
		// Whatever the parser made of a cut message, it is not the message.
		var over int64
		if r.large {
			over = lim.message
		}
		c.skip(ctx, f, path, r.over, over)
		return mail.Message{}, false, nil
	case errors.Is(err, mail.ErrPartialBody):
		c.opt.Logger.WarnContext(ctx, "maildir: message body read in part", "path", path, "err", err)
	case err != nil:
		c.skip(ctx, f, path, err.Error(), 0)
		return mail.Message{}, false, nil
	}
	return m, true, nil
}

// skip records a message left out; capBytes is the size cap it is over,
// 0 when skipped for another reason.
func (c *Maildir) skip(ctx context.Context, f folder, path, reason string, capBytes int64) {
	reason = strings.TrimSpace(reason)
	c.opt.Logger.WarnContext(ctx, "maildir: skipped a message", "path", path, "reason", reason)
	c.addSkip(Skip{Folder: f.name, Where: filepath.Base(path), Reason: reason, Cap: capBytes})
}

// fileDate is a message's date when its Date header fails: the delivery
// time at the start of its name ("1718000000.M1P2.host"), else the file's
// modification time.
func fileDate(st fs.FileInfo, name string) time.Time {
	if i := strings.IndexByte(name, '.'); i > 0 {
		if sec, err := strconv.ParseInt(name[:i], 10, 64); err == nil && sec > 0 {
			return time.Unix(sec, 0)
		}
	}
	return st.ModTime()
}

// draftsFolder is where CreateDraft writes: ".Drafts" in a Maildir++
// (one with dot-folders), else "Drafts"; an existing one of either wins.
func (c *Maildir) draftsFolder() string {
	for _, n := range []string{".Drafts", "Drafts"} {
		if IsMaildir(filepath.Join(c.root, n)) {
			return filepath.Join(c.root, n)
		}
	}
	des, _ := os.ReadDir(c.root)
	for _, de := range des {
		if de.IsDir() && strings.HasPrefix(de.Name(), ".") && IsMaildir(filepath.Join(c.root, de.Name())) {
			return filepath.Join(c.root, ".Drafts")
		}
	}
	return filepath.Join(c.root, "Drafts")
}

// CreateDraft writes d as an RFC 5322 message into the Drafts folder's
// cur/ with the Draft and Seen flags, the Maildir way: written and synced
// in tmp/, then renamed, so no reader sees half a file.
func (c *Maildir) CreateDraft(ctx context.Context, d mail.Draft) (mail.DraftRef, error) {
	if err := ctx.Err(); err != nil {
		return mail.DraftRef{}, err
	}
	now := c.opt.Now()
	raw, mid, err := composeDraft(d, c.opt.From, now)
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("maildir draft: %w", err)
	}
	dir := c.draftsFolder()
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return mail.DraftRef{}, fmt.Errorf("maildir draft: %w", err)
		}
	}
	name, err := uniqueName(now)
	if err != nil {
		return mail.DraftRef{}, fmt.Errorf("maildir draft: %w", err)
	}
	tmp := filepath.Join(dir, "tmp", name)
	if err := writeSynced(tmp, raw); err != nil {
		return mail.DraftRef{}, fmt.Errorf("maildir draft: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "cur", name+":2,DS")); err != nil {
		os.Remove(tmp)
		return mail.DraftRef{}, fmt.Errorf("maildir draft: %w", err)
	}
	syncDir(filepath.Join(dir, "cur"))
	folderName := strings.TrimPrefix(filepath.Base(dir), ".")
	return mail.DraftRef{RemoteID: name, MessageID: mid, Folder: folderName}, nil
}

// uniqueName is a Maildir file name: time, a random part, pid and host.
func uniqueName(now time.Time) (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	// The Maildir spec's escapes for the characters a name cannot hold.
	host = strings.NewReplacer("/", `\057`, ":", `\072`, "!", `\041`).Replace(host)
	return fmt.Sprintf("%d.M%dR%sP%d.%s", now.Unix(), now.Nanosecond()/1000, hex.EncodeToString(b), os.Getpid(), host), nil
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

// syncDir makes a rename durable; where directories cannot be synced
// (Windows) there is nothing to do.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
