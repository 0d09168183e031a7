//go:build !linux && !darwin

package main

// passiveOpenMP: on Windows the launcher (the .lnk or the installer) sets
// OMP_WAIT_POLICY; a process cannot re-exec itself in place there.
func passiveOpenMP() {}
