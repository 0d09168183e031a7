//go:build !race

package desktop_test

// raceBuild: see race_test.go.
const raceBuild = false
