package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spirit-app/spirit/agents/calendar"
	"github.com/spirit-app/spirit/agents/llm/setup"
	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app/settings"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/platform/secrets"
	"github.com/spirit-app/spirit/screen"
	"github.com/spirit-app/spirit/screen/ocr"
	"github.com/spirit-app/spirit/voice/model"
	"github.com/spirit-app/spirit/voice/whisper"
)

// check is one line of `spirit doctor`.
type check struct {
	name   string
	ok     bool
	detail string
	fix    string // what to do when !ok
}

// Doctor checks what Spirit needs and prints one line per part, with the fix
// for each problem. It reports whether everything is fine.
//
// The doctor changes nothing: it reads the database read-only, so it also
// works beside a running Spirit and on a read-only data folder.
func Doctor(ctx context.Context, dataDir string, w io.Writer) bool {
	st, stErr := store.OpenDirReadOnly(ctx, dataDir, store.ReadOnlyOptions{AnySchema: true})
	if stErr == nil {
		defer st.Close()
	}
	checks := []check{
		checkDisplay(),
		checkTray(ctx),
		checkMicrophone(),
		checkScreenCapture(),
		checkKeptOut(ctx, st),
		checkScreenText(),
		checkSpeech(ctx, st, dataDir),
		checkProvider(ctx, st, stErr, dataDir),
		checkKeychain(ctx, dataDir),
		checkDatabase(ctx, dataDir),
		checkCalendars(ctx, st, stErr),
	}
	fmt.Fprintf(w, "Spirit doctor (data directory %s)\n\n", dataDir)
	all := true
	for _, c := range checks {
		mark := "OK     "
		if !c.ok {
			mark, all = "PROBLEM", false
		}
		fmt.Fprintf(w, "  %s  %-15s %s\n", mark, c.name, c.detail)
		if !c.ok && c.fix != "" {
			fmt.Fprintf(w, "  %7s  %-15s fix: %s\n", "", "", c.fix)
		}
	}
	if all {
		fmt.Fprintln(w, "\nEverything Spirit needs is in place.")
	} else {
		fmt.Fprintln(w, "\nSpirit runs with what is available; fix the problems above for the rest.")
	}
	return all
}

// checkCalendars reports the calendars: how many, their last sync, and
// which failed and why. No calendar is no problem: Spirit runs without.
func checkCalendars(ctx context.Context, st *store.Store, stErr error) check {
	if stErr != nil {
		return check{name: "calendars", ok: true, detail: "not checked: the database cannot be read (see below)"}
	}
	cals, err := st.Calendars(ctx)
	if err != nil {
		// A database from before calendars has none.
		return check{name: "calendars", ok: true, detail: "none"}
	}
	return calendarsCheck(cals, time.Local)
}

// calendarsCheck is the doctor's calendars line for cals.
func calendarsCheck(cals []store.Calendar, loc *time.Location) check {
	state, detail := calendarsState(cals, loc)
	c := check{name: "calendars", ok: state != "error", detail: detail}
	if !c.ok {
		c.fix = "`spirit calendar list` shows each calendar's error; fix the file, address or password, then `spirit calendar sync ID` (or remove it and add it again)"
		for _, cal := range cals {
			if cal.LastError == calendar.ErrNoCalendarAccess.Error() {
				c.fix = fmt.Sprintf("sign in to the mail account again with `spirit mail signin %d` (allow its calendars), then `spirit calendar sync %d`",
					cal.Account, cal.ID)
				break
			}
		}
	}
	return c
}

func checkDisplay() check {
	c := check{name: "display"}
	d, err := platform.OpenDesktop()
	if err != nil && runtime.GOOS != "linux" {
		c.ok, c.detail = true, "native desktop ("+runtime.GOOS+")"
		return c
	}
	if err != nil {
		c.detail = err.Error()
		c.fix = "run Spirit inside a desktop session (X11, or Wayland with XWayland); on a server use `spirit --headless`"
		return c
	}
	defer d.Close()
	scr, _ := d.ScreenRect()
	wa, _ := d.WorkArea()
	c.ok = true
	where := "X11 " + os.Getenv("DISPLAY")
	if runtime.GOOS == "windows" {
		where = "Windows desktop"
	}
	c.detail = fmt.Sprintf("%s, screen %dx%d, work area %v", where, scr.Dx(), scr.Dy(), wa)
	return c
}

func checkTray(ctx context.Context) check {
	c := check{name: "tray host"}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	st, err := platform.ProbeTray(ctx)
	switch st {
	case platform.TrayReady:
		c.ok, c.detail = true, "a StatusNotifier host will show Spirit's icon"
	case platform.TrayNative:
		c.ok, c.detail = true, "the system tray is built in"
	case platform.TrayNoHost:
		c.detail = "no StatusNotifier host on the session bus: no tray icon (the orb still gives the menu)"
		c.fix = "GNOME: install the “AppIndicator and KStatusNotifierItem Support” extension; other desktops: enable a system tray panel applet"
	default:
		c.detail = "no DBus session bus"
		if err != nil {
			c.detail += ": " + err.Error()
		}
		c.fix = "start Spirit from your desktop session, or with `dbus-run-session -- spirit`"
	}
	return c
}

func checkMicrophone() check {
	c := check{name: "microphone"}
	if runtime.GOOS != "linux" {
		c.ok, c.detail = true, "not checked on "+runtime.GOOS+" by this version"
		return c
	}
	b, err := os.ReadFile("/proc/asound/cards")
	cards := strings.TrimSpace(string(b))
	if err != nil || cards == "" || strings.Contains(cards, "no soundcards") {
		c.detail = "no sound card found"
		c.fix = "plug in a microphone or headset; Spirit keeps running and listens once one is there"
		return c
	}
	first := strings.TrimSpace(strings.SplitN(cards, "\n", 2)[0])
	c.ok, c.detail = true, "sound card: "+first
	return c
}

func checkScreenCapture() check {
	c := check{name: "screen capture"}
	d, err := platform.OpenDesktop()
	if err != nil && runtime.GOOS != "linux" {
		c.ok, c.detail = true, "not checked on "+runtime.GOOS+" by this version"
		return c
	}
	if err != nil {
		c.detail = "no display to capture"
		c.fix = "run Spirit inside a desktop session"
		return c
	}
	defer d.Close()
	if err := d.CaptureProbe(); err != nil {
		c.detail = err.Error()
		c.fix = "Wayland sessions need XWayland and the screenshot portal; check that your session allows screen capture"
		if runtime.GOOS == "windows" {
			c.fix = "run Spirit in your own desktop session, not as a service, and unlock the computer"
		}
		return c
	}
	c.ok, c.detail = true, "the screen can be read (screenshots stay in memory)"
	return c
}

// checkKeptOut counts the windows on screen now that Spirit keeps out
// (a private browser window, one the application protects from capture,
// the lawyer's list), with the reasons: never their titles, which name
// what the lawyer keeps private. st may be nil (no database yet): the
// built-in rules then apply alone.
func checkKeptOut(ctx context.Context, st *store.Store) check {
	c := check{name: "kept out", ok: true}
	d, err := platform.OpenDisplay("")
	if err != nil {
		c.detail = "not checked: no display"
		return c
	}
	defer d.Close()
	wins, err := d.VisibleWindows(ctx)
	if errors.Is(err, platform.ErrUnsupported) {
		c.detail = "not checked on " + runtime.GOOS + " by this version"
		return c
	}
	if err != nil {
		c.ok, c.detail = false, "cannot list the windows on screen: "+err.Error()
		return c
	}
	var s settings.Settings
	if st != nil {
		// Settings that are not valid read as their defaults.
		s, _ = settings.Load(ctx, st)
	}
	excl := screen.NewExclusions(s.ExcludedApps, s.ExcludedTitles)
	var reasons []string
	for _, w := range wins {
		if out, why := excl.Match(w); out {
			reasons = append(reasons, why)
		}
	}
	c.detail = keptOutLine(reasons)
	return c
}

// keptOutLine says how many windows are kept out, and why, from one reason
// per window: the commonest reason first.
func keptOutLine(reasons []string) string {
	if len(reasons) == 0 {
		return "no window on screen is kept out now"
	}
	count := map[string]int{}
	for _, r := range reasons {
		count[r]++
	}
	kinds := make([]string, 0, len(count))
	for r := range count {
		kinds = append(kinds, r)
	}
	slices.SortFunc(kinds, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(kinds))
	for i, r := range kinds {
		parts[i] = fmt.Sprintf("%d %s", count[r], r)
	}
	n := fmt.Sprintf("%d windows on screen are", len(reasons))
	if len(reasons) == 1 {
		n = "1 window on screen is"
	}
	return n + " kept out now, never looked at or named: " + strings.Join(parts, ", ")
}

// checkScreenText loads the OCR and its language data as the glance
// would (about 0.2 s), or says that this build has none.
func checkScreenText() check {
	c := check{name: "screen text"}
	if err := ocr.Available(); err != nil {
		c.detail = err.Error() + ": Spirit reads the window titles, not the text inside windows"
		return c
	}
	t, err := ocr.New(ocr.Config{})
	if err != nil {
		c.detail = err.Error()
		c.fix = "install Tesseract's English language data (Debian: apt-get install tesseract-ocr-eng)"
		return c
	}
	t.Close()
	c.ok, c.detail = true, "text inside windows is read on this computer with Tesseract (English)"
	return c
}

// checkSpeech loads the speech model the settings in st choose; st may be
// nil (no database yet), which chooses the best installed one.
func checkSpeech(ctx context.Context, st *store.Store, dataDir string) check {
	c := check{name: "speech model"}
	var pref string
	if st != nil {
		// A setting that is not valid reads as the default: the best installed.
		s, _ := settings.Load(ctx, st)
		pref = s.VoiceModel
	}
	defaultDir, _ := platform.DefaultDataDir()
	download := model.DownloadCommand(dataDir, defaultDir)
	path, err := model.Find(dataDir, pref)
	if err != nil {
		c.detail = "no speech model in " + model.Dir(dataDir) + ": voice commands are off"
		c.fix = download + " (or download one in Settings → Speech)"
		return c
	}
	start := time.Now()
	tr, err := whisper.Load(ctx, path, whisper.Options{})
	if err != nil {
		c.detail = err.Error()
		c.fix = "delete " + path + " and run `" + download + "`"
		return c
	}
	tr.Close()
	c.ok = true
	c.detail = fmt.Sprintf("%s (whisper.cpp %s on this device, loads in %v)", filepath.Base(path), whisper.Version, time.Since(start).Round(time.Millisecond))
	return c
}

// checkProvider tests the provider set in st; stErr is why st is nil. The
// keychain is opened only when a provider is set, since only then is there
// a key to read.
func checkProvider(ctx context.Context, st *store.Store, stErr error, dataDir string) check {
	c := check{name: "model provider"}
	switch {
	case errors.Is(stErr, store.ErrNoData):
		c.ok, c.detail = true, "none configured yet: Spirit decides with its on-device rules only"
		return c
	case stErr != nil:
		c.detail = "cannot read the settings: the database check below says why"
		return c
	}
	s, err := setup.Load(ctx, st)
	if err != nil {
		c.detail = err.Error()
		return c
	}
	if !s.Configured() {
		c.ok, c.detail = true, "none configured: Spirit decides with its on-device rules only, and nothing leaves this computer"
		return c
	}
	sec, err := secrets.Open(dataDir)
	if err != nil {
		c.detail, c.fix = err.Error(), "unlock your keyring, then `spirit provider test`"
		return c
	}
	p, err := setup.Provider(ctx, s, sec, nil)
	if err == nil {
		var msg string
		if msg, err = setup.Test(ctx, p, s.Roles.Triage); err == nil {
			c.ok, c.detail = true, msg
			return c
		}
	}
	c.detail = err.Error()
	c.fix = "check the provider, models and API key: `spirit provider show`, then `spirit provider set …`"
	return c
}

// keychainWait bounds the doctor's look at the keychain: a session bus
// that accepts a connection and never answers must not hang it.
const keychainWait = 5 * time.Second

// checkKeychain looks at the keychain and the secrets files with
// secrets.Probe, which creates nothing, writes nothing and starts no
// keyring daemon; secrets.Open would create secrets.key and could start
// one.
func checkKeychain(ctx context.Context, dataDir string) check {
	ctx, cancel := context.WithTimeout(ctx, keychainWait)
	defer cancel()
	st, err := secrets.Probe(ctx, dataDir)
	return keychainCheck(st, err, dataDir)
}

// keychainCheck names what secrets.Probe found and the fix that keeps
// the lawyer's saved passwords. Moving secrets.json aside loses all of
// them, so it is the advice only when they cannot be read any more (the
// file is damaged, or its key is gone), and it says what is lost.
func keychainCheck(st secrets.Status, err error, dataDir string) check {
	c := check{name: "keychain"}
	saved := savedSecrets(st.Values)
	reenter := "sign in to your mail accounts and model provider again"
	// Both files: a damaged secrets.key left behind keeps Spirit from
	// starting a new store.
	aside := secrets.FileName + " (and " + secrets.KeyFileName + ", if there) in " + dataDir + " aside (keep them)"
	switch st.File {
	case secrets.FileDamaged:
		if n := len(st.Damaged); n > 0 && n < st.Values {
			// The rest decrypts: re-entering those few replaces them.
			c.detail = fmt.Sprintf("the saved secrets of %s in %s are damaged; the other %d are fine",
				strings.Join(st.Damaged, ", "), st.Path, st.Values-n)
			c.fix = "sign in to those accounts again (Settings → Mail accounts, or Model provider): that replaces the damaged entries"
			return c
		}
		c.detail = err.Error()
		c.fix = "move " + aside + " and " + reenter + ": the " + saved + " in it cannot be read and must be entered again"
		return c
	case secrets.FileKeyLost:
		c.detail = err.Error()
		c.fix = "restore " + secrets.KeyFileName + " or your keyring from a backup if you have one; otherwise the " + saved +
			" cannot be read: move " + aside + " and " + reenter + ", entering each password and token again"
		return c
	case secrets.FileUnreadable:
		c.detail = err.Error()
		c.fix = "fix the permissions of " + secrets.FileName + " and " + secrets.KeyFileName + " in " + dataDir +
			" (chmod 600); nothing needs to be moved or entered again"
		return c
	case secrets.FileUnverified:
		switch st.Keychain {
		case secrets.KeychainNone:
			c.detail = "the key to the " + saved + " is in the OS keychain, which is not reachable now: " + st.KeychainDetail
			c.fix = "start Spirit from your desktop session, where the keyring runs (over SSH or on a server it is not reachable); nothing is lost, so keep " + secrets.FileName
			return c
		case secrets.KeychainReady:
			c.detail = err.Error()
			c.fix = "unlock your keyring (GNOME Keyring, KWallet, macOS Keychain) and run `spirit doctor` again; nothing is lost, so keep " + secrets.FileName
			return c
		}
		// A locked or stopped keyring asks to be unlocked when Spirit
		// needs a password: nothing to fix now.
	}

	// The files are fine (or their key waits in a locked or stopped
	// keyring): what is left to say is where the key is kept.
	switch st.Keychain {
	case secrets.KeychainReady:
		c.ok, c.detail = true, "passwords and tokens are protected by the OS keychain ("+st.KeychainDetail+")"
		if st.KeyIn == "file" {
			c.detail += "; the key still sits in " + secrets.KeyFileName + " and moves into the keychain the next time Spirit needs a password"
		}
	case secrets.KeychainLocked, secrets.KeychainStartable:
		c.ok, c.detail = true, "passwords and tokens go to the OS keychain: "+st.KeychainDetail
	default:
		c.fix = "install and unlock a Secret Service keyring (e.g. gnome-keyring) and start Spirit from your desktop session, so the key moves into it"
		if st.Values == 0 {
			c.detail = "no OS keychain: " + st.KeychainDetail + ". Spirit will keep passwords and tokens in an encrypted file beside the database, with its key beside it, when one is first needed"
		} else {
			c.detail = "no OS keychain: " + st.KeychainDetail + ". Spirit keeps the " + saved + " in an encrypted file whose key sits beside it"
		}
		return c
	}
	if st.Values > 0 {
		c.detail += fmt.Sprintf(" (%s)", saved)
	}
	return c
}

// savedSecrets counts the saved passwords and tokens in words; 0 is also
// "not known" (a file too damaged to count).
func savedSecrets(n int) string {
	switch n {
	case 0:
		return "saved passwords and tokens"
	case 1:
		return "1 saved password or token"
	}
	return fmt.Sprintf("%d saved passwords and tokens", n)
}

// notWritableFix is the advice for a data folder Spirit cannot write in.
func notWritableFix(dir string) string {
	return "the data folder " + dir + " is not writable: fix its permissions (chmod u+w " + dir + ")"
}

// dbFacts is what checkDatabase finds out about spirit.db without
// changing anything; databaseCheck turns it into advice.
type dbFacts struct {
	dir, path string
	missing   bool  // no spirit.db yet
	empty     bool  // spirit.db has 0 bytes
	dirErr    error // why the data folder is not writable
	fileErr   error // why spirit.db is not writable
	open      error // from store.OpenReadOnly
	lock      error // from store.CheckWriteLock: another program's write lock
	schema    int64
	integrity error
	mode      fs.FileMode
}

// lockWait is how long the doctor waits for another program's write lock
// before calling the database locked: Spirit's own writes take milliseconds.
const lockWait = 2 * time.Second

func checkDatabase(ctx context.Context, dataDir string) check {
	path := filepath.Join(dataDir, store.FileName)
	f := dbFacts{dir: dataDir, path: path, dirErr: writable(dataDir)}
	if errors.Is(f.dirErr, fs.ErrNotExist) {
		f.dirErr = nil // Spirit creates the folder
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f.missing = true
		return databaseCheck(f)
	case err != nil:
		f.open = err
		return databaseCheck(f)
	}
	f.empty, f.mode, f.fileErr = fi.Size() == 0, fi.Mode().Perm(), writable(path)
	if f.empty {
		return databaseCheck(f)
	}
	st, err := store.OpenReadOnly(ctx, path, store.ReadOnlyOptions{AnySchema: true})
	if err != nil {
		f.open = err
		return databaseCheck(f)
	}
	defer st.Close()
	// With st open, the lock check's connection never closes last, so it
	// never checkpoints: the doctor writes nothing.
	f.lock = store.CheckWriteLock(ctx, path, lockWait)
	if f.schema, err = st.SchemaVersion(ctx); err != nil {
		f.open = err
		return databaseCheck(f)
	}
	f.integrity = st.IntegrityCheck(ctx)
	return databaseCheck(f)
}

// databaseCheck names what is wrong with spirit.db and the fix that keeps
// the lawyer's data. Only a file that is not Spirit's or is damaged is
// worth replacing with a fresh database; a lock or a permission is fixed
// where it is.
func databaseCheck(f dbFacts) check {
	c := check{name: "database"}
	moveAside := "move " + f.path + " aside (keep it: it holds your history) and start Spirit to create a fresh one"
	damaged := "restore " + f.path + " from a backup; if you have none, " + moveAside
	switch {
	case f.missing && f.dirErr != nil:
		c.detail = "no database yet, and Spirit cannot create one: " + f.dirErr.Error()
		c.fix = notWritableFix(f.dir)
	case f.missing:
		c.ok, c.detail = true, "no database yet: Spirit creates "+f.path+" when it starts"
	case f.empty:
		c.detail = f.path + " is empty (0 bytes): Spirit will take it for a new database and start afresh"
		c.fix = "if it held your history, restore " + f.path + " from a backup before starting Spirit; otherwise nothing to do"
	case errors.Is(f.open, store.ErrBusy) || errors.Is(f.lock, store.ErrBusy):
		c.detail = "another program holds " + f.path + " locked: Spirit cannot save anything while it does"
		c.fix = "close the program using it (a backup or sync tool, a database browser, another Spirit), then start Spirit"
	case errors.Is(f.open, store.ErrCorrupt) || errors.Is(f.integrity, store.ErrCorrupt):
		c.detail = f.path + " is damaged: " + plainError(errors.Join(f.open, f.integrity))
		c.fix = damaged
	case errors.Is(f.open, store.ErrNotSpirit):
		c.detail = f.open.Error()
		c.fix = "it is not Spirit's (another program's file?): " + moveAside
	case errors.Is(f.open, store.ErrNoData):
		c.ok, c.detail = true, f.path+" holds no data yet: Spirit sets it up when it starts"
	case errors.Is(f.open, store.ErrSchemaTooNew):
		c.detail = f.open.Error()
		c.fix = "update Spirit: a newer version has used this database"
	case errors.Is(f.open, fs.ErrPermission):
		c.detail = f.open.Error()
		c.fix = "fix the permissions of " + f.path + " (chmod 600 " + f.path + ")"
	case f.open != nil:
		c.detail = f.open.Error()
	case f.integrity != nil:
		c.detail = f.integrity.Error()
		c.fix = damaged
	case f.lock != nil:
		c.detail = "could not check whether another program holds the database: " + f.lock.Error()
	case f.dirErr != nil:
		c.detail = f.dirErr.Error()
		c.fix = notWritableFix(f.dir)
	case f.fileErr != nil:
		c.detail = f.path + " is not writable: " + f.fileErr.Error()
		c.fix = "fix its permissions (chmod 600 " + f.path + ")"
	case f.mode&0o077 != 0:
		c.detail = fmt.Sprintf("%s is readable by other users (%v)", f.path, f.mode)
		c.fix = "chmod 600 " + f.path
	default:
		c.ok = true
		c.detail = fmt.Sprintf("%s (schema %d, integrity ok, mode 0600)", f.path, f.schema)
		if latest := store.LatestSchemaVersion(); f.schema < latest {
			c.detail = fmt.Sprintf("%s (schema %d, upgraded to %d when Spirit starts; integrity ok, mode 0600)", f.path, f.schema, latest)
		}
	}
	return c
}
