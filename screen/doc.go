// Package screen is Spirit's sight: the app-switch watcher, screen capture,
// downscaling, near-duplicate detection, exclusions and screen text. It
// knows nothing about agents.
//
// The window system is reached through *platform.Display (X11 over xgb on
// Linux, robotgo on macOS and Windows), behind the small interfaces
// WindowSource and ScreenSource so tests can stand in for it.
//
// A glance typically runs:
//
//	disp, err := platform.OpenDisplay("")
//	...
//	excl := screen.NewExclusions(settings.ExcludedApps, settings.ExcludedTitles)
//	w := screen.StartWatcher(ctx, disp, screen.WatchConfig{Exclusions: excl})
//	defer w.Stop() // pausing = Stop; nothing keeps running
//	capt := screen.NewCapturer(disp, screen.CaptureConfig{Exclusions: excl})
//	seen := screen.NewDeduper(screen.DefaultDedupThreshold)
//	for sw := range w.Switches() {
//		if sw.Excluded {
//			log.Info("glance", "switch", sw) // app and reason, never a title
//			continue
//		}
//		shot, err := capt.Capture(ctx, sw)
//		if errors.Is(err, screen.ErrStale) || errors.Is(err, screen.ErrExcluded) {
//			continue // the user moved on; the next switch follows
//		}
//		...
//		if !seen.IsNew(screen.DedupKey(sw), shot.Hash) {
//			continue // this screen was already sent
//		}
//		// send shot.Data (shot.MIME); if the title is not enough and the
//		// user allows it: text, err := reader.ReadText(ctx, shot.Full)
//	}
//
// Privacy rules hold throughout: an excluded window (password manager,
// private browser window, the user's list) is never captured or read and
// its title is never reported, stored or logged; Capture re-checks the live
// foreground before and after reading pixels, and blacks out the visible
// parts of excluded windows and of Spirit's own windows; shots stay in
// memory unless CaptureConfig.DebugDir is set.
package screen
