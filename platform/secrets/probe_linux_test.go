package secrets

import (
	"os"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/spirit-app/spirit/agents/store/storetest"
	"github.com/spirit-app/spirit/platform/xtest"
)

// TestProbeDoesNotActivateTheSecretService: on a session bus that would
// start a Secret Service on demand, Probe reports it startable and does
// not start it. The fake service only leaves a mark; starting it on
// purpose afterwards shows the mark would have told.
func TestProbeDoesNotActivateTheSecretService(t *testing.T) {
	bus, mark := xtest.StartActivatingBus(t, ssName)
	conn := waitBus(t, bus.Address)
	defer conn.Close()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)

	dir := t.TempDir()
	got, err := Probe(t.Context(), dir)
	if err != nil || got.Keychain != KeychainStartable || got.Backend != BackendKeychain || got.File != FileNone {
		t.Errorf("Probe = %+v, %v; want a startable keychain, the keychain backend, no file", got, err)
	}
	time.Sleep(200 * time.Millisecond) // an activation would have run by now
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("Probe started the Secret Service")
	}
	if after := storetest.Folder(t, dir); len(after) != 0 {
		t.Errorf("Probe created %q", after)
	}

	// The control: asking the service for anything does start it. The
	// reply is not awaited: the fake never claims the name, so the bus
	// answers only when its activation timeout ends.
	conn.Object(ssName, ssPath).Go(ssService+".OpenSession", 0, nil, "plain", dbus.MakeVariant(""))
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake Secret Service never started, so the test shows nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
