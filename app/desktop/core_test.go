package desktop

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
)

// spirit is Spirit started whole by app.Run on a fresh data directory,
// headless but for the front end the test builds: the real core, the real
// event stream and the real parts, as the desktop meets them.
type spirit struct {
	core *app.Core
	bus  *events.Bus
	// dir is Spirit's data folder (its keychain file when no session bus).
	dir string
	// store is a second handle on Spirit's database, for seeding and
	// writing from the test as another program would.
	store *store.Store
	// stopped is closed once app.Run returned, with runErr.
	stopped <-chan struct{}
	runErr  *error
}

// frontEnd is the app.UI app.Run gets from the test: it hands over the
// core and the stream and shows nothing itself.
type frontEnd struct{}

func (frontEnd) Run(ctx context.Context) error        { <-ctx.Done(); return nil }
func (frontEnd) Events(ctx context.Context) error     { <-ctx.Done(); return nil }
func (frontEnd) Subsystems() map[string]api.Subsystem { return nil }

// startSpirit runs app.Run in dir until the test ends. seed, when not nil,
// runs on the database before Spirit opens it.
func startSpirit(t *testing.T, seed func(st *store.Store)) spirit {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	if seed != nil {
		st, err := store.OpenDir(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		seed(st)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DISPLAY", "") // no watcher on the tester's screen
	got := make(chan spirit, 1)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- app.Run(runCtx, app.Config{DataDir: dir, Version: "test",
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Desktop: func(c *app.Core, bus *events.Bus, _ *slog.Logger) (app.UI, error) {
				got <- spirit{core: c, bus: bus}
				return frontEnd{}, nil
			}})
	}()
	var s spirit
	select {
	case s = <-got:
	case err := <-done:
		stop()
		t.Fatalf("app.Run: %v", err)
	case <-time.After(30 * time.Second):
		stop()
		t.Fatal("app.Run did not build the front end within 30 s")
	}
	stopped := make(chan struct{})
	var runErr error
	go func() {
		runErr = <-done
		close(stopped)
	}()
	s.stopped, s.runErr = stopped, &runErr
	t.Cleanup(func() {
		stop()
		<-stopped
		// ErrRestart: the test deleted all data, as the lawyer can.
		if err := runErr; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, app.ErrRestart) {
			t.Errorf("app.Run: %v", err)
		}
	})
	st, err := store.OpenDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s.store, s.dir = st, dir
	return s
}
