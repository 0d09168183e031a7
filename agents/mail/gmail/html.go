package gmail

import (
	"html"
	"regexp"
	"strings"
)

// A small HTML-to-text conversion for messages without a text/plain part.
// It is the same as graph/html.go; both belong in package mail once it has
// a converter.
var (
	reDropBlocks = regexp.MustCompile(`(?is)<(script|style|head|title)\b.*?</(script|style|head|title)\s*>`)
	reComments   = regexp.MustCompile(`(?s)<!--.*?-->`)
	reBreaks     = regexp.MustCompile(`(?i)<br\s*/?>|</(p|div|tr|li|h[1-6]|blockquote|table)\s*>`)
	reTags       = regexp.MustCompile(`(?s)<[^>]*>`)
	reBlankLines = regexp.MustCompile(`\n{3,}`)
)

func htmlToText(s string) string {
	s = reDropBlocks.ReplaceAllString(s, "")
	s = reComments.ReplaceAllString(s, "")
	s = reBreaks.ReplaceAllString(s, "\n")
	s = reTags.ReplaceAllString(s, "")
	s = html.UnescapeString(s)
	s = strings.ReplaceAll(s, "\u00a0", " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(strings.Join(strings.Fields(l), " "), " ")
	}
	return strings.TrimSpace(reBlankLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
