package mail

import "testing"

func TestHTMLToText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<p>One</p><p>Two</p>", "One\n\nTwo"},
		{"<div>a<br/>b</div><div>c</div>", "a\nb\nc"},
		{"<table><tr><td>Rent</td><td>$10</td></tr><tr><td>Term</td><td>5y</td></tr></table>", "Rent $10\nTerm 5y"},
		{"<pre>  keep\n  spacing\u00a0 </pre>after", "keep\n  spacing\nafter"},
		{"x &amp; y &lt;z&gt;", "x & y <z>"},
		{"<div>On Monday Bob wrote:</div><blockquote><div>Can you <i>look</i>?</div><blockquote>older</blockquote></blockquote>",
			"On Monday Bob wrote:\n> Can you look?\n> > older"},
		{"<html><head><style>p{}</style></head><body><p>Hello&nbsp;<b>Dana</b>,</p><ul><li>one</li><li>two</li></ul>" +
			"<blockquote>earlier<br>text</blockquote><script>x()</script></body></html>",
			"Hello Dana,\n\n- one\n- two\n> earlier\n> text"},
		{"<html><head><style>p{color:red}</style></head><body><h1>Appellate Court</h1><p>Narrows SNDA&nbsp;protections &amp; more.</p></body></html>\n",
			"Appellate Court\nNarrows SNDA protections & more."},
		// Comments, conditional comments, a <head> never closed, runs of
		// <br> and empty blocks; an empty paragraph still ends with an
		// empty line.
		{"<!--[if mso]>x<![endif]--><head><title>T</title><body>a<br><br><br><br>b<div></div><div></div>c<p></p>d", "a\n\nb\nc\n\nd"},
		{"word<b>glued</b> <i>spaced</i>\n\tout", "wordglued spaced out"},
		{"  <p>  </p>  ", ""},
		{"<p>broken <b", "broken"},
	} {
		if got := HTMLToText(tc.in); got != tc.want {
			t.Errorf("HTMLToText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHTMLLayoutBlankBeforeParagraphsTabCells(t *testing.T) {
	l := HTMLLayout{BlankBeforeParagraphs: true, TabCells: true}
	for _, tc := range []struct{ in, want string }{
		{"<p>One</p><p>Two</p><ul><li>three</li></ul>", "One\n\nTwo\n- three"},
		{"<h2>Terms</h2><p>Rent:</p><table><tr><td>Base</td> <td>$10</td></tr></table>", "Terms\n\nRent:\nBase\t$10"},
		{"<blockquote><p>quoted</p></blockquote>", "> quoted"},
	} {
		if got := l.Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
