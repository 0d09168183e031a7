package mail

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLLayout adjusts how HTML becomes text. The zero value is the layout
// HTMLToText uses.
type HTMLLayout struct {
	// BlankBeforeParagraphs puts the empty line before each paragraph and
	// heading, instead of after each paragraph.
	BlankBeforeParagraphs bool
	// TabCells separates the cells of a table row with a tab instead of a
	// space, which keeps columns apart.
	TabCells bool
}

// maxQuoteDepth caps the "> " prefixes of one line. Deeper quoting is
// history of history, which the prefix need not tell apart; uncapped, a
// small message of a few thousand nested <blockquote>s and <br>s renders
// to gigabytes (a prefix as long as the nesting on every line).
const maxQuoteDepth = 4

// HTMLToText renders an HTML body as plain text in the default layout.
func HTMLToText(s string) string { return HTMLLayout{}.Text(s) }

// Text renders an HTML body as plain text for the index: text only,
// entities decoded, whitespace collapsed, block elements on their own
// lines, list items dashed, and blockquotes (how Gmail, Outlook and Apple
// Mail quote) prefixed with "> " so the index can tell history from new
// text. Scripts, styles, the head and comments are dropped; <pre> keeps
// its spacing. At most one empty line comes in a row, and the result has
// no leading or trailing blank space. Malformed markup yields the text
// read up to the error.
func (l HTMLLayout) Text(s string) string {
	var (
		z        = html.NewTokenizer(strings.NewReader(s))
		b        strings.Builder
		skip     int    // depth inside <script>, <style>, <head>, <title>…
		quote    int    // <blockquote> depth
		pre      int    // <pre> depth
		lineOpen bool   // something is on the current line
		sep      string // what goes before the next word: "", " " or "\t"
	)
	cellSep := " "
	if l.TabCells {
		cellSep = "\t"
	}
	newline := func() {
		b.WriteByte('\n')
		lineOpen, sep = false, ""
	}
	endLine := func() {
		if lineOpen {
			newline()
		}
	}
	// blankLine ends the line and leaves one empty line after it (unless
	// nothing has been written yet).
	blankLine := func() {
		endLine()
		if str := b.String(); str != "" && !strings.HasSuffix(str, "\n\n") {
			newline()
		}
	}
	space := func() { // a word break, unless a wider one is pending
		if lineOpen && sep == "" {
			sep = " "
		}
	}
	write := func(text string) {
		if !lineOpen {
			if quote > 0 {
				b.WriteString(strings.Repeat("> ", min(quote, maxQuoteDepth)))
			}
			lineOpen = true
		} else {
			b.WriteString(sep)
		}
		sep = ""
		b.WriteString(text)
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF or malformed markup: either way, what was read so far
			// is the best text there is.
			return tidyLines(b.String())
		case html.TextToken:
			if skip > 0 {
				continue
			}
			text := string(z.Text())
			if pre > 0 {
				text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
				for i, ln := range strings.Split(text, "\n") {
					if i > 0 {
						newline()
					}
					if ln != "" {
						write(ln)
					}
				}
				continue
			}
			words := strings.Fields(text) // unicode.IsSpace: &nbsp; is a space too
			if len(words) == 0 {
				if text != "" {
					space()
				}
				continue
			}
			if r, _ := utf8.DecodeRuneInString(text); unicode.IsSpace(r) {
				space()
			}
			write(strings.Join(words, " "))
			if r, _ := utf8.DecodeLastRuneInString(text); unicode.IsSpace(r) {
				space()
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			start := tt != html.EndTagToken
			switch a {
			case atom.Script, atom.Style, atom.Head, atom.Title, atom.Noscript, atom.Template:
				// "<script/>" opens the element too, its "/" ignored as
				// browsers do: the tokenizer reads what follows as its
				// raw content.
				rawSelfClosing := tt == html.SelfClosingTagToken && a != atom.Head && a != atom.Template
				if tt == html.StartTagToken || rawSelfClosing {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case atom.Body:
				// A <head> never closed must not swallow the body.
				skip = 0
			case atom.Br:
				newline()
			case atom.Blockquote:
				endLine()
				if tt == html.StartTagToken {
					quote++
				} else if tt == html.EndTagToken && quote > 0 {
					quote--
				}
			case atom.Pre:
				endLine()
				if tt == html.StartTagToken {
					pre++
				} else if tt == html.EndTagToken && pre > 0 {
					pre--
				}
			case atom.Li:
				if start {
					endLine()
					write("-")
					sep = " "
				}
			case atom.Td, atom.Th:
				if start && lineOpen {
					sep = cellSep
				}
			case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
				switch {
				case l.BlankBeforeParagraphs && start:
					blankLine()
				case !l.BlankBeforeParagraphs && !start && a == atom.P:
					blankLine() // a paragraph ends with an empty line
				default:
					endLine()
				}
			case atom.Div, atom.Tr, atom.Table, atom.Ul, atom.Ol, atom.Hr, atom.Section, atom.Article,
				atom.Header, atom.Footer, atom.Dl, atom.Dt, atom.Dd, atom.Center, atom.Address:
				endLine()
			}
		}
	}
}

// tidyLines trims the end of each line, turns no-break spaces kept by
// <pre> into spaces, keeps at most one empty line in a row and trims the
// whole.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := make([]string, 0, len(lines))
	blank := false
	for _, ln := range lines {
		ln = strings.TrimRightFunc(strings.ReplaceAll(ln, "\u00a0", " "), unicode.IsSpace)
		if ln == "" && (blank || len(out) == 0) {
			continue
		}
		blank = ln == ""
		out = append(out, ln)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
