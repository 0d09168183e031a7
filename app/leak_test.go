package app

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a test leaves a goroutine behind: the
// services these tests start must be waited for before each test returns.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
