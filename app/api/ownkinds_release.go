//go:build !spirittest

package api

// ownKindsFromOutside is whether POST /nudges may raise Spirit's own kinds
// (an approval, a question, a glance): never, in every build Spirit ships.
// Only a desktop integration test's build of the binary (tag spirittest)
// puts them on screen through the API, to drive the bubble as it would
// look.
const ownKindsFromOutside = false
