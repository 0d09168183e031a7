//go:build !unix

package app

import (
	"fmt"
	"os"
)

// writable reports why path may not be written, or nil: on systems without
// access(2), by its read-only attribute.
func writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s is read-only", path)
	}
	return nil
}
