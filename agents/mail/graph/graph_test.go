package graph_test

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/graph"
	"github.com/spirit-app/spirit/agents/mail/mailtest"
	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/mail/oauth/oauthtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type env struct {
	fake    *fakeGraph
	conn    *graph.Connector
	sleeper *oauthtest.Sleeper
}

func newEnv(t *testing.T, tokens oauth2.TokenSource, opts graph.Options) env {
	t.Helper()
	fake := newFakeGraph(t)
	if tokens == nil {
		tokens = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "good"})
	}
	sl := &oauthtest.Sleeper{}
	opts.BaseURL = fake.baseURL()
	opts.HTTPClient = fake.srv.Client()
	opts.Sleep = sl.Sleep
	opts.Logger = quiet
	conn, err := graph.New(tokens, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return env{fake, conn, sl}
}

// sync runs one Sync and returns the messages by RemoteID.
func (e env) sync(t *testing.T, cursor string) (map[string]mail.Message, string) {
	return mailtest.Sync(t, e.conn, cursor)
}

func TestSyncCorpus(t *testing.T) {
	for _, c := range mailtest.LoadCorpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			e := newEnv(t, nil, graph.Options{PageSize: 4})
			e.fake.seed(c)
			got, cursor := e.sync(t, "")
			if len(got) != len(c.Messages) {
				t.Errorf("got %d messages, want %d", len(got), len(c.Messages))
			}
			for _, want := range c.Messages {
				id := e.fake.idByMessageID(want.MessageID)
				m, ok := got[id]
				if !ok {
					t.Errorf("%s (%q) missing", want.MessageID, want.Subject)
					continue
				}
				checkMessage(t, m, want)
			}
			checkRequests(t, e.fake.log(), 4)

			var cur struct {
				DeltaLinks map[string]string `json:"deltaLinks"`
			}
			if err := json.Unmarshal([]byte(cursor), &cur); err != nil {
				t.Fatal(err)
			}
			if keys := slices.Sorted(maps.Keys(cur.DeltaLinks)); !slices.Equal(keys, []string{"drafts", "inbox", "sentitems"}) {
				t.Errorf("cursor folders = %v", keys)
			}
			again, _ := e.sync(t, cursor)
			if len(again) != 0 {
				t.Errorf("unchanged mailbox: sync delivered %d messages", len(again))
			}
		})
	}
}

func checkMessage(t *testing.T, m mail.Message, want mailtest.Message) {
	t.Helper()
	folder := "INBOX"
	if want.Sent {
		folder = "Sent"
	}
	if m.MessageID != want.MessageID || m.InReplyTo != want.InReplyTo || !slices.Equal(m.References, want.References) {
		t.Errorf("%s: threading = %q %q %q, want %q %q %q", want.MessageID,
			m.MessageID, m.InReplyTo, m.References, want.MessageID, want.InReplyTo, want.References)
	}
	if m.Subject != want.Subject || m.From != want.From || m.Folder != folder {
		t.Errorf("%s: subject/from/folder = %q %v %q, want %q %v %q", want.MessageID,
			m.Subject, m.From, m.Folder, want.Subject, want.From, folder)
	}
	if !slices.Equal(m.To, want.To) || !slices.Equal(m.Cc, want.Cc) {
		t.Errorf("%s: to/cc = %v %v, want %v %v", want.MessageID, m.To, m.Cc, want.To, want.Cc)
	}
	if !m.Date.Equal(want.Date) {
		t.Errorf("%s: date = %v, want %v", want.MessageID, m.Date, want.Date)
	}
	if m.Body != want.Body {
		t.Errorf("%s: body = %q, want %q", want.MessageID, m.Body, want.Body)
	}
	if m.ConversationID != conversationID(want.ThreadRoot()) {
		t.Errorf("%s: conversation = %q", want.MessageID, m.ConversationID)
	}
	if listID := want.Header.Get("List-Id"); listID != "" && m.Headers["list-id"] != listID {
		t.Errorf("%s: list-id = %q, want %q", want.MessageID, m.Headers["list-id"], listID)
	}
}

// checkRequests asserts the shape of the delta requests: authorization,
// plain-text bodies and page size on every page; $select and $expand on
// each initial request; and that paging happened.
func checkRequests(t *testing.T, reqs []recorded, pageSize int) {
	t.Helper()
	initial, pages := 0, 0
	for _, r := range reqs {
		if !strings.HasSuffix(r.Path, "/messages/delta") {
			continue
		}
		pages++
		if got := r.Header.Get("Authorization"); !strings.HasPrefix(got, "Bearer ") {
			t.Errorf("%s without a bearer token: %q", r.Path, got)
		}
		prefer := strings.Join(r.Header.Values("Prefer"), ", ")
		if !strings.Contains(prefer, `outlook.body-content-type="text"`) ||
			!strings.Contains(prefer, "odata.maxpagesize="+strconv.Itoa(pageSize)) {
			t.Errorf("%s Prefer = %q", r.Path, prefer)
		}
		if r.Query.Has("$skiptoken") || r.Query.Has("$deltatoken") {
			continue
		}
		initial++
		sel := strings.Split(r.Query.Get("$select"), ",")
		for _, f := range []string{"id", "internetMessageId", "conversationId", "internetMessageHeaders", "body", "subject", "from", "toRecipients", "ccRecipients", "isDraft"} {
			if !slices.Contains(sel, f) {
				t.Errorf("$select %v lacks %s", sel, f)
			}
		}
		if exp := r.Query.Get("$expand"); !strings.Contains(exp, "String 0x1042") || !strings.Contains(exp, "String 0x1039") {
			t.Errorf("$expand = %q", exp)
		}
	}
	if initial != 3 {
		t.Errorf("%d initial delta requests, want one per folder", initial)
	}
	if pages <= initial {
		t.Errorf("%d delta pages for %d folders: no paging", pages, initial)
	}
}

func TestSyncIncremental(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{PageSize: 3})
	e.fake.seed(mailtest.Case{Messages: c.Messages[:len(c.Messages)-2]})
	first, cursor := e.sync(t, "")

	inboxIDs := []string{}
	for id, m := range first {
		if m.Folder == "INBOX" {
			inboxIDs = append(inboxIDs, id)
		}
	}
	slices.Sort(inboxIDs)
	newIDs := []string{
		e.fake.add(c.Messages[len(c.Messages)-2], "inbox"),
		e.fake.add(c.Messages[len(c.Messages)-1], "sentitems"),
	}
	deleted, read := inboxIDs[0], inboxIDs[1]
	e.fake.remove(deleted)
	e.fake.markRead(read)
	before := len(e.fake.log())

	got, cursor := e.sync(t, cursor)
	want := append(slices.Clone(newIDs), deleted, read)
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
		t.Fatalf("incremental sync delivered %v, want %v", ids, want)
	}
	if !got[deleted].Deleted || got[deleted].Folder != "INBOX" {
		t.Errorf("deleted message = %+v, want an INBOX tombstone", got[deleted])
	}
	// The read-state change came without a body: the connector fetched
	// the whole message instead of blanking it.
	if m := got[read]; m.Deleted || m.Body != first[read].Body || m.Subject != first[read].Subject {
		t.Errorf("read message = %+v, want it whole", m)
	}
	fetched := false
	for _, r := range e.fake.log()[before:] {
		if r.Method == http.MethodGet && r.Path == "/v1.0/me/messages/"+read {
			fetched = true
		}
	}
	if !fetched {
		t.Error("no GET of the partially reported message")
	}
	for _, id := range newIDs {
		if got[id].Deleted || got[id].Subject == "" {
			t.Errorf("new message %s = %+v", id, got[id])
		}
	}

	if again, _ := e.sync(t, cursor); len(again) != 0 {
		t.Errorf("third sync delivered %v", slices.Collect(maps.Keys(again)))
	}
}

func TestSyncMoveBetweenSyncedFolders(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	id := e.fake.add(c.Messages[0], "inbox")
	_, cursor := e.sync(t, "")
	e.fake.move(id, "drafts")
	got, _ := e.sync(t, cursor)
	if m, ok := got[id]; !ok || m.Deleted || m.Folder != "Drafts" {
		t.Errorf("moved message = %+v (delivered %v), want it alive in Drafts", m, ok)
	}
}

func TestSyncSince(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{Since: c.Messages[len(c.Messages)/2].Date})
	e.fake.seed(c)
	got, _ := e.sync(t, "")
	if len(got) == 0 || len(got) >= len(c.Messages) {
		t.Errorf("Since kept %d of %d messages", len(got), len(c.Messages))
	}
	for _, r := range e.fake.log() {
		if f := r.Query.Get("$filter"); !strings.HasPrefix(f, "receivedDateTime ge ") {
			t.Errorf("delta request filter = %q", f)
		}
	}
}

func TestSyncExpiredDeltaLink(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(mailtest.Case{Messages: c.Messages[:5]})
	_, cursor := e.sync(t, "")
	e.fake.expireDeltaTokens()
	newID := e.fake.add(c.Messages[5], "inbox")
	got, next := e.sync(t, cursor)
	if _, ok := got[newID]; !ok || len(got) != 6 {
		t.Errorf("after 410 the resync delivered %d messages (new one: %v), want all 6", len(got), ok)
	}
	if next == cursor {
		t.Error("cursor unchanged")
	}
}

func TestSyncThrottled(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(c)
	busy := `{"error":{"code":"TooManyRequests","message":"Please retry again later."}}`
	e.fake.fail("/mailFolders/inbox/", 1, http.StatusTooManyRequests, map[string]string{"Retry-After": "1"}, busy)
	e.fake.fail("/mailFolders/sentitems/", 1, http.StatusServiceUnavailable, map[string]string{"Retry-After": "2"}, busy)
	got, _ := e.sync(t, "")
	if len(got) != len(c.Messages) {
		t.Errorf("got %d messages, want %d", len(got), len(c.Messages))
	}
	if w := e.sleeper.Waits(); !slices.Equal(w, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("waits = %v, want [1s 2s] from Retry-After", w)
	}
	reqs := e.fake.log()
	if len(reqs) < 2 || reqs[0].Path != reqs[1].Path || reqs[0].Query.Encode() != reqs[1].Query.Encode() {
		t.Errorf("the throttled request was not repeated: %v / %v", reqs[0], reqs[1])
	}
}

func TestSyncThrottledTooLong(t *testing.T) {
	e := newEnv(t, nil, graph.Options{MaxAttempts: 2})
	busy := `{"error":{"code":"TooManyRequests","message":"Please retry again later."}}`
	e.fake.fail("/mailFolders/inbox/", 5, http.StatusTooManyRequests, map[string]string{"Retry-After": "1"}, busy)
	_, err := e.conn.Sync(t.Context(), "", func(mail.Message) error { return nil })
	if !errors.Is(err, oauth.ErrThrottled) || !strings.Contains(err.Error(), "TooManyRequests") {
		t.Errorf("err = %v, want ErrThrottled with Graph's code", err)
	}
	if n := len(e.fake.log()); n != 2 {
		t.Errorf("%d requests, want MaxAttempts=2", n)
	}
}

func TestSyncRefreshesExpiredToken(t *testing.T) {
	c := mailtest.MixedCase(t)
	ts := oauthtest.NewTokenServer(t)
	// The token looks valid for an hour, but Graph says it expired.
	src := oauth.NewTokenSource(ts.Config(), ts.Token("expired-at-graph", time.Now().Add(time.Hour)), oauth.TokenSourceOptions{Logger: quiet})
	e := newEnv(t, src, graph.Options{})
	e.fake.seed(c)
	got, _ := e.sync(t, "")
	if len(got) != len(c.Messages) {
		t.Errorf("got %d messages, want %d", len(got), len(c.Messages))
	}
	if ts.Refreshes() != 1 {
		t.Errorf("%d refreshes, want 1", ts.Refreshes())
	}
	reqs := e.fake.log()
	if reqs[0].Header.Get("Authorization") != "Bearer expired-at-graph" || reqs[1].Header.Get("Authorization") != "Bearer access-1" ||
		reqs[0].Path != reqs[1].Path {
		t.Errorf("requests: %q then %q", reqs[0].Header.Get("Authorization"), reqs[1].Header.Get("Authorization"))
	}
}

func TestSyncRefreshesBeforeExpiry(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	src := oauth.NewTokenSource(ts.Config(), ts.Token("stale", time.Now().Add(-time.Minute)), oauth.TokenSourceOptions{Logger: quiet})
	e := newEnv(t, src, graph.Options{})
	e.sync(t, "")
	for _, r := range e.fake.log() {
		if r.Header.Get("Authorization") != "Bearer access-1" {
			t.Errorf("request with %q, want the refreshed token", r.Header.Get("Authorization"))
		}
	}
}

func TestSyncRefreshFails(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	ts.Fail("invalid_grant")
	src := oauth.NewTokenSource(ts.Config(), ts.Token("expired-at-graph", time.Now().Add(time.Hour)), oauth.TokenSourceOptions{Logger: quiet})
	e := newEnv(t, src, graph.Options{})
	_, err := e.conn.Sync(t.Context(), "", func(mail.Message) error { return nil })
	if !errors.Is(err, oauth.ErrSignInRequired) || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("err = %v, want ErrSignInRequired naming invalid_grant", err)
	}
}

func TestGraphErrorMessage(t *testing.T) {
	e := newEnv(t, nil, graph.Options{})
	e.fake.fail("/mailFolders/inbox/", 1, http.StatusForbidden, map[string]string{"request-id": "abc-123"},
		`{"error":{"code":"ErrorAccessDenied","message":"Access is denied. Check credentials and try again."}}`)
	_, err := e.conn.Sync(t.Context(), "", func(mail.Message) error { return nil })
	var apiErr *oauth.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "ErrorAccessDenied" {
		t.Fatalf("err = %v, want an APIError with Graph's code", err)
	}
	for _, s := range []string{"inbox", "403", "ErrorAccessDenied", "Access is denied", "abc-123"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err %q lacks %q", err, s)
		}
	}
	if n := len(e.fake.log()); n != 1 {
		t.Errorf("403 retried: %d requests", n)
	}
}

func TestSyncRefusesForeignLinks(t *testing.T) {
	e := newEnv(t, nil, graph.Options{})
	cursor := `{"v":1,"deltaLinks":{"inbox":"https://evil.example/v1.0/me/mailFolders/inbox/messages/delta?$deltatoken=1"}}`
	_, err := e.conn.Sync(t.Context(), cursor, func(mail.Message) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("err = %v", err)
	}
	if _, err := e.conn.Sync(t.Context(), "garbage", func(mail.Message) error { return nil }); err == nil {
		t.Error("garbage cursor accepted")
	}
}

func TestSyncStopsOnCallbackError(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(c)
	stop := errors.New("index full")
	_, err := e.conn.Sync(t.Context(), "", func(mail.Message) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("err = %v, want %v", err, stop)
	}
}

// replyTarget is an inbox message that has a sender to answer.
func replyTarget(t *testing.T, c mailtest.Case) mailtest.Message {
	for _, m := range c.Messages {
		if !m.Sent && m.MessageID != "" {
			return m
		}
	}
	t.Skip("no inbox message")
	return mailtest.Message{}
}

func TestCreateDraftReply(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(c)
	_, cursor := e.sync(t, "")
	orig := replyTarget(t, c)
	origID := e.fake.idByMessageID(orig.MessageID)
	to := []mail.Address{{Name: orig.From.Name, Email: orig.From.Email}}
	cc := []mail.Address{{Name: "Evelyn Shore", Email: "eshore@hartleyross.com"}}
	ref, err := e.conn.CreateDraft(t.Context(), mail.Draft{
		To: to, Cc: cc,
		Subject:         "RE: " + orig.Subject,
		Body:            "Thanks, I will review and revert by Friday.\n\nDana",
		InReplyTo:       orig.MessageID,
		References:      append(slices.Clone(orig.References), orig.MessageID),
		ReplyToRemoteID: origID,
	})
	if err != nil {
		t.Fatalf("CreateDraft: %v", err)
	}
	d := e.fake.message(ref.RemoteID)
	if d.inReplyTo != orig.MessageID || d.conversationID != conversationID(orig.ThreadRoot()) || !d.isDraft || d.folder != "drafts" {
		t.Errorf("draft threading = in-reply-to %q conversation %q draft %v folder %q", d.inReplyTo, d.conversationID, d.isDraft, d.folder)
	}
	if d.body != "Thanks, I will review and revert by Friday.\n\nDana" || d.bodyType != "text" {
		t.Errorf("draft body = %q (%s)", d.body, d.bodyType)
	}
	if !slices.Equal(d.to, to) || !slices.Equal(d.cc, cc) || d.subject != "RE: "+orig.Subject {
		t.Errorf("draft to/cc/subject = %v %v %q", d.to, d.cc, d.subject)
	}
	if ref.MessageID != d.internetMessageID || ref.Folder != "Drafts" {
		t.Errorf("ref = %+v", ref)
	}
	var methods []string
	for _, r := range e.fake.log() {
		if r.Method != http.MethodGet {
			methods = append(methods, r.Method+" "+r.Path)
		}
	}
	want := []string{"POST /v1.0/me/messages/" + origID + "/createReply", "PATCH /v1.0/me/messages/" + ref.RemoteID}
	if !slices.Equal(methods, want) {
		t.Errorf("writes = %v, want %v", methods, want)
	}

	// The next sync brings the draft back, threaded through the extended
	// properties (Drafts have no internetMessageHeaders).
	got, _ := e.sync(t, cursor)
	m, ok := got[ref.RemoteID]
	if !ok || m.Folder != "Drafts" || !m.Draft || m.InReplyTo != orig.MessageID ||
		!slices.Equal(m.References, append(slices.Clone(orig.References), orig.MessageID)) {
		t.Errorf("synced draft = %+v", m)
	}
}

func TestCreateDraftFindsReplyByMessageID(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(c)
	orig := replyTarget(t, c)
	ref, err := e.conn.CreateDraft(t.Context(), mail.Draft{Body: "Noted.", InReplyTo: orig.MessageID})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.fake.message(ref.RemoteID); d.inReplyTo != orig.MessageID || !slices.Equal(d.to, []mail.Address{orig.From}) {
		t.Errorf("draft in-reply-to %q to %v", d.inReplyTo, d.to)
	}
	var filter string
	for _, r := range e.fake.log() {
		if f := r.Query.Get("$filter"); strings.HasPrefix(f, "internetMessageId") {
			filter = f
		}
	}
	if filter != "internetMessageId eq '"+orig.MessageID+"'" {
		t.Errorf("lookup filter = %q", filter)
	}
}

func TestCreateDraftNew(t *testing.T) {
	e := newEnv(t, nil, graph.Options{})
	to := []mail.Address{{Name: "Grant Ellison", Email: "gellison@ellisonmarsh.com"}}
	ref, err := e.conn.CreateDraft(t.Context(), mail.Draft{To: to, Subject: "Estoppel comments", Body: "Grant,\nComments attached."})
	if err != nil {
		t.Fatal(err)
	}
	d := e.fake.message(ref.RemoteID)
	if d.subject != "Estoppel comments" || d.body != "Grant,\nComments attached." || !slices.Equal(d.to, to) || d.inReplyTo != "" {
		t.Errorf("draft = %+v", d)
	}
}

func TestCreateDraftPatchFailureRemovesHalfDraft(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(c)
	orig := replyTarget(t, c)
	e.fake.fail("/v1.0/me/messages/AAMkAGdraft", 1, http.StatusBadRequest, nil,
		`{"error":{"code":"ErrorInvalidRecipients","message":"At least one recipient isn't valid."}}`)
	_, err := e.conn.CreateDraft(t.Context(), mail.Draft{Body: "x", ReplyToRemoteID: e.fake.idByMessageID(orig.MessageID)})
	if err == nil || !strings.Contains(err.Error(), "ErrorInvalidRecipients") {
		t.Fatalf("err = %v", err)
	}
	reqs := e.fake.log()
	last := reqs[len(reqs)-1]
	if last.Method != http.MethodDelete || !strings.HasPrefix(last.Path, "/v1.0/me/messages/AAMkAGdraft") {
		t.Errorf("last request = %s %s, want the DELETE of the half-made draft", last.Method, last.Path)
	}
}

func TestSearch(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, graph.Options{})
	e.fake.seed(c)
	word := strings.Fields(c.Messages[0].Subject)[0]
	got, err := e.conn.Search(t.Context(), word, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) > 5 {
		t.Errorf("Search(%q) = %d messages", word, len(got))
	}
	reqs := e.fake.log()
	if q := reqs[len(reqs)-1].Query; q.Get("$search") != `"`+word+`"` || q.Get("$top") != "5" {
		t.Errorf("search query = %v", q)
	}
}
