#!/usr/bin/env bash
# Runs Go's fuzzing engine on every fuzz target of the module, one target
# at a time (the engine takes one target per `go test -fuzz`), for a fixed
# time each, and prints a summary.
#
# Usage: build/fuzz.sh [SECONDS] [PACKAGE...]
#   SECONDS   fuzzing time per target (default 10); `make test` runs a few
#             seconds each, `make fuzz` ten minutes.
#   PACKAGE   limit the run to these packages (./agents/mail, …); default:
#             every package with a `func Fuzz…` in its tests.
#
# A finding fails the run (exit 1) after the other targets ran. Go writes
# the input that failed to PACKAGE/testdata/fuzz/FuzzName/HASH, which the
# summary names: commit it, and plain `go test` replays it from then on as
# a regression case. Inputs that merely grew coverage stay in Go's cache
# ($(go env GOCACHE)/fuzz), outside the clone, and make later runs start
# where earlier ones stopped.
#
# Environment:
#   GO                 the go command (default: go on PATH)
#   FUZZ_PARALLEL      fuzzing processes per target (default 2)
#   FUZZ_MINIMIZE      how long to shrink an input that widened coverage or
#                      failed (-fuzzminimizetime; default 5s: the engine's
#                      60 s stalls short runs, and a failing input is saved
#                      either way)
#   GOFLAGS, C_INCLUDE_PATH, LIBRARY_PATH
#                      as the Makefile exports them; when run by hand
#                      without them, the script sets them the same way.
set -uo pipefail

secs=${1:-10}
shift || true
case "$secs" in
  '' | *[!0-9]*) echo "usage: $0 [SECONDS] [PACKAGE...]" >&2; exit 2 ;;
esac

if [ "$secs" -eq 0 ]; then
  echo "fuzz: skipped (0 seconds per target)" >&2
  exit 0
fi

cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
parallel=${FUZZ_PARALLEL:-2}
minimize=${FUZZ_MINIMIZE:-5s}

# The same build settings as the Makefile's: run from make these are
# inherited; run by hand they may be missing.
export GOFLAGS=${GOFLAGS:--tags=sqlite_fts5}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
case ":${C_INCLUDE_PATH:-}:" in
  *whisper*) ;;
  *) eval "$(build/whisper.sh --export)" || exit 1 ;;
esac

if [ $# -gt 0 ]; then
  pkgs=("$@")
else
  # Packages whose tests define a fuzz target; `go test -list` below says
  # which of them build here (some are for one OS only).
  mapfile -t pkgs < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' . |
    grep -v '/testdata/' | xargs -r -n1 dirname | sort -u)
fi
if [ ${#pkgs[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
failed=0
summary=()
start_all=$SECONDS

for pkg in "${pkgs[@]}"; do
  case "$pkg" in ./*) ;; *) pkg=./$pkg ;; esac
  if ! names=$("$GO" test -list '^Fuzz' "$pkg" 2>"$log/list"); then
    cat "$log/list" >&2
    summary+=("FAIL  $pkg  (does not build)")
    failed=1
    continue
  fi
  for name in $(grep -E '^Fuzz' <<<"$names"); do
    echo "fuzz: $pkg $name for ${secs}s" >&2
    t0=$SECONDS
    "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "${secs}s" \
      -fuzzminimizetime "$minimize" -parallel "$parallel" "$pkg" >"$log/out" 2>&1
    rc=$?
    took=$((SECONDS - t0))
    execs=$(grep -oE 'execs: [0-9]+' "$log/out" | tail -1 | cut -d' ' -f2)
    if [ $rc -eq 0 ]; then
      summary+=("ok    $pkg  $name  ${took}s  ${execs:-0} execs")
      continue
    fi
    failed=1
    cat "$log/out" >&2
    # "Failing input written to testdata/fuzz/FuzzX/abc123": relative to
    # the package directory.
    input=$(sed -n 's/.*Failing input written to \(testdata\/fuzz\/[^ ]*\).*/\1/p' "$log/out" | tail -1)
    if [ -z "$input" ]; then
      # A regression input already in testdata fails before fuzzing starts:
      # "failure while testing seed corpus entry: FuzzX/abc123".
      seed=$(sed -n 's/.*failure while testing seed corpus entry: \(Fuzz[^ ]*\).*/\1/p' "$log/out" | tail -1)
      if [ -n "$seed" ] && [ -f "${pkg}/testdata/fuzz/$seed" ]; then
        input=testdata/fuzz/$seed
      fi
    fi
    if [ -n "$input" ]; then
      summary+=("FAIL  $pkg  $name  ${took}s  input ${pkg#./}/$input (go test -run '${name}/${input##*/}' $pkg)")
    else
      summary+=("FAIL  $pkg  $name  ${took}s  (no input saved: a build error or a failing seed, see above)")
    fi
  done
done

echo "fuzz: summary (${secs}s per target, $((SECONDS - start_all))s in all)" >&2
printf '  %s\n' "${summary[@]}" >&2
if [ $failed -ne 0 ]; then
  echo "fuzz: FAILED" >&2
  exit 1
fi
