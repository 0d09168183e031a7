// Package graph connects Spirit to a Microsoft 365 / Outlook.com mailbox
// through the Microsoft Graph REST API (plain net/http; the SDK costs minutes
// of compile time for the handful of endpoints used here).
//
// Sync reads the Inbox, Sent Items and Drafts with delta queries
// (GET /me/mailFolders/{folder}/messages/delta), one delta link per folder
// in the cursor. CreateDraft saves replies through createReply so that
// Outlook threads them. Throttling, token refresh and error decoding are
// package oauth's Client.
package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/mail"
	"github.com/spirit-app/spirit/agents/mail/oauth"

	"golang.org/x/oauth2"
)

// DefaultBaseURL is Microsoft Graph's v1.0 endpoint.
const DefaultBaseURL = "https://graph.microsoft.com/v1.0"

// DefaultPageSize is the delta page size Spirit prefers
// (Prefer: odata.maxpagesize); Graph's own default is 10.
const DefaultPageSize = 50

// Extended MAPI properties holding the threading headers. Graph returns no
// internetMessageHeaders for messages that did not arrive over SMTP (Sent
// Items, Drafts), so these are the only source of In-Reply-To and
// References there. Ids as Graph's singleValueLegacyExtendedProperty
// documents them: "{type} {proptag}".
const (
	propInReplyTo  = "String 0x1042" // PidTagInReplyToId
	propReferences = "String 0x1039" // PidTagInternetReferences
)

// selectFields are the message properties Sync reads. internetMessageHeaders
// is only returned when selected.
const selectFields = "id,conversationId,internetMessageId,internetMessageHeaders,subject,from," +
	"toRecipients,ccRecipients,receivedDateTime,sentDateTime,body,isDraft"

// expandProps asks for the two threading properties and the size with
// each message.
const expandProps = "singleValueExtendedProperties($filter=id eq '" + propInReplyTo +
	"' or id eq '" + propReferences + "' or id eq '" + propMessageSize + "')"

// folder is a synced mail folder: Graph's well-known name and Spirit's.
type folder struct{ id, name string }

func syncedFolders() []folder {
	return []folder{{"inbox", "INBOX"}, {"sentitems", "Sent"}, {"drafts", "Drafts"}}
}

// Options configure a Connector; the zero value talks to Microsoft Graph.
type Options struct {
	BaseURL string // DefaultBaseURL when empty
	// HTTPClient sends the requests; it must not add authorization.
	HTTPClient *http.Client
	Logger     *slog.Logger
	// Since limits the first sync of each folder to messages received at
	// or after it (zero: the whole folder).
	Since    time.Time
	PageSize int // DefaultPageSize when 0
	// MaxAttempts and Sleep tune retries; see oauth.Client.
	MaxAttempts int
	Sleep       func(ctx context.Context, d time.Duration) error
	// MaxMessageBytes caps one message by its size in the mailbox,
	// attachments included (0: mail.MaxMessageBytes): a sync skips a
	// larger one, as the other connectors do, and Skipped lists it.
	MaxMessageBytes int64
	// MaxPageBytes bounds one answer read into memory (0:
	// DefaultMaxPageBytes); a delta page over it is asked for again in
	// smaller pages.
	MaxPageBytes int64
}

// Connector is one Microsoft mailbox. It is safe for concurrent use, but
// Sync calls for one account should not overlap.
type Connector struct {
	base       *url.URL
	api        *oauth.Client
	log        *slog.Logger
	since      time.Time
	pageSize   int
	maxMessage int64
	maxPage    int64

	skips mail.Skips // what the last Sync left out
}

var (
	_ mail.Connector = (*Connector)(nil)
	_ mail.Skipper   = (*Connector)(nil)
)

// New returns a connector that authorizes its requests with tokens, e.g.
// an *oauth.TokenSource, which also refreshes a token Graph refused.
func New(tokens oauth2.TokenSource, opts Options) (*Connector, error) {
	if tokens == nil {
		return nil, errors.New("graph: no token source")
	}
	raw := opts.BaseURL
	if raw == "" {
		raw = DefaultBaseURL
	}
	base, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("graph: bad base URL %q", raw)
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	hc := opts.HTTPClient
	if hc == nil {
		// An own transport, so that Close drops only this account's
		// connections.
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 2 * time.Minute}
	}
	pageSize := opts.PageSize
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	maxMessage, maxPage := opts.MaxMessageBytes, opts.MaxPageBytes
	if maxMessage <= 0 {
		maxMessage = mail.MaxMessageBytes
	}
	if maxPage <= 0 {
		maxPage = DefaultMaxPageBytes
	}
	return &Connector{
		base: base,
		api: &oauth.Client{
			Service:     "Microsoft Graph",
			Tokens:      tokens,
			HTTP:        hc,
			Origin:      base.String(),
			Decode:      decodeError,
			MaxAttempts: opts.MaxAttempts,
			Sleep:       opts.Sleep,
			Logger:      log,
		},
		log:        log.With("connector", "graph"),
		since:      opts.Since,
		pageSize:   pageSize,
		maxMessage: maxMessage,
		maxPage:    maxPage,
	}, nil
}

// Close releases idle connections.
func (c *Connector) Close() error {
	c.api.HTTP.CloseIdleConnections()
	return nil
}

// cursor is Sync's state: the @odata.deltaLink of each folder's last
// completed round.
type cursor struct {
	Version    int               `json:"v"`
	DeltaLinks map[string]string `json:"deltaLinks"`
}

const cursorVersion = 1

// Sync delivers the changes since cursor in the Inbox, Sent Items and
// Drafts. A message Graph reports as removed from a folder becomes a
// Deleted tombstone, unless it showed up in another synced folder in the
// same call (a move that kept its id). One over the size cap is not
// delivered (Skipped lists it).
func (c *Connector) Sync(ctx context.Context, cur string, fn func(mail.Message) error) (string, error) {
	c.skips.Reset()
	prev := cursor{DeltaLinks: map[string]string{}}
	if cur != "" {
		if err := json.Unmarshal([]byte(cur), &prev); err != nil || prev.Version != cursorVersion {
			return "", fmt.Errorf("graph: unusable sync cursor (start over with an empty one): %q", cur)
		}
	}
	next := cursor{Version: cursorVersion, DeltaLinks: map[string]string{}}
	present := map[string]bool{}
	var tombstones []mail.Message
	for _, f := range syncedFolders() {
		link, err := c.syncFolder(ctx, f, prev.DeltaLinks[f.id], func(m mail.Message) error {
			if m.Deleted {
				tombstones = append(tombstones, m)
				return nil
			}
			present[m.RemoteID] = true
			return fn(m)
		})
		if err != nil {
			return "", fmt.Errorf("graph: syncing %s: %w", f.id, err)
		}
		next.DeltaLinks[f.id] = link
	}
	for _, m := range tombstones {
		if present[m.RemoteID] {
			continue
		}
		if err := fn(m); err != nil {
			return "", err
		}
	}
	data, err := json.Marshal(next)
	if err != nil {
		return "", fmt.Errorf("graph: encoding the cursor: %w", err)
	}
	return string(data), nil
}

// deltaPage is one page of a delta round.
type deltaPage struct {
	Value     []message `json:"value"`
	NextLink  string    `json:"@odata.nextLink"`
	DeltaLink string    `json:"@odata.deltaLink"`
}

// syncFolder runs one delta round from link ("" for an initial round) and
// returns the new delta link.
func (c *Connector) syncFolder(ctx context.Context, f folder, link string, emit func(mail.Message) error) (string, error) {
	initial := c.deltaURL(f.id)
	u := link
	if u == "" {
		u = initial
	}
	restarted := false
	pages := 0
	pageSize := c.pageSize
	for {
		if err := c.checkLink(u); err != nil {
			return "", err
		}
		var p deltaPage
		err := c.getJSON(ctx, u, c.readHeader(pageSize), &p)
		if errors.Is(err, oauth.ErrTooLarge) && pageSize > 1 {
			// Big bodies fill the page: the same link again, for fewer
			// messages, and so for the rest of the round.
			pageSize /= 2
			c.log.Warn("delta page too large, asking for smaller pages", "folder", f.id, "page_size", pageSize)
			continue
		}
		if isStatus(err, http.StatusGone) && !restarted {
			// The delta token expired or the mailbox was reset: Graph
			// wants a new initial round. Messages come again (the index
			// upserts); deletions during the gap are missed.
			c.log.Warn("delta link expired, resyncing the folder", "folder", f.id, "err", err)
			u, restarted = initial, true
			continue
		}
		if err != nil {
			return "", err
		}
		pages++
		for _, item := range p.Value {
			m, ok, err := c.deltaItem(ctx, item, f)
			if err != nil {
				return "", err
			}
			if !ok {
				continue
			}
			if err := emit(m); err != nil {
				return "", err
			}
		}
		switch {
		case p.NextLink != "":
			u = p.NextLink
		case p.DeltaLink != "":
			c.log.Debug("folder synced", "folder", f.id, "pages", pages)
			return p.DeltaLink, nil
		default:
			return "", errors.New("delta page with neither @odata.nextLink nor @odata.deltaLink")
		}
	}
}

// deltaItem turns one delta entry into a message or a tombstone.
func (c *Connector) deltaItem(ctx context.Context, item message, f folder) (mail.Message, bool, error) {
	if item.ID == "" {
		return mail.Message{}, false, nil
	}
	if item.Removed != nil {
		return mail.Message{RemoteID: item.ID, Folder: f.name, Deleted: true}, true, nil
	}
	if item.Body == nil || item.Subject == nil {
		// Graph reports some changes (read state, flags) with only the
		// changed properties despite $select: fetch the whole message
		// rather than overwrite the index with empty fields.
		full, err := c.getMessage(ctx, item.ID)
		if isStatus(err, http.StatusNotFound) {
			return mail.Message{RemoteID: item.ID, Folder: f.name, Deleted: true}, true, nil
		}
		if err != nil {
			return mail.Message{}, false, err
		}
		item = full
	}
	if size := item.size(); size > c.maxMessage {
		// Indexing it would cost nothing here (Graph sends no
		// attachments), but the lawyer gets one rule for all accounts.
		c.skip(mail.TooLarge(f.name, item.ID, size, c.maxMessage))
		return mail.Message{}, false, nil
	}
	return convert(item, f.name), true, nil
}

func (c *Connector) getMessage(ctx context.Context, id string) (message, error) {
	var m message
	u := c.endpoint("/me/messages/"+url.PathEscape(id), "$select", selectFields, "$expand", expandProps)
	err := c.getJSON(ctx, u, c.readHeader(0), &m)
	return m, err
}

// getJSON reads an answer of messages into out, bounded: each string cut
// at maxStringBytes as it streams in, the whole at MaxPageBytes.
func (c *Connector) getJSON(ctx context.Context, u string, h http.Header, out any) error {
	return c.api.DoJSONRequest(ctx, oauth.Request{
		Method:  http.MethodGet,
		URL:     u,
		Header:  h,
		MaxBody: c.maxPage,
		Filter:  func(r io.Reader) io.Reader { return newCutStrings(r, maxStringBytes) },
	}, nil, out)
}

// skip records a message the sync leaves out.
func (c *Connector) skip(s mail.Skip) { c.skips.Add(c.log, s) }

// Skipped lists the messages the last Sync left out: those over
// Options.MaxMessageBytes. See mail.Skipper.
func (c *Connector) Skipped() []mail.Skip {
	return c.skips.List()
}

// deltaURL is the initial delta request of a folder. Graph encodes the
// query options into the next and delta links it returns.
func (c *Connector) deltaURL(folderID string) string {
	kv := []string{"$select", selectFields, "$expand", expandProps}
	if !c.since.IsZero() {
		kv = append(kv, "$filter", "receivedDateTime ge "+c.since.UTC().Format(time.RFC3339))
	}
	return c.endpoint("/me/mailFolders/"+url.PathEscape(folderID)+"/messages/delta", kv...)
}

// readHeader asks for plain-text bodies (Graph converts HTML) and, for
// delta rounds, the page size (0 for none). Graph wants the Prefer header
// on every page request: it is not encoded in the links.
func (c *Connector) readHeader(pageSize int) http.Header {
	h := http.Header{}
	h.Add("Prefer", `outlook.body-content-type="text"`)
	if pageSize > 0 {
		h.Add("Prefer", "odata.maxpagesize="+strconv.Itoa(pageSize))
	}
	return h
}

// checkLink refuses links (from Graph's answers or a stored cursor) that
// leave the base URL's origin: they would receive the bearer token.
func (c *Connector) checkLink(link string) error {
	u, err := url.Parse(link)
	if err != nil {
		return fmt.Errorf("bad link %q: %w", link, err)
	}
	if u.Scheme != c.base.Scheme || u.Host != c.base.Host {
		return fmt.Errorf("refusing to follow %s: not on %s", link, c.base.Host)
	}
	return nil
}

// endpoint joins path to the base URL with OData query options given as
// key, value pairs. Values are percent-encoded with %20 for spaces, which
// OData reads everywhere ("+" it does not always).
func (c *Connector) endpoint(path string, kv ...string) string {
	var b strings.Builder
	b.WriteString(c.base.String())
	b.WriteString(path)
	for i := 0; i+1 < len(kv); i += 2 {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(kv[i])
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(url.QueryEscape(kv[i+1]), "+", "%20"))
	}
	return b.String()
}

// Search runs Graph's $search (KQL over the whole mailbox) and returns up
// to limit messages, best first. Spirit's own index answers most
// questions; this reaches mail older than the synced window. Folder is
// left empty: Graph names folders by opaque ids.
func (c *Connector) Search(ctx context.Context, query string, limit int) ([]mail.Message, error) {
	if limit <= 0 || limit > 250 {
		limit = 25
	}
	// $search takes a double-quoted string; inner quotes are escaped.
	q := `"` + strings.ReplaceAll(strings.ReplaceAll(query, `\`, `\\`), `"`, `\"`) + `"`
	u := c.endpoint("/me/messages", "$search", q, "$select", selectFields, "$top", strconv.Itoa(limit))
	var p deltaPage
	if err := c.getJSON(ctx, u, c.readHeader(0), &p); err != nil {
		return nil, fmt.Errorf("graph: search: %w", err)
	}
	out := make([]mail.Message, 0, len(p.Value))
	for _, m := range p.Value {
		out = append(out, convert(m, ""))
	}
	return out, nil
}

func isStatus(err error, status int) bool {
	var apiErr *oauth.APIError
	return errors.As(err, &apiErr) && apiErr.Status == status
}

// decodeError reads Graph's error body:
// {"error":{"code":"…","message":"…","innerError":{"request-id":"…"}}}.
// DecodeError is the decoder of this service's error bodies for an
// oauth.Client; the calendars use it too.
func DecodeError(status int, h http.Header, body []byte) oauth.ErrorDetail {
	return decodeError(status, h, body)
}

func decodeError(status int, h http.Header, body []byte) oauth.ErrorDetail {
	var e struct {
		Error struct {
			Code       string `json:"code"`
			Message    string `json:"message"`
			InnerError struct {
				RequestID string `json:"request-id"`
			} `json:"innerError"`
		} `json:"error"`
	}
	d := oauth.ErrorDetail{RequestID: h.Get("request-id")}
	if json.Unmarshal(body, &e) == nil && (e.Error.Code != "" || e.Error.Message != "") {
		d.Code, d.Message = e.Error.Code, e.Error.Message
		if d.RequestID == "" {
			d.RequestID = e.Error.InnerError.RequestID
		}
		return d
	}
	// Whole: oauth.Client scrubs credentials out of it before cutting it
	// short, and a cut first could leave half a secret behind.
	d.Message = strings.TrimSpace(string(body))
	return d
}
