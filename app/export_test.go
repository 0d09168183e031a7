package app

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spirit-app/spirit/agents/store"
)

// The export is the whole world log, oldest first, one entry a line in
// the plain-text format, across page boundaries, whatever the page size.
func TestExportActivity(t *testing.T) {
	ctx := context.Background()
	_, st := newTestParts(t, t.TempDir())
	for i := range 5 {
		if _, err := st.AppendEvent(ctx, store.Event{Source: "user", Identifier: fmt.Sprintf("n-%d", i),
			Text: fmt.Sprintf("entry %d\nwith a second line", i)}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := st.Since(ctx, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, e := range all {
		fmt.Fprintln(&want, e)
	}
	for _, page := range []int{1, 2, 5, 1000} {
		t.Run(fmt.Sprintf("page %d", page), func(t *testing.T) {
			var b bytes.Buffer
			n, err := exportActivity(ctx, st, &b, page)
			if err != nil || n != len(all) {
				t.Fatalf("exported %d, %v; want %d", n, err, len(all))
			}
			if b.String() != want.String() {
				t.Errorf("export:\n%s\nwant:\n%s", b.String(), want.String())
			}
			if lines := strings.Count(b.String(), "\n"); lines != len(all) {
				t.Errorf("%d lines, want one an entry (%d)", lines, len(all))
			}
		})
	}
}
