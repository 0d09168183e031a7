package gmail_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"
	"golang.org/x/oauth2"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/gmail"
	"github.com/spirit-app/spirit/agents/mail/mailtest"
	"github.com/spirit-app/spirit/agents/mail/oauth"
	"github.com/spirit-app/spirit/agents/mail/oauth/oauthtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

type env struct {
	fake    *fakeGmail
	conn    *gmail.Connector
	sleeper *oauthtest.Sleeper
}

func newEnv(t *testing.T, tokens oauth2.TokenSource, opts gmail.Options) env {
	t.Helper()
	fake := newFakeGmail(t)
	if tokens == nil {
		tokens = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "good"})
	}
	sl := &oauthtest.Sleeper{}
	opts.BaseURL = fake.baseURL()
	opts.HTTPClient = fake.srv.Client()
	opts.Sleep = sl.Sleep
	opts.Logger = quiet
	opts.Now = func() time.Time { return time.Date(2026, 6, 18, 8, 15, 0, 0, time.UTC) }
	conn, err := gmail.New(tokens, opts)
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
			e := newEnv(t, nil, gmail.Options{PageSize: 4})
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
			checkRequests(t, e.fake.log())

			var cur struct{ HistoryID string }
			if err := json.Unmarshal([]byte(cursor), &cur); err != nil || cur.HistoryID == "" {
				t.Fatalf("cursor %q: %v", cursor, err)
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
	if !m.Date.Equal(want.Date) || m.Body != want.Body {
		t.Errorf("%s: date/body = %v %q, want %v %q", want.MessageID, m.Date, m.Body, want.Date, want.Body)
	}
	if m.ConversationID != threadID(want.ThreadRoot()) {
		t.Errorf("%s: conversation = %q, want the thread id", want.MessageID, m.ConversationID)
	}
	for _, key := range []string{"List-Id", "Precedence", "Auto-Submitted", "List-Unsubscribe"} {
		if v, _ := want.Header.Text(key); v != "" && m.Headers[strings.ToLower(key)] != v {
			t.Errorf("%s: %s = %q, want %q", want.MessageID, key, m.Headers[strings.ToLower(key)], v)
		}
	}
}

// checkRequests asserts a full sync's requests: the profile first, each
// synced label listed with paging, messages fetched raw, and a bearer
// token throughout.
func checkRequests(t *testing.T, reqs []recorded) {
	t.Helper()
	if len(reqs) == 0 || !strings.HasSuffix(reqs[0].Path, "/profile") {
		t.Fatalf("first request is not the profile: %v", reqs[:min(1, len(reqs))])
	}
	labels := map[string]int{}
	paged := false
	for _, r := range reqs {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			t.Errorf("%s without a bearer token", r.Path)
		}
		switch {
		case strings.HasSuffix(r.Path, "/messages"):
			labels[r.Query.Get("labelIds")]++
			paged = paged || r.Query.Get("pageToken") != ""
			if r.Query.Get("maxResults") != "4" {
				t.Errorf("list maxResults = %q", r.Query.Get("maxResults"))
			}
		case strings.Contains(r.Path, "/messages/"):
			if r.Query.Get("format") != "raw" {
				t.Errorf("get %s format = %q", r.Path, r.Query.Get("format"))
			}
		}
	}
	for _, l := range []string{"INBOX", "SENT", "DRAFT"} {
		if labels[l] == 0 {
			t.Errorf("label %s never listed (%v)", l, labels)
		}
	}
	if !paged {
		t.Error("no list request used a pageToken")
	}
}

func TestSyncDedupesMessagesUnderSeveralLabels(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, gmail.Options{})
	m := c.Messages[0]
	id := e.fake.add(m.Raw, threadID(m.ThreadRoot()), m.Date, "INBOX", "SENT", "IMPORTANT")
	got, _ := e.sync(t, "")
	if len(got) != 1 || got[id].Folder != "Sent" {
		t.Errorf("got %v, want one message in Sent", got)
	}
}

func TestSyncIncremental(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, gmail.Options{PageSize: 2})
	for _, m := range c.Messages[:len(c.Messages)-3] {
		label := "INBOX"
		if m.Sent {
			label = "SENT"
		}
		e.fake.add(m.Raw, threadID(m.ThreadRoot()), m.Date, label)
	}
	archivedMsg := c.Messages[len(c.Messages)-3]
	archived := e.fake.add(archivedMsg.Raw, threadID(archivedMsg.ThreadRoot()), archivedMsg.Date, "CATEGORY_UPDATES")
	first, cursor := e.sync(t, "")
	if _, ok := first[archived]; ok {
		t.Fatal("a message outside INBOX, SENT and DRAFT was synced")
	}
	var inbox []string
	for id, m := range first {
		if m.Folder == "INBOX" {
			inbox = append(inbox, id)
		}
	}
	slices.Sort(inbox)

	added := []string{
		e.fake.add(c.Messages[len(c.Messages)-2].Raw, "", c.Messages[len(c.Messages)-2].Date, "INBOX", "UNREAD"),
		e.fake.add(c.Messages[len(c.Messages)-1].Raw, "", c.Messages[len(c.Messages)-1].Date, "SENT"),
	}
	deleted, archivedNow, relabelled := inbox[0], inbox[1], inbox[2]
	e.fake.deleteMessage(deleted)
	e.fake.relabel(archivedNow, nil, []string{"INBOX"})                 // archived: leaves the index
	e.fake.relabel(archived, []string{"INBOX"}, nil)                    // moved back to the inbox
	e.fake.relabel(relabelled, []string{"STARRED"}, []string{"UNREAD"}) // still in the inbox
	before := len(e.fake.log())

	got, next := e.sync(t, cursor)
	want := append(slices.Clone(added), deleted, archivedNow, archived, relabelled)
	if ids := slices.Sorted(maps.Keys(got)); !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
		t.Fatalf("incremental sync delivered %v, want %v", ids, want)
	}
	for _, id := range []string{deleted, archivedNow} {
		if !got[id].Deleted {
			t.Errorf("%s = %+v, want a tombstone", id, got[id])
		}
	}
	for _, id := range append(slices.Clone(added), archived, relabelled) {
		if m := got[id]; m.Deleted || m.Subject == "" {
			t.Errorf("%s = %+v, want the message", id, m)
		}
	}
	if got[archived].Folder != "INBOX" || got[added[1]].Folder != "Sent" {
		t.Errorf("folders: %q %q", got[archived].Folder, got[added[1]].Folder)
	}
	historyPages := 0
	for _, r := range e.fake.log()[before:] {
		if strings.HasSuffix(r.Path, "/history") {
			historyPages++
			if types := r.Query["historyTypes"]; !slices.Equal(types, []string{"messageAdded", "messageDeleted", "labelAdded", "labelRemoved"}) {
				t.Errorf("historyTypes = %v", types)
			}
		}
		if strings.HasSuffix(r.Path, "/profile") || strings.HasSuffix(r.Path, "/messages") {
			t.Errorf("incremental sync called %s", r.Path)
		}
	}
	if historyPages < 2 {
		t.Errorf("%d history pages, want paging", historyPages)
	}
	if again, _ := e.sync(t, next); len(again) != 0 {
		t.Errorf("third sync delivered %v", slices.Collect(maps.Keys(again)))
	}
}

func TestSyncHistoryExpired(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, gmail.Options{})
	e.fake.seed(mailtest.Case{Messages: c.Messages[:5]})
	_, cursor := e.sync(t, "")
	e.fake.expireHistory()
	newID := e.fake.add(c.Messages[5].Raw, "", c.Messages[5].Date, "INBOX")
	got, next := e.sync(t, cursor)
	if _, ok := got[newID]; !ok || len(got) != 6 {
		t.Errorf("after 404 the full sync delivered %d messages (new one: %v), want 6", len(got), ok)
	}
	if next == cursor {
		t.Error("cursor unchanged")
	}
	if again, _ := e.sync(t, next); len(again) != 0 {
		t.Errorf("sync after the fallback delivered %d", len(again))
	}
}

func TestSyncSince(t *testing.T) {
	c := mailtest.MixedCase(t)
	since := c.Messages[len(c.Messages)/2].Date
	e := newEnv(t, nil, gmail.Options{Since: since})
	e.fake.seed(c)
	got, _ := e.sync(t, "")
	if len(got) == 0 || len(got) >= len(c.Messages) {
		t.Errorf("Since kept %d of %d", len(got), len(c.Messages))
	}
	for _, r := range e.fake.log() {
		if strings.HasSuffix(r.Path, "/messages") && !strings.HasPrefix(r.Query.Get("q"), "after:") {
			t.Errorf("list q = %q", r.Query.Get("q"))
		}
	}
}

const rateLimited = `{"error":{"code":403,"message":"User-rate limit exceeded.","errors":[{"message":"User-rate limit exceeded.","domain":"usageLimits","reason":"userRateLimitExceeded"}],"status":"PERMISSION_DENIED"}}`

func TestSyncThrottled(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, gmail.Options{Concurrency: 1})
	e.fake.seed(c)
	e.fake.fail("/messages", 1, http.StatusTooManyRequests, map[string]string{"Retry-After": "1"},
		`{"error":{"code":429,"message":"Too many concurrent requests for user.","errors":[{"reason":"rateLimitExceeded","domain":"usageLimits"}],"status":"RESOURCE_EXHAUSTED"}}`)
	got, _ := e.sync(t, "")
	e.fake.fail("/history", 1, http.StatusForbidden, nil, rateLimited)
	e.sync(t, `{"historyId":"1"}`)
	if len(got) != len(c.Messages) {
		t.Errorf("got %d messages, want %d", len(got), len(c.Messages))
	}
	waits := e.sleeper.Waits()
	if len(waits) != 2 || waits[0] != time.Second || waits[1] < time.Second || waits[1] >= 1500*time.Millisecond {
		t.Errorf("waits = %v, want 1s (Retry-After) then a 1-1.5s backoff", waits)
	}
}

func TestForbiddenIsNotRetried(t *testing.T) {
	e := newEnv(t, nil, gmail.Options{})
	e.fake.fail("/profile", 1, http.StatusForbidden, nil,
		`{"error":{"code":403,"message":"Request had insufficient authentication scopes.","errors":[{"message":"Insufficient Permission","domain":"global","reason":"insufficientPermissions"}],"status":"PERMISSION_DENIED"}}`)
	_, err := e.conn.Sync(t.Context(), "", func(mail.Message) error { return nil })
	var apiErr *oauth.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "insufficientPermissions" || errors.Is(err, oauth.ErrThrottled) {
		t.Fatalf("err = %v", err)
	}
	for _, s := range []string{"Gmail", "/profile", "403", "insufficientPermissions", "insufficient authentication scopes"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("err %q lacks %q", err, s)
		}
	}
	if n := len(e.fake.log()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestSyncRefreshesExpiredToken(t *testing.T) {
	c := mailtest.MixedCase(t)
	ts := oauthtest.NewTokenServer(t)
	src := oauth.NewTokenSource(ts.Config(), ts.Token("expired-at-google", time.Now().Add(time.Hour)), oauth.TokenSourceOptions{Logger: quiet})
	e := newEnv(t, src, gmail.Options{})
	e.fake.seed(c)
	got, _ := e.sync(t, "")
	if len(got) != len(c.Messages) || ts.Refreshes() != 1 {
		t.Errorf("%d messages after %d refreshes", len(got), ts.Refreshes())
	}
	reqs := e.fake.log()
	if reqs[0].Header.Get("Authorization") != "Bearer expired-at-google" || reqs[1].Header.Get("Authorization") != "Bearer access-1" ||
		reqs[0].Path != reqs[1].Path {
		t.Errorf("requests: %s %q then %s %q", reqs[0].Path, reqs[0].Header.Get("Authorization"), reqs[1].Path, reqs[1].Header.Get("Authorization"))
	}
}

func TestSyncRefreshFails(t *testing.T) {
	ts := oauthtest.NewTokenServer(t)
	ts.Fail("invalid_grant")
	src := oauth.NewTokenSource(ts.Config(), ts.Token("expired-at-google", time.Now().Add(time.Hour)), oauth.TokenSourceOptions{Logger: quiet})
	e := newEnv(t, src, gmail.Options{})
	_, err := e.conn.Sync(t.Context(), "", func(mail.Message) error { return nil })
	if !errors.Is(err, oauth.ErrSignInRequired) || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("err = %v, want ErrSignInRequired naming invalid_grant", err)
	}
}

func replyTarget(t *testing.T, c mailtest.Case) mailtest.Message {
	for _, m := range c.Messages {
		if !m.Sent && m.MessageID != "" {
			return m
		}
	}
	t.Skip("no inbox message")
	return mailtest.Message{}
}

// draftHeader parses the raw message the fake stored for a draft.
func draftHeader(t *testing.T, raw []byte) (gomail.Header, string) {
	t.Helper()
	r, err := gomail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(p.Body)
	return r.Header, string(body)
}

func TestCreateDraftReply(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, gmail.Options{})
	e.fake.seed(c)
	_, cursor := e.sync(t, "")
	orig := replyTarget(t, c)
	origID := e.fake.idByMessageID(orig.MessageID)
	refs := append(slices.Clone(orig.References), orig.MessageID)
	body := "Grant,\n\nThanks — the €25,000 figure works for Corvid.\n\nDana"
	ref, err := e.conn.CreateDraft(t.Context(), mail.Draft{
		To:              []mail.Address{orig.From},
		Cc:              []mail.Address{{Name: "Évelyne Shore", Email: "eshore@hartleyross.com"}},
		Subject:         "Re: " + orig.Subject,
		Body:            body,
		InReplyTo:       orig.MessageID,
		References:      refs,
		ConversationID:  threadID(orig.ThreadRoot()),
		ReplyToRemoteID: origID,
	})
	if err != nil {
		t.Fatalf("CreateDraft: %v", err)
	}
	d := e.fake.message(ref.RemoteID)
	if d.threadID != threadID(orig.ThreadRoot()) || !slices.Equal(d.labels, []string{"DRAFT"}) {
		t.Errorf("draft thread %q labels %v", d.threadID, d.labels)
	}
	h, gotBody := draftHeader(t, d.raw)
	if v := h.Get("In-Reply-To"); v != orig.MessageID {
		t.Errorf("In-Reply-To = %q, want %q", v, orig.MessageID)
	}
	if v := h.Get("References"); v != strings.Join(refs, " ") {
		t.Errorf("References = %q, want %q", v, strings.Join(refs, " "))
	}
	if s, _ := h.Subject(); s != "Re: "+orig.Subject {
		t.Errorf("Subject = %q", s)
	}
	if cc, _ := h.AddressList("Cc"); len(cc) != 1 || cc[0].Name != "Évelyne Shore" {
		t.Errorf("Cc = %v", cc)
	}
	if gotBody != strings.ReplaceAll(body, "\n", "\r\n") {
		t.Errorf("body = %q", gotBody)
	}
	if ref.MessageID == "" || ref.MessageID != h.Get("Message-Id") || ref.Folder != "Drafts" {
		t.Errorf("ref = %+v, stored Message-ID %q", ref, h.Get("Message-Id"))
	}

	got, _ := e.sync(t, cursor)
	m, ok := got[ref.RemoteID]
	if !ok || m.Folder != "Drafts" || !m.Draft || m.InReplyTo != orig.MessageID || m.ConversationID != d.threadID ||
		m.Body != strings.ReplaceAll(body, "\r\n", "\n") {
		t.Errorf("synced draft = %+v", m)
	}
}

func TestCreateDraftFillsFromOriginal(t *testing.T) {
	c := mailtest.MixedCase(t)
	e := newEnv(t, nil, gmail.Options{})
	e.fake.seed(c)
	orig := replyTarget(t, c)
	ref, err := e.conn.CreateDraft(t.Context(), mail.Draft{
		To: []mail.Address{orig.From}, Body: "Noted.", ReplyToRemoteID: e.fake.idByMessageID(orig.MessageID),
	})
	if err != nil {
		t.Fatal(err)
	}
	d := e.fake.message(ref.RemoteID)
	h, _ := draftHeader(t, d.raw)
	wantRefs := strings.Join(append(slices.Clone(orig.References), orig.MessageID), " ")
	if d.threadID != threadID(orig.ThreadRoot()) || h.Get("In-Reply-To") != orig.MessageID || h.Get("References") != wantRefs {
		t.Errorf("draft thread %q In-Reply-To %q References %q", d.threadID, h.Get("In-Reply-To"), h.Get("References"))
	}
	wantSubject := orig.Subject
	if !strings.HasPrefix(strings.ToLower(wantSubject), "re:") {
		wantSubject = "Re: " + wantSubject
	}
	if s, _ := h.Subject(); s != wantSubject {
		t.Errorf("Subject = %q, want %q", s, wantSubject)
	}
}

func TestCreateDraftNew(t *testing.T) {
	e := newEnv(t, nil, gmail.Options{})
	ref, err := e.conn.CreateDraft(t.Context(), mail.Draft{
		To: []mail.Address{{Email: "gellison@ellisonmarsh.com"}}, Subject: "Estoppel comments", Body: "See attached.",
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.fake.log() {
		if r.Method == http.MethodPost {
			var in struct {
				Message map[string]string `json:"message"`
			}
			json.Unmarshal([]byte(r.Body), &in)
			if _, ok := in.Message["threadId"]; ok {
				t.Errorf("new draft sent a threadId: %s", r.Body)
			}
		}
	}
	h, _ := draftHeader(t, e.fake.message(ref.RemoteID).raw)
	if h.Get("In-Reply-To") != "" || h.Get("References") != "" {
		t.Errorf("new draft has threading headers")
	}
}

// TestParseMIME covers what the corpus lacks: other charsets, multipart
// with HTML alternatives and attachments, HTML-only mail.
func TestParseMIME(t *testing.T) {
	e := newEnv(t, nil, gmail.Options{})
	latin1 := "From: =?iso-8859-1?q?Ren=E9e_M=FCller?= <renee@example.de>\r\n" +
		"To: dana.whitfield@hartleyross.com\r\n" +
		"Subject: =?iso-8859-1?q?R=E9sum=E9_des_d=E9lais?=\r\n" +
		"Message-ID: <latin1@example.de>\r\n" +
		"Date: Mon, 15 Jun 2026 09:00:00 +0200\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: text/plain; charset=iso-8859-1\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"D=E9lai de 10 jours ouvr=E9s.\r\n"
	multipart := "From: Court Notices <ecf@example.uscourts.gov>\r\n" +
		"To: dana.whitfield@hartleyross.com\r\n" +
		"Subject: Notice of Electronic Filing\r\n" +
		"Message-ID: <nef@example.uscourts.gov>\r\n" +
		"In-Reply-To: <a@x>\r\nReferences: <root@x>\r\n <a@x>\r\n" +
		"Date: Tue, 16 Jun 2026 10:00:00 -0500\r\n" +
		"List-Id: =?utf-8?q?ECF_Notices_=E2=80=93_SDNY?= <ecf.sdny>\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=outer\r\n\r\n" +
		"--outer\r\nContent-Type: multipart/alternative; boundary=inner\r\n\r\n" +
		"--inner\r\nContent-Type: text/plain; charset=windows-1252\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"Docket entry =93filed=94.\r\n" +
		"--inner\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Docket entry <b>filed</b>.</p>\r\n" +
		"--inner--\r\n" +
		"--outer\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=order.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		base64.StdEncoding.EncodeToString([]byte("%PDF-1.4 fake")) + "\r\n--outer--\r\n"
	htmlOnly := "From: Property Law Daily <news@propertylawdaily.com>\r\n" +
		"To: dana.whitfield@hartleyross.com\r\n" +
		"Subject: SNDA ruling\r\nMessage-ID: <h@p>\r\nDate: Wed, 17 Jun 2026 06:00:00 +0000\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
		"<html><head><style>p{color:red}</style></head><body><h1>Appellate Court</h1><p>Narrows SNDA&nbsp;protections &amp; more.</p></body></html>\r\n"
	ids := []string{
		e.fake.add([]byte(latin1), "", time.Time{}, "INBOX"),
		e.fake.add([]byte(multipart), "", time.Time{}, "INBOX"),
		e.fake.add([]byte(htmlOnly), "", time.Time{}, "INBOX"),
	}
	got, _ := e.sync(t, "")

	m := got[ids[0]]
	if m.Subject != "Résumé des délais" || m.From != (mail.Address{Name: "Renée Müller", Email: "renee@example.de"}) ||
		m.Body != "Délai de 10 jours ouvrés.\n" {
		t.Errorf("latin-1 message = %q %v %q", m.Subject, m.From, m.Body)
	}
	m = got[ids[1]]
	if m.Body != "Docket entry “filed”." || m.InReplyTo != "<a@x>" || !slices.Equal(m.References, []string{"<root@x>", "<a@x>"}) {
		t.Errorf("multipart message = %q %q %q", m.Body, m.InReplyTo, m.References)
	}
	if m.Headers["list-id"] != "ECF Notices – SDNY <ecf.sdny>" {
		t.Errorf("list-id = %q", m.Headers["list-id"])
	}
	m = got[ids[2]]
	if m.Body != "Appellate Court\nNarrows SNDA protections & more." {
		t.Errorf("html-only body = %q", m.Body)
	}
}
