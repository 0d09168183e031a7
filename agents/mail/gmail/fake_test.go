package gmail_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

	gomail "github.com/emersion/go-message/mail"

	"github.com/spirit-app/spirit/agents/mail/mailtest"
)

// fakeGmail implements the Gmail API endpoints the connector uses, with
// the documented request and response shapes, under
// /gmail/v1/users/me:
//
//	GET  /profile
//	GET  /messages?labelIds=&q=&maxResults=&pageToken=      (messages.list)
//	GET  /messages/{id}?format=raw|metadata&metadataHeaders= (messages.get)
//	GET  /history?startHistoryId=&historyTypes=&maxResults=&pageToken=
//	POST /drafts                                              (drafts.create)
//
// Every change gets a history record; history older than expireHistory
// answers 404, as Gmail does for a startHistoryId it no longer has.
type fakeGmail struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	historyID int // the mailbox's current history id
	oldest    int // startHistoryId below it answers 404
	msgs      map[string]*gmsg
	order     []string
	history   []histRecord
	drafts    map[string]string // draft id → message id
	nextID    int
	accept    func(token string) bool
	failures  []failure
	requests  []recorded
}

type gmsg struct {
	id, threadID string
	labels       []string
	raw          []byte
	internalDate time.Time
	present      bool
}

type histRecord struct {
	id                        int
	kind                      string // messageAdded, messageDeleted, labelAdded, labelRemoved
	msgID, threadID           string
	labelIDs, changedLabelIDs []string
}

type failure struct {
	path   string
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

const fakeBase = "/gmail/v1/users/me"

func newFakeGmail(t *testing.T) *fakeGmail {
	f := &fakeGmail{
		t:         t,
		historyID: 1000,
		msgs:      map[string]*gmsg{},
		drafts:    map[string]string{},
		accept:    func(tok string) bool { return tok == "good" || strings.HasPrefix(tok, "access-") },
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGmail) baseURL() string { return f.srv.URL + fakeBase }

// threadID derives a Gmail-like thread id from a thread's root message id.
func threadID(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:8])
}

// seed adds a case's messages: the lawyer's own under SENT, the rest
// under INBOX.
func (f *fakeGmail) seed(c mailtest.Case) {
	for _, m := range c.Messages {
		label := "INBOX"
		if m.Sent {
			label = "SENT"
		}
		f.add(m.Raw, threadID(m.ThreadRoot()), m.Date, label)
	}
}

// add stores a raw message with labels and returns its id.
func (f *fakeGmail) add(raw []byte, thread string, date time.Time, labels ...string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addLocked(raw, thread, date, labels)
}

func (f *fakeGmail) addLocked(raw []byte, thread string, date time.Time, labels []string) string {
	f.nextID++
	id := fmt.Sprintf("%016x", 0x18f0000000000000+f.nextID)
	if thread == "" {
		thread = id
	}
	f.msgs[id] = &gmsg{id: id, threadID: thread, labels: slices.Clone(labels), raw: raw, internalDate: date, present: true}
	f.order = append(f.order, id)
	f.record("messageAdded", f.msgs[id], nil)
	return id
}

func (f *fakeGmail) record(kind string, m *gmsg, changed []string) {
	f.historyID += 7 // history ids increase with gaps
	f.history = append(f.history, histRecord{
		id: f.historyID, kind: kind, msgID: m.id, threadID: m.threadID,
		labelIDs: slices.Clone(m.labels), changedLabelIDs: changed,
	})
}

func (f *fakeGmail) deleteMessage(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.msgs[id]
	m.present = false
	f.record("messageDeleted", m, nil)
}

func (f *fakeGmail) relabel(id string, add, remove []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.msgs[id]
	if len(add) > 0 {
		m.labels = append(m.labels, add...)
		f.record("labelAdded", m, add)
	}
	if len(remove) > 0 {
		m.labels = slices.DeleteFunc(m.labels, func(l string) bool { return slices.Contains(remove, l) })
		f.record("labelRemoved", m, remove)
	}
}

func (f *fakeGmail) expireHistory() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.historyID += 7
	f.oldest = f.historyID
}

func (f *fakeGmail) fail(path string, n, status int, header map[string]string, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, failure{path, n, status, header, body})
}

func (f *fakeGmail) log() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func (f *fakeGmail) message(id string) gmsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.msgs[id]
}

func (f *fakeGmail) idByMessageID(msgID string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range f.order {
		if h := headerOfRaw(f.msgs[id].raw); h.Get("Message-Id") == msgID {
			return id
		}
	}
	return ""
}

func headerOfRaw(raw []byte) gomail.Header {
	r, err := gomail.CreateReader(bytes.NewReader(raw))
	if err != nil && r == nil {
		return gomail.Header{}
	}
	return r.Header
}

func googleError(w http.ResponseWriter, status int, reason, statusName, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": status, "message": msg, "status": statusName,
		"errors": []any{map[string]string{"message": msg, "domain": "global", "reason": reason}},
	}})
}

func reply(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(v)
}

func (f *fakeGmail) serve(w http.ResponseWriter, r *http.Request) {
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
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(fl.status)
			w.Write([]byte(fl.body))
			return
		}
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !f.accept(tok) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/", error="invalid_token"`)
		googleError(w, http.StatusUnauthorized, "authError", "UNAUTHENTICATED",
			"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, fakeBase)
	if !ok {
		googleError(w, http.StatusNotFound, "notFound", "NOT_FOUND", "Not Found")
		return
	}
	q := r.URL.Query()
	switch {
	case r.Method == http.MethodGet && path == "/profile":
		threads := map[string]bool{}
		for _, m := range f.msgs {
			threads[m.threadID] = true
		}
		reply(w, map[string]any{
			"emailAddress": "dana.whitfield@hartleyross.com", "messagesTotal": len(f.msgs),
			"threadsTotal": len(threads), "historyId": strconv.Itoa(f.historyID),
		})
	case r.Method == http.MethodGet && path == "/messages":
		f.list(w, q)
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/messages/"):
		f.get(w, q, strings.TrimPrefix(path, "/messages/"))
	case r.Method == http.MethodGet && path == "/history":
		f.historyList(w, q)
	case r.Method == http.MethodPost && path == "/drafts":
		f.createDraft(w, body)
	default:
		googleError(w, http.StatusNotFound, "notFound", "NOT_FOUND", "Not Found")
	}
}

// list is messages.list: newest first, labelIds all required, "after:"
// in q understood, pages of maxResults (default 100).
func (f *fakeGmail) list(w http.ResponseWriter, q url.Values) {
	var after time.Time
	if v, ok := strings.CutPrefix(q.Get("q"), "after:"); ok {
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			googleError(w, http.StatusBadRequest, "invalidArgument", "INVALID_ARGUMENT", "Invalid query")
			return
		}
		after = time.Unix(secs, 0)
	}
	var ids []string
	for _, id := range slices.Backward(f.order) {
		m := f.msgs[id]
		if !m.present || m.internalDate.Before(after) {
			continue
		}
		if !containsAll(m.labels, q["labelIds"]) {
			continue
		}
		ids = append(ids, id)
	}
	size := 100
	if n, err := strconv.Atoi(q.Get("maxResults")); err == nil {
		size = n
	}
	start := 0
	if tok := q.Get("pageToken"); tok != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(tok, "page-"))
		if err != nil {
			googleError(w, http.StatusBadRequest, "invalidArgument", "INVALID_ARGUMENT", "Invalid pageToken")
			return
		}
		start = n
	}
	end := min(start+size, len(ids))
	resp := map[string]any{"resultSizeEstimate": len(ids)}
	var msgs []any
	for _, id := range ids[start:end] {
		msgs = append(msgs, map[string]string{"id": id, "threadId": f.msgs[id].threadID})
	}
	if len(msgs) > 0 {
		resp["messages"] = msgs
	}
	if end < len(ids) {
		resp["nextPageToken"] = "page-" + strconv.Itoa(end)
	}
	reply(w, resp)
}

func containsAll(have, want []string) bool {
	for _, l := range want {
		if !slices.Contains(have, l) {
			return false
		}
	}
	return true
}

// get is messages.get in format raw or metadata.
func (f *fakeGmail) get(w http.ResponseWriter, q url.Values, id string) {
	m := f.msgs[id]
	if m == nil || !m.present {
		googleError(w, http.StatusNotFound, "notFound", "NOT_FOUND", "Requested entity was not found.")
		return
	}
	resp := map[string]any{
		"id": m.id, "threadId": m.threadID, "labelIds": m.labels,
		"snippet": "snippet of " + m.id, "historyId": strconv.Itoa(f.historyID),
		"internalDate": strconv.FormatInt(m.internalDate.UnixMilli(), 10),
		"sizeEstimate": len(m.raw),
	}
	switch q.Get("format") {
	case "raw":
		resp["raw"] = base64.URLEncoding.EncodeToString(m.raw)
	case "metadata":
		h := headerOfRaw(m.raw)
		var headers []any
		for fl := h.Fields(); fl.Next(); {
			if len(q["metadataHeaders"]) == 0 || slices.ContainsFunc(q["metadataHeaders"], func(n string) bool { return strings.EqualFold(n, fl.Key()) }) {
				headers = append(headers, map[string]string{"name": fl.Key(), "value": fl.Value()})
			}
		}
		resp["payload"] = map[string]any{"mimeType": "text/plain", "headers": headers}
	default:
		googleError(w, http.StatusBadRequest, "invalidArgument", "INVALID_ARGUMENT", "the fake serves format=raw and format=metadata only")
		return
	}
	reply(w, resp)
}

// historyList is history.list: records after startHistoryId of the
// requested types, pages of maxResults (default 100).
func (f *fakeGmail) historyList(w http.ResponseWriter, q url.Values) {
	start, err := strconv.Atoi(q.Get("startHistoryId"))
	if err != nil {
		googleError(w, http.StatusBadRequest, "invalidArgument", "INVALID_ARGUMENT", "Invalid startHistoryId")
		return
	}
	if start < f.oldest {
		googleError(w, http.StatusNotFound, "notFound", "NOT_FOUND", "Requested entity was not found.")
		return
	}
	types := q["historyTypes"]
	var recs []histRecord
	for _, h := range f.history {
		if h.id > start && (len(types) == 0 || slices.Contains(types, h.kind)) {
			recs = append(recs, h)
		}
	}
	size := 100
	if n, err := strconv.Atoi(q.Get("maxResults")); err == nil {
		size = n
	}
	from := 0
	if tok := q.Get("pageToken"); tok != "" {
		from, _ = strconv.Atoi(strings.TrimPrefix(tok, "hist-"))
	}
	end := min(from+size, len(recs))
	var out []any
	for _, h := range recs[from:end] {
		msg := map[string]any{"id": h.msgID, "threadId": h.threadID, "labelIds": h.labelIDs}
		rec := map[string]any{"id": strconv.Itoa(h.id), "messages": []any{map[string]string{"id": h.msgID, "threadId": h.threadID}}}
		switch h.kind {
		case "messageAdded":
			rec["messagesAdded"] = []any{map[string]any{"message": msg}}
		case "messageDeleted":
			rec["messagesDeleted"] = []any{map[string]any{"message": msg}}
		case "labelAdded":
			rec["labelsAdded"] = []any{map[string]any{"message": msg, "labelIds": h.changedLabelIDs}}
		case "labelRemoved":
			rec["labelsRemoved"] = []any{map[string]any{"message": msg, "labelIds": h.changedLabelIDs}}
		}
		out = append(out, rec)
	}
	resp := map[string]any{"historyId": strconv.Itoa(f.historyID)}
	if len(out) > 0 {
		resp["history"] = out
	}
	if end < len(recs) {
		resp["nextPageToken"] = "hist-" + strconv.Itoa(end)
	}
	reply(w, resp)
}

// createDraft is drafts.create. Like Gmail it gives the message a
// Message-ID when it has none, labels it DRAFT, and files it in the
// requested thread, which must exist.
func (f *fakeGmail) createDraft(w http.ResponseWriter, body []byte) {
	var in struct {
		Message struct {
			Raw      string `json:"raw"`
			ThreadID string `json:"threadId"`
		} `json:"message"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.Message.Raw == "" {
		googleError(w, http.StatusBadRequest, "invalidArgument", "INVALID_ARGUMENT", "Invalid draft: message.raw is required")
		return
	}
	raw, err := base64.URLEncoding.DecodeString(in.Message.Raw)
	if err != nil {
		googleError(w, http.StatusBadRequest, "invalidArgument", "INVALID_ARGUMENT", "Invalid value for ByteString")
		return
	}
	if in.Message.ThreadID != "" && !slices.ContainsFunc(f.order, func(id string) bool { return f.msgs[id].threadID == in.Message.ThreadID }) {
		googleError(w, http.StatusNotFound, "notFound", "NOT_FOUND", "Requested entity was not found.")
		return
	}
	if h := headerOfRaw(raw); h.Get("Message-Id") == "" {
		raw = append([]byte(fmt.Sprintf("Message-ID: <CAfake%d@mail.gmail.com>\r\n", f.nextID+1)), raw...)
	}
	id := f.addLocked(raw, in.Message.ThreadID, time.Date(2026, 6, 18, 12, 0, 0, 0, time.UTC), []string{"DRAFT"})
	draftID := "r" + strconv.Itoa(f.nextID)
	f.drafts[draftID] = id
	reply(w, map[string]any{"id": draftID, "message": map[string]any{
		"id": id, "threadId": f.msgs[id].threadID, "labelIds": []string{"DRAFT"},
	}})
}
