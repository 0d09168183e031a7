# Spirit: `make run` starts Spirit, `make test` runs every test. Both install
# what is missing first (system packages via build/deps.sh). Go's module and
# build caches live outside the clone (~/go, ~/.cache), so rebuilds are fast.

SHELL   := /bin/bash
GO      ?= $(shell command -v go || echo /usr/local/go/bin/go)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
TAGS    := sqlite_fts5
export GOFLAGS := -tags=$(TAGS)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build run test bench deps deps-test vet fmt clean

all: build

deps:
	@build/deps.sh run

deps-test:
	@build/deps.sh test

build: deps
	@mkdir -p bin
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/spirit .

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

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

# Tests start their own Xvfb, openbox and session bus; SPIRIT_REQUIRE_DESKTOP
# makes a missing tool a failure instead of a skip.
test: deps-test vet
	SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -count=1 -timeout 20m ./...

# Figures print as `BENCH name value unit` and are kept in bin/bench.txt.
bench: deps-test
	@mkdir -p bin
	@set -o pipefail; SPIRIT_BENCH=1 SPIRIT_REQUIRE_DESKTOP=1 $(GO) test -count=1 -timeout 20m -run '^TestBench' -v ./... \
	  | tee bin/bench.log | grep '^BENCH ' | tee bin/bench.txt

clean:
	rm -rf bin
