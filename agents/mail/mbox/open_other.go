//go:build !unix

package mbox

// oNonblock is 0 where opening a file cannot block on a missing writer.
const oNonblock = 0
