// Package storetest holds test helpers for Spirit's data folder.
package storetest

import (
	"fmt"
	"os"
	"testing"
)

// Folder lists dir's files with their sizes and modification times: what
// a command that only reads (the doctor, world tail, a keychain probe)
// must leave as it found.
func Folder(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %d", e.Name(), fi.Size(), fi.ModTime().UnixNano()))
	}
	return out
}
