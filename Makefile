# Spirit: `make run` starts Spirit, `make test` runs every test. Both install
# what is missing first (system packages via build/deps.sh). Go's module and
# build caches live outside the clone (~/go, ~/.cache), so rebuilds are fast.

SHELL   := /bin/bash
GO      ?= $(shell command -v go || echo /usr/local/go/bin/go)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
TAGS    := sqlite_fts5
# -trimpath: without it Go's build cache keys every package of this module
# by the folder it sits in, so a fresh clone elsewhere (CI, a worktree)
# compiled the whole module again. Nothing reads source paths at run time.
#
# The gold linker, where there is one, for what is linked without flags of
# its own: every test binary (about 60 in `make test`, most of them cgo,
# linked through gcc). GNU ld took 6-8 s a binary, gold a quarter to a
# third less (measured: ./app's tests 8.3 s -> 5.6 s). A command that sets
# -ldflags itself (build, windows, package) overrides this and keeps the
# system's linker: what is shipped is linked as before.
GOLD := $(shell command -v ld.gold >/dev/null 2>&1 && echo -ldflags=-extldflags=-fuse-ld=gold)
export GOFLAGS := -tags=$(TAGS) -trimpath $(GOLD)
# Fyne's event loop, patched to rest when nothing happens instead of
# polling at 60 Hz (build/fyne/README.md): build/fyne-patch.sh makes the
# patched copy of Fyne under SPIRIT_CACHE and prints a go.work that uses
# it, which every go command below gets through GOWORK. Empty if the script
# failed: the fyne-patch target then stops the build with its message.
FYNE_WORK := $(shell GO='$(GO)' build/fyne-patch.sh)
export GOWORK := $(FYNE_WORK)
LDFLAGS := -X main.version=$(VERSION)

# Minutes the slow steps took on a machine that never built Spirit (two
# cores, ../shared/tools/cold-test.sh): printed before each, so a first run
# says what it is doing and for how long.
COLD_VET_MIN       := 8
COLD_TESTBUILD_MIN := 2
COLD_RACEBUILD_MIN := 8
COLD_FUZZBUILD_MIN := 5
COLD_WINDOWS_MIN   := 12

# whisper.cpp 1.9.1, static, built once by build/whisper.sh into the cache
# (outside the clone). cgo finds its header and libraries through these two
# variables, which every go command below inherits; the paths must match the
# script's (SPIRIT_CACHE, default $XDG_CACHE_HOME/spirit or ~/.cache/spirit).
SPIRIT_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/spirit
export SPIRIT_CACHE
WHISPER_SRC_DIR := $(SPIRIT_CACHE)/whisper-1.9.1/src
export C_INCLUDE_PATH := $(WHISPER_SRC_DIR)/include:$(WHISPER_SRC_DIR)/ggml/include$(if $(C_INCLUDE_PATH),:$(C_INCLUDE_PATH))
export LIBRARY_PATH := $(WHISPER_SRC_DIR)/build/src:$(WHISPER_SRC_DIR)/build/ggml/src$(if $(LIBRARY_PATH),:$(LIBRARY_PATH))
# ggml's OpenMP threads spin at every barrier by default: on a busy machine
# (2 cores shared with other jobs) a transcription then runs up to 10x slower.
# Passive waiting costs nothing measurable when the machine is idle. libgomp
# reads this at process start, so it must be in the environment.
export OMP_WAIT_POLICY ?= passive

.PHONY: all build run test test-build test-desktop test-race test-rest race bench fuzz deps deps-test vet fmt clean whisper windows windows-compile fyne-patch package

all: build

deps:
	@build/deps.sh run

deps-test:
	@build/deps.sh test

# About 35 s to 3 min the first time (2 cores), instant once cached.
whisper:
	@build/whisper.sh >/dev/null

fyne-patch:
	@test -n '$(FYNE_WORK)' || { echo "build/fyne-patch.sh failed (its message is above): Fyne's idle-loop patch is missing" >&2; exit 1; }

build: deps whisper fyne-patch
	@mkdir -p bin
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/spirit .

# spirit.exe for 64-bit Windows, cross-built with Debian's mingw-w64:
# build/windows.sh builds whisper.cpp and PortAudio for it once and caches
# them under SPIRIT_CACHE/windows-amd64 (about 10 minutes cold on 2 busy
# cores); Go's build cache keeps the rest. Static, so spirit.exe needs no
# mingw DLL beside it. no_ocr: this build reads no screen text (see
# build/README.md). -H windowsgui: a GUI program, so starting Spirit opens
# no console window; typed in a console it prints there (console_windows.go).
# The Wine tests build it with WINDOWS_OUT elsewhere.
WINDOWS_OUT ?= bin/spirit.exe
# WINDOWS_ENV: the cross-compilers and cached libraries, for a recipe line.
WINDOWS_ENV = set -e; eval "$$(build/windows.sh --export)"; \
  GOOS=windows GOARCH=amd64 CGO_ENABLED=1 GOFLAGS="-tags=$(TAGS),no_ocr -trimpath"
windows: whisper fyne-patch
	@mkdir -p $(dir $(WINDOWS_OUT))
	@$(WINDOWS_ENV) \
	  build/step.sh "windows: cross-building spirit.exe (the first time about $(COLD_WINDOWS_MIN) min on 2 cores, seconds once cached)" \
	  $(GO) build -ldflags "$(LDFLAGS) -H windowsgui -extldflags '-static $$WINDOWS_EXTLDFLAGS'" -o $(WINDOWS_OUT) .

# What `make test` needs of the Windows build: every package compiled for
# Windows into Go's cache, not linked. The Wine tests link their own
# spirit.exe (seconds warm); linking one here too cost 10-12 s of every
# warm run.
windows-compile: whisper fyne-patch
	@$(WINDOWS_ENV) \
	  build/step.sh "windows: cross-compiling Spirit (the first time about $(COLD_WINDOWS_MIN) min on 2 cores, seconds once cached)" \
	  $(GO) list -export -deps -f '' .

# Linux packages into PACKAGE_OUT: a tarball in Fyne's layout and a .deb
# (build/package, its own Go module: the packager stays out of go.mod).
# The binary is built -trimpath and stripped; with SOURCE_DATE_EPOCH (the
# commit's time by default) the same commit gives the same bytes.
PACKAGE_OUT ?= bin/package
package: whisper fyne-patch
	@build/deps.sh package
	@mkdir -p $(PACKAGE_OUT)
	$(GO) build -trimpath -ldflags '$(LDFLAGS) -s -w' -o $(abspath $(PACKAGE_OUT))/spirit .
	cd build/package && GOWORK=off $(GO) run . -repo ../.. -binary $(abspath $(PACKAGE_OUT))/spirit \
	  -version $(VERSION) -out $(abspath $(PACKAGE_OUT))

# Without a display there is no tray or orb: run headless and say so.
run: build
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] && [ "$$(uname -s)" = Linux ]; then \
	  echo "No display: starting Spirit headless (local API only). Run 'make run' from a desktop session for the tray and orb." >&2; \
	  exec ./bin/spirit --headless $(ARGS); \
	fi; \
	if [ -z "$$DBUS_SESSION_BUS_ADDRESS" ] && [ "$$(uname -s)" = Linux ] && [ ! -S "$$XDG_RUNTIME_DIR/bus" ]; then \
	  exec dbus-run-session -- ./bin/spirit $(ARGS); \
	fi; \
	exec ./bin/spirit $(ARGS)

vet: whisper fyne-patch
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	@build/step.sh "go vet: checking every package (the first time this compiles them all, about $(COLD_VET_MIN) min on 2 cores)" $(GO) vet ./...
	@cd build/package && GOWORK=off $(GO) vet ./...

# Seconds of fuzzing per fuzz target: a short run in `make test` (the seed
# corpora already run as unit tests; this adds new inputs for 2 s a target,
# about 65 s in all on two cores, building included), ten minutes each in
# `make fuzz`. 0 skips.
FUZZTIME      ?= 2
FUZZTIME_LONG ?= 600

# Packages whose tests run goroutines of Spirit's own in the test process
# (services, watchers, servers, the event bus, the capture helper): `make
# test` runs them under the race detector, where their races would live.
# The rest (parsers, stores read on one goroutine, models) gain nothing
# from it but time: the whole suite under -race (`make race`) took 10
# minutes on two shared cores, the budget for all of `make test`. Left
# out for time: agents/glance (160 s under -race against 47 s: Thunderbird
# and OCR in the test process) and platform/xtest (the test harness).
# app/desktop is the exception: its X integration tests drive a separately
# built (non-race) spirit binary, so -race there checks only the harness,
# and their full-screen captures slow down enough under instrumentation to
# fail the orb's frame-to-frame checks. They skip in a race build
# (app/desktop/race_test.go), so the race pass runs its unit tests only
# (Fyne's test driver, in process, where every race found so far was),
# beside the other race packages; the desktop lane runs all of them. The
# race pass runs one package at a time, beside the desktop lane (see test):
# two race packages at once beside the desktop tests were what once failed
# the orb's timing-sensitive screen checks.
RACE_PKGS := ./app ./app/api ./app/events ./app/supervisor \
	./agents/mail/imap ./agents/mail/oauth ./agents/store \
	./agents/task ./agents/work ./agents/digest \
	./platform ./platform/secrets \
	./screen ./voice/audio ./voice/listen
RACE_UNIT_PKGS := ./app/desktop

# Tests start their own Xvfb, openbox and session bus; SPIRIT_REQUIRE_DESKTOP
# makes a missing tool a failure instead of a skip.
# windows-compile first: the Wine tests link spirit.exe in seconds once Go's
# cache holds the cross-built packages, but a cold cross-build (tens of
# minutes on two cores) must not run inside go test's timeout.
#
# Three lanes run side by side, each one package at a time (-p 1):
#   - test-desktop: the packages that drive Thunderbird and Chromium
#     (app/desktop, agents/glance), never two at once: side by side they
#     starved each other's time-bound checks.
#   - test-race: the race pass (RACE_PKGS, RACE_UNIT_PKGS), the heaviest
#     on the cores, one package at a time (see RACE_PKGS).
#   - test-rest: every other package, the root's included (the Wine
#     run, the packages, the command line), the packager's module, the
#     lighter desktop packages (DESKTOP_LATE: platform/a11y's accessibility
#     bus, platform/xtest's Xvfb, openbox and tray host), by then beside
#     the desktop lane's last package, and the short fuzzing run.
# Two lanes (desktop; everything else) took 12 minutes warm on a fresh
# clone, both ending together with the cores 77 % busy; three, with all
# four desktop packages in the first, 10 min 54 s, the cores full until
# the first lane ran on alone for three minutes; as here, 10 min 55 s, the
# cores full to the end: what is left is work, not waiting. Each lane's output comes
# in one piece when its command ends; all run to the end, and any failing
# fails `make test`.
DESKTOP_PKGS := ./app/desktop ./agents/glance
DESKTOP_LATE := ./platform/a11y ./platform/xtest
test: deps-test whisper fyne-patch windows-compile vet test-build
	@$(MAKE) --no-print-directory -j3 --output-sync=line FUZZ_REUSE=1 test-desktop test-race test-rest; \
	  rc=$$?; rm -rf '$(FUZZ_BINS)'; exit $$rc

# Every package, test package and race-detector variant, and the Spirit
# the desktop tests start, is compiled before either lane runs a test
# (issue 28). On a machine that never built Spirit the lanes otherwise
# compiled beside each other's running tests, and checks of timing and
# wake-ups (the Fyne loop's rest, the Thunderbird glance) failed under
# that load. `go list -export` compiles without linking: warm it costs
# seconds, where linking every test binary here and again in the lanes
# cost a minute (43 + 17 + 9 s measured). The fuzz binaries are built
# whole, into FUZZ_BINS, and the lane's short fuzzing run uses them
# (FUZZ_REUSE, set only by `make test`, right after this step built them).
FUZZ_BINS := $(CURDIR)/bin/fuzz
test-build:
	@build/step.sh "compiling the tests before any runs (the first time about $(COLD_TESTBUILD_MIN) min on 2 cores)" \
	  $(GO) list -test -export -deps -f '' ./...
	@build/step.sh "compiling the race-detector tests (the first time about $(COLD_RACEBUILD_MIN) min on 2 cores)" \
	  $(GO) list -race -test -export -deps -f '' $(RACE_PKGS) $(RACE_UNIT_PKGS)
	@build/step.sh "compiling the Spirit the desktop tests start" \
	  $(GO) list -export -deps -f '' -tags $(TAGS),spirittest .
	@rm -rf '$(FUZZ_BINS)' && mkdir -p '$(FUZZ_BINS)'
	@GO='$(GO)' FUZZ_BUILD_ONLY=1 FUZZ_BIN_DIR='$(FUZZ_BINS)' build/step.sh "compiling the fuzz targets (the first time about $(COLD_FUZZBUILD_MIN) min on 2 cores)" \
	  build/fuzz.sh 1
	@SPIRIT_REQUIRE_DESKTOP=1 build/step.sh "making the Wine prefix the Windows tests copy (once, about a minute; cached after)" \
	  $(GO) test -count=1 -run '^TestWinePrefix$$' .

test-desktop:
	SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -p 1 -count=1 -timeout 20m $(DESKTOP_PKGS)

test-race:
	SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -p 1 -race -count=1 -timeout 20m $(RACE_PKGS) $(RACE_UNIT_PKGS)

test-rest:
	SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -p 1 -count=1 -timeout 20m $$($(GO) list ./... | grep -vxF -f <($(GO) list $(RACE_PKGS) $(DESKTOP_PKGS) $(DESKTOP_LATE)))
	cd build/package && GOWORK=off $(GO) test -count=1 ./...
	SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -p 1 -count=1 -timeout 20m $(DESKTOP_LATE)
	@GO='$(GO)' $(if $(FUZZ_REUSE),FUZZ_REUSE=1 FUZZ_BIN_DIR='$(FUZZ_BINS)') build/fuzz.sh $(FUZZTIME)

# Every package's tests under the race detector, integration tests
# included but app/desktop's (about 10 minutes on two cores, more than
# `make test` allows).
race: deps-test whisper fyne-patch
	SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -race -count=1 -timeout 30m ./...

# Every fuzz target for FUZZTIME_LONG seconds, one after another (hours).
# A finding is saved under its package's testdata/fuzz/ and named at the end.
fuzz: deps-test whisper fyne-patch
	@GO='$(GO)' build/fuzz.sh $(FUZZTIME_LONG)

# Figures print as `BENCH name value unit` and are kept in bin/bench.txt. One
# package at a time (-p 1): idle-CPU figures must not share the two cores.
bench: deps-test whisper fyne-patch windows
	@mkdir -p bin
	@set -o pipefail; SPIRIT_BENCH=1 SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -p 1 -count=1 -timeout 20m -run '^TestBench' -v ./... \
	  | tee bin/bench.log | grep --line-buffered '^BENCH ' | tee bin/bench.txt

clean:
	rm -rf bin
