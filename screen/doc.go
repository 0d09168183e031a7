// Package screen is Spirit's sight: the app-switch watcher, screen capture,
// downscaling, near-duplicate detection, exclusions and screen text. It
// knows nothing about agents.
package screen
