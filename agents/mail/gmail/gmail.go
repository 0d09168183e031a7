// Package gmail connects Spirit to a Gmail or Google Workspace mailbox
// through the Gmail REST API (plain net/http: google.golang.org/api is
// heavy, and its recent versions do not build here).
//
// The first sync lists the INBOX, SENT and DRAFT labels and fetches each
// message in format=raw; later syncs replay history.list from the
// profile's historyId, falling back to a full sync when Gmail no longer
// has that history (404). Throttling, token refresh and error decoding are
// package oauth's Client.
//
// Why format=raw rather than format=full: raw is the message exactly as
// sent, so the threading headers, List-Id and the rest come verbatim, and
// one MIME library (go-message, which the IMAP and mbox connectors use
// too) does RFC 2047 words, multipart and charsets. format=full hands back
// a JSON tree whose parts are still in their own charsets and whose
// headers would need the same decoding, done a second way. The cost is
// that raw includes attachments: a first sync downloads them (see
// Options.Since to bound it), and a message over the size cap is skipped
// (see Options.MaxMessageBytes).
package gmail

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/sync/errgroup"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/oauth"
)

// DefaultBaseURL is the Gmail API's endpoint for the signed-in user.
const DefaultBaseURL = "https://gmail.googleapis.com/gmail/v1/users/me"

// Defaults of Options.
const (
	// DefaultPageSize is messages.list's and history.list's maxResults
	// (Gmail's maximum is 500).
	DefaultPageSize = 500
	// DefaultConcurrency is how many messages are fetched at once. Gmail
	// allows 15,000 quota units per user per minute; messages.get costs 5,
	// so a few parallel fetches stay well below.
	DefaultConcurrency = 4
)

// syncedLabels are the system labels Spirit indexes, in the order a
// message's folder is chosen: a draft is a draft, then sent beats inbox
// (mail to oneself).
func syncedLabels() []string { return []string{"DRAFT", "SENT", "INBOX"} }

func folderOf(labels []string) (string, bool) {
	switch {
	case slices.Contains(labels, "DRAFT"):
		return "Drafts", true
	case slices.Contains(labels, "SENT"):
		return "Sent", true
	case slices.Contains(labels, "INBOX"):
		return "INBOX", true
	}
	return "", false
}

// Options configure a Connector; the zero value talks to Gmail.
type Options struct {
	BaseURL string // DefaultBaseURL when empty
	// HTTPClient sends the requests; it must not add authorization.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Since limits the first sync to messages received at or after it
	// (zero: all).
	Since       time.Time
	PageSize    int // DefaultPageSize when 0
	Concurrency int // DefaultConcurrency when 0
	// MaxAttempts and Sleep tune retries; see oauth.Client.
	MaxAttempts int
	Sleep       func(ctx context.Context, d time.Duration) error
	// Now reads the clock for draft Date headers; nil means time.Now.
	Now func() time.Time
	// MaxMessageBytes caps one message (0: mail.MaxMessageBytes): a
	// sync skips a larger one, reading no more of it than the cap, and
	// Skipped lists it.
	MaxMessageBytes int64
}

// Connector is one Gmail mailbox. It is safe for concurrent use, but Sync
// calls for one account should not overlap.
type Connector struct {
	base        string
	api         *oauth.Client
	log         *slog.Logger
	since       time.Time
	pageSize    int
	concurrency int
	now         func() time.Time
	maxMessage  int64

	skips mail.Skips // what the last Sync left out
}

var (
	_ mail.Connector = (*Connector)(nil)
	_ mail.Skipper   = (*Connector)(nil)
)

// New returns a connector that authorizes its requests with tokens, e.g.
// an *oauth.TokenSource, which also refreshes a token Gmail refused.
func New(tokens oauth2.TokenSource, opts Options) (*Connector, error) {
	if tokens == nil {
		return nil, errors.New("gmail: no token source")
	}
	base := strings.TrimSuffix(opts.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("gmail: bad base URL %q", base)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	hc := opts.HTTPClient
	if hc == nil {
		// An own transport, so that Close drops only this account's
		// connections.
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 5 * time.Minute}
	}
	c := &Connector{
		base: base,
		api: &oauth.Client{
			Service:     "Gmail",
			Tokens:      tokens,
			HTTP:        hc,
			Origin:      base,
			Decode:      decodeError,
			MaxAttempts: opts.MaxAttempts,
			Sleep:       opts.Sleep,
			Logger:      log,
		},
		log:         log.With("connector", "gmail"),
		since:       opts.Since,
		pageSize:    orDefault(opts.PageSize, DefaultPageSize),
		concurrency: orDefault(opts.Concurrency, DefaultConcurrency),
		now:         opts.Now,
		maxMessage:  opts.MaxMessageBytes,
	}
	if c.maxMessage <= 0 {
		c.maxMessage = mail.MaxMessageBytes
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c, nil
}

// orDefault returns v, or def when v is not positive.
func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// Close releases idle connections.
func (c *Connector) Close() error {
	c.api.HTTP.CloseIdleConnections()
	return nil
}

// cursor is Sync's state: the mailbox's historyId when the last sync
// started.
type cursor struct {
	HistoryID string `json:"historyId"`
}

// Sync delivers the changes since cursor to messages under INBOX, SENT and
// DRAFT. A message deleted, or no longer under any of those labels
// (archived, trashed), becomes a Deleted tombstone. One over the size cap
// is not delivered (Skipped lists it).
func (c *Connector) Sync(ctx context.Context, cur string, fn func(mail.Message) error) (string, error) {
	c.skips.Reset()
	if cur == "" {
		return c.fullSync(ctx, fn)
	}
	var prev cursor
	if err := json.Unmarshal([]byte(cur), &prev); err != nil || prev.HistoryID == "" {
		return "", fmt.Errorf("gmail: unusable sync cursor (start over with an empty one): %q", cur)
	}
	next, err := c.historySync(ctx, prev.HistoryID, fn)
	if isStatus(err, http.StatusNotFound) {
		// Gmail keeps history for about a week, sometimes only hours.
		// Messages come again (the index upserts); deletions during the
		// gap are missed.
		c.log.Warn("history expired, running a full sync", "history_id", prev.HistoryID)
		return c.fullSync(ctx, fn)
	}
	return next, err
}

func encodeCursor(historyID string) (string, error) {
	data, err := json.Marshal(cursor{HistoryID: historyID})
	if err != nil {
		return "", fmt.Errorf("gmail: encoding the cursor: %w", err)
	}
	return string(data), nil
}

type listResponse struct {
	Messages []struct {
		ID       string `json:"id"`
		ThreadID string `json:"threadId"`
	} `json:"messages"`
	NextPageToken      string `json:"nextPageToken"`
	ResultSizeEstimate int    `json:"resultSizeEstimate"`
}

// fullSync lists every synced label and fetches its messages.
func (c *Connector) fullSync(ctx context.Context, fn func(mail.Message) error) (string, error) {
	// The historyId comes first: whatever changes while the labels are
	// listed is replayed by the next, incremental sync.
	var prof struct {
		EmailAddress string `json:"emailAddress"`
		HistoryID    string `json:"historyId"`
	}
	if err := c.api.DoJSON(ctx, http.MethodGet, c.base+"/profile", nil, nil, &prof); err != nil {
		return "", fmt.Errorf("gmail: reading the profile: %w", err)
	}
	seen := map[string]bool{}
	total := 0
	for _, label := range syncedLabels() {
		pageToken := ""
		for {
			q := url.Values{"labelIds": {label}, "maxResults": {strconv.Itoa(c.pageSize)}}
			if !c.since.IsZero() {
				// Epoch seconds: Gmail reads dates in Pacific time.
				q.Set("q", "after:"+strconv.FormatInt(c.since.Unix(), 10))
			}
			if pageToken != "" {
				q.Set("pageToken", pageToken)
			}
			var page listResponse
			if err := c.api.DoJSON(ctx, http.MethodGet, c.base+"/messages?"+q.Encode(), nil, nil, &page); err != nil {
				return "", fmt.Errorf("gmail: listing %s: %w", label, err)
			}
			var ids []string
			for _, m := range page.Messages {
				if !seen[m.ID] {
					seen[m.ID] = true
					ids = append(ids, m.ID)
				}
			}
			if err := c.deliver(ctx, ids, fn); err != nil {
				return "", err
			}
			total += len(ids)
			if page.NextPageToken == "" {
				break
			}
			pageToken = page.NextPageToken
		}
	}
	c.log.Info("full sync done", "messages", total, "history_id", prof.HistoryID)
	return encodeCursor(prof.HistoryID)
}

type historyMessage struct {
	Message struct {
		ID       string   `json:"id"`
		ThreadID string   `json:"threadId"`
		LabelIDs []string `json:"labelIds"`
	} `json:"message"`
}

type historyResponse struct {
	History []struct {
		ID              string           `json:"id"`
		MessagesAdded   []historyMessage `json:"messagesAdded"`
		MessagesDeleted []historyMessage `json:"messagesDeleted"`
		LabelsAdded     []historyMessage `json:"labelsAdded"`
		LabelsRemoved   []historyMessage `json:"labelsRemoved"`
	} `json:"history"`
	NextPageToken string `json:"nextPageToken"`
	HistoryID     string `json:"historyId"`
}

// historySync replays the history after start. Every message added or
// relabelled is fetched once, in its final state; deleted ones become
// tombstones.
func (c *Connector) historySync(ctx context.Context, start string, fn func(mail.Message) error) (string, error) {
	var changed []string
	isChanged := map[string]bool{}
	deleted := map[string]bool{}
	latest := start
	pageToken := ""
	for {
		q := url.Values{
			"startHistoryId": {start},
			"historyTypes":   {"messageAdded", "messageDeleted", "labelAdded", "labelRemoved"},
			"maxResults":     {strconv.Itoa(c.pageSize)},
		}
		if pageToken != "" {
			q.Set("pageToken", pageToken)
		}
		var page historyResponse
		if err := c.api.DoJSON(ctx, http.MethodGet, c.base+"/history?"+q.Encode(), nil, nil, &page); err != nil {
			return "", fmt.Errorf("gmail: reading history: %w", err)
		}
		for _, h := range page.History {
			for _, list := range [][]historyMessage{h.MessagesAdded, h.LabelsAdded, h.LabelsRemoved} {
				for _, m := range list {
					if id := m.Message.ID; id != "" && !isChanged[id] {
						isChanged[id] = true
						changed = append(changed, id)
					}
				}
			}
			for _, m := range h.MessagesDeleted {
				deleted[m.Message.ID] = true
			}
		}
		if page.HistoryID != "" {
			latest = page.HistoryID
		}
		if page.NextPageToken == "" {
			break
		}
		pageToken = page.NextPageToken
	}
	changed = slices.DeleteFunc(changed, func(id string) bool { return deleted[id] })
	if err := c.deliver(ctx, changed, fn); err != nil {
		return "", err
	}
	for _, id := range slices.Sorted(maps.Keys(deleted)) {
		if err := fn(mail.Message{RemoteID: id, Deleted: true}); err != nil {
			return "", err
		}
	}
	c.log.Info("incremental sync done", "changed", len(changed), "deleted", len(deleted), "history_id", latest)
	return encodeCursor(latest)
}

// deliver fetches ids a few at a time and hands the messages to fn in
// order. A message that is gone, or under none of the synced labels, is
// delivered as a tombstone.
func (c *Connector) deliver(ctx context.Context, ids []string, fn func(mail.Message) error) error {
	for len(ids) > 0 {
		// Batches bound the memory held while fn is not called.
		batch := ids[:min(len(ids), 100)]
		ids = ids[len(batch):]
		msgs := make([]mail.Message, len(batch))
		keep := make([]bool, len(batch)) // false for a skipped message
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(c.concurrency)
		for i, id := range batch {
			g.Go(func() error {
				m, ok, err := c.fetch(gctx, id)
				msgs[i], keep[i] = m, ok
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i, m := range msgs {
			if !keep[i] {
				continue
			}
			if err := fn(m); err != nil {
				return err
			}
		}
	}
	return nil
}

// rawMessage is messages.get with format=raw.
type rawMessage struct {
	ID           string   `json:"id"`
	ThreadID     string   `json:"threadId"`
	LabelIDs     []string `json:"labelIds"`
	Snippet      string   `json:"snippet"`
	HistoryID    string   `json:"historyId"`
	InternalDate string   `json:"internalDate"` // epoch milliseconds
	SizeEstimate int64    `json:"sizeEstimate"` // of the RFC 822 message
	Raw          string   `json:"raw"`          // base64url RFC 822
}

// rawAnswerBytes bounds messages.get's answer for a message of limit
// bytes: base64 makes 4 bytes of 3, and the other fields (ids, labels, a
// snippet of some hundred characters) take well under 64 KiB more.
func rawAnswerBytes(limit int64) int64 { return limit/3*4 + 4 + 64<<10 }

// fetch gets one message. ok is false for a message skipped because it is
// over the size cap: the answer is read no further than the cap allows.
func (c *Connector) fetch(ctx context.Context, id string) (m mail.Message, ok bool, err error) {
	var rm rawMessage
	err = c.api.DoJSONRequest(ctx, oauth.Request{
		Method:  http.MethodGet,
		URL:     c.base + "/messages/" + url.PathEscape(id) + "?format=raw",
		MaxBody: rawAnswerBytes(c.maxMessage),
	}, nil, &rm)
	if isStatus(err, http.StatusNotFound) {
		return mail.Message{RemoteID: id, Deleted: true}, true, nil
	}
	if errors.Is(err, oauth.ErrTooLarge) {
		c.skip(mail.TooLarge("", id, 0, c.maxMessage))
		return mail.Message{}, false, nil
	}
	if err != nil {
		return mail.Message{}, false, fmt.Errorf("gmail: fetching message %s: %w", id, err)
	}
	folder, ok := folderOf(rm.LabelIDs)
	if !ok {
		return mail.Message{RemoteID: id, Deleted: true}, true, nil
	}
	// By Gmail's estimate, or the decoded size where that is missing or
	// low.
	if size := max(rm.SizeEstimate, int64(len(strings.TrimRight(rm.Raw, "=")))*3/4); size > c.maxMessage {
		c.skip(mail.TooLarge(folder, id, size, c.maxMessage))
		return mail.Message{}, false, nil
	}
	m, err = c.convert(rm)
	if errors.Is(err, mail.ErrTooLarge) {
		c.skip(mail.TooLarge(folder, id, 0, c.maxMessage))
		return mail.Message{}, false, nil
	}
	if err != nil {
		// One unreadable message must not stop the sync: keep what Gmail
		// says about it.
		c.log.Warn("unparsable message, indexing its snippet", "id", id, "err", err)
		m = mail.Message{Body: rm.Snippet, Date: internalDate(rm.InternalDate)}
	}
	m.RemoteID, m.ConversationID, m.Folder = rm.ID, rm.ThreadID, folder
	m.Draft = folder == "Drafts"
	return m, true, nil
}

// skip records a message the sync leaves out.
func (c *Connector) skip(s mail.Skip) { c.skips.Add(c.log, s) }

// Skipped lists the messages the last Sync left out: those over
// Options.MaxMessageBytes. See mail.Skipper.
func (c *Connector) Skipped() []mail.Skip {
	return c.skips.List()
}

func (c *Connector) convert(rm rawMessage) (mail.Message, error) {
	raw, err := decodeBase64URL(rm.Raw)
	if err != nil {
		return mail.Message{}, fmt.Errorf("decoding raw: %w", err)
	}
	m, err := mail.ParseOptions{MaxBytes: c.maxMessage}.Parse(bytes.NewReader(raw))
	if errors.Is(err, mail.ErrPartialBody) {
		c.log.Warn("message body read in part", "id", rm.ID, "err", err)
	} else if err != nil {
		return mail.Message{}, fmt.Errorf("parsing the message: %w", err)
	}
	if m.Date.IsZero() {
		m.Date = internalDate(rm.InternalDate)
	}
	return m, nil
}

// decodeBase64URL decodes Gmail's base64url, with or without padding.
func decodeBase64URL(s string) ([]byte, error) {
	return base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
}

// internalDate reads Gmail's internalDate, epoch milliseconds as a string.
func internalDate(v string) time.Time {
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func isStatus(err error, status int) bool {
	var apiErr *oauth.APIError
	return errors.As(err, &apiErr) && apiErr.Status == status
}

// decodeError reads Google's error body:
// {"error":{"code":403,"message":"…","errors":[{"reason":"…"}],"status":"…"}}.
// Gmail throttles with 429 and with 403 rateLimitExceeded or
// userRateLimitExceeded; other 403s (insufficientPermissions,
// dailyLimitExceeded) will not clear by waiting a minute.
// DecodeError is the decoder of this service's error bodies for an
// oauth.Client; the calendars use it too.
func DecodeError(status int, h http.Header, body []byte) oauth.ErrorDetail {
	return decodeError(status, h, body)
}

func decodeError(status int, _ http.Header, body []byte) oauth.ErrorDetail {
	var e struct {
		Error struct {
			Message string `json:"message"`
			Status  string `json:"status"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	var d oauth.ErrorDetail
	if json.Unmarshal(body, &e) != nil || (e.Error.Message == "" && e.Error.Status == "") {
		// Whole: oauth.Client scrubs credentials out of it before cutting
		// it short, and a cut first could leave half a secret behind.
		d.Message = strings.TrimSpace(string(body))
		return d
	}
	d.Code, d.Message = e.Error.Status, e.Error.Message
	if len(e.Error.Errors) > 0 && e.Error.Errors[0].Reason != "" {
		d.Code = e.Error.Errors[0].Reason
	}
	d.Throttled = status == http.StatusForbidden &&
		(d.Code == "rateLimitExceeded" || d.Code == "userRateLimitExceeded")
	return d
}
