#!/usr/bin/env bash
# Runs Go's fuzzing engine on every fuzz target of the module for a fixed
# time each, and prints a summary. The engine takes one target per run, so
# targets run side by side in lanes (default 2, one fuzzing worker each):
# on two cores that halves the wall time of a short run, whose cost is
# mostly each run's start (baseline coverage of the corpus), not fuzzing.
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
#   FUZZ_LANES         targets fuzzed at the same time (default 2)
#   FUZZ_PARALLEL      fuzzing processes per target (default 1)
#   FUZZ_BIN_DIR       where the instrumented test binaries are built (default:
#                      a temporary folder, removed at the end)
#   FUZZ_REUSE         1: use the binaries already in FUZZ_BIN_DIR (make test
#                      builds them in test-build, minutes before its lane
#                      fuzzes; a binary that is missing is built)
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
case "${FUZZ_LANES:-2}" in
  '' | 0 | *[!0-9]*) echo "fuzz: FUZZ_LANES must be a number from 1" >&2; exit 2 ;;
esac

if [ "$secs" -eq 0 ]; then
  echo "fuzz: skipped (0 seconds per target)" >&2
  exit 0
fi

cd "$(dirname "$0")/.."
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
lanes=${FUZZ_LANES:-2}
parallel=${FUZZ_PARALLEL:-1}
minimize=${FUZZ_MINIMIZE:-5s}

# The same build settings as the Makefile's: run from make these are
# inherited; run by hand they may be missing.
export GOFLAGS=${GOFLAGS:--tags=sqlite_fts5 -trimpath}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
case ":${C_INCLUDE_PATH:-}:" in
  *whisper*) ;;
  *) eval "$(build/whisper.sh --export)" || exit 1 ;;
esac

if [ $# -gt 0 ]; then
  pkgs=("$@")
else
  # Packages whose tests define a fuzz target; the test binary's -test.list
  # below says which of them build here (some are for one OS only).
  mapfile -t pkgs < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' . |
    grep -v '/testdata/' | xargs -r -n1 dirname | sort -u)
fi
for i in "${!pkgs[@]}"; do
  case "${pkgs[$i]}" in .* | /*) ;; *) pkgs[$i]=./${pkgs[$i]} ;; esac
done
if [ ${#pkgs[@]} -eq 0 ]; then
  echo "fuzz: no fuzz targets found" >&2
  exit 1
fi

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
failed=0
summary=()
start_all=$SECONDS
# Where `go test -fuzz` keeps what widened coverage, per package; the
# binaries below are run directly, so they are told the same place.
cache="$("$GO" env GOCACHE)/fuzz"
listing=$("$GO" list -f '{{.Dir}}|{{.ImportPath}}' "${pkgs[@]}") || exit 1
mapfile -t info <<<"$listing"

# Build every package's fuzz binary first, then fuzz the targets in lanes.
# The builds run $lanes at a time: warm, each is a link of about a core for
# 2-3 s, so one after the other left a core idle for half a minute.
targets=() # "dir|rel|ip|bin|name"
bin_of() { # bin_of IMPORTPATH: where that package's fuzz binary is built
  echo "${FUZZ_BIN_DIR:-$log}/${1//\//_}.test"
}
build_one() { # build_one N: the binary of info[N], its output in $log/N.build
  local ip=${info[$1]#*|}
  "$GO" test -c -fuzz=. -o "$(bin_of "$ip")" "$ip" >"$log/$1.build" 2>&1 ||
    echo fail >"$log/$1.buildfail"
}
# in_lane CMD...: runs CMD in the background once fewer than $lanes of
# its kind run (wait for them all with wait).
running=0
in_lane() {
  if [ "$running" -ge "$lanes" ]; then
    wait -n
    running=$((running - 1))
  fi
  "$@" &
  running=$((running + 1))
}
for n in "${!info[@]}"; do
  # FUZZ_REUSE: built by make test-build for this run.
  [ "${FUZZ_REUSE:-}" = 1 ] && [ -x "$(bin_of "${info[$n]#*|}")" ] && continue
  in_lane build_one "$n"
done
wait
for n in "${!info[@]}"; do
  entry=${info[$n]}
  dir=${entry%%|*}
  ip=${entry#*|}
  rel=${dir#"$PWD"/}
  # One instrumented test binary per package, run once per target: `go
  # test -fuzz` would check the build and link anew for every target,
  # which costs more than a short run fuzzes.
  bin=$(bin_of "$ip")
  if [ -e "$log/$n.buildfail" ]; then
    cat "$log/$n.build" >&2
    summary+=("FAIL  $rel  (does not build)")
    failed=1
    continue
  fi
  [ -x "$bin" ] || continue # no test files for this OS
  names=$(cd "$dir" && "$bin" -test.list '^Fuzz') || {
    summary+=("FAIL  $rel  (cannot list its fuzz targets)")
    failed=1
    continue
  }
  for name in $(grep -E '^Fuzz' <<<"$names"); do
    targets+=("$dir|$rel|$ip|$bin|$name")
  done
done

# FUZZ_BUILD_ONLY=1: only the builds above (make test-build compiles every
# fuzz binary before the test lanes start, so that their instrumented
# compiles do not load a cold machine beside the desktop tests).
if [ "${FUZZ_BUILD_ONLY:-}" = 1 ]; then
  printf '%s\n' "${summary[@]}" >&2
  exit "$failed"
fi

# fuzz_one N fuzzes target N; it writes its summary line to $log/N.sum and
# its output to $log/N.out, and exits 1 if the target failed.
fuzz_one() {
  local n=$1 dir rel ip bin name out sum
  IFS='|' read -r dir rel ip bin name <<<"${targets[$n]}"
  out="$log/$n.out"
  sum="$log/$n.sum"
  echo "fuzz: $rel $name for ${secs}s" >&2
  local t0=$SECONDS
  # From the package directory: a failing input is written to its
  # testdata/fuzz/, as `go test` would.
  (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${name}\$" -test.fuzztime "${secs}s" \
    -test.fuzzminimizetime "$minimize" -test.parallel "$parallel" \
    -test.fuzzcachedir "$cache/$ip" -test.timeout "$((secs + 600))s") >"$out" 2>&1
  local rc=$?
  local took=$((SECONDS - t0))
  local execs
  execs=$(grep -oE 'execs: [0-9]+' "$out" | tail -1 | cut -d' ' -f2)
  if [ $rc -eq 0 ]; then
    echo "ok    $rel  $name  ${took}s  ${execs:-0} execs" >"$sum"
    return 0
  fi
  # Go's coordinator can fail a run with a bare "context deadline
  # exceeded" when -fuzztime ends while a worker is busy (slow machine,
  # baseline coverage of a large cached corpus): https://go.dev/issue/75804.
  # No input failed; a real finding always names one.
  if ! grep -qE 'Failing input written|failure while testing seed corpus|panic:|--- FAIL: Fuzz[^ ]*/' "$out" &&
    grep -qxE '[[:space:]]*context deadline exceeded' "$out"; then
    echo "ok    $rel  $name  ${took}s  ${execs:-0} execs (ended by Go's deadline race, go.dev/issue/75804)" >"$sum"
    return 0
  fi
  # "Failing input written to testdata/fuzz/FuzzX/abc123": relative to
  # the package directory.
  local input seed
  input=$(sed -n 's/.*Failing input written to \(testdata\/fuzz\/[^ ]*\).*/\1/p' "$out" | tail -1)
  if [ -z "$input" ]; then
    # A regression input already in testdata fails before fuzzing starts:
    # "failure while testing seed corpus entry: FuzzX/abc123".
    seed=$(sed -n 's/.*failure while testing seed corpus entry: \(Fuzz[^ ]*\).*/\1/p' "$out" | tail -1)
    if [ -n "$seed" ] && [ -f "$dir/testdata/fuzz/$seed" ]; then
      input=testdata/fuzz/$seed
    fi
  fi
  if [ -n "$input" ]; then
    echo "FAIL  $rel  $name  ${took}s  input $rel/$input (go test -run '${name}/${input##*/}' ./$rel)" >"$sum"
  else
    echo "FAIL  $rel  $name  ${took}s  (no input saved: a seed in the code failed, or a crash; see above)" >"$sum"
  fi
  return 1
}

running=0
for n in "${!targets[@]}"; do
  in_lane fuzz_one "$n"
done
wait

# Results in the order the targets were found; a failure's output in full.
for n in "${!targets[@]}"; do
  if [ ! -s "$log/$n.sum" ]; then
    IFS='|' read -r _ rel _ _ name <<<"${targets[$n]}"
    summary+=("FAIL  $rel  $name  (no result: was the fuzzing run killed?)")
    failed=1
    continue
  fi
  line=$(<"$log/$n.sum")
  summary+=("$line")
  if [[ $line == FAIL* ]]; then
    failed=1
    cat "$log/$n.out" >&2
  fi
done

echo "fuzz: summary (${secs}s per target, $lanes at a time, $((SECONDS - start_all))s in all)" >&2
printf '  %s\n' "${summary[@]}" >&2
if [ $failed -ne 0 ]; then
  echo "fuzz: FAILED" >&2
  exit 1
fi
