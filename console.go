package main

// fileTypeUnknown is GetFileType's answer for a handle that leads nowhere:
// none was given, or it is not valid (a GUI program started from a console
// without redirection). Windows' other types (disk, character, pipe) all
// print somewhere.
const fileTypeUnknown = 0

// streamsToReopen says which of standard input, output and error, given
// GetFileType of each, must be opened on the parent's console: those that
// lead nowhere. What was redirected (`spirit version > v.txt`, a pipe)
// stays where it was sent.
func streamsToReopen(fileTypes [3]uint32) (reopen [3]bool, any bool) {
	for i, t := range fileTypes {
		if t == fileTypeUnknown {
			reopen[i], any = true, true
		}
	}
	return reopen, any
}
