//go:build !linux

package audio

// setJackClientName is a no-op where PortAudio has no JACK host API.
func setJackClientName(string) {}
