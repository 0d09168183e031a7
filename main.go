// Command spirit is an always-on desktop assistant for lawyers: a tray app
// that listens, glances at the screen and proposes one precise action when
// it is worth it. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/jezek/xgb"

	"github.com/spirit-app/spirit/agents/store"
	"github.com/spirit-app/spirit/app"
	"github.com/spirit-app/spirit/app/api"
	"github.com/spirit-app/spirit/app/desktop"
	"github.com/spirit-app/spirit/platform"
	"github.com/spirit-app/spirit/voice/audio"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `Spirit: an always-on assistant for lawyers.

Usage:
  spirit [--data-dir DIR] [--headless] [--log-level LEVEL]
                                  run Spirit (the tray app, or headless)
  spirit doctor                   check display, tray, microphone, screen capture,
                                  speech model, model provider and database
  spirit world tail [-n N] [-f]   print the world log (-f: keep following)
  spirit world query active|pending|failed|recent [N]
  spirit world check CONSUMER | respond SESSION "text" | event SOURCE ID "text"
                                  the world log's verbs (spirit world for help)
  spirit listen --file speech.wav [--model FILE]
                                  transcribe a 16-bit PCM WAV file and show the commands heard
  spirit model list               show the speech models and which are installed
  spirit model download [NAME]    download a speech model (tiny.en, base.en, small.en)
  spirit autostart on|off|status  start Spirit when you log in, or not
  spirit provider set|show|test    the model provider (optional; keys go to the keychain)
  spirit mail add|list|edit|signin|sync|search|remove
                                  mail accounts and the local mail index (spirit mail for help)
  spirit calendar add|list|sync|upcoming|remove
                                  calendars: an .ics file, a subscription URL, CalDAV, or the Outlook or
                                  Google calendar of a mail account (spirit calendar for help)
  spirit agents list|show ID|cancel ID
                                  the task agents: what they do, their history; stop one
  spirit work list|add --cron SPEC --prompt TEXT|remove ID|run ID
                                  routines: work Spirit does on a schedule (spirit work for help)
  spirit eval intents FILE        run spoken-command cases (JSON lines) and report
  spirit eval ambient FILE [--json] run commitment cases (JSON lines) and report
  spirit eval glance DIR [--json] run glance cases (DIR/glance/<case>/) and report
  spirit eval calendar DIR [--json]
                                  run meeting-brief cases (DIR/calendar/<case>/) and report
  spirit version                  print the version

Every command accepts --data-dir DIR (default: $SPIRIT_DATA_DIR, else the
OS's per-user data directory), anywhere: before the command, between its
words or after its arguments. A command's own flags may come before or
after its arguments; "--" ends them.
`

// softMemoryLimit is the Go heap Spirit collects harder to stay under
// (GOMEMLIMIT overrides it). Spirit at rest lives on about 20 MB of heap;
// reading a large calendar or mail folder builds and drops much more, and
// without a limit the collector lets the heap grow to twice what is live.
const softMemoryLimit = 192 << 20

func main() {
	attachConsole() // before os.Stdout is handed on
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	args = commandFirst(args)
	cmd := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	switch cmd {
	case audio.HelperCommand:
		// The microphone runs in a child process of Spirit's own binary.
		return audio.RunHelper()
	case "listen":
		err = runListen(ctx, args, stdout, stderr)
	case "":
		passiveOpenMP()
		err = runSpirit(ctx, args, stderr)
	case "doctor":
		err = runDoctor(ctx, args, stdout, stderr)
	case "world":
		err = runWorld(ctx, args, stdout, stderr)
	case "provider":
		err = runProvider(ctx, args, stdout, stderr)
	case "mail":
		err = runMail(ctx, args, stdout, stderr)
	case "calendar":
		err = runCalendar(ctx, args, stdout, stderr)
	case "agents":
		err = runAgents(ctx, args, stdout, stderr)
	case "work":
		err = runWork(ctx, args, stdout, stderr)
	case "model":
		err = runModel(ctx, args, stdout, stderr)
	case "autostart":
		err = runAutostart(ctx, args, stdout, stderr)
	case "eval":
		err = runEval(args, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "spirit %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "spirit: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errProblems):
		return 1
	case errors.Is(err, store.ErrBusy):
		// Through the running Spirit's API (a 503) or straight from the
		// database: the same words either way.
		fmt.Fprintf(stderr, "spirit: %s: another program is writing to %s; try again in a moment\n", api.BusyMessage, store.FileName)
		return 1
	}
	fmt.Fprintf(stderr, "spirit: %s\n", termLines(err.Error()))
	return 1
}

var (
	errUsage    = errors.New("usage")
	errProblems = errors.New("problems found")
)

// hasSubcommand reports whether cmd's first argument is a word naming what
// to do (spirit model download, spirit world tail).
func hasSubcommand(cmd string) bool {
	switch cmd {
	case "world", "provider", "mail", "calendar", "agents", "work", "model", "eval", "autostart":
		return true
	}
	return false
}

// commandFirst moves the flags every command shares (--data-dir DIR,
// --data-dir=DIR), when written before the command's words, to just after
// them: `spirit --data-dir D model download tiny.en` and `spirit model
// --data-dir D download tiny.en` read as `spirit model download --data-dir
// D tiny.en`, whose flags each command's parse takes wherever they stand.
// Only the shared flags move: another flag before the command (--headless)
// means running Spirit itself, and a command's own flags are known only to
// it. Without a command word, args are unchanged.
func commandFirst(args []string) []string {
	var lifted, words []string
	rest := args
	want := 1
	for len(rest) > 0 && len(words) < want {
		a := rest[0]
		switch {
		case a == "--data-dir" || a == "-data-dir":
			if len(rest) < 2 {
				return args // its value is missing: let the parser say so
			}
			lifted, rest = append(lifted, rest[0], rest[1]), rest[2:]
		case strings.HasPrefix(a, "--data-dir=") || strings.HasPrefix(a, "-data-dir="):
			lifted, rest = append(lifted, a), rest[1:]
		case strings.HasPrefix(a, "-"):
			// Another flag (or "--"): the command's words, if any, are
			// not found before it.
			if len(words) == 0 {
				return args
			}
			want = 0
		default:
			words, rest = append(words, a), rest[1:]
			if len(words) == 1 && hasSubcommand(a) {
				want = 2
			}
		}
	}
	if len(words) == 0 {
		return args
	}
	out := make([]string, 0, len(args))
	out = append(out, words...)
	out = append(out, lifted...)
	return append(out, rest...)
}

// flags makes a flag set with the options every command shares.
func flags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	dataDir := fs.String("data-dir", "", "data directory (default $"+platform.DataDirEnv+" or the OS default)")
	return fs, dataDir
}

// parse parses args with fs, letting flags come anywhere among the
// positional arguments — `spirit mail sync 1 --data-dir D` as well as
// `spirit mail sync --data-dir D 1` — and returns the positional arguments
// in order. "--" ends the flags: whatever follows is positional. More than
// maxArgs positional arguments (maxArgs < 0: any number) is a usage error
// naming the first one too many.
func parse(fs *flag.FlagSet, args []string, maxArgs int) ([]string, error) {
	var pos []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage // the flag package has said what was wrong
		}
		consumed := len(rest) - fs.NArg()
		if endedByDashes(fs, rest, consumed) {
			pos = append(pos, fs.Args()...)
			break
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if maxArgs >= 0 && len(pos) > maxArgs {
		fmt.Fprintf(fs.Output(), "spirit: unexpected argument %q\n", pos[maxArgs])
		return nil, errUsage
	}
	return pos, nil
}

// endedByDashes reports whether fs.Parse, having consumed the first
// consumed of rest, stopped at a "--" that ends the flags rather than one
// that was a flag's value (--name --).
func endedByDashes(fs *flag.FlagSet, rest []string, consumed int) bool {
	if consumed == 0 || rest[consumed-1] != "--" {
		return false
	}
	return consumed < 2 || !takesValue(fs, rest[consumed-2])
}

// takesValue reports whether arg is a flag of fs written without "=" whose
// value is the next argument.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok {
		return false
	}
	name = strings.TrimPrefix(name, "-")
	if name == "" || strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func runSpirit(ctx context.Context, args []string, stderr io.Writer) error {
	fs, dataDir := flags("spirit", stderr)
	headless := fs.Bool("headless", false, "run without a GUI: nudges go to the log and the local API")
	level := fs.String("log-level", envOr("SPIRIT_LOG", "info"), "log level: debug, info, warn, error")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	log, err := newLogger(stderr, *level)
	if err != nil {
		return err
	}
	slog.SetDefault(log) // the store and the API log through the default logger
	// xgb prints auth chatter on every connection; keep it for debug logs.
	xgb.Logger = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	if !*headless && !hasDisplay(runtime.GOOS, os.Getenv) {
		log.Warn("no display (DISPLAY and WAYLAND_DISPLAY are unset): running headless; nudges go to the log and the local API")
		*headless = true
	}
	err = app.Run(ctx, app.Config{DataDir: dir, Headless: *headless, Version: version, Log: log, Desktop: desktop.New})
	switch {
	case errors.Is(err, app.ErrAlreadyRunning):
		fmt.Fprintln(stderr, "spirit:", err)
		return nil
	case errors.Is(err, app.ErrRestart):
		// The lawyer deleted all of Spirit's data: start again, clean.
		log.Warn("starting again", "reason", err.Error())
		return startAgain()
	}
	return err
}

func runDoctor(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, dataDir := flags("doctor", stderr)
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	quiet(stderr)
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	if !app.Doctor(ctx, dir, stdout) {
		return errProblems
	}
	return nil
}

func runWorld(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, worldUsage)
		return errUsage
	}
	if args[0] != "tail" {
		return runWorldVerb(ctx, args, stdout, stderr) // query, check, respond, event: cmd_world.go
	}
	fs, dataDir := flags("world tail", stderr)
	n := fs.Int("n", 20, "how many of the latest entries to print")
	follow := fs.Bool("f", false, "keep printing new entries as they are written")
	if _, err := parse(fs, args[1:], 0); err != nil {
		return err
	}
	quiet(stderr)
	if *n < 0 {
		fmt.Fprintln(stderr, "spirit: -n must be 0 or more")
		return errUsage
	}
	dir, err := platform.DataDir(*dataDir)
	if err != nil {
		return err
	}
	// Reading only: works on a read-only folder and beside a running Spirit.
	st, err := store.OpenDirReadOnly(ctx, dir, store.ReadOnlyOptions{Follow: *follow})
	if err != nil {
		return err
	}
	defer st.Close()
	return tail(ctx, st, *n, *follow, stdout)
}

// tail prints the last n entries, then with follow polls for new ones until
// ctx ends. Polling twice a second is cheap on an indexed id.
func tail(ctx context.Context, st *store.Store, n int, follow bool, w io.Writer) error {
	es, err := st.Recent(ctx, n)
	if err != nil {
		return err
	}
	last, err := st.LastID(ctx)
	if err != nil {
		return err
	}
	for _, e := range es {
		fmt.Fprintln(w, e)
	}
	if !follow {
		return nil
	}
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		es, err := st.Since(ctx, last, 1000)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		for _, e := range es {
			fmt.Fprintln(w, e)
			last = e.ID
		}
	}
}

// quiet keeps one-shot commands' output to what they print: only warnings
// and errors are logged.
func quiet(stderr io.Writer) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	slog.SetDefault(log)
	xgb.Logger = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
