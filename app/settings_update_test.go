package app

import (
	"fmt"
	"sync"
	"testing"

	"github.com/spirit-app/spirit/app/settings"
)

// TestConcurrentSettingsChangesKeepEachOther: Settings saving one field
// while the tray flips a pause toggle must not undo each other — each
// change is a load, change and save of the whole settings, so without one
// lock the later save writes back what the other had not yet seen.
func TestConcurrentSettingsChangesKeepEachOther(t *testing.T) {
	c, _ := newTestCore(t, t.TempDir())
	ctx := t.Context()
	const rounds = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*rounds)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 1; i <= rounds; i++ {
			if _, err := c.UpdateSettings(ctx, "test", func(s *settings.Settings) { s.WakePhrase = fmt.Sprintf("hey spirit %d", i) }); err != nil {
				errs <- err
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 1; i <= rounds; i++ {
			// Ends paused: rounds is even.
			if err := c.SetWatchingPaused(ctx, i%2 == 0, "test"); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s, err := c.settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("hey spirit %d", rounds); s.WakePhrase != want {
		t.Errorf("wake phrase = %q, want %q: a toggle's save undid the last settings change", s.WakePhrase, want)
	}
	if !s.WatchingPaused {
		t.Errorf("watching paused = false, want true: a settings save undid the last toggle")
	}
}
