package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/store"
)

// subjectWindow bounds subject threading: a headerless "RE: Lease" joins
// a "Lease" thread only if the two are this close in time.
const subjectWindow = 60 * 24 * time.Hour

// maxBody caps the text kept per message; longer bodies are pasted logs or
// whole documents, and the analyst reads threads, not archives.
const maxBody = 256 << 10

// chunk bounds the ids in one "IN (…)" list (SQLite allows 32766 variables).
const chunk = 500

// Apply upserts msgs into the account's index (by RemoteID) and removes the
// Deleted tombstones, then rebuilds every thread the changes touch, all in
// one transaction: the index is never seen half-applied. A sync calls it
// once per batch. Applying the same messages again changes nothing.
func (x *Index) Apply(ctx context.Context, accountID int64, msgs []mail.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	err := x.st.Tx(ctx, func(tx *sql.Tx) error { return apply(ctx, tx, accountID, msgs) })
	if err != nil {
		return fmt.Errorf("apply %d messages to mail account %d: %w", len(msgs), accountID, err)
	}
	return nil
}

func apply(ctx context.Context, tx *sql.Tx, accountID int64, msgs []mail.Message) error {
	acc, err := scanAccount(tx.QueryRowContext(ctx, `SELECT `+accountCols+` FROM mail_accounts WHERE id = ?`, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("account: %w", store.ErrNotFound)
	}
	if err != nil {
		return err
	}
	w, err := newWriter(ctx, tx, accountID)
	if err != nil {
		return err
	}
	defer w.close()

	seeds := map[int64]bool{}      // rows written: to be threaded
	oldThreads := map[int64]bool{} // threads that lost or may lose a member
	for i := range msgs {
		m := &msgs[i]
		if m.RemoteID == "" {
			return fmt.Errorf("%w: message %q has no RemoteID", store.ErrInvalid, m.MessageID)
		}
		if m.Deleted {
			var id, thread sql.NullInt64
			err := w.lookup.QueryRowContext(ctx, accountID, m.RemoteID).Scan(&id, &thread)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("look up %s: %w", m.RemoteID, err)
			}
			if thread.Valid {
				oldThreads[thread.Int64] = true
			}
			if _, err := w.del.ExecContext(ctx, id.Int64); err != nil {
				return fmt.Errorf("delete %s: %w", m.RemoteID, err)
			}
			delete(seeds, id.Int64)
			continue
		}
		rowID, oldThread, changed, err := w.upsert(ctx, m)
		if err != nil {
			return fmt.Errorf("upsert %s: %w", m.RemoteID, err)
		}
		// An unchanged message is already threaded: the index is
		// consistent after every transaction.
		if changed {
			seeds[rowID] = true
			if oldThread != 0 {
				oldThreads[oldThread] = true
			}
		}
	}
	return rethread(ctx, tx, acc, seeds, oldThreads)
}

// writer holds the statements one Apply repeats per message.
type writer struct {
	accountID                         int64
	lookup, ins, del, delRefs, insRef *sql.Stmt
	deflate                           compressor
}

func newWriter(ctx context.Context, tx *sql.Tx, accountID int64) (*writer, error) {
	w := &writer{accountID: accountID}
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&w.lookup, `SELECT id, thread_id FROM mail_messages WHERE account_id = ? AND remote_id = ?`},
		{&w.ins, `INSERT INTO mail_messages (account_id, remote_id, folder, message_id, in_reply_to, refs,
				conversation_id, subject, subject_norm, subject_only, from_name, from_email, to_json, cc_json,
				date, body, quoted, headers, draft)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (account_id, remote_id) DO UPDATE SET
				folder = excluded.folder, message_id = excluded.message_id, in_reply_to = excluded.in_reply_to,
				refs = excluded.refs, conversation_id = excluded.conversation_id, subject = excluded.subject,
				subject_norm = excluded.subject_norm, subject_only = excluded.subject_only,
				from_name = excluded.from_name, from_email = excluded.from_email, to_json = excluded.to_json,
				cc_json = excluded.cc_json, date = excluded.date, body = excluded.body,
				quoted = excluded.quoted, headers = excluded.headers, draft = excluded.draft
			WHERE (folder, message_id, in_reply_to, refs, conversation_id, subject, from_name, from_email,
				to_json, cc_json, date, body, quoted, headers, draft) IS NOT (excluded.folder, excluded.message_id,
				excluded.in_reply_to, excluded.refs, excluded.conversation_id, excluded.subject,
				excluded.from_name, excluded.from_email, excluded.to_json, excluded.cc_json, excluded.date,
				excluded.body, excluded.quoted, excluded.headers, excluded.draft)
			RETURNING id`},
		{&w.del, `DELETE FROM mail_messages WHERE id = ?`},
		{&w.delRefs, `DELETE FROM mail_refs WHERE message = ?`},
		{&w.insRef, `INSERT OR IGNORE INTO mail_refs (key, message) VALUES (?, ?)`},
	} {
		st, err := tx.PrepareContext(ctx, p.q)
		if err != nil {
			w.close()
			return nil, err
		}
		*p.st = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.lookup, w.ins, w.del, w.delRefs, w.insRef} {
		if st != nil {
			st.Close()
		}
	}
}

// upsert writes one message and its threading keys. It returns the row
// id, the thread the row was in before (0 for none), and whether anything
// changed.
func (w *writer) upsert(ctx context.Context, m *mail.Message) (id, oldThread int64, changed bool, err error) {
	var prev sql.NullInt64
	err = w.lookup.QueryRowContext(ctx, w.accountID, m.RemoteID).Scan(&id, &prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, err
	}
	oldThread = prev.Int64
	mid := normID(m.MessageID)
	irt := normID(m.InReplyTo)
	var refs []string
	for _, r := range m.References {
		if r = normID(r); r != "" && !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
	}
	body := m.Body
	if len(body) > maxBody {
		body = strings.ToValidUTF8(body[:maxBody], "")
	}
	var quoted []byte            // NULL when there is no history
	if !forwardLike(m.Subject) { // a forward's "history" is its point
		var history string
		if body, history = splitQuoted(body); history != "" {
			if quoted, err = w.deflate.compress(history); err != nil {
				return 0, 0, false, err
			}
		}
	}
	to, err := json.Marshal(cleanAddrs(m.To))
	if err != nil {
		return 0, 0, false, err
	}
	cc, err := json.Marshal(cleanAddrs(m.Cc))
	if err != nil {
		return 0, 0, false, err
	}
	headers := []byte("{}")
	if len(m.Headers) > 0 {
		if headers, err = json.Marshal(m.Headers); err != nil {
			return 0, 0, false, err
		}
	}
	subjectOnly := irt == "" && len(refs) == 0 && m.ConversationID == "" && replyLike(m.Subject)
	var date int64
	if !m.Date.IsZero() {
		date = m.Date.UnixMilli()
	}
	args := []any{w.accountID, m.RemoteID, m.Folder, mid, irt, strings.Join(refs, " "), m.ConversationID,
		m.Subject, NormalizeSubject(m.Subject), subjectOnly, strings.TrimSpace(m.From.Name),
		strings.ToLower(strings.TrimSpace(m.From.Email)), string(to), string(cc), date, body, quoted,
		string(headers), m.Draft}
	err = w.ins.QueryRowContext(ctx, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		// Unchanged: the conditional DO UPDATE left the row alone and
		// RETURNING gave nothing.
		return id, oldThread, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	if _, err := w.delRefs.ExecContext(ctx, id); err != nil {
		return 0, 0, false, err
	}
	for _, k := range threadKeys(w.accountID, mid, irt, refs, m.ConversationID) {
		if _, err := w.insRef.ExecContext(ctx, k, id); err != nil {
			return 0, 0, false, err
		}
	}
	return id, oldThread, true, nil
}

// normID trims a Message-ID and puts it in angle brackets; ids too short
// to be real ("<>") are dropped, since one bogus id shared by many
// messages would merge all their threads.
func normID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "<"), ">")
	s = strings.TrimSpace(s)
	if len(s) < 3 || strings.ContainsAny(s, " \t\r\n<>") {
		return ""
	}
	return "<" + s + ">"
}

func cleanAddrs(as []mail.Address) []mail.Address {
	out := make([]mail.Address, 0, len(as))
	for _, a := range as {
		a.Name = strings.TrimSpace(a.Name)
		a.Email = strings.ToLower(strings.TrimSpace(a.Email))
		if a.Email != "" || a.Name != "" {
			out = append(out, a)
		}
	}
	return out
}

// threadKeys are the hashed keys under which a message joins its thread:
// every Message-ID of its chain (its own, In-Reply-To, References) and its
// conversation id. Two messages sharing any key are in one thread: that is
// the union of JWZ's reference chains, which also joins siblings whose
// common parent never arrived.
func threadKeys(accountID int64, mid, irt string, refs []string, conv string) []int64 {
	var ks []int64
	add := func(s string) {
		if k := keyHash(accountID, s); !slices.Contains(ks, k) {
			ks = append(ks, k)
		}
	}
	if mid != "" {
		add(mid)
	}
	if irt != "" {
		add(irt)
	}
	for _, r := range refs {
		add(r)
	}
	if conv != "" {
		add("conv:" + conv)
	}
	return ks
}

// keyHash is a 64-bit hash of an account's threading key. A collision
// (odds about 1 in 10^9 for a million keys) would merge two threads.
func keyHash(accountID int64, key string) int64 {
	h := sha256.New()
	h.Write([]byte(strconv.FormatInt(accountID, 10)))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return int64(binary.BigEndian.Uint64(h.Sum(nil)))
}

// trow is what threading needs of a message.
type trow struct {
	id, thread, date      int64
	subject, subjectNorm  string
	subjectOnly, draft    bool
	from                  mail.Address
	to, cc                []mail.Address
	messageID, refs, conv string
	inReplyTo             string
	keys                  []int64
}

// rethread rebuilds the threads of the seed rows and of the old threads.
//
// Threads are the connected components of the graph in which two messages
// are linked when they share a threading key (threadKeys), plus one link
// per subject-only message (see subjectParent). The component of the
// seeds is found by closure: rows sharing keys with the set, every member
// of a thread a row of the set is in (the thread may split or merge), and
// the subject candidates of subject-only rows. Each component then keeps
// the id of the old thread most of its members had, so that thread ids
// are stable across syncs; the rest get new threads and emptied threads
// are deleted.
func rethread(ctx context.Context, tx *sql.Tx, acc Account, seeds, oldThreads map[int64]bool) error {
	rows := map[int64]*trow{}
	tried := map[int64]bool{}
	seenKeys := map[int64]bool{}
	seenThreads := maps.Clone(oldThreads)
	queue := slices.Collect(maps.Keys(seeds))
	more, err := threadMembers(ctx, tx, slices.Collect(maps.Keys(oldThreads)))
	if err != nil {
		return err
	}
	queue = append(queue, more...)

	for len(queue) > 0 {
		var fresh []int64
		for _, id := range queue {
			if !tried[id] {
				tried[id] = true
				fresh = append(fresh, id)
			}
		}
		queue = nil
		if len(fresh) == 0 {
			break
		}
		loaded, err := loadRows(ctx, tx, acc.ID, fresh)
		if err != nil {
			return err
		}
		var keys, threads []int64
		for _, r := range loaded {
			rows[r.id] = r
			for _, k := range r.keys {
				if !seenKeys[k] {
					seenKeys[k] = true
					keys = append(keys, k)
				}
			}
			if r.thread != 0 && !seenThreads[r.thread] {
				seenThreads[r.thread] = true
				threads = append(threads, r.thread)
			}
		}
		more, err := rowsWithKeys(ctx, tx, keys)
		if err != nil {
			return err
		}
		queue = append(queue, more...)
		if more, err = threadMembers(ctx, tx, threads); err != nil {
			return err
		}
		queue = append(queue, more...)
		for _, r := range loaded {
			if r.subjectNorm == "" {
				continue
			}
			var more []int64
			if r.subjectOnly {
				// Its candidate parents.
				more, err = subjectNeighbours(ctx, tx, acc.ID, r, false)
			} else if seeds[r.id] {
				// Subject-only messages that may answer this new one.
				more, err = subjectNeighbours(ctx, tx, acc.ID, r, true)
			}
			if err != nil {
				return err
			}
			queue = append(queue, more...)
		}
	}

	// Union-find over shared keys, then subject links.
	uf := newUnionFind()
	byKey := map[int64]int64{}
	ids := slices.Sorted(maps.Keys(rows))
	for _, id := range ids {
		uf.add(id)
		for _, k := range rows[id].keys {
			if other, ok := byKey[k]; ok {
				uf.union(id, other)
			} else {
				byKey[k] = id
			}
		}
	}
	own := acc.Addresses()
	for _, id := range ids {
		if r := rows[id]; r.subjectOnly {
			if p := subjectParent(r, rows, own); p != 0 {
				uf.union(id, p)
			}
		}
	}
	comps := map[int64][]*trow{}
	for _, id := range ids {
		root := uf.find(id)
		comps[root] = append(comps[root], rows[id])
	}
	return writeThreads(ctx, tx, acc, comps, seenThreads)
}

// subjectParent picks the message a subject-only reply r most likely
// answers: same normalised subject, within subjectWindow, sharing a
// participant other than the user (every thread shares the user, so the
// user alone says nothing), preferring the latest one before r. It
// returns 0 when there is none.
//
// Subject threading is only for messages without headers because it is a
// guess: "Deposition scheduling" from two opposing counsel, a weekly
// "Status update" or a form subject like "Invoice" are different threads
// that share a subject, and merging them would show the analyst the wrong
// latest message. Headers, when present, are exact, so a message that has
// them is never threaded by subject, and neither is one that does not say
// it is a reply.
func subjectParent(r *trow, rows map[int64]*trow, own []string) int64 {
	mine := participants(r, own)
	var best *trow
	better := func(c *trow) bool {
		if best == nil {
			return true
		}
		cBefore, bBefore := c.date <= r.date, best.date <= r.date
		if cBefore != bBefore {
			return cBefore
		}
		if c.date != best.date {
			if cBefore {
				return c.date > best.date
			}
			return c.date < best.date
		}
		return c.id < best.id
	}
	for _, c := range rows {
		if c.id == r.id || c.subjectNorm != r.subjectNorm || absDiff(c.date, r.date) > subjectWindow.Milliseconds() {
			continue
		}
		if !overlaps(mine, participants(c, own)) {
			continue
		}
		if better(c) {
			best = c
		}
	}
	if best == nil {
		return 0
	}
	return best.id
}

func participants(r *trow, own []string) []string {
	var out []string
	for _, a := range append(append([]mail.Address{r.from}, r.to...), r.cc...) {
		if e := strings.ToLower(a.Email); e != "" && !slices.Contains(own, e) && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func overlaps(a, b []string) bool {
	for _, s := range a {
		if slices.Contains(b, s) {
			return true
		}
	}
	return false
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

// loadRows reads the threading fields of the given rows of the account.
func loadRows(ctx context.Context, tx *sql.Tx, accountID int64, ids []int64) ([]*trow, error) {
	var out []*trow
	for part := range slices.Chunk(ids, chunk) {
		q := `SELECT id, coalesce(thread_id, 0), date, subject, subject_norm, subject_only, draft, from_name,
				from_email, to_json, cc_json, message_id, in_reply_to, refs, conversation_id
			FROM mail_messages WHERE account_id = ? AND id IN (` + placeholders(len(part)) + `)`
		rows, err := tx.QueryContext(ctx, q, append([]any{accountID}, int64Args(part)...)...)
		if err != nil {
			return nil, fmt.Errorf("load messages: %w", err)
		}
		for rows.Next() {
			r := &trow{}
			var to, cc string
			if err := rows.Scan(&r.id, &r.thread, &r.date, &r.subject, &r.subjectNorm, &r.subjectOnly, &r.draft,
				&r.from.Name, &r.from.Email, &to, &cc, &r.messageID, &r.inReplyTo, &r.refs, &r.conv); err != nil {
				rows.Close()
				return nil, fmt.Errorf("load messages: %w", err)
			}
			if err := json.Unmarshal([]byte(to), &r.to); err != nil {
				rows.Close()
				return nil, fmt.Errorf("message %d to: %w", r.id, err)
			}
			if err := json.Unmarshal([]byte(cc), &r.cc); err != nil {
				rows.Close()
				return nil, fmt.Errorf("message %d cc: %w", r.id, err)
			}
			r.keys = threadKeys(accountID, r.messageID, r.inReplyTo, strings.Fields(r.refs), r.conv)
			out = append(out, r)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("load messages: %w", err)
		}
	}
	return out, nil
}

// rowsWithKeys lists the messages that have any of the keys.
func rowsWithKeys(ctx context.Context, tx *sql.Tx, keys []int64) ([]int64, error) {
	var out []int64
	for part := range slices.Chunk(keys, chunk) {
		ids, err := queryIDs(ctx, tx, `SELECT message FROM mail_refs WHERE key IN (`+placeholders(len(part))+`)`, int64Args(part)...)
		if err != nil {
			return nil, fmt.Errorf("threading keys: %w", err)
		}
		out = append(out, ids...)
	}
	return out, nil
}

// threadMembers lists the messages of the threads.
func threadMembers(ctx context.Context, tx *sql.Tx, threads []int64) ([]int64, error) {
	var out []int64
	for part := range slices.Chunk(threads, chunk) {
		ids, err := queryIDs(ctx, tx, `SELECT id FROM mail_messages WHERE thread_id IN (`+placeholders(len(part))+`)`, int64Args(part)...)
		if err != nil {
			return nil, fmt.Errorf("thread members: %w", err)
		}
		out = append(out, ids...)
	}
	return out, nil
}

// subjectNeighbours lists the account's messages with r's normalised
// subject within the subject window: all of them, or only the subject-only
// ones.
func subjectNeighbours(ctx context.Context, tx *sql.Tx, accountID int64, r *trow, onlySubjectOnly bool) ([]int64, error) {
	w := subjectWindow.Milliseconds()
	q := `SELECT id FROM mail_messages WHERE subject_norm = ? AND date BETWEEN ? AND ? AND account_id = ? LIMIT 1000`
	if onlySubjectOnly {
		q = `SELECT id FROM mail_messages WHERE account_id = ? AND subject_norm = ? AND date BETWEEN ? AND ? AND subject_only = 1 LIMIT 1000`
		return queryIDs(ctx, tx, q, accountID, r.subjectNorm, r.date-w, r.date+w)
	}
	return queryIDs(ctx, tx, q, r.subjectNorm, r.date-w, r.date+w, accountID)
}

// querier is a transaction or the read pool.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func queryIDs(ctx context.Context, db querier, q string, args ...any) ([]int64, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// writeThreads gives each component a thread and writes its summary.
// oldThreads are all threads any member was in; those left without a
// component are deleted.
func writeThreads(ctx context.Context, tx *sql.Tx, acc Account, comps map[int64][]*trow, oldThreads map[int64]bool) error {
	// Largest components choose first, so that when a thread splits its id
	// stays with the bigger part.
	list := slices.Collect(maps.Values(comps))
	slices.SortFunc(list, func(a, b []*trow) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return int(minID(a) - minID(b))
	})
	taken := map[int64]bool{}
	setThread, err := tx.PrepareContext(ctx, `UPDATE mail_messages SET thread_id = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer setThread.Close()
	update, err := tx.PrepareContext(ctx, `UPDATE mail_threads SET root_key = ?, subject = ?, subject_norm = ?,
		participants = ?, first_date = ?, latest_date = ?, latest_id = ?, latest_message_id = ?, message_count = ?,
		draft_count = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer update.Close()
	for _, comp := range list {
		votes := map[int64]int{}
		for _, r := range comp {
			if r.thread != 0 && !taken[r.thread] {
				votes[r.thread]++
			}
		}
		var tid int64
		for t, n := range votes {
			if tid == 0 || n > votes[tid] || (n == votes[tid] && t < tid) {
				tid = t
			}
		}
		if tid == 0 {
			if err := tx.QueryRowContext(ctx, `INSERT INTO mail_threads (account_id) VALUES (?) RETURNING id`, acc.ID).Scan(&tid); err != nil {
				return fmt.Errorf("new thread: %w", err)
			}
		}
		taken[tid] = true
		for _, r := range comp {
			if r.thread != tid {
				if _, err := setThread.ExecContext(ctx, tid, r.id); err != nil {
					return fmt.Errorf("set thread: %w", err)
				}
				r.thread = tid
			}
		}
		s := summarize(comp)
		parts, err := json.Marshal(s.participants)
		if err != nil {
			return err
		}
		if _, err := update.ExecContext(ctx, s.rootKey, s.subject, s.subjectNorm, string(parts), s.first, s.latest,
			s.latestID, s.latestMessageID, len(comp), s.drafts, tid); err != nil {
			return fmt.Errorf("update thread %d: %w", tid, err)
		}
	}
	var gone []int64
	for t := range oldThreads {
		if !taken[t] {
			gone = append(gone, t)
		}
	}
	for part := range slices.Chunk(gone, chunk) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM mail_threads WHERE id IN (`+placeholders(len(part))+`)`, int64Args(part)...); err != nil {
			return fmt.Errorf("delete emptied threads: %w", err)
		}
	}
	return nil
}

func minID(rs []*trow) int64 {
	m := rs[0].id
	for _, r := range rs[1:] {
		m = min(m, r.id)
	}
	return m
}

// maxParticipants bounds the participants kept per thread (a reply-all
// to a whole department would otherwise fill every search hit).
const maxParticipants = 20

type threadSummary struct {
	rootKey, subject, subjectNorm string
	participants                  []mail.Address
	first, latest, latestID       int64
	latestMessageID               string
	drafts                        int
}

// summarize computes a thread's row from its messages. The latest message
// is the newest one that is not a draft: an unsent draft is not an answer.
func summarize(comp []*trow) threadSummary {
	slices.SortFunc(comp, func(a, b *trow) int {
		if a.date != b.date {
			return cmpInt(a.date, b.date)
		}
		return cmpInt(a.id, b.id)
	})
	first := comp[0]
	s := threadSummary{subject: first.subject, subjectNorm: first.subjectNorm, first: first.date}
	switch refs := strings.Fields(first.refs); {
	case len(refs) > 0:
		s.rootKey = refs[0]
	case first.inReplyTo != "":
		s.rootKey = first.inReplyTo
	case first.messageID != "":
		s.rootKey = first.messageID
	case first.conv != "":
		s.rootKey = "conv:" + first.conv
	default:
		s.rootKey = "msg:" + strconv.FormatInt(first.id, 10)
	}
	var latest *trow
	seen := map[string]bool{}
	for _, r := range comp {
		if r.draft {
			s.drafts++
		} else {
			latest = r
		}
		for _, a := range append(append([]mail.Address{r.from}, r.to...), r.cc...) {
			key := strings.ToLower(a.Email)
			if key == "" {
				key = a.Name
			}
			if key == "" || seen[key] || len(s.participants) >= maxParticipants {
				continue
			}
			seen[key] = true
			s.participants = append(s.participants, a)
		}
	}
	if latest == nil { // only drafts
		latest = comp[len(comp)-1]
	}
	s.latest, s.latestID, s.latestMessageID = latest.date, latest.id, latest.messageID
	return s
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// unionFind is a disjoint-set forest over row ids.
type unionFind struct{ parent map[int64]int64 }

func newUnionFind() *unionFind { return &unionFind{parent: map[int64]int64{}} }

func (u *unionFind) add(x int64) {
	if _, ok := u.parent[x]; !ok {
		u.parent[x] = x
	}
}

func (u *unionFind) find(x int64) int64 {
	for u.parent[x] != x {
		u.parent[x] = u.parent[u.parent[x]]
		x = u.parent[x]
	}
	return x
}

func (u *unionFind) union(a, b int64) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	// The smaller id becomes the root, for determinism.
	if rb < ra {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
}
