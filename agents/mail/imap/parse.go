package imap

import (
	"io"
	"strings"
	"unicode"

	"github.com/spirit-app/spirit/agents/mail"
)

// parseMessage reads one message fetched with BODY.PEEK[] (see mail.Parse;
// RemoteID, Folder and Draft are left for the caller, and a zero Date for
// INTERNALDATE), failing with mail.ErrTooLarge past limit bytes (0:
// mail.MaxMessageBytes). IMAP bodies keep the layout this connector has
// always indexed: HTML-only mail with an empty line before paragraphs and
// headings and tab-separated table cells, and no trailing blank space.
func parseMessage(r io.Reader, limit int64) (mail.Message, error) {
	m, err := mail.ParseOptions{
		HTML:     mail.HTMLLayout{BlankBeforeParagraphs: true, TabCells: true},
		MaxBytes: limit,
	}.Parse(r)
	m.Body = strings.TrimRightFunc(m.Body, unicode.IsSpace)
	return m, err
}
