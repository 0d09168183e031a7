#!/usr/bin/env bash
# Builds the static whisper.cpp libraries the Go binding links against, once,
# and caches them outside the clone so CI runs and later builds reuse them.
#
# Usage: build/whisper.sh [--export]
#   Prints on stdout the two variables every cgo build of voice/whisper needs:
#     C_INCLUDE_PATH=<src>/include:<src>/ggml/include
#     LIBRARY_PATH=<src>/build/src:<src>/build/ggml/src
#   (with --export, as `export ...` lines for `eval "$(build/whisper.sh --export)"`).
#   Progress goes to stderr.
#
# Environment:
#   SPIRIT_CACHE  cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/spirit);
#                 the build lives in $SPIRIT_CACHE/whisper-1.9.1/.
#   WHISPER_SRC   an existing whisper.cpp v1.9.1 source tree to build from; it is
#                 copied into the cache and never written to.
#
# Source, in order: $WHISPER_SRC; the cached copy; the npm package
# nodejs-whisper@0.3.1 (which ships the 1.9.1 tree, checked against a pinned
# hash); a shallow git clone of tag v1.9.1.
set -euo pipefail

readonly version=1.9.1
readonly npm_pkg=nodejs-whisper@0.3.1
# Pinned hashes of nodejs-whisper-0.3.1.tgz. The sha1 is the one the npm
# registry publishes; the sha256 was computed from the same tarball.
readonly npm_sha256=92041caf2b26c74b7f489fedf37bd093f216eebd61df512045ec2d19d0531d37
readonly npm_sha1=10caee39336d36663fc5dbaf696343350236c5c8
readonly git_url=https://github.com/ggml-org/whisper.cpp
readonly cmake_flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF
  -DWHISPER_BUILD_EXAMPLES=OFF -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF
  -DGGML_NATIVE=OFF)

export_prefix=
case "${1:-}" in
  --export) export_prefix="export " ;;
  "") ;;
  *) echo "usage: $0 [--export]" >&2; exit 2 ;;
esac

log() { echo "whisper: $*" >&2; }
die() { echo "whisper: error: $*" >&2; exit 1; }

cache_root="${SPIRIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spirit}"
dir="$cache_root/whisper-$version"
src="$dir/src"
stamp="$dir/stamp"
libs=("$src/build/src/libwhisper.a" "$src/build/ggml/src/libggml.a"
  "$src/build/ggml/src/libggml-base.a" "$src/build/ggml/src/libggml-cpu.a")
# The stamp records what was built and how: a change of flags rebuilds.
want_stamp="whisper.cpp $version ${cmake_flags[*]}"

print_env() {
  echo "${export_prefix}C_INCLUDE_PATH=$src/include:$src/ggml/include"
  echo "${export_prefix}LIBRARY_PATH=$src/build/src:$src/build/ggml/src"
}

built() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ] || return 1
  [ -f "$src/include/whisper.h" ] || return 1
  local l
  for l in "${libs[@]}"; do [ -f "$l" ] || return 1; done
}

# Fast path without the lock: a finished build never changes underneath us.
if built; then
  print_env
  exit 0
fi

mkdir -p "$dir"
# One builder at a time; the others wait and then find the stamp.
exec 9>"$dir/lock"
if command -v flock >/dev/null; then
  if ! flock -n 9; then
    log "another build is running; waiting for it"
    flock 9
  fi
else
  log "flock not found: concurrent builds are not serialised"
fi
if built; then
  print_env
  exit 0
fi

need_tools() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v g++ >/dev/null || missing+=(g++)
  command -v make >/dev/null || missing+=(make)
  [ ${#missing[@]} -eq 0 ] && return 0
  local cmd="apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    log "installing ${missing[*]}"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $cmd >&2 || die "'$cmd' failed"
    return 0
  fi
  if command -v apt-get >/dev/null; then
    die "whisper.cpp needs ${missing[*]}; run: sudo apt-get update && sudo $cmd"
  fi
  die "whisper.cpp needs ${missing[*]}; install them with your package manager"
}

# is_source DIR: DIR holds the whisper.cpp tree of the pinned version.
is_source() {
  [ -f "$1/CMakeLists.txt" ] && [ -f "$1/include/whisper.h" ] &&
    grep -q "project(\"whisper.cpp\" VERSION $version)" "$1/CMakeLists.txt"
}

hash_of() { # hash_of ALGO FILE
  if command -v "${1}sum" >/dev/null; then
    "${1}sum" "$2" | cut -d' ' -f1
  else
    shasum -a "${1#sha}" "$2" | cut -d' ' -f1
  fi
}

# fetch_source DEST: puts a verified whisper.cpp tree at DEST (absent before).
fetch_source() {
  local dest="$1" tmp
  tmp="$(mktemp -d "$dir/fetch.XXXXXX")"
  # shellcheck disable=SC2064 # expand now: tmp is local
  trap "rm -rf '$tmp'" EXIT
  if [ -n "${WHISPER_SRC:-}" ]; then
    is_source "$WHISPER_SRC" || die "WHISPER_SRC=$WHISPER_SRC is not a whisper.cpp $version source tree"
    log "copying source from $WHISPER_SRC"
    mkdir -p "$tmp/tree"
    # Skip VCS data and any build tree: the build happens in the cache.
    tar -C "$WHISPER_SRC" --exclude=./.git --exclude=./build -cf - . | tar -C "$tmp/tree" -xf -
  elif command -v npm >/dev/null && log "fetching $npm_pkg with npm" &&
    (cd "$tmp" && npm pack --silent "$npm_pkg" >/dev/null 2>"$tmp/npm.log"); then
    local tgz
    tgz="$(ls "$tmp"/*.tgz)"
    local got256 got1
    got256="$(hash_of sha256 "$tgz")"
    got1="$(hash_of sha1 "$tgz")"
    if [ "$got256" != "$npm_sha256" ] || [ "$got1" != "$npm_sha1" ]; then
      die "$npm_pkg tarball hash mismatch: sha256 $got256 (want $npm_sha256), sha1 $got1 (want $npm_sha1); refusing to build it"
    fi
    log "tarball verified (sha256 $got256)"
    tar -C "$tmp" -xzf "$tgz" package/cpp/whisper.cpp
    mv "$tmp/package/cpp/whisper.cpp" "$tmp/tree"
  elif command -v git >/dev/null; then
    [ -f "$tmp/npm.log" ] && log "npm failed: $(tail -n 3 "$tmp/npm.log")"
    log "cloning $git_url v$version"
    git clone -q --depth 1 --branch "v$version" "$git_url" "$tmp/tree" >&2 ||
      die "cannot get the whisper.cpp source: npm and git both failed; set WHISPER_SRC to a v$version tree"
    rm -rf "$tmp/tree/.git"
  else
    die "cannot get the whisper.cpp source: no npm or git; set WHISPER_SRC to a v$version tree"
  fi
  is_source "$tmp/tree" || die "the fetched tree is not whisper.cpp $version"
  # Appear atomically: a half-copied tree is never mistaken for the cache.
  mv "$tmp/tree" "$dest"
  rm -rf "$tmp"
  trap - EXIT
}

need_tools
if ! is_source "$src"; then
  rm -rf "$src"
  fetch_source "$src"
else
  log "using cached source $src"
fi

rm -f "$stamp"
# A cache restored to another path (CI, a moved home) keeps a CMake cache
# that names the old one and that CMake refuses: start that build afresh.
if [ -f "$src/build/CMakeCache.txt" ] &&
  ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$src/build/CMakeCache.txt"; then
  log "build directory was made elsewhere; rebuilding"
  rm -rf "$src/build"
fi
log "building whisper.cpp $version in $src/build (35 s to 3 min on 2 cores; log: $dir/build.log)"
start=$SECONDS
# The compiler's output (warnings included) goes to the log, not the
# terminal; on failure its tail is shown.
if ! { cmake -S "$src" -B "$src/build" "${cmake_flags[@]}" &&
  cmake --build "$src/build" -j"${WHISPER_JOBS:-2}" --target whisper; } >"$dir/build.log" 2>&1; then
  tail -n 30 "$dir/build.log" >&2
  die "build failed; full log in $dir/build.log"
fi
for l in "${libs[@]}"; do [ -f "$l" ] || die "build finished but $l is missing"; done
echo "$want_stamp" >"$stamp"
log "built in $((SECONDS - start)) s; cached in $dir"
print_env
