package app

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/platform/xtest"
)

// stuckUI is a front end whose Run returns only when released, whatever
// its context says: a toolkit that never lets go of the main goroutine.
type stuckUI struct {
	hang    bool
	release chan struct{}
}

func (u stuckUI) Run(ctx context.Context) error {
	<-ctx.Done()
	if u.hang {
		<-u.release
	}
	return nil
}
func (stuckUI) Events(ctx context.Context) error     { <-ctx.Done(); return nil }
func (stuckUI) Subsystems() map[string]api.Subsystem { return nil }

// lastEvent reads the newest world-log event of the database in dir.
func lastEvent(dir string) (string, error) {
	st, err := store.OpenDir(context.Background(), dir)
	if err != nil {
		return "", err
	}
	defer st.Close()
	es, err := st.RecentEvents(context.Background(), 1)
	if err != nil {
		return "", err
	}
	if len(es) == 0 {
		return "", nil
	}
	return es[0].Text, nil
}

// TestQuitWhenTheUIHangs: a quitting Spirit whose UI never returns from
// Run still stops its parts, records that it stopped, closes the database
// and ends (status 1, with the goroutines in the log) after the grace; a
// UI that returns ends Spirit normally, and nothing exits the process.
func TestQuitWhenTheUIHangs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hang     bool
		wantExit bool
	}{
		{name: "the UI returns", hang: false, wantExit: false},
		{name: "the UI never returns", hang: true, wantExit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var logs xtest.LockedBuffer
			ui := stuckUI{hang: tc.hang, release: make(chan struct{})}
			exited := make(chan int, 1)
			var lastAtExit string
			var lastErr error
			ctx, cancel := context.WithCancel(t.Context())
			built := make(chan struct{})
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, Config{DataDir: dir, Version: "test", Log: slog.New(slog.NewTextHandler(&logs, nil)),
					Desktop: func(*Core, *events.Bus, *slog.Logger) (UI, error) {
						close(built)
						return ui, nil
					},
					UIStopGrace: 300 * time.Millisecond,
					Exit: func(code int) {
						// The database is closed by now.
						lastAtExit, lastErr = lastEvent(dir)
						exited <- code
					}})
			}()
			<-built
			// Quit once Spirit runs: its API file is written last.
			for {
				if _, err := api.ReadInfo(dir); err == nil {
					break
				}
				select {
				case err := <-done:
					t.Fatalf("Run: %v", err)
				case <-time.After(10 * time.Millisecond):
				}
			}
			cancel()

			wait := time.NewTimer(30 * time.Second)
			defer wait.Stop()
			if tc.wantExit {
				select {
				case code := <-exited:
					if code != 1 {
						t.Errorf("exit status %d, want 1", code)
					}
				case <-wait.C:
					t.Fatal("a Spirit whose UI hung never ended")
				}
				if lastErr != nil || lastAtExit != "stopped" {
					t.Errorf("newest event when it ended: %q (%v), want stopped", lastAtExit, lastErr)
				}
				if got := logs.String(); !strings.Contains(got, "did not let go") || !strings.Contains(got, "goroutine ") {
					t.Errorf("the log does not say the UI hung, with the goroutines:\n%s", got)
				}
				close(ui.release)
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-wait.C:
				t.Fatal("Run never returned")
			}
			select {
			case code := <-exited:
				if !tc.wantExit {
					t.Errorf("the process was ended (status %d) though the UI returned", code)
				}
			default:
			}
			if got, err := lastEvent(dir); err != nil || got != "stopped" {
				t.Errorf("newest event: %q (%v), want stopped", got, err)
			}
		})
	}
}
