// Package voice is Spirit's hearing: audio sources, voice activity detection,
// on-device transcription and the spoken-command grammar (sub-package intent).
// It knows nothing about agents.
package voice
