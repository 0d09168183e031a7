package calendar

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// ErrSyncTokenRefused means the server no longer knows the sync token
// (RFC 6578 valid-sync-token) or cannot answer sync-collection: the
// collection must be read whole again.
var ErrSyncTokenRefused = errors.New("caldav: sync token refused")

// maxDAVAnswer bounds a WebDAV answer read here: a calendar-query REPORT
// carries the calendar's objects in the window, a year of a busy lawyer's
// meetings being a few MiB.
const maxDAVAnswer = 32 << 20

// multistatus is the part of a WebDAV multistatus these requests read.
type multistatus struct {
	Responses []struct {
		Href     []string `xml:"DAV: href"`
		Status   string   `xml:"DAV: status"`
		Propstat []struct {
			Status string `xml:"DAV: status"`
			Prop   struct {
				SyncToken    string `xml:"DAV: sync-token"`
				ETag         string `xml:"DAV: getetag"`
				CalendarData string `xml:"urn:ietf:params:xml:ns:caldav calendar-data"`
			} `xml:"DAV: prop"`
		} `xml:"DAV: propstat"`
	} `xml:"DAV: response"`
	SyncToken string `xml:"DAV: sync-token"`
}

// davRequest sends an XML request to path and reads the multistatus
// answer; a status other than 207 is an error naming it, with body. The
// error's text is scrubbed of the account's secrets (the status line is
// the server's).
func (d *CalDAV) davRequest(ctx context.Context, method, path, depth, body string) (multistatus, int, []byte, error) {
	ms, status, b, err := d.davRequestRaw(ctx, method, path, depth, body)
	return ms, status, b, d.clean(err)
}

func (d *CalDAV) davRequestRaw(ctx context.Context, method, path, depth, body string) (multistatus, int, []byte, error) {
	u := d.base.ResolveReference(&url.URL{Path: path})
	req, err := http.NewRequestWithContext(ctx, method, u.String(), strings.NewReader(body))
	if err != nil {
		return multistatus{}, 0, nil, err
	}
	req.Header.Set("Content-Type", "application/xml; charset=utf-8")
	if depth != "" {
		req.Header.Set("Depth", depth)
	}
	resp, err := d.hc.Do(req)
	if err != nil {
		return multistatus{}, 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDAVAnswer+1))
	if err != nil {
		return multistatus{}, resp.StatusCode, nil, err
	}
	if len(b) > maxDAVAnswer {
		return multistatus{}, resp.StatusCode, nil, fmt.Errorf("answer larger than %d MiB", maxDAVAnswer>>20)
	}
	if resp.StatusCode != http.StatusMultiStatus {
		return multistatus{}, resp.StatusCode, b, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	var ms multistatus
	if err := xml.NewDecoder(bytes.NewReader(b)).Decode(&ms); err != nil {
		return multistatus{}, resp.StatusCode, b, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return ms, resp.StatusCode, b, nil
}

// SyncToken reads the collection's DAV:sync-token (RFC 6578 §4), the
// starting point of later Changes; "" when the server keeps none.
func (d *CalDAV) SyncToken(ctx context.Context, path string) (string, error) {
	ms, _, _, err := d.davRequest(ctx, "PROPFIND", path, "0",
		`<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:prop><D:sync-token/></D:prop></D:propfind>`)
	if err != nil {
		return "", fmt.Errorf("caldav: sync token: %w", err)
	}
	for _, r := range ms.Responses {
		for _, ps := range r.Propstat {
			if statusOK(ps.Status) && strings.TrimSpace(ps.Prop.SyncToken) != "" {
				return strings.TrimSpace(ps.Prop.SyncToken), nil
			}
		}
	}
	return "", nil
}

// Changes asks what changed in the collection since token (a
// sync-collection REPORT, RFC 6578): the paths of objects added or
// changed, those removed, and the new token. A token the server refuses,
// or a server that cannot answer, is ErrSyncTokenRefused.
func (d *CalDAV) Changes(ctx context.Context, path, token string) (changed, removed []string, next string, err error) {
	var body strings.Builder
	body.WriteString(`<?xml version="1.0" encoding="utf-8"?><D:sync-collection xmlns:D="DAV:"><D:sync-token>`)
	if err := xml.EscapeText(&body, []byte(token)); err != nil {
		return nil, nil, "", err
	}
	body.WriteString(`</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>`)
	ms, status, b, err := d.davRequest(ctx, "REPORT", path, "", body.String())
	switch {
	case err == nil:
	case status == http.StatusUnauthorized || status == 0 ||
		status >= 500 && status != http.StatusNotImplemented && !bytes.Contains(b, []byte("valid-sync-token")):
		// Not a refusal of the token (a wrong password, a server down): the
		// sync fails and is tried again. 501 is a server without the report.
		return nil, nil, "", fmt.Errorf("caldav: sync-collection: %w", err)
	default:
		return nil, nil, "", fmt.Errorf("%w: %v", ErrSyncTokenRefused, err)
	}
	if strings.TrimSpace(ms.SyncToken) == "" {
		return nil, nil, "", fmt.Errorf("%w: the answer has no new token", ErrSyncTokenRefused)
	}
	self := strings.TrimSuffix(path, "/")
	for _, r := range ms.Responses {
		for _, h := range r.Href {
			p := h
			if u, err := url.Parse(h); err == nil {
				p = u.Path
			}
			if strings.TrimSuffix(p, "/") == self {
				continue // the collection itself
			}
			if strings.Contains(r.Status, " 404") {
				removed = append(removed, p)
			} else {
				changed = append(changed, p)
			}
		}
	}
	return changed, removed, strings.TrimSpace(ms.SyncToken), nil
}

// Get reads the objects at paths of the collection at path in one
// calendar-multiget REPORT.
func (d *CalDAV) Get(ctx context.Context, path string, paths []string) ([]Object, error) {
	objs, err := d.report(ctx, path, calendarMultigetBody(paths))
	if err != nil {
		return nil, fmt.Errorf("caldav: multiget %s: %w", path, err)
	}
	return objs, nil
}

func statusOK(s string) bool { return strings.Contains(s, " 200") }
