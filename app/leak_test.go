package app

import (
	"testing"

	"github.com/spirit-app/spirit/voice/audio/audiotest"
	"go.uber.org/goleak"
)

// TestMain fails the run when a test leaves a goroutine behind: the
// services these tests start must be waited for before each test returns.
// The binary doubles as the audio capture helper and the JACK player for
// the tests that play speech into Spirit's microphone.
func TestMain(m *testing.M) {
	audiotest.ServeHelpers()
	goleak.VerifyTestMain(m)
}
