//go:build spirittest

package api

// ownKindsFromOutside: see ownkinds_release.go. This build is a test's.
const ownKindsFromOutside = true
