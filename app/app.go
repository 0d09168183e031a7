package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/spirit-app/spirit/agents/reminders"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/agents/task"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/platform"
)

// Config is how main starts Spirit.
type Config struct {
	DataDir  string // resolved data directory
	Headless bool   // no GUI: nudges go to the log and the local API
	Version  string
	Log      *slog.Logger
}

// ErrAlreadyRunning is returned after a second instance handed over to the
// first one; main exits 0 on it.
var ErrAlreadyRunning = errors.New("Spirit is already running; it was asked to show itself")

// shutdownGrace bounds a graceful exit: the issue promises 2 s.
const shutdownGrace = 1500 * time.Millisecond

// Run starts Spirit and blocks until Quit, or until ctx ends (SIGINT,
// SIGTERM), then shuts down in order: UI, API, store.
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
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("close database", "err", err)
		}
	}()

	core, err := NewCore(ctx, st, cfg.Version, log)
	if err != nil {
		return err
	}
	core.event(ctx, "system", "spirit", "started "+cfg.Version+" ("+mode(cfg.Headless)+")")
	core.rem = reminders.New(st, core, reminders.Options{Logger: log})
	core.tasks = core.newRunner()

	srv := api.New(core, api.WithLogger(log))
	addr, err := srv.Start(ctx, cfg.DataDir)
	if err != nil {
		return fmt.Errorf("start local API: %w", err)
	}
	log.Info("local API listening", "addr", addr, "info", cfg.DataDir+"/"+api.InfoFile)

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	core.runCtx = runCtx
	var bg sync.WaitGroup
	start := func() {
		// Once a presenter is attached: put back what is still open, then
		// let reminders fire.
		core.presentOpen(runCtx)
		v := startVoice(runCtx, core, cfg.DataDir)
		core.mu.Lock()
		core.voice = v
		core.mu.Unlock()
		ms := newMailSyncer(core, cfg.DataDir)
		wt := newWatching(core)
		core.mu.Lock()
		core.mail, core.watch = ms, wt
		core.mu.Unlock()
		wt.setPaused(runCtx, core.Status().WatchingPaused)
		core.voiceChanged()
		bg.Add(6)
		go func() {
			defer bg.Done()
			if err := core.tasks.Run(runCtx); err != nil && runCtx.Err() == nil {
				log.Error("agents stopped", "err", err)
			}
		}()
		go func() {
			defer bg.Done()
			core.tasks.KeepEvery(runCtx, task.KeeperInterval)
		}()
		go func() {
			defer bg.Done()
			ms.run(runCtx)
		}()
		go func() {
			defer bg.Done()
			<-v.done
		}()
		go func() {
			defer bg.Done()
			if err := core.rem.Run(runCtx); err != nil && runCtx.Err() == nil {
				log.Error("reminders stopped", "err", err)
			}
		}()
		go func() {
			defer bg.Done()
			core.maintain(runCtx)
		}()
	}
	if cfg.Headless {
		core.SetPresenter(headless{log: log})
		start()
		<-runCtx.Done()
	} else if err := runGUI(runCtx, core, log, start); err != nil {
		log.Error("user interface", "err", err)
	}
	stop()
	if w := core.watcher(); w != nil {
		w.stop()
	}
	bg.Wait()
	core.closeOCR()

	// Shut down with a fresh context: ctx may already be cancelled.
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("local API shutdown", "err", err)
	}
	core.event(sctx, "system", "spirit", "stopped")
	log.Info("Spirit stopped")
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
