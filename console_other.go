//go:build !windows

package main

// attachConsole: only Windows starts a GUI program without its terminal.
func attachConsole() {}
