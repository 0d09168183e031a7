package imap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	goimap "github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/spirit-app/spirit/agents/mail"
)

// plan is what one folder needs this sync: tombstones and UIDs to fetch.
type plan struct {
	folder folder
	// gone are UIDs delivered earlier and no longer on the server, under
	// goneValidity (the old UIDVALIDITY after a reset).
	gone         []uint32
	goneValidity uint32
	validity     uint32
	fetch        []uint32
	// current is every UID in the folder at planning time.
	current []uint32
	// failed are UIDs the server would not deliver; they stay out of the
	// cursor so the next sync tries them again.
	failed []uint32
	state  *folderState // the folder's cursor once the plan is done
}

// Sync delivers new messages and tombstones for expunged ones from INBOX,
// Sent and Drafts. See mail.Connector.
//
// It works in two passes: first it examines every folder and works out
// what changed (cheap: a SELECT and at most one UID SEARCH each), then it
// fetches, so Progress knows the total from the start.
//
// Messages over Config.MaxMessageBytes are skipped without downloading
// them (Skipped lists them); they count as synced, so the next sync does
// not try them again.
func (c *Connector) Sync(ctx context.Context, cursorStr string, fn func(mail.Message) error) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skips.Reset()

	cur, err := decodeCursor(cursorStr)
	if err != nil {
		// A cursor we can't read only costs a full resync: the index
		// upserts by RemoteID.
		c.log.Warn("starting a full IMAP sync", "reason", err)
	}
	next, err := c.sync(ctx, cur, fn)
	if err != nil {
		c.drop()
		return "", err
	}
	return next.encode(), nil
}

func (c *Connector) sync(ctx context.Context, cur *cursor, fn func(mail.Message) error) (*cursor, error) {
	start := time.Now()
	cl, err := c.client(ctx)
	if err != nil {
		return nil, err
	}
	folders, err := c.listFolders(ctx, cl)
	if err != nil {
		return nil, err
	}

	var plans []*plan
	total := 0
	for _, f := range folders {
		p, err := c.plan(ctx, cl, f, cur.Folders[f.Name])
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
		total += len(p.fetch)
	}

	// A folder synced before but no longer chosen (deleted, renamed, or
	// another one now carries \Sent): tombstone what came from it, or the
	// index would keep messages nobody can find on the server.
	for name, st := range cur.Folders {
		if slices.ContainsFunc(folders, func(f folder) bool { return f.Name == name }) {
			continue
		}
		uids, _ := parseUIDs(st.UIDs) // validated by decodeCursor
		plans = append(plans, &plan{folder: folder{Name: name, Role: st.Role}, gone: uids, goneValidity: st.UIDValidity})
	}

	next := &cursor{Version: cursorVersion, Folders: map[string]*folderState{}}
	deleted := 0
	for _, p := range plans {
		for _, uid := range p.gone {
			if err := fn(mail.Message{
				RemoteID: remoteID(p.folder.Name, p.goneValidity, uid),
				Folder:   p.folder.Role,
				Deleted:  true,
			}); err != nil {
				return nil, err
			}
			deleted++
		}
	}

	done, fetched := 0, 0
	deliver := func(m mail.Message) error {
		fetched++
		return fn(m)
	}
	if c.cfg.Progress != nil {
		c.cfg.Progress(0, total)
	}
	for _, p := range plans {
		if p.state == nil {
			continue // a vanished folder: tombstones only
		}
		if len(p.fetch) > 0 {
			if err := c.fetchFolder(ctx, cl, p, deliver, &done, total); err != nil {
				return nil, err
			}
		}
		if len(p.failed) > 0 {
			c.log.Warn("messages not delivered by the server; will retry next sync", "folder", p.folder.Name, "count", len(p.failed))
			kept, _ := diffUIDs(p.current, p.failed)
			p.state.UIDs = formatUIDs(kept)
			p.state.Count = 0 // defeat the nothing-changed shortcut so the retry happens
		}
		next.Folders[p.folder.Name] = p.state
	}
	c.log.Info("IMAP sync done", "fetched", fetched, "deleted", deleted, "folders", len(folders), "took", time.Since(start).Round(time.Millisecond))
	return next, nil
}

// plan examines one folder and compares it with its cursor state.
func (c *Connector) plan(ctx context.Context, cl *imapclient.Client, f folder, st *folderState) (*plan, error) {
	sel, err := c.examine(ctx, cl, f.Name)
	if err != nil {
		return nil, err
	}
	p := &plan{folder: f, validity: sel.UIDValidity}

	var known []uint32
	if st != nil {
		known, _ = parseUIDs(st.UIDs) // validated by decodeCursor
		if st.UIDValidity != sel.UIDValidity {
			// The server renumbered the folder (restored from backup,
			// recreated, migrated): every old UID is meaningless. Drop
			// them all and fetch the folder afresh.
			c.log.Info("UIDVALIDITY changed, resyncing folder", "folder", f.Name, "old", st.UIDValidity, "new", sel.UIDValidity)
			p.gone, p.goneValidity = known, st.UIDValidity
			known, st = nil, nil
		}
	}

	if st != nil && sel.UIDNext != 0 && uint32(sel.UIDNext) == st.UIDNext && sel.NumMessages == st.Count {
		st.Role = f.Role
		p.state = st
		return p, nil
	}

	var current []uint32
	err = c.do(ctx, cl, func(func()) error {
		data, err := cl.UIDSearch(&goimap.SearchCriteria{}, nil).Wait()
		if err != nil {
			return err
		}
		uids, err := searchUIDs(data)
		if err != nil {
			return err
		}
		for _, u := range uids {
			current = append(current, uint32(u))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("imap: listing messages in %q: %w", f.Name, err)
	}
	slices.Sort(current)
	current = slices.Compact(current)

	gone, added := diffUIDs(known, current)
	if p.gone == nil {
		p.gone, p.goneValidity = gone, sel.UIDValidity
	}
	p.fetch = added
	p.current = current
	p.state = &folderState{
		Role:        f.Role,
		UIDValidity: sel.UIDValidity,
		UIDNext:     uint32(sel.UIDNext),
		Count:       sel.NumMessages,
		UIDs:        formatUIDs(current),
	}
	if n := len(current); n > 0 {
		p.state.MaxUID = current[n-1]
	}
	// A message arriving between SELECT and SEARCH would make Count stale
	// and defeat the shortcut next time, which only costs a SEARCH.
	return p, nil
}

// fetchFolder fetches p.fetch in batches and hands the messages to fn.
// fn runs between batches, not while a FETCH streams: the client reads
// the socket with deadlines, and a slow fn (the index writing to disk)
// must not make it time out.
func (c *Connector) fetchFolder(ctx context.Context, cl *imapclient.Client, p *plan, fn func(mail.Message) error, done *int, total int) error {
	sel, err := c.examine(ctx, cl, p.folder.Name)
	if err != nil {
		return err
	}
	if sel.UIDValidity != p.validity {
		return fmt.Errorf("imap: %q was renumbered during the sync (UIDVALIDITY %d → %d); sync again", p.folder.Name, p.validity, sel.UIDValidity)
	}
	for batch := range slices.Chunk(p.fetch, c.cfg.BatchSize) {
		fetch, err := c.dropLarge(ctx, cl, p, batch)
		if err != nil {
			return fmt.Errorf("imap: sizing messages in %q: %w", p.folder.Name, err)
		}
		var (
			msgs    []mail.Message
			missing []uint32
		)
		if len(fetch) > 0 {
			msgs, missing, err = c.fetchBatch(ctx, cl, p, fetch)
		}
		var refused *goimap.Error
		if errors.As(err, &refused) {
			// The server said NO to the batch. Exchange does that when
			// one message in the set is damaged: fetch one by one so a
			// single bad message can't stall the whole account.
			c.log.Warn("server refused a FETCH; retrying one by one", "folder", p.folder.Name, "err", err)
			msgs, missing, err = c.fetchOneByOne(ctx, cl, p, fetch)
		}
		if err != nil {
			return fmt.Errorf("imap: fetching from %q: %w", p.folder.Name, err)
		}
		p.failed = append(p.failed, missing...)
		for _, m := range msgs {
			if err := fn(m); err != nil {
				return err
			}
		}
		// Count the batch, not only what came back: a UID expunged
		// between SEARCH and FETCH returns nothing but is done.
		*done += len(batch)
		if c.cfg.Progress != nil {
			c.cfg.Progress(*done, total)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Connector) fetchOneByOne(ctx context.Context, cl *imapclient.Client, p *plan, uids []uint32) (msgs []mail.Message, missing []uint32, err error) {
	for _, uid := range uids {
		m, miss, err := c.fetchBatch(ctx, cl, p, []uint32{uid})
		var refused *goimap.Error
		if errors.As(err, &refused) {
			c.log.Warn("server refused a message", "remote_id", remoteID(p.folder.Name, p.validity, uid), "err", err)
			missing = append(missing, uid)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, m...)
		missing = append(missing, miss...)
	}
	return msgs, missing, nil
}

// dropLarge returns uids without the messages over the size cap, which it
// records as skipped, asking the server for their RFC822.SIZE: a UID
// FETCH of a hundred sizes is one small round trip, where downloading a
// 200 MB message only to drop it would take minutes. A server that
// refuses sizes, or omits one, gets the message fetched: the parser stops
// at the cap anyway (see fetchBatch).
func (c *Connector) dropLarge(ctx context.Context, cl *imapclient.Client, p *plan, uids []uint32) ([]uint32, error) {
	var set goimap.UIDSet
	for _, u := range uids {
		set.AddNum(goimap.UID(u))
	}
	sizes := make(map[uint32]int64, len(uids))
	err := c.do(ctx, cl, func(kick func()) error {
		cmd := cl.Fetch(set, &goimap.FetchOptions{UID: true, RFC822Size: true})
		defer cmd.Close()
		for md := cmd.Next(); md != nil; md = cmd.Next() {
			kick()
			buf, err := md.Collect()
			if err != nil {
				return err
			}
			if buf.UID != 0 {
				sizes[uint32(buf.UID)] = buf.RFC822Size
			}
		}
		return cmd.Close()
	})
	var refused *goimap.Error
	if errors.As(err, &refused) {
		c.log.Warn("server refused message sizes; fetching them all", "folder", p.folder.Name, "err", err)
		return uids, nil
	}
	if err != nil {
		return nil, err
	}
	limit := c.cfg.MaxMessageBytes
	keep := make([]uint32, 0, len(uids))
	for _, u := range uids {
		if size := sizes[u]; size > limit {
			c.skip(mail.TooLarge(p.folder.Name, uidWhere(u), size, limit))
			continue
		}
		keep = append(keep, u)
	}
	return keep, nil
}

// uidWhere is a Skip's Where for a message of a folder.
func uidWhere(uid uint32) string { return fmt.Sprintf("UID %d", uid) }

// skip records a message the sync leaves out.
func (c *Connector) skip(s mail.Skip) { c.skips.Add(c.log, s) }

// Skipped lists the messages the last Sync left out: those over
// Config.MaxMessageBytes. See mail.Skipper.
func (c *Connector) Skipped() []mail.Skip {
	return c.skips.List()
}

// kickReader reports progress while a large message streams in, so the
// command timeout measures silence, not size.
type kickReader struct {
	r    io.Reader
	kick func()
}

func (k kickReader) Read(b []byte) (int, error) {
	k.kick()
	return k.r.Read(b)
}

// fetchBatch fetches and parses uids. missing lists the UIDs the server
// sent nothing for (expunged meanwhile, or unavailable).
func (c *Connector) fetchBatch(ctx context.Context, cl *imapclient.Client, p *plan, uids []uint32) ([]mail.Message, []uint32, error) {
	var set goimap.UIDSet
	for _, u := range uids {
		set.AddNum(goimap.UID(u))
	}
	opts := &goimap.FetchOptions{
		UID:          true,
		Flags:        true,
		InternalDate: true,
		// Peek: BODY[] without .PEEK sets \Seen (RFC 3501 §6.4.5).
		BodySection: []*goimap.FetchItemBodySection{{Peek: true}},
	}
	out := make([]mail.Message, 0, len(uids))
	got := make(map[uint32]bool, len(uids))
	err := c.do(ctx, cl, func(kick func()) error {
		cmd := cl.Fetch(set, opts)
		defer cmd.Close()
		for {
			md := cmd.Next()
			if md == nil {
				break
			}
			kick()
			var (
				uid      goimap.UID
				flags    []goimap.Flag
				internal time.Time
				m        mail.Message
				perr     error
				gotBody  bool
			)
			for item := md.Next(); item != nil; item = md.Next() {
				switch it := item.(type) {
				case imapclient.FetchItemDataUID:
					uid = it.UID
				case imapclient.FetchItemDataFlags:
					flags = it.Flags
				case imapclient.FetchItemDataInternalDate:
					internal = it.Time
				case imapclient.FetchItemDataBodySection:
					if it.Literal != nil {
						// Parse straight from the wire: attachments
						// stream past without being held in memory.
						m, perr = parseMessage(kickReader{it.Literal, kick}, c.cfg.MaxMessageBytes)
						gotBody = true
					}
				}
			}
			if uid == 0 || !gotBody {
				continue // an unsolicited flag update, not our data
			}
			id := remoteID(p.folder.Name, p.validity, uint32(uid))
			switch {
			case errors.Is(perr, mail.ErrTooLarge):
				// Larger than the server said (or it said nothing): the
				// parser stopped at the cap, and go-imap reads the rest
				// past. Done with, not missing: retrying cannot help.
				c.skip(mail.TooLarge(p.folder.Name, uidWhere(uint32(uid)), 0, c.cfg.MaxMessageBytes))
				got[uint32(uid)] = true
				continue
			case errors.Is(perr, mail.ErrPartialBody):
				c.log.Warn("message body read in part", "remote_id", id, "err", perr)
			case perr != nil:
				// Deliver what there is: a message the index knows
				// exists beats one silently missing.
				c.log.Warn("unreadable message", "remote_id", id, "err", perr)
			}
			m.RemoteID = id
			m.Folder = p.folder.Role
			m.Draft = p.folder.Role == RoleDrafts || slices.Contains(flags, goimap.FlagDraft)
			if m.Date.IsZero() {
				m.Date = internal
			}
			out = append(out, m)
			got[uint32(uid)] = true
		}
		return cmd.Close()
	})
	if err != nil {
		return nil, nil, err
	}
	var missing []uint32
	for _, u := range uids {
		if !got[u] {
			missing = append(missing, u)
		}
	}
	return out, missing, nil
}
