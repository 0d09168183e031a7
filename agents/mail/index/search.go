package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/store"
)

// SearchQuery is what the analyst asks SearchEmail for. Every field given
// narrows the result; an empty query lists the most recent threads.
type SearchQuery struct {
	// Query is free text, matched word by word (all words; if no message
	// has all of them, the best matches for any) against subjects, names
	// and addresses, and the new text of bodies. "Quoted words" match as a
	// phrase.
	Query string `json:"query,omitempty"`
	// Sender is a name or an address of someone who wrote in the thread.
	// With Query, one message must match both.
	Sender string `json:"sender,omitempty"`
	// Subject is a subject as a window title or the screen shows it,
	// without the client's suffix. Reply prefixes, tags, dashes and case
	// do not matter; a trailing "…" or "..." marks a truncated title that
	// matches as a prefix. If nothing matches so, subjects that differ by
	// a few misread letters are returned, marked "subject_similar".
	Subject string `json:"subject,omitempty"`
	// Limit caps the threads returned: 10 if 0, at most 50.
	Limit int `json:"limit,omitempty"`
	// AccountID restricts the search to one account; 0 searches all.
	AccountID int64 `json:"account_id,omitempty"`
}

// Ways a ThreadHit matched.
const (
	MatchSubject        = "subject"         // normalised subject equal
	MatchSubjectPrefix  = "subject_prefix"  // truncated subject is a prefix
	MatchSubjectSimilar = "subject_similar" // subject differs by a few letters or words
	MatchText           = "text"            // all words of Query (and Sender) found
	MatchTextAny        = "text_any"        // only some words of Query found
	MatchSender         = "sender"          // Sender wrote in the thread
	MatchRecent         = "recent"          // no criteria: newest threads
)

// ThreadHit is one candidate thread, with its newest message.
type ThreadHit struct {
	ThreadID     int64          `json:"thread_id"`
	AccountID    int64          `json:"account_id"`
	Subject      string         `json:"subject"`
	Participants []mail.Address `json:"participants"`
	MessageCount int            `json:"message_count"`
	// Drafts counts unsent drafts in the thread; they are never Latest.
	Drafts int           `json:"drafts,omitempty"`
	Latest LatestMessage `json:"latest"`
	// LatestFromMe says the newest message was sent from one of the
	// account's own addresses: the user had the last word.
	LatestFromMe bool `json:"latest_from_me"`
	// Match says how the thread matched (the Match constants): the first
	// criterion of Subject, then Sender and Query, that applied.
	Match string `json:"match"`
}

// LatestMessage summarises a thread's newest message that is not a draft.
type LatestMessage struct {
	MessageID string       `json:"message_id"`
	Subject   string       `json:"subject"`
	From      mail.Address `json:"from"`
	Date      time.Time    `json:"date"`
	Snippet   string       `json:"snippet"` // the start of its new text
	// Bulk marks newsletters and automated mail; Automated says which
	// kind (mail.Automated).
	Bulk      bool            `json:"bulk,omitempty"`
	Automated mail.Automation `json:"automated,omitempty"`
}

// Thread is a whole thread for ReadEmailThread.
type Thread struct {
	ID           int64           `json:"thread_id"`
	AccountID    int64           `json:"account_id"`
	Subject      string          `json:"subject"`
	Participants []mail.Address  `json:"participants"`
	Messages     []ThreadMessage `json:"messages"` // oldest first
}

// ThreadMessage is one message of a Thread.
type ThreadMessage struct {
	ID         int64          `json:"id"`
	RemoteID   string         `json:"remote_id"`
	Folder     string         `json:"folder,omitempty"`
	MessageID  string         `json:"message_id,omitempty"`
	InReplyTo  string         `json:"in_reply_to,omitempty"`
	References []string       `json:"references,omitempty"`
	Subject    string         `json:"subject"`
	From       mail.Address   `json:"from"`
	To         []mail.Address `json:"to,omitempty"`
	Cc         []mail.Address `json:"cc,omitempty"`
	Date       time.Time      `json:"date"`
	FromMe     bool           `json:"from_me,omitempty"`
	Draft      bool           `json:"draft,omitempty"`
	// Bulk marks newsletters and automated mail; Automated says which
	// kind (mail.Automated).
	Bulk      bool            `json:"bulk,omitempty"`
	Automated mail.Automation `json:"automated,omitempty"`
	// Body is the message's own text; Quoted is the history it quotes
	// ("-----Original Message-----", "On … wrote:", "> …"), kept apart
	// because it repeats the earlier messages of the thread.
	Body           string            `json:"body"`
	Quoted         string            `json:"quoted,omitempty"`
	Headers        map[string]string `json:"headers,omitempty"`
	ConversationID string            `json:"conversation_id,omitempty"`
}

const (
	defaultLimit = 10
	maxLimit     = 50
	// ftsRows bounds the messages taken from the full-text index per
	// search, best first: enough to fill any Limit with distinct threads.
	ftsRows = 400
	// maxRanked is the most matches a full-text search ranks all of.
	maxRanked = 1000
	// snippetLen is the runes of a latest message shown in a hit.
	snippetLen = 200
)

// candidate is a thread found so far, with its best full-text rank.
type candidate struct {
	rank   float64
	latest int64 // the thread's latest_date, for ordering
	match  string
}

// MaxSubjectRunes caps the subject a search matches. RFC 5322 sets no
// limit on a subject, but real ones stay well under a thousand characters
// (a client shows it on one line: a long one is a sentence or two),
// while a window title or a model's argument can be any length, and
// normalising and tokenising it is work that grows with it. A longer
// subject is cut there (see CapSubject).
const MaxSubjectRunes = 1000

// maxFreeTextRunes caps Query and Sender for the same reason: no real
// search needs more, and only maxQueryTerms words of it are used.
const maxFreeTextRunes = 4 * MaxSubjectRunes

// CapSubject returns s cut to its first MaxSubjectRunes runes. The cut is
// matched exactly, never as a truncated subject ("…"): no real subject is
// that long, so it normally matches nothing, where as a prefix its
// normalised form (which may be short, if reply prefixes filled the cut)
// could match many threads. An ellipsis the cut happens to end in is
// dropped for that reason. It reads at most MaxSubjectRunes+1 runes of s,
// so it costs the same for a subject of any length.
func CapSubject(s string) string {
	cut, ok := cutRunes(s, MaxSubjectRunes, MaxSubjectRunes)
	if !ok {
		return s
	}
	return strings.TrimRight(cut, ".…")
}

// cutRunes returns the first keep runes of s and true when s has more
// than limit runes (keep <= limit), else s and false.
func cutRunes(s string, keep, limit int) (string, bool) {
	n, end := 0, len(s)
	for i := range s {
		if n == keep {
			end = i
		}
		if n == limit {
			return s[:end], true
		}
		n++
	}
	return s, false
}

// SearchEmail finds candidate threads for the analyst, best first.
func (x *Index) SearchEmail(ctx context.Context, q SearchQuery) ([]ThreadHit, error) {
	q.Subject = CapSubject(q.Subject)
	q.Query, _ = cutRunes(q.Query, maxFreeTextRunes, maxFreeTextRunes)
	q.Sender, _ = cutRunes(q.Sender, maxFreeTextRunes, maxFreeTextRunes)
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	db := x.st.Reader()

	var found map[int64]*candidate // nil: not narrowed yet
	if strings.TrimSpace(q.Subject) != "" {
		var err error
		if found, err = subjectThreads(ctx, db, q.Subject, q.AccountID); err != nil {
			return nil, fmt.Errorf("search email: %w", err)
		}
		if len(found) == 0 {
			return nil, nil
		}
	}
	ranked := false
	if strings.TrimSpace(q.Query) != "" || strings.TrimSpace(q.Sender) != "" {
		hits, err := textThreads(ctx, db, q, found)
		if err != nil {
			return nil, fmt.Errorf("search email: %w", err)
		}
		if found != nil {
			// Keep the subject's match kind, take the rank.
			for t, c := range hits {
				c.match = found[t].match
			}
		}
		found = hits
		ranked = strings.TrimSpace(q.Query) != ""
	}
	if found == nil {
		var err error
		if found, err = recentThreads(ctx, db, q.AccountID, limit); err != nil {
			return nil, fmt.Errorf("search email: %w", err)
		}
	}
	// Order the candidates and build hits for the best only.
	ids := slices.Collect(maps.Keys(found))
	order := func(a, b int64) int {
		ca, cb := found[a], found[b]
		if ranked && ca.rank != cb.rank {
			if ca.rank < cb.rank { // bm25: lower is better
				return -1
			}
			return 1
		}
		if ca.latest != cb.latest {
			return cmpInt(cb.latest, ca.latest)
		}
		return cmpInt(b, a)
	}
	slices.SortFunc(ids, order)
	if len(ids) > limit {
		ids = ids[:limit]
	}
	hits, err := x.threadHits(ctx, db, ids)
	if err != nil {
		return nil, fmt.Errorf("search email: %w", err)
	}
	slices.SortFunc(hits, func(a, b ThreadHit) int { return order(a.ThreadID, b.ThreadID) })
	for i := range hits {
		hits[i].Match = found[hits[i].ThreadID].match
	}
	return hits, nil
}

// maxSubjectThreads bounds a subject's threads (a form subject like
// "Invoice" can have thousands; the newest are kept).
const maxSubjectThreads = 1000

// subjectThreads finds the threads with a message whose normalised subject
// equals the query's (or starts with it, for a truncated query); failing
// that, the threads whose subject is similar.
func subjectThreads(ctx context.Context, db *sql.DB, subject string, accountID int64) (map[int64]*candidate, error) {
	qn, truncated := normalizeSubject(subject)
	if qn == "" {
		return nil, nil
	}
	cond, args, match := `m.subject_norm = ?`, []any{qn}, MatchSubject
	if truncated {
		// A range on the index: every string with the prefix sorts
		// between qn and qn followed by the highest code point.
		cond, args, match = `m.subject_norm >= ? AND m.subject_norm < ?`, []any{qn, qn + "\U0010FFFF"}, MatchSubjectPrefix
	}
	if accountID != 0 {
		cond += ` AND m.account_id = ?`
		args = append(args, accountID)
	}
	out, err := candidates(ctx, db, `SELECT DISTINCT t.id, 0, t.latest_date FROM mail_messages m JOIN mail_threads t ON t.id = m.thread_id
		WHERE `+cond+` ORDER BY t.latest_date DESC LIMIT `+fmt.Sprint(maxSubjectThreads), match, args...)
	if err != nil || len(out) > 0 {
		return out, err
	}
	return similarSubjectThreads(ctx, db, qn, truncated, accountID)
}

// similarSubjectThreads is the fallback for subjects read off a screen:
// OCR misreads letters ("Certifcate"), so words are matched with an edit
// distance of one or two, and a thread qualifies when its subject and the
// query share at least 80% of their words (Dice coefficient). Subjects
// that merely share a matter name ("Kessler v. Arbor – Tolling Agreement"
// against "New Matter Opened: Kessler v. Arbor – Conflicts Cleared") stay
// below that.
func similarSubjectThreads(ctx context.Context, db *sql.DB, qn string, truncated bool, accountID int64) (map[int64]*candidate, error) {
	qt := subjectTokens(qn)
	if len(qt) == 0 {
		return nil, nil
	}
	// One term per distinct word, and only the longest few: a query of
	// thousands of OR'd terms (a title repeating one word) costs FTS5
	// time in proportion to terms times matches. The longest words are
	// the rarest, and a subject the Dice test below accepts shares most
	// of the query's words, so it still shares some of these.
	terms := make([]string, 0, min(len(qt), maxSimilarTerms))
	for _, t := range longestDistinct(qt, maxSimilarTerms) {
		terms = append(terms, quoteTerm(t))
	}
	expr := `{subject} : (` + strings.Join(terms, " OR ") + `)`
	q := `SELECT t.id, t.latest_date, m.subject_norm FROM (SELECT rowid, rank FROM mail_fts WHERE mail_fts MATCH ? ORDER BY rank LIMIT 200) f
		JOIN mail_messages m ON m.id = f.rowid JOIN mail_threads t ON t.id = m.thread_id`
	args := []any{expr}
	if accountID != 0 {
		q += ` AND m.account_id = ?`
		args = append(args, accountID)
	}
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("similar subject: %w", err)
	}
	defer rows.Close()
	out := map[int64]*candidate{}
	for rows.Next() {
		var tid, latest int64
		var sn string
		if err := rows.Scan(&tid, &latest, &sn); err != nil {
			return nil, fmt.Errorf("similar subject: %w", err)
		}
		// Each row's comparison is bounded by the capped subject, but
		// up to 200 of them may run: stop when the caller's time is up.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("similar subject: %w", err)
		}
		if out[tid] != nil {
			continue
		}
		st := subjectTokens(sn)
		if !diceReachable(len(qt), len(st), minSubjectDice, truncated) {
			continue
		}
		if subjectSimilarity(qt, st, truncated) >= minSubjectDice {
			out[tid] = &candidate{latest: latest, match: MatchSubjectSimilar}
		}
	}
	return out, rows.Err()
}

// minSubjectDice is the share of words a similar subject must share.
const minSubjectDice = 0.8

// maxSimilarTerms bounds the words of the similar-subject FTS query.
const maxSimilarTerms = 16

// longestDistinct returns the distinct words of ws, at most n of them,
// longest first (ties in their first order): the rarest words, which
// select best.
func longestDistinct(ws []string, n int) []string {
	seen := make(map[string]bool, len(ws))
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out[:min(len(out), n)]
}

// diceReachable reports whether word lists of nq and ns words could have
// a Dice coefficient of at least threshold: at most min(nq, ns) words can
// match, so lists of very different lengths never do. It spares the word
// comparison of a query against subjects it cannot be similar to.
func diceReachable(nq, ns int, threshold float64, truncated bool) bool {
	if truncated && ns > nq {
		ns = nq // subjectSimilarity compares only the query's length
	}
	if nq+ns == 0 {
		return false
	}
	return 2*float64(min(nq, ns)) >= threshold*float64(nq+ns)
}

// subjectSimilarity is the Dice coefficient of two word lists, words
// matching when equal or within a small edit distance. For a truncated
// query only as many subject words as the query has are compared, and the
// query's last word may be a prefix.
func subjectSimilarity(q, s []string, truncated bool) float64 {
	if truncated && len(s) > len(q) {
		s = s[:len(q)]
	}
	if len(q)+len(s) == 0 {
		return 0
	}
	// Equal words first, through a map: linear in the words, where
	// comparing every pair is their product. Only the words left over
	// (the misread ones, a few in a real subject) are compared pairwise.
	free := make(map[string][]int, len(s)) // word -> unused positions in s
	for j, v := range s {
		free[v] = append(free[v], j)
	}
	used := make([]bool, len(s))
	matched := 0
	var rest []int // positions in q without an equal word
	for i, w := range q {
		if js := free[w]; len(js) > 0 {
			used[js[0]] = true
			free[w] = js[1:]
			matched++
			continue
		}
		rest = append(rest, i)
	}
	for _, i := range rest {
		w := q[i]
		for j, v := range s {
			if used[j] {
				continue
			}
			if closeWords(w, v) || (truncated && i == len(q)-1 && strings.HasPrefix(v, w)) {
				used[j] = true
				matched++
				break
			}
		}
	}
	return 2 * float64(matched) / float64(len(q)+len(s))
}

// closeWords reports whether two words differ by a misread letter or two:
// edit distance 1 for words of 5 runes or more, 2 from 9.
func closeWords(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	n := min(len(ra), len(rb))
	limit := 0
	switch {
	case n >= 9:
		limit = 2
	case n >= 5:
		limit = 1
	}
	if limit == 0 || absDiff(int64(len(ra)), int64(len(rb))) > int64(limit) {
		return false
	}
	return EditDistance(ra, rb) <= limit
}

// EditDistance is the Levenshtein distance between a and b, in runes: how
// many letters OCR must have dropped, added or changed to read one as the
// other.
func EditDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// textThreads runs Sender and Query through the full-text index, within
// the threads in restrict if it is not nil, and returns each thread's best
// rank.
func textThreads(ctx context.Context, db *sql.DB, q SearchQuery, restrict map[int64]*candidate) (map[int64]*candidate, error) {
	sender := senderExpr(q.Sender)
	words, phrases := queryTerms(q.Query)
	if sender == "" && len(words)+len(phrases) == 0 {
		return map[int64]*candidate{}, nil
	}
	all := slices.Concat(phrases, words)
	var parts []string
	if sender != "" {
		parts = append(parts, sender)
	}
	if len(all) > 0 {
		parts = append(parts, "("+strings.Join(all, " ")+")")
	}
	match := MatchText
	if len(all) == 0 {
		match = MatchSender
	}
	found, err := ftsThreads(ctx, db, strings.Join(parts, " AND "), len(all) > 0, q.AccountID, restrict, match)
	if err != nil || len(found) > 0 || len(all) < 2 {
		return found, err
	}
	// No message has every word (a long or misread query): rank by any.
	anyWord := "(" + strings.Join(all, " OR ") + ")"
	if sender != "" {
		anyWord = sender + " AND " + anyWord
	}
	return ftsThreads(ctx, db, anyWord, true, q.AccountID, restrict, MatchTextAny)
}

// ftsThreads runs one MATCH expression and groups the best ftsRows
// messages by thread. Ranked searches take the best bm25 ranks; a sender
// alone takes the newest messages.
func ftsThreads(ctx context.Context, db *sql.DB, expr string, ranked bool, accountID int64, restrict map[int64]*candidate, match string) (map[int64]*candidate, error) {
	inner := `SELECT rowid, rank FROM mail_fts WHERE mail_fts MATCH ?`
	args := []any{expr}
	if restrict != nil {
		// Only the messages of the subject's threads.
		tids := slices.Collect(maps.Keys(restrict))
		inner += ` AND rowid IN (SELECT id FROM mail_messages WHERE thread_id IN (` + placeholders(len(tids)) + `))`
		args = append(args, int64Args(tids)...)
	}
	if ranked && restrict == nil {
		// Ranking costs a lookup per matching message: for a common word
		// (a third of all mail says "counsel") that is tens of
		// milliseconds, and the ranks say little. Such queries rank only
		// the newest ftsRows matches.
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT rowid FROM mail_fts WHERE mail_fts MATCH ? LIMIT ?)`,
			expr, maxRanked+1).Scan(&n)
		if err != nil {
			return nil, fmt.Errorf("full-text search: %w", err)
		}
		ranked = n <= maxRanked
	}
	if ranked {
		inner += ` ORDER BY rank`
	} else {
		inner += ` ORDER BY rowid DESC`
	}
	inner += fmt.Sprintf(` LIMIT %d`, ftsRows)
	q := `SELECT t.id, f.rank, t.latest_date FROM (` + inner + `) f
		JOIN mail_messages m ON m.id = f.rowid JOIN mail_threads t ON t.id = m.thread_id`
	if accountID != 0 {
		q += ` WHERE m.account_id = ?`
		args = append(args, accountID)
	}
	return candidates(ctx, db, q, match, args...)
}

// candidates reads (thread id, rank, latest date) rows, keeping each
// thread's best rank.
func candidates(ctx context.Context, db *sql.DB, q, match string, args ...any) (map[int64]*candidate, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]*candidate{}
	for rows.Next() {
		var tid, latest int64
		var rank float64
		if err := rows.Scan(&tid, &rank, &latest); err != nil {
			return nil, err
		}
		if c := out[tid]; c == nil {
			out[tid] = &candidate{rank: rank, latest: latest, match: match}
		} else {
			c.rank = min(c.rank, rank)
		}
	}
	return out, rows.Err()
}

// senderExpr is the MATCH expression for a sender: every word of a name as
// a prefix, or for an address its local part and domain without the
// top-level domain (which OCR likes to misread: ".corn").
func senderExpr(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	var toks []string
	if at := strings.LastIndexByte(s, '@'); at > 0 {
		local, domain := s[:at], s[at+1:]
		toks = append(toks, ftsTokens(local)...)
		labels := strings.Split(domain, ".")
		if len(labels) > 1 {
			labels = labels[:len(labels)-1]
		}
		for _, l := range labels {
			toks = append(toks, ftsTokens(l)...)
		}
	} else {
		toks = ftsTokens(s)
	}
	if len(toks) == 0 {
		return ""
	}
	// No name or address has more words; a longer sender is not one.
	toks = toks[:min(len(toks), maxQueryTerms)]
	terms := make([]string, 0, len(toks))
	for _, t := range toks {
		terms = append(terms, quoteTerm(t)+"*")
	}
	return `{sender} : (` + strings.Join(terms, " ") + `)`
}

// maxQueryTerms bounds the words of a free-text query.
const maxQueryTerms = 12

// queryTerms splits free text into quoted FTS5 terms and phrases.
func queryTerms(s string) (words, phrases []string) {
	seen := map[string]bool{}
	parts := strings.Split(s, `"`)
	for i, p := range parts {
		toks := ftsTokens(p)
		if i%2 == 1 && len(toks) > 1 { // inside quotes
			phrases = append(phrases, quoteTerm(strings.Join(toks, " ")))
			continue
		}
		for _, t := range toks {
			// A set, not a scan of words: a long query of distinct
			// words would make the scan quadratic.
			if q := quoteTerm(t); !seen[q] {
				seen[q] = true
				words = append(words, q)
			}
		}
	}
	phrases = phrases[:min(len(phrases), maxQueryTerms)]
	if n := len(words) + len(phrases); n > maxQueryTerms {
		// Keep the longest words: they are the rarest.
		slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
		words = words[:max(0, maxQueryTerms-len(phrases))]
	}
	return words, phrases
}

// ftsTokens splits s the way the unicode61 tokenizer does: runs of
// letters and numbers.
func ftsTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Mn, r)
	})
}

// quoteTerm makes s an FTS5 string, so that no word is read as syntax.
func quoteTerm(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// recentThreads lists the newest threads.
func recentThreads(ctx context.Context, db *sql.DB, accountID int64, limit int) (map[int64]*candidate, error) {
	if accountID != 0 {
		return candidates(ctx, db, `SELECT id, 0, latest_date FROM mail_threads WHERE account_id = ? ORDER BY latest_date DESC LIMIT ?`,
			MatchRecent, accountID, limit)
	}
	return candidates(ctx, db, `SELECT id, 0, latest_date FROM mail_threads ORDER BY latest_date DESC LIMIT ?`, MatchRecent, limit)
}

// threadHits builds the hits for the threads, in no particular order.
func (x *Index) threadHits(ctx context.Context, db *sql.DB, tids []int64) ([]ThreadHit, error) {
	if len(tids) == 0 {
		return nil, nil
	}
	own, err := ownAddresses(ctx, db)
	if err != nil {
		return nil, err
	}
	var hits []ThreadHit
	for part := range slices.Chunk(tids, chunk) {
		rows, err := db.QueryContext(ctx, `SELECT t.id, t.account_id, t.subject, t.participants, t.message_count, t.draft_count,
				m.message_id, m.subject, m.from_name, m.from_email, m.date, substr(m.body, 1, 2000),
				CASE WHEN length(m.body) > 2000 THEN substr(m.body, -1000) ELSE '' END, m.headers
			FROM mail_threads t JOIN mail_messages m ON m.id = t.latest_id
			WHERE t.id IN (`+placeholders(len(part))+`)`, int64Args(part)...)
		if err != nil {
			return nil, fmt.Errorf("threads: %w", err)
		}
		for rows.Next() {
			var (
				h              ThreadHit
				parts, headers string
				date           int64
				text, tail     string
			)
			if err := rows.Scan(&h.ThreadID, &h.AccountID, &h.Subject, &parts, &h.MessageCount, &h.Drafts,
				&h.Latest.MessageID, &h.Latest.Subject, &h.Latest.From.Name, &h.Latest.From.Email, &date, &text, &tail, &headers); err != nil {
				rows.Close()
				return nil, fmt.Errorf("threads: %w", err)
			}
			if err := json.Unmarshal([]byte(parts), &h.Participants); err != nil {
				rows.Close()
				return nil, fmt.Errorf("thread %d participants: %w", h.ThreadID, err)
			}
			var hm map[string]string
			if err := json.Unmarshal([]byte(headers), &hm); err != nil {
				rows.Close()
				return nil, fmt.Errorf("thread %d headers: %w", h.ThreadID, err)
			}
			h.Latest.Date = unixMilli(date)
			h.Latest.Snippet = snippet(text, snippetLen)
			// The footers that tell automated mail are at the end: the
			// head and the tail of a long body are read.
			h.Latest.Automated = mail.Automated(h.Latest.From, h.Latest.Subject, hm, text+"\n"+tail)
			h.Latest.Bulk = h.Latest.Automated != mail.None
			h.LatestFromMe = slices.Contains(own[h.AccountID], h.Latest.From.Email)
			hits = append(hits, h)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("threads: %w", err)
		}
	}
	return hits, nil
}

// ReadEmailThread returns a whole thread, oldest message first, with
// bodies; store.ErrNotFound if there is no such thread.
func (x *Index) ReadEmailThread(ctx context.Context, threadID int64) (Thread, error) {
	db := x.st.Reader()
	var t Thread
	var parts string
	err := db.QueryRowContext(ctx, `SELECT id, account_id, subject, participants FROM mail_threads WHERE id = ?`, threadID).
		Scan(&t.ID, &t.AccountID, &t.Subject, &parts)
	if errors.Is(err, sql.ErrNoRows) {
		return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, store.ErrNotFound)
	}
	if err != nil {
		return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, err)
	}
	if err := json.Unmarshal([]byte(parts), &t.Participants); err != nil {
		return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, err)
	}
	own, err := ownAddresses(ctx, db)
	if err != nil {
		return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT id, remote_id, folder, message_id, in_reply_to, refs, conversation_id,
			subject, from_name, from_email, to_json, cc_json, date, body, quoted, headers, draft
		FROM mail_messages WHERE thread_id = ? ORDER BY date, id`, threadID)
	if err != nil {
		return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			m                     ThreadMessage
			refs, to, cc, headers string
			date                  int64
			quoted                []byte
		)
		if err := rows.Scan(&m.ID, &m.RemoteID, &m.Folder, &m.MessageID, &m.InReplyTo, &refs, &m.ConversationID,
			&m.Subject, &m.From.Name, &m.From.Email, &to, &cc, &date, &m.Body, &quoted, &headers, &m.Draft); err != nil {
			return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, err)
		}
		m.References = strings.Fields(refs)
		for _, j := range []struct {
			s string
			v any
		}{{to, &m.To}, {cc, &m.Cc}, {headers, &m.Headers}} {
			if err := json.Unmarshal([]byte(j.s), j.v); err != nil {
				return Thread{}, fmt.Errorf("read email thread %d: message %d: %w", threadID, m.ID, err)
			}
		}
		if len(m.Headers) == 0 {
			m.Headers = nil
		}
		if m.Quoted, err = decompress(quoted); err != nil {
			return Thread{}, fmt.Errorf("read email thread %d: message %d history: %w", threadID, m.ID, err)
		}
		m.Date = unixMilli(date)
		m.FromMe = slices.Contains(own[t.AccountID], m.From.Email)
		m.Automated = mail.Automated(m.From, m.Subject, m.Headers, m.Body)
		m.Bulk = m.Automated != mail.None
		t.Messages = append(t.Messages, m)
	}
	if err := rows.Err(); err != nil {
		return Thread{}, fmt.Errorf("read email thread %d: %w", threadID, err)
	}
	return t, nil
}

// Stats counts what the index holds, for the tray's sync progress.
type Stats struct {
	Messages int            `json:"messages"`
	Threads  int            `json:"threads"`
	Accounts []AccountStats `json:"accounts"`
}

// AccountStats is Stats for one account.
type AccountStats struct {
	ID       int64     `json:"id"`
	Kind     string    `json:"kind"`
	Name     string    `json:"name"`
	Address  string    `json:"address"`
	Messages int       `json:"messages"`
	Threads  int       `json:"threads"`
	LastSync time.Time `json:"last_sync,omitzero"`
}

// Stats counts messages and threads, in all and per account.
func (x *Index) Stats(ctx context.Context) (Stats, error) {
	rows, err := x.st.Reader().QueryContext(ctx, `SELECT a.id, a.kind, a.name, a.address, a.last_sync,
			(SELECT count(*) FROM mail_messages WHERE account_id = a.id),
			(SELECT count(*) FROM mail_threads WHERE account_id = a.id)
		FROM mail_accounts a ORDER BY a.id`)
	if err != nil {
		return Stats{}, fmt.Errorf("mail stats: %w", err)
	}
	defer rows.Close()
	var s Stats
	for rows.Next() {
		var a AccountStats
		var last sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Kind, &a.Name, &a.Address, &last, &a.Messages, &a.Threads); err != nil {
			return Stats{}, fmt.Errorf("mail stats: %w", err)
		}
		if last.Valid {
			a.LastSync = time.UnixMilli(last.Int64)
		}
		s.Messages += a.Messages
		s.Threads += a.Threads
		s.Accounts = append(s.Accounts, a)
	}
	if err := rows.Err(); err != nil {
		return Stats{}, fmt.Errorf("mail stats: %w", err)
	}
	return s, nil
}

// ownAddresses maps each account to the user's addresses there.
func ownAddresses(ctx context.Context, db *sql.DB) (map[int64][]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT `+accountCols+` FROM mail_accounts`)
	if err != nil {
		return nil, fmt.Errorf("accounts: %w", err)
	}
	defer rows.Close()
	out := map[int64][]string{}
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("accounts: %w", err)
		}
		out[a.ID] = a.Addresses()
	}
	return out, rows.Err()
}

func unixMilli(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// ThreadOfMessage returns the thread holding the message with Message-ID
// messageID ("<abc@host>"), or store.ErrNotFound.
func (x *Index) ThreadOfMessage(ctx context.Context, messageID string) (id int64, subject string, err error) {
	err = x.st.Reader().QueryRowContext(ctx, `SELECT t.id, t.subject FROM mail_messages m JOIN mail_threads t ON t.id = m.thread_id
		WHERE m.message_id = ? ORDER BY m.id DESC LIMIT 1`, normID(messageID)).Scan(&id, &subject)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", fmt.Errorf("message %s: %w", messageID, store.ErrNotFound)
	}
	if err != nil {
		return 0, "", fmt.Errorf("thread of message %s: %w", messageID, err)
	}
	return id, subject, nil
}

// ThreadsFrom lists the threads in which addr itself (the exact address,
// any case) wrote a message dated in [since, until], the newest such
// message first, at most limit. Unlike SearchEmail's Sender, which also
// finds names and addresses that begin the same way and keeps only the
// newest of those, it misses none of addr's own threads in the span:
// what a meeting's brief needs of the people coming.
func (x *Index) ThreadsFrom(ctx context.Context, addr string, since, until time.Time, limit int) ([]int64, error) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	expr := senderExpr(addr)
	if expr == "" || limit <= 0 {
		return nil, nil
	}
	// The full-text index narrows to the messages whose sender has addr's
	// words; the exact address and the dates then decide.
	rows, err := x.st.Reader().QueryContext(ctx, `SELECT m.thread_id, max(m.date) AS d FROM mail_messages m
		WHERE m.id IN (SELECT rowid FROM mail_fts WHERE mail_fts MATCH ?)
		  AND m.from_email = ? AND m.draft = 0 AND m.date >= ? AND m.date <= ?
		GROUP BY m.thread_id ORDER BY d DESC LIMIT ?`, expr, addr, since.UnixMilli(), until.UnixMilli(), limit)
	if err != nil {
		return nil, fmt.Errorf("threads from %s: %w", addr, err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id, d int64
		if err := rows.Scan(&id, &d); err != nil {
			return nil, fmt.Errorf("threads from %s: %w", addr, err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("threads from %s: %w", addr, err)
	}
	return out, nil
}
