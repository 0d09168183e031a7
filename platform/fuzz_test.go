//go:build linux

package platform

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"
)

// FuzzPropText decodes arbitrary X11 text properties, which every program
// sets on its own windows (the title Spirit shows, stores and matches
// comes from _NET_WM_NAME or WM_NAME). The text is always valid UTF-8,
// without the NULs some programs pad with at its end; a property that is
// not 8-bit is no text; and no byte becomes more than two (Latin-1's
// upper half), so a title costs what its property does.
func FuzzPropText(f *testing.F) {
	const utf8String = xproto.Atom(300) // interned at run time: any atom but STRING
	for _, s := range []struct {
		value  string
		typ    xproto.Atom
		format byte
	}{
		{"RE: SNDA – Brooklyn Gardens - Message (HTML)", utf8String, 8},
		{"Caf\xe9 au lait - Mozilla Firefox", xproto.AtomString, 8},
		{"Inbox - Thunderbird\x00\x00", utf8String, 8},
		{"\x1b%G compound text \xff", xproto.Atom(301), 8},
		{"\x00\x01\x02\x03", xproto.AtomCardinal, 32},
		{"", utf8String, 8},
	} {
		f.Add([]byte(s.value), uint32(s.typ), s.format)
	}
	f.Fuzz(func(t *testing.T, value []byte, typ uint32, format byte) {
		r := &xproto.GetPropertyReply{Format: format, Type: xproto.Atom(typ), Value: bytes.Clone(value), ValueLen: uint32(len(value))}
		got := propText(r)
		if !utf8.ValidString(got) {
			t.Fatalf("propText(%q, type %d) = %q: not UTF-8", value, typ, got)
		}
		if format != 8 && got != "" {
			t.Fatalf("propText of a %d-bit property = %q", format, got)
		}
		if strings.HasSuffix(got, "\x00") {
			t.Fatalf("propText(%q) = %q keeps trailing NULs", value, got)
		}
		if len(got) > 2*len(value) {
			t.Fatalf("propText(%q) = %d bytes from %d", value, len(got), len(value))
		}
		if format == 8 && xproto.Atom(typ) != xproto.AtomString && utf8.Valid(value) && got != strings.TrimRight(string(value), "\x00") {
			t.Fatalf("propText(%q, UTF-8) = %q, want the text as is", value, got)
		}
		if !bytes.Equal(r.Value, value) {
			t.Fatalf("propText changed the reply's bytes")
		}
	})
	if propText(nil) != "" {
		f.Fatal("propText(nil) is not empty")
	}
}
