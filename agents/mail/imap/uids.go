package imap

import (
	"fmt"

	goimap "github.com/emersion/go-imap/v2"
)

// maxSearchUIDs bounds how many UIDs one SEARCH answer may name. A folder
// of a million messages is already far beyond a lawyer's mailbox; a
// server that answers "1:4000000000" must not make Spirit allocate 16 GB.
const maxSearchUIDs = 5_000_000

// searchUIDs returns the UIDs a UID SEARCH answered, refusing answers that
// go-imap would panic on (an open-ended "n:*" set, which is a server bug)
// and sets too large to expand. The panic would happen on the connection's
// goroutine and take the whole of Spirit down with it.
func searchUIDs(data *goimap.SearchData) ([]goimap.UID, error) {
	if data == nil || data.All == nil {
		return nil, nil
	}
	set, ok := data.All.(goimap.UIDSet)
	if !ok {
		return nil, fmt.Errorf("the server answered a UID SEARCH with sequence numbers (%s)", data.All)
	}
	if set.Dynamic() {
		return nil, fmt.Errorf("the server answered a search with an open-ended set (%s)", set)
	}
	var n uint64
	for _, r := range set {
		lo, hi := r.Start, r.Stop
		if lo > hi {
			lo, hi = hi, lo
		}
		n += uint64(hi-lo) + 1
		if n > maxSearchUIDs {
			return nil, fmt.Errorf("the server's search answer names over %d messages", maxSearchUIDs)
		}
	}
	uids, _ := set.Nums()
	return uids, nil
}
