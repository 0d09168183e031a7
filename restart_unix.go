//go:build linux || darwin

package main

import (
	"fmt"
	"os"
	"syscall"
)

// startAgain replaces this process with a new Spirit, with the same
// arguments and environment: after "Delete all Spirit data…" it starts
// clean. Run has returned, so the folder's lock is free; every file Go
// opened is closed on exec.
func startAgain() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start again: find this program: %w", err)
	}
	if err := syscall.Exec(exe, os.Args, os.Environ()); err != nil {
		return fmt.Errorf("start again: %w", err)
	}
	return nil // not reached
}
