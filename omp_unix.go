//go:build linux || darwin

package main

import (
	"os"
	"syscall"
)

// passiveOpenMP restarts Spirit with OMP_WAIT_POLICY=passive unless it is
// set: whisper.cpp's OpenMP threads otherwise spin at every barrier, which
// burns a core after each transcription and slows transcription up to 10x on a
// busy machine. libgomp reads the variable only at process start.
func passiveOpenMP() {
	if os.Getenv("OMP_WAIT_POLICY") != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	os.Setenv("OMP_WAIT_POLICY", "passive")
	// On success Exec does not return; on failure Spirit runs on as it is.
	_ = syscall.Exec(exe, os.Args, os.Environ())
}
