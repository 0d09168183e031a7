//go:build !linux && !darwin

package main

import (
	"fmt"
	"os"
	"os/exec"
)

// startAgain starts a new Spirit with the same arguments and environment
// and lets this one exit: Windows has no exec. Run has returned, so the
// folder's lock is free.
func startAgain() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start again: find this program: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start again: %w", err)
	}
	return cmd.Process.Release()
}
