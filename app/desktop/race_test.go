//go:build race

package desktop_test

// raceBuild: this test binary has the race detector. The X integration
// tests skip in it: they drive a separately built spirit binary without
// it, so only the harness would be checked, and their full-screen
// captures slow down enough under instrumentation to fail the orb's
// frame-to-frame checks. The unit tests (Fyne's test driver, in process)
// run under it.
const raceBuild = true
