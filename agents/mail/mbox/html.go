package mbox

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

var blankLinesRe = regexp.MustCompile(`\n{3,}`)

// htmlToText renders an HTML body as plain text for the index: text only,
// block elements on their own lines, list items dashed, and blockquotes
// (how Gmail and Apple Mail quote) prefixed with "> " so the index can tell
// history from the new text. Scripts, styles and the head are dropped.
func htmlToText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var (
		b        strings.Builder
		skip     int // inside <script>, <style>, <head>, <title>
		quote    int // blockquote depth
		pre      int
		lineOpen bool // something is on the current line
		space    bool // a space is pending before the next word
	)
	newline := func() {
		b.WriteByte('\n')
		lineOpen, space = false, false
	}
	write := func(text string) {
		if !lineOpen {
			if quote > 0 {
				b.WriteString(strings.Repeat("> ", quote))
			}
			lineOpen = true
		} else if space {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(text)
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			out := blankLinesRe.ReplaceAllString(b.String(), "\n\n")
			return strings.TrimSpace(out) + "\n"
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := string(z.Text())
			if pre > 0 {
				for i, l := range strings.Split(text, "\n") {
					if i > 0 {
						newline()
					}
					if l != "" {
						write(l)
					}
				}
				continue
			}
			if strings.TrimSpace(text) == "" {
				space = space || (lineOpen && text != "")
				continue
			}
			if r, _ := utf8.DecodeRuneInString(text); unicode.IsSpace(r) {
				space = lineOpen
			}
			write(strings.Join(strings.Fields(text), " "))
			r, _ := utf8.DecodeLastRuneInString(text)
			space = unicode.IsSpace(r)
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			start := tt != html.EndTagToken
			switch a {
			case atom.Script, atom.Style, atom.Head, atom.Title, atom.Noscript, atom.Template:
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case atom.Br:
				newline()
			case atom.Blockquote:
				if lineOpen {
					newline()
				}
				if tt == html.StartTagToken {
					quote++
				} else if tt == html.EndTagToken && quote > 0 {
					quote--
				}
			case atom.Pre:
				if lineOpen {
					newline()
				}
				if tt == html.StartTagToken {
					pre++
				} else if tt == html.EndTagToken && pre > 0 {
					pre--
				}
			case atom.Li:
				if start {
					if lineOpen {
						newline()
					}
					write("-")
					space = true
				}
			case atom.Td, atom.Th:
				if start && lineOpen {
					space = true
				}
			case atom.P, atom.Div, atom.Tr, atom.Table, atom.Ul, atom.Ol, atom.H1, atom.H2, atom.H3, atom.H4,
				atom.H5, atom.H6, atom.Hr, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Dl, atom.Dt,
				atom.Dd, atom.Center, atom.Address:
				if lineOpen {
					newline()
				}
				switch a {
				case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
					if !start {
						newline() // a paragraph ends with an empty line
					}
				}
			}
		}
	}
}
