package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/events"
	"github.com/spirit-app/spirit/app/supervisor"
	"github.com/spirit-app/spirit/platform"
)

// Config is how main starts Spirit.
type Config struct {
	DataDir  string // resolved data directory
	Headless bool   // no GUI: nudges go to the log and the local API
	Version  string
	Log      *slog.Logger
	// Desktop builds the tray app's front end (app/desktop); nil runs
	// headless. main passes it in, so this package never links the GUI
	// toolkit and its tests build without it.
	Desktop func(c *Core, bus *events.Bus, log *slog.Logger) (UI, error)
	// UIStopGrace bounds how long a quitting Spirit waits for the UI's Run
	// to return; 0 means uiStopGrace. Exit ends the process when it does
	// not (nil means os.Exit). Both are for tests.
	UIStopGrace time.Duration
	Exit        func(code int)
	// ReleaseImageAfter is how long after start the pages of Spirit's
	// binary that start-up used are given back (releaseAtRest); 0 means
	// releaseImageAfter.
	ReleaseImageAfter time.Duration
}

// UI is the front end the lawyer sees: the desktop, or the log. It is
// built before anything starts and subscribes to the event stream then, so
// it misses nothing said while it starts.
type UI interface {
	// Run shows Spirit until the lawyer quits or ctx ends. It runs on the
	// main goroutine, which the GUI toolkit requires.
	Run(ctx context.Context) error
	// Events reads the event stream and shows what it says until ctx
	// ends; the supervisor runs it with Spirit's other parts.
	Events(ctx context.Context) error
	// Subsystems reports the UI's own parts for /health.
	Subsystems() map[string]api.Subsystem
}

// ErrAlreadyRunning is returned after a second instance handed over to the
// first one; main exits 0 on it.
var ErrAlreadyRunning = errors.New("Spirit is already running; it was asked to show itself")

// shutdownGrace bounds a graceful exit: the issue promises 2 s.
const shutdownGrace = api.ShutdownGrace

// partsStopGrace bounds how long Quit waits for the parts to stop.
const partsStopGrace = 5 * time.Second

// uiStopGrace bounds how long Quit waits for the UI to let go of the main
// goroutine. The desktop quits in well under a second; a toolkit that
// never returns would otherwise keep a Spirit running that the lawyer
// quit, holding the data folder so that the next start cannot begin.
const uiStopGrace = 10 * time.Second

// Run starts Spirit and blocks until Quit, or until ctx ends (SIGINT,
// SIGTERM), then shuts down in order: UI, then the parts in the reverse of
// their start (the API first), then the store.
func Run(ctx context.Context, cfg Config) error {
	log := cfg.Log
	lock, err := platform.LockInstance(cfg.DataDir)
	if errors.Is(err, platform.ErrLocked) {
		return handOver(ctx, cfg.DataDir)
	}
	if err != nil {
		return err
	}
	defer lock.Unlock()

	st, err := store.OpenDir(ctx, cfg.DataDir)
	if err != nil {
		return err
	}
	// Closed once: before deleting all data, or on the way out.
	closeStore := sync.OnceValue(st.Close)
	defer func() {
		if err := closeStore(); err != nil {
			log.Error("close database", "err", err)
		}
	}()

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	p, err := build(ctx, partsConfig{Store: st, DataDir: cfg.DataDir, Version: cfg.Version, Log: log, Quit: stop})
	if err != nil {
		return err
	}
	defer p.close()
	core := p.core
	core.event(ctx, "system", "spirit", "started "+cfg.Version+" ("+mode(cfg.Headless)+")")

	var ui UI = newHeadless(core, p.bus, log)
	if !cfg.Headless && cfg.Desktop != nil {
		if ui, err = cfg.Desktop(core, p.bus, log); err != nil {
			return fmt.Errorf("start the desktop: %w", err)
		}
	}

	p.sup.Add(partUI, supervisor.Func(ui.Events))
	srv := api.New(backend{Core: core, ui: ui}, api.WithLogger(log))
	addr, err := srv.Start(ctx, cfg.DataDir)
	if err != nil {
		return fmt.Errorf("start local API: %w", err)
	}
	log.Info("local API listening", "addr", addr, "info", cfg.DataDir+"/"+api.InfoFile)
	// Added last, so it is the first part stopped: no request reaches a
	// part that is shutting down.
	p.sup.Add(partAPI, srv)

	supervised := make(chan error, 1)
	go func() { supervised <- p.sup.Run(runCtx) }()
	// What follows the UI runs once, after it returns or, if it never
	// does, from the watchdog (the toolkit keeps the main goroutine).
	finish := sync.OnceValue(func() error {
		return stopParts(log, p, core, cfg.DataDir, supervised, closeStore)
	})
	uiDone := make(chan struct{})
	go uiWatchdog(runCtx, cfg, uiDone, finish, closeStore)
	go releaseAtRest(runCtx, log, cmp.Or(cfg.ReleaseImageAfter, releaseImageAfter))
	if err := ui.Run(runCtx); err != nil {
		log.Error("user interface", "err", err)
	}
	close(uiDone)
	stop()
	return finish()
}

// uiWatchdog waits, once Spirit is quitting, for the UI's Run to return
// (uiDone). If it has not within the grace, it says so with every
// goroutine, stops Spirit's parts and closes the database as a normal
// quit does, and ends the process with status 1.
func uiWatchdog(ctx context.Context, cfg Config, uiDone <-chan struct{}, finish, closeStore func() error) {
	select {
	case <-uiDone:
		return
	case <-ctx.Done():
	}
	grace := cmp.Or(cfg.UIStopGrace, uiStopGrace)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-uiDone:
		return
	case <-t.C:
	}
	cfg.Log.Error("the window system did not let go after Quit; quitting without it", "waited", grace, "goroutines", allStacks())
	if err := finish(); err != nil && !errors.Is(err, ErrRestart) {
		cfg.Log.Error("stopping Spirit", "err", err)
	}
	if err := closeStore(); err != nil {
		cfg.Log.Error("close database", "err", err)
	}
	exit := cfg.Exit
	if exit == nil {
		exit = os.Exit
	}
	exit(1)
}

// allStacks is every goroutine's stack, for a log line that says what
// kept Spirit from quitting.
func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// stopParts stops Spirit's parts once the UI is done and records the
// stop; if the lawyer asked to delete all data, it closes the database and
// deletes it.
func stopParts(log *slog.Logger, p *parts, core *Core, dataDir string, supervised <-chan error, closeStore func() error) error {
	select {
	case err := <-supervised:
		if err != nil {
			log.Error("stopping Spirit's parts", "err", err)
		}
	case <-time.After(partsStopGrace):
		// A part that ignores its context must not keep Spirit from
		// quitting: the lawyer asked to quit, and every write is a
		// transaction of its own, so nothing half-done is kept. Say
		// which part, with every goroutine, so it can be found.
		var stuck []string
		for _, st := range p.sup.States() {
			if st.State != supervisor.StateStopped && st.State != supervisor.StateDone {
				stuck = append(stuck, st.Name+" ("+st.State+")")
			}
		}
		log.Error("parts did not stop in time; quitting without them", "waited", partsStopGrace, "parts", strings.Join(stuck, ", "), "goroutines", allStacks())
	}

	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	core.event(sctx, "system", "spirit", "stopped")
	log.Info("Spirit stopped")
	if d, ok := core.deleteAllAsked(); ok {
		// Every part has stopped; the database closes before its files
		// go, and the folder stays locked until they are gone.
		if err := closeStore(); err != nil {
			return fmt.Errorf("delete all data: the database did not close, nothing was deleted: %w", err)
		}
		if err := deleteAllData(sctx, dataDir, d.Models, log); err != nil {
			// Start again all the same: the lawyer sees Spirit come back,
			// and what is left is named in the log.
			return errors.Join(ErrRestart, err)
		}
		return ErrRestart
	}
	return nil
}

func mode(headless bool) string {
	if headless {
		return "headless"
	}
	return "tray"
}

// handOver asks the running Spirit to show itself.
func handOver(ctx context.Context, dataDir string) error {
	info, err := api.ReadInfo(dataDir)
	if err != nil {
		return fmt.Errorf("another Spirit holds %s but its API file is unreadable (is it still starting?): %w", dataDir, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := api.NewClient(info).Show(cctx); err != nil {
		return fmt.Errorf("another Spirit holds %s but did not answer: %w", dataDir, err)
	}
	return ErrAlreadyRunning
}

// backend is what the local API serves: the core, with the UI's own parts
// in /health.
type backend struct {
	*Core
	ui UI
}

// Health implements api.Backend.
func (b backend) Health(ctx context.Context) api.Health {
	h := b.Core.Health(ctx)
	for k, v := range b.ui.Subsystems() {
		h.Subsystems[k] = v
	}
	return h
}
