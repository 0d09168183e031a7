package graph

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spirit-app/spirit/agents/mail"
)

// FuzzConvert decodes arbitrary JSON as a Graph message resource, as a
// delta page or GET /me/messages/{id} delivers it, and converts it. The
// conversion keeps Graph's id and the folder it is given, carries every
// recipient over, gives ids in angle brackets, keeps only bulk headers in
// lower case and capped, and renders an HTML body (Graph ignored the
// Prefer header) as valid UTF-8 text of bounded size.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		`{"id":"AAMkAD1","conversationId":"c1","internetMessageId":"<m1@x.com>","subject":"RE: SNDA","isDraft":false,
		 "body":{"contentType":"text","content":"Dana,\r\nCan you confirm?\r\n"},
		 "from":{"emailAddress":{"name":"Marcy Howard","address":"MHoward@Example.com"}},
		 "toRecipients":[{"emailAddress":{"name":"Dana","address":"dana@firm.com"}}],"ccRecipients":[],
		 "receivedDateTime":"2026-06-18T14:01:00Z","sentDateTime":"2026-06-18T14:00:58Z",
		 "internetMessageHeaders":[{"name":"In-Reply-To","value":"<p@x.com>"},{"name":"References","value":"<r@x.com> <p@x.com>"},
		   {"name":"List-Unsubscribe","value":"<mailto:u@x.com>"},{"name":"Message-ID","value":"<m1@x.com>"}],
		 "singleValueExtendedProperties":[{"id":"String 0x1042","value":"<p@x.com>"},{"id":"string  0x1039","value":"<r@x.com>"}]}`,
		`{"id":"AAMkAD2","subject":"html","body":{"contentType":"HTML","content":"<p>Hi&nbsp;<b>Dana</b></p><script>QZXJ()</script><blockquote>old</blockquote>"}}`,
		`{"id":"AAMkAD3","@removed":{"reason":"deleted"}}`,
		`{"id":"AAMkAD4","internetMessageId":"bare@id","internetMessageHeaders":[{"name":"X-Mailer","value":"=?utf-8?q?Mass_Mailer?="}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m message
		if json.Unmarshal(data, &m) != nil {
			return
		}
		out := convert(m, "INBOX")
		if out.RemoteID != m.ID || out.Folder != "INBOX" || out.Draft != m.IsDraft {
			t.Fatalf("convert(%s) = %+v: id, folder or draft not carried", data, out)
		}
		if len(out.To) != len(m.ToRecipients) || len(out.Cc) != len(m.CcRecipients) {
			t.Fatalf("convert(%s): recipients lost", data)
		}
		for _, id := range append([]string{out.MessageID, out.InReplyTo}, out.References...) {
			if id != "" && (!strings.HasPrefix(id, "<") || !strings.HasSuffix(id, ">")) {
				t.Fatalf("convert(%s): message id %q not in angle brackets", data, id)
			}
		}
		for k, v := range out.Headers {
			if !mail.IsBulkHeader(k) || k != strings.ToLower(k) || len(v) > 300 {
				t.Fatalf("convert(%s): kept header %q: %q", data, k, v)
			}
		}
		if m.Body != nil && strings.EqualFold(m.Body.ContentType, "html") {
			if !utf8.ValidString(out.Body) {
				t.Fatalf("convert(%s): body not valid UTF-8: %q", data, out.Body)
			}
			// What HTML text may contain is FuzzHTMLToText's to check.
			if len(out.Body) > 2*len(m.Body.Content)+8*strings.Count(out.Body, "\n") {
				t.Fatalf("convert(%s): %d bytes of text from %d of HTML", data, len(out.Body), len(m.Body.Content))
			}
		}
	})
}
