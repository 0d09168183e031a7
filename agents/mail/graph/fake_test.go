package graph_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/mailtest"
)

// fakeGraph implements the Microsoft Graph v1.0 endpoints the connector
// uses, with the documented request and response shapes:
//
//	GET    /me/mailFolders/{inbox|sentitems|drafts}/messages/delta
//	GET    /me/messages/{id}
//	GET    /me/messages?$filter=internetMessageId eq '…'   and   ?$search="…"
//	POST   /me/messages/{id}/createReply
//	POST   /me/messages
//	PATCH  /me/messages/{id}
//	DELETE /me/messages/{id}
//
// Delta rounds follow Graph's model: an initial round pages through the
// folder with @odata.nextLink ($skiptoken) and ends with an
// @odata.deltaLink ($deltatoken); a later round returns what changed since
// its token, removals as {"id", "@removed": {"reason": "deleted"}}, and
// read-state changes with only the changed properties. Like Graph, it
// returns no internetMessageHeaders for Sent Items and Drafts, only the
// threading extended properties.
type fakeGraph struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	seq      int // change counter; delta tokens are sequence numbers
	msgs     map[string]*fakeMsg
	order    []string // ids in creation order
	nextID   int
	skip     map[string]*pageState // $skiptoken → the rest of a round
	selects  map[string]url.Values // folder → its initial round's query options
	minToken int                   // delta tokens below it have expired (410)
	accept   func(token string) bool
	failures []failure
	requests []recorded
	// sizeProp, if set, is the id the fake gives PidTagMessageSize in its
	// answers ("Integer 0x0E08" if not): Graph's own spelling may differ
	// from the request's.
	sizeProp string
}

type fakeMsg struct {
	id, folder        string
	conversationID    string
	internetMessageID string
	subject           string
	from              mail.Address
	to, cc            []mail.Address
	received, sent    time.Time
	body, bodyType    string
	isDraft, isRead   bool
	headers           [][2]string // internetMessageHeaders (inbox only)
	inReplyTo, refs   string      // PidTagInReplyToId, PidTagInternetReferences
	size              int         // PidTagMessageSize; 0: about the body's
	added, changed    int         // sequence numbers
	readChanged       int         // last read-state-only change
	present           bool
	removedFrom       map[string]int // folder → sequence number when it left
}

type pageState struct {
	folder   string
	ids      []string
	removed  []string
	partial  map[string]bool
	deltaSeq int
	filter   time.Time
}

type failure struct {
	path   string // substring of the request path
	n      int
	status int
	header map[string]string
	body   string
}

type recorded struct {
	Method, Path string
	Query        url.Values
	Header       http.Header
	Body         string
}

func newFakeGraph(t *testing.T) *fakeGraph {
	f := &fakeGraph{
		t:       t,
		msgs:    map[string]*fakeMsg{},
		skip:    map[string]*pageState{},
		selects: map[string]url.Values{},
		accept:  func(tok string) bool { return tok == "good" || strings.HasPrefix(tok, "access-") },
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGraph) baseURL() string { return f.srv.URL + "/v1.0" }

// seed adds a case's messages: the lawyer's own to Sent Items, the rest to
// the Inbox.
func (f *fakeGraph) seed(c mailtest.Case) {
	for _, m := range c.Messages {
		folder := "inbox"
		if m.Sent {
			folder = "sentitems"
		}
		f.add(m, folder)
	}
}

// add stores a corpus message in folder and returns its Graph id.
func (f *fakeGraph) add(m mailtest.Message, folder string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	f.nextID++
	id := fmt.Sprintf("AAMkAG%04d=", f.nextID)
	fm := &fakeMsg{
		id: id, folder: folder,
		conversationID:    conversationID(m.ThreadRoot()),
		internetMessageID: m.MessageID,
		subject:           m.Subject,
		from:              m.From, to: m.To, cc: m.Cc,
		sent: m.Date.UTC(), received: m.Date.UTC().Add(time.Minute),
		body: m.Body, bodyType: "text",
		inReplyTo: m.InReplyTo, refs: strings.Join(m.References, " "),
		added: f.seq, changed: f.seq, present: true,
		removedFrom: map[string]int{},
	}
	for fl := m.Header.Fields(); fl.Next(); {
		fm.headers = append(fm.headers, [2]string{fl.Key(), fl.Value()})
	}
	f.msgs[id] = fm
	f.order = append(f.order, id)
	return id
}

// conversationID derives a stable Graph-like conversation id from a
// thread's root message id.
func conversationID(root string) string {
	sum := sha256.Sum256([]byte(root))
	return "AAQkAG" + hex.EncodeToString(sum[:8])
}

func (f *fakeGraph) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	m := f.msgs[id]
	m.present = false
	m.removedFrom[m.folder] = f.seq
}

// move moves a message keeping its id (as with Prefer: IdType="ImmutableId").
func (f *fakeGraph) move(id, folder string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	m := f.msgs[id]
	m.removedFrom[m.folder] = f.seq
	m.folder, m.changed = folder, f.seq
}

func (f *fakeGraph) markRead(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	f.msgs[id].isRead = true
	f.msgs[id].readChanged = f.seq
}

// expireDeltaTokens makes every delta token issued so far answer 410 Gone.
func (f *fakeGraph) expireDeltaTokens() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	f.minToken = f.seq
}

// fail makes the next n requests whose path contains path fail.
func (f *fakeGraph) fail(path string, n, status int, header map[string]string, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, failure{path, n, status, header, body})
}

func (f *fakeGraph) log() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func (f *fakeGraph) message(id string) fakeMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.msgs[id]
}

func (f *fakeGraph) idByMessageID(msgID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range f.order {
		if f.msgs[id].internetMessageID == msgID {
			return id
		}
	}
	return ""
}

func graphError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req-"+strconv.Itoa(status))
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": code, "message": msg,
		"innerError": map[string]string{"request-id": "req-" + strconv.Itoa(status), "date": "2026-06-18T12:00:00"},
	}})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; odata.metadata=minimal")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeGraph) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	f.requests = append(f.requests, recorded{r.Method, r.URL.Path, r.URL.Query(), r.Header.Clone(), string(body)})

	for i := range f.failures {
		fl := &f.failures[i]
		if fl.n > 0 && strings.Contains(r.URL.Path, fl.path) {
			fl.n--
			for k, v := range fl.header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(fl.status)
			w.Write([]byte(fl.body))
			return
		}
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !f.accept(tok) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="", error="invalid_token"`)
		graphError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.")
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/v1.0/me/")
	if !ok {
		graphError(w, http.StatusBadRequest, "BadRequest", "Resource not found for the segment.")
		return
	}
	parts := strings.Split(path, "/")
	switch {
	case r.Method == http.MethodGet && len(parts) == 4 && parts[0] == "mailFolders" && parts[2] == "messages" && parts[3] == "delta":
		f.delta(w, r, parts[1])
	case r.Method == http.MethodGet && len(parts) == 1 && parts[0] == "messages":
		f.list(w, r)
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "messages":
		m := f.msgs[parts[1]]
		if m == nil || !m.present {
			graphError(w, http.StatusNotFound, "ErrorItemNotFound", "The specified object was not found in the store.")
			return
		}
		reply(w, http.StatusOK, f.renderQuery(m, r.URL.Query(), wantsText(r)))
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "messages" && parts[2] == "createReply":
		f.createReply(w, r, parts[1])
	case r.Method == http.MethodPost && len(parts) == 1 && parts[0] == "messages":
		f.createMessage(w, r, body)
	case r.Method == http.MethodPatch && len(parts) == 2 && parts[0] == "messages":
		f.patch(w, r, parts[1], body)
	case r.Method == http.MethodDelete && len(parts) == 2 && parts[0] == "messages":
		if m := f.msgs[parts[1]]; m != nil && m.present {
			f.seq++
			m.present = false
			m.removedFrom[m.folder] = f.seq
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		graphError(w, http.StatusBadRequest, "BadRequest", "Unsupported request "+r.Method+" "+r.URL.Path)
	}
}

// pageSize reads Prefer: odata.maxpagesize (Graph's default is 10).
func pageSize(r *http.Request) int {
	for _, v := range r.Header.Values("Prefer") {
		for _, p := range strings.Split(v, ",") {
			if n, ok := strings.CutPrefix(strings.TrimSpace(p), "odata.maxpagesize="); ok {
				if size, err := strconv.Atoi(n); err == nil {
					return size
				}
			}
		}
	}
	return 10
}

func wantsText(r *http.Request) bool {
	for _, v := range r.Header.Values("Prefer") {
		if strings.Contains(v, `outlook.body-content-type="text"`) {
			return true
		}
	}
	return false
}

func (f *fakeGraph) delta(w http.ResponseWriter, r *http.Request, folder string) {
	q := r.URL.Query()
	var st *pageState
	switch {
	case q.Get("$skiptoken") != "":
		saved := f.skip[q.Get("$skiptoken")]
		if saved == nil {
			graphError(w, http.StatusBadRequest, "BadRequest", "Invalid skip token.")
			return
		}
		// A copy: as in Graph, a link can be followed again (a retry,
		// a smaller page) and answers from the same place.
		cp := *saved
		st = &cp
	case q.Get("$deltatoken") != "":
		var err error
		st, err = f.changesSince(folder, q.Get("$deltatoken"))
		if err != nil {
			graphError(w, http.StatusGone, "SyncStateNotFound", err.Error())
			return
		}
	default:
		if !strings.Contains(q.Get("$select"), "internetMessageId") {
			f.t.Errorf("initial delta request without $select: %v", q)
		}
		st = &pageState{folder: folder, deltaSeq: f.seq}
		if fl := q.Get("$filter"); fl != "" {
			v, ok := strings.CutPrefix(fl, "receivedDateTime ge ")
			t, err := time.Parse(time.RFC3339, v)
			if !ok || err != nil {
				graphError(w, http.StatusBadRequest, "ErrorInvalidUrlQueryFilter", "The query filter contains one or more invalid nodes.")
				return
			}
			st.filter = t
		}
		for _, id := range f.order {
			m := f.msgs[id]
			if m.present && m.folder == folder && !m.received.Before(st.filter) {
				st.ids = append(st.ids, id)
			}
		}
		// The round's query options live on in its links, as in Graph.
		st.partial = map[string]bool{}
		f.selects[folder] = q
	}
	size := pageSize(r)
	var value []any
	for len(value) < size && len(st.removed) > 0 {
		value = append(value, map[string]any{"id": st.removed[0], "@removed": map[string]string{"reason": "deleted"}})
		st.removed = st.removed[1:]
	}
	for len(value) < size && len(st.ids) > 0 {
		m := f.msgs[st.ids[0]]
		if st.partial[m.id] {
			// Graph's known behaviour: a read-state change comes with
			// only the changed properties, whatever $select said.
			value = append(value, map[string]any{"id": m.id, "isRead": m.isRead, "changeKey": "ck" + strconv.Itoa(m.readChanged)})
		} else {
			value = append(value, f.renderQuery(m, f.selects[folder], wantsText(r)))
		}
		st.ids = st.ids[1:]
	}
	page := map[string]any{"@odata.context": f.baseURL() + "/$metadata#Collection(message)", "value": value}
	link := f.baseURL() + "/me/mailFolders/" + folder + "/messages/delta?"
	if len(st.ids) > 0 || len(st.removed) > 0 {
		f.nextID++
		token := "skip" + strconv.Itoa(f.nextID)
		f.skip[token] = st
		page["@odata.nextLink"] = link + "$skiptoken=" + token
	} else {
		page["@odata.deltaLink"] = link + "$deltatoken=" + strconv.Itoa(f.seq)
	}
	reply(w, http.StatusOK, page)
}

// changesSince builds a round of the changes to folder after token.
func (f *fakeGraph) changesSince(folder, token string) (*pageState, error) {
	since, err := strconv.Atoi(token)
	if err != nil || since < f.minToken {
		return nil, fmt.Errorf("The sync state %s is invalid or expired.", token)
	}
	st := &pageState{folder: folder, deltaSeq: f.seq, partial: map[string]bool{}}
	for _, id := range f.order {
		m := f.msgs[id]
		if seq, ok := m.removedFrom[folder]; ok && seq > since && m.added <= since && !(m.present && m.folder == folder) {
			st.removed = append(st.removed, id)
			continue
		}
		if !m.present || m.folder != folder {
			continue
		}
		switch {
		case m.changed > since:
			st.ids = append(st.ids, id)
		case m.readChanged > since:
			st.ids = append(st.ids, id)
			st.partial[id] = true
		}
	}
	return st, nil
}

// list answers GET /me/messages with $filter on internetMessageId or
// $search.
func (f *fakeGraph) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var value []any
	switch {
	case q.Get("$filter") != "":
		v, ok := strings.CutPrefix(q.Get("$filter"), "internetMessageId eq '")
		if !ok || !strings.HasSuffix(v, "'") {
			graphError(w, http.StatusBadRequest, "ErrorInvalidUrlQueryFilter", "unsupported filter")
			return
		}
		want := strings.ReplaceAll(strings.TrimSuffix(v, "'"), "''", "'")
		for _, id := range f.order {
			if m := f.msgs[id]; m.present && m.internetMessageID == want {
				value = append(value, f.renderQuery(m, q, wantsText(r)))
			}
		}
	case q.Get("$search") != "":
		term, err := strconv.Unquote(q.Get("$search"))
		if err != nil {
			graphError(w, http.StatusBadRequest, "BadRequest", "$search needs a quoted string")
			return
		}
		for _, id := range f.order {
			m := f.msgs[id]
			if m.present && (strings.Contains(strings.ToLower(m.subject), strings.ToLower(term)) ||
				strings.Contains(strings.ToLower(m.body), strings.ToLower(term))) {
				value = append(value, f.renderQuery(m, q, wantsText(r)))
			}
		}
	default:
		graphError(w, http.StatusBadRequest, "BadRequest", "list without $filter or $search")
		return
	}
	if top, err := strconv.Atoi(q.Get("$top")); err == nil && len(value) > top {
		value = value[:top]
	}
	reply(w, http.StatusOK, map[string]any{"value": value})
}

// renderQuery renders m with the properties $select names (all when it
// names none) and the extended properties $expand asks for.
func (f *fakeGraph) renderQuery(m *fakeMsg, q url.Values, text bool) map[string]any {
	addr := func(a mail.Address) map[string]any {
		return map[string]any{"emailAddress": map[string]string{"name": a.Name, "address": a.Email}}
	}
	addrs := func(as []mail.Address) []any {
		out := []any{}
		for _, a := range as {
			out = append(out, addr(a))
		}
		return out
	}
	body := map[string]string{"contentType": m.bodyType, "content": m.body}
	if !text && m.bodyType == "text" {
		body = map[string]string{"contentType": "html", "content": "<html><body><div>" +
			strings.ReplaceAll(html.EscapeString(m.body), "\n", "<br>") + "</div></body></html>"}
	}
	if text && m.bodyType == "html" {
		body = map[string]string{"contentType": "text", "content": htmlText(m.body)}
	}
	all := map[string]any{
		"id":                m.id,
		"conversationId":    m.conversationID,
		"internetMessageId": m.internetMessageID,
		"subject":           m.subject,
		"from":              addr(m.from),
		"toRecipients":      addrs(m.to),
		"ccRecipients":      addrs(m.cc),
		"receivedDateTime":  m.received.Format(time.RFC3339),
		"sentDateTime":      nil,
		"body":              body,
		"isDraft":           m.isDraft,
		"isRead":            m.isRead,
		"parentFolderId":    "folder-" + m.folder,
	}
	if !m.isDraft {
		all["sentDateTime"] = m.sent.Format(time.RFC3339)
	}
	out := map[string]any{"@odata.etag": `W/"CQAAABYAAAA"`, "id": m.id}
	sel := q.Get("$select")
	if sel == "" {
		for k, v := range all {
			out[k] = v
		}
	} else {
		for _, k := range strings.Split(sel, ",") {
			if k == "internetMessageHeaders" {
				// Only mail that came over SMTP has them.
				if m.folder == "inbox" {
					hs := []any{}
					for _, h := range m.headers {
						hs = append(hs, map[string]string{"name": h[0], "value": h[1]})
					}
					out[k] = hs
				}
				continue
			}
			if v, ok := all[k]; ok {
				out[k] = v
			}
		}
	}
	if exp := q.Get("$expand"); strings.HasPrefix(exp, "singleValueExtendedProperties($filter=") {
		props := []any{}
		if m.inReplyTo != "" && strings.Contains(exp, "id eq 'String 0x1042'") {
			props = append(props, map[string]string{"id": "String 0x1042", "value": m.inReplyTo})
		}
		if m.refs != "" && strings.Contains(exp, "id eq 'String 0x1039'") {
			props = append(props, map[string]string{"id": "String 0x1039", "value": m.refs})
		}
		if strings.Contains(exp, "id eq 'Integer 0x0E08'") {
			size := m.size
			if size == 0 {
				size = len(m.body) + len(m.subject) + 2000 // headers
			}
			id := f.sizeProp
			if id == "" {
				id = "Integer 0x0E08"
			}
			props = append(props, map[string]string{"id": id, "value": strconv.Itoa(size)})
		}
		if len(props) > 0 {
			out["singleValueExtendedProperties"] = props
		}
	}
	return out
}

func htmlText(s string) string {
	s = strings.ReplaceAll(s, "<br>", "\n")
	for {
		i := strings.Index(s, "<")
		j := strings.Index(s, ">")
		if i < 0 || j < i {
			return html.UnescapeString(s)
		}
		s = s[:i] + s[j+1:]
	}
}

// createReply makes a reply draft the way Exchange does: threaded to the
// original (conversation, In-Reply-To, References), "RE:" subject,
// addressed to the sender, HTML body quoting the original.
func (f *fakeGraph) createReply(w http.ResponseWriter, r *http.Request, id string) {
	orig := f.msgs[id]
	if orig == nil || !orig.present {
		graphError(w, http.StatusNotFound, "ErrorItemNotFound", "The specified object was not found in the store.")
		return
	}
	f.seq++
	f.nextID++
	refs := strings.TrimSpace(orig.refs + " " + orig.internetMessageID)
	d := &fakeMsg{
		id: fmt.Sprintf("AAMkAGdraft%04d=", f.nextID), folder: "drafts",
		conversationID:    orig.conversationID,
		internetMessageID: fmt.Sprintf("<DRAFT%04d@fake.outlook.com>", f.nextID),
		subject:           "RE: " + orig.subject,
		to:                []mail.Address{orig.from},
		received:          time.Date(2026, 6, 18, 12, 0, 0, 0, time.UTC),
		body:              "<html><body><div><br></div><hr><div>From: " + html.EscapeString(orig.from.Email) + "<br>" + html.EscapeString(orig.body) + "</div></body></html>",
		bodyType:          "html",
		isDraft:           true,
		inReplyTo:         orig.internetMessageID, refs: refs,
		added: f.seq, changed: f.seq, present: true, removedFrom: map[string]int{},
	}
	f.msgs[d.id] = d
	f.order = append(f.order, d.id)
	reply(w, http.StatusCreated, f.renderQuery(d, url.Values{}, false))
}

type draftJSON struct {
	Subject *string `json:"subject"`
	Body    *struct {
		ContentType string `json:"contentType"`
		Content     string `json:"content"`
	} `json:"body"`
	To []struct {
		EmailAddress struct{ Name, Address string } `json:"emailAddress"`
	} `json:"toRecipients"`
	Cc []struct {
		EmailAddress struct{ Name, Address string } `json:"emailAddress"`
	} `json:"ccRecipients"`
}

func (f *fakeGraph) apply(d *fakeMsg, body []byte) error {
	var in draftJSON
	if err := json.Unmarshal(body, &in); err != nil {
		return err
	}
	if in.Subject != nil {
		d.subject = *in.Subject
	}
	if in.Body != nil {
		d.body, d.bodyType = in.Body.Content, strings.ToLower(in.Body.ContentType)
	}
	if in.To != nil {
		d.to = nil
		for _, a := range in.To {
			d.to = append(d.to, mail.Address{Name: a.EmailAddress.Name, Email: a.EmailAddress.Address})
		}
	}
	if in.Cc != nil {
		d.cc = nil
		for _, a := range in.Cc {
			d.cc = append(d.cc, mail.Address{Name: a.EmailAddress.Name, Email: a.EmailAddress.Address})
		}
	}
	return nil
}

func (f *fakeGraph) createMessage(w http.ResponseWriter, r *http.Request, body []byte) {
	f.seq++
	f.nextID++
	d := &fakeMsg{
		id: fmt.Sprintf("AAMkAGnew%04d=", f.nextID), folder: "drafts",
		conversationID:    fmt.Sprintf("AAQkAGnew%04d", f.nextID),
		internetMessageID: fmt.Sprintf("<NEW%04d@fake.outlook.com>", f.nextID),
		received:          time.Date(2026, 6, 18, 12, 0, 0, 0, time.UTC),
		isDraft:           true, bodyType: "text",
		added: f.seq, changed: f.seq, present: true, removedFrom: map[string]int{},
	}
	if err := f.apply(d, body); err != nil {
		graphError(w, http.StatusBadRequest, "RequestBodyRead", err.Error())
		return
	}
	f.msgs[d.id] = d
	f.order = append(f.order, d.id)
	reply(w, http.StatusCreated, f.renderQuery(d, url.Values{}, false))
}

func (f *fakeGraph) patch(w http.ResponseWriter, r *http.Request, id string, body []byte) {
	d := f.msgs[id]
	if d == nil || !d.present {
		graphError(w, http.StatusNotFound, "ErrorItemNotFound", "The specified object was not found in the store.")
		return
	}
	if err := f.apply(d, body); err != nil {
		graphError(w, http.StatusBadRequest, "RequestBodyRead", err.Error())
		return
	}
	f.seq++
	d.changed = f.seq
	reply(w, http.StatusOK, f.renderQuery(d, url.Values{}, false))
}
