package app

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/spirit-app/spirit/agents/store"
)

// exportPage is how many world-log entries ExportActivity reads at a time.
const exportPage = 1000

// ExportActivity writes the world log to w as text — every entry up to
// the newest when it starts, oldest first, one a line in the world log's
// plain-text format (as `spirit world tail` prints it) — and returns how
// many it wrote. It reads a page at a time, so a long log never sits in
// memory whole.
func ExportActivity(ctx context.Context, st *store.Store, w io.Writer) (int, error) {
	return exportActivity(ctx, st, w, exportPage)
}

func exportActivity(ctx context.Context, st *store.Store, w io.Writer, page int) (int, error) {
	// Entries written while exporting belong to the next export: without
	// this bound a busy Spirit could keep the export going.
	last, err := st.LastID(ctx)
	if err != nil {
		return 0, fmt.Errorf("export activity: %w", err)
	}
	bw := bufio.NewWriter(w)
	n := 0
	for after := int64(0); after < last; {
		es, err := st.Since(ctx, after, page)
		if err != nil {
			return n, fmt.Errorf("export activity: %w", err)
		}
		if len(es) == 0 {
			break
		}
		for _, e := range es {
			if e.ID > last {
				break
			}
			if _, err := fmt.Fprintln(bw, e); err != nil {
				return n, fmt.Errorf("export activity: %w", err)
			}
			n++
		}
		after = es[len(es)-1].ID
	}
	if err := bw.Flush(); err != nil {
		return n, fmt.Errorf("export activity: %w", err)
	}
	return n, nil
}

// ExportActivity writes the world log to w as text (ExportActivity), and
// records the export in it.
func (c *Core) ExportActivity(ctx context.Context, w io.Writer) (int, error) {
	n, err := ExportActivity(ctx, c.store, w)
	if err != nil {
		return n, err
	}
	c.event(ctx, "user", "settings", fmt.Sprintf("exported the activity (%d entries)", n))
	return n, nil
}
