#!/usr/bin/env bash
# Cross-builds the native parts of spirit.exe for 64-bit Windows with
# Debian's mingw-w64, once, and caches them outside the clone beside (never
# mixed with) the Linux whisper.cpp build:
#
#   $SPIRIT_CACHE/windows-amd64/whisper-1.9.1/   whisper.cpp + ggml, static
#   $SPIRIT_CACHE/windows-amd64/portaudio-19.6.0/ PortAudio (WASAPI, WinMME), static
#
# Usage: build/windows.sh [--export]
#   Prints on stdout the variables `go build` needs for GOOS=windows (CC,
#   CXX, C_INCLUDE_PATH, PKG_CONFIG, and WINDOWS_EXTLDFLAGS for the link); with --export as
#   `export ...` lines for eval. Progress goes to stderr.
#
# Sources: whisper.cpp is the tree build/whisper.sh caches (it is run
# first); PortAudio is Debian's source package portaudio19 19.6.0 (the
# upstream tarball, checked against the hash Debian's .dsc publishes).
# A part that cannot be built fails this script: nothing is left out
# silently.
set -euo pipefail

readonly whisper_version=1.9.1
readonly pa_version=19.6.0
# The Debian archive this machine's apt already uses (deb822 .sources or a
# one-line sources.list entry), not the security archive.
apt_mirror() {
  { grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' || true
    grep -hsE '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
      awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; break}}' || true
  } | { grep -v -- '-security' || true; } | head -n1 | sed 's:/*$::'
}
readonly pa_sha256=f5a21d7dcd6ee84397446fa1fa1a0675bb2e8a4a6dceb4305a8404698d8d1513
readonly host=x86_64-w64-mingw32
readonly cc=$host-gcc-posix cxx=$host-g++-posix
# OpenMP is off: mingw's libgomp would be one more DLL to ship; ggml's own
# thread pool does the same work.
readonly whisper_flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF
  -DWHISPER_BUILD_EXAMPLES=OFF -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF
  -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF)
# See build/mingw-w64-compat.h.
whisper_cflags="-include $(cd "$(dirname "$0")" && pwd)/mingw-w64-compat.h"
readonly pa_flags=(--host=$host --with-winapi=wmme,wasapi --enable-static --disable-shared)

export_prefix=
case "${1:-}" in
  --export) export_prefix="export " ;;
  "") ;;
  *) echo "usage: $0 [--export]" >&2; exit 2 ;;
esac

log() { echo "windows: $*" >&2; }
die() { echo "windows: error: $*" >&2; exit 1; }

here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${SPIRIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spirit}"
root="$cache_root/windows-amd64"
wsrc="$cache_root/whisper-$whisper_version/src"
wdir="$root/whisper-$whisper_version"
padir="$root/portaudio-$pa_version"
wlibs=("$wdir/build/src/libwhisper.a" "$wdir/build/ggml/src/libggml.a"
  "$wdir/build/ggml/src/libggml-base.a" "$wdir/build/ggml/src/libggml-cpu.a")

toolchain_id() { "$cc" --version 2>/dev/null | head -n 1; }
# Each stamp records what was built and how: a change of flags or compiler
# rebuilds that part.
want_wstamp() { echo "whisper.cpp $whisper_version $(toolchain_id) ${whisper_flags[*]} $(cat "$here/mingw-w64.cmake" "$here/mingw-w64-compat.h" | cksum)"; }
want_pastamp() { echo "portaudio $pa_version $pa_sha256 $(toolchain_id) ${pa_flags[*]} $(cksum <"$here/portaudio-$pa_version-mingw-w64.patch")"; }

print_env() {
  echo "${export_prefix}CC=$cc"
  echo "${export_prefix}CXX=$cxx"
  echo "${export_prefix}C_INCLUDE_PATH=$wsrc/include:$wsrc/ggml/include"
  # A cross gcc ignores LIBRARY_PATH: the library folders go to the
  # final link by -L (`go build -ldflags -extldflags=...`), not through
  # CGO_LDFLAGS, which would change the build-cache key of every cgo
  # package and rebuild SQLite, GLFW and OpenGL (half an hour).
  echo "${export_prefix}WINDOWS_EXTLDFLAGS='-L$wdir/build/src -L$wdir/build/ggml/src'"
  # PortAudio is static: its Windows libraries (winmm, ole32, …) are in
  # the .pc's Libs.private, which only `pkg-config --static` prints.
  echo "${export_prefix}PKG_CONFIG=$padir/pkg-config"
}

whisper_built() {
  [ -f "$wdir/stamp" ] && [ "$(cat "$wdir/stamp")" = "$(want_wstamp)" ] || return 1
  local l
  for l in "${wlibs[@]}"; do [ -f "$l" ] || return 1; done
}
pa_built() {
  [ -f "$padir/stamp" ] && [ "$(cat "$padir/stamp")" = "$(want_pastamp)" ] &&
    [ -f "$padir/prefix/lib/libportaudio.a" ] && [ -x "$padir/pkg-config" ]
}

need_tools() {
  local missing=()
  command -v "$cc" >/dev/null || missing+=(gcc-mingw-w64-x86-64)
  command -v "$cxx" >/dev/null || missing+=(g++-mingw-w64-x86-64)
  command -v cmake >/dev/null || missing+=(cmake)
  command -v make >/dev/null || missing+=(make)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  command -v curl >/dev/null || missing+=(curl)
  [ ${#missing[@]} -eq 0 ] && return 0
  local cmd="apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    log "installing ${missing[*]}"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $cmd >&2 || die "'$cmd' failed"
    return 0
  fi
  die "the Windows build needs ${missing[*]}; run: sudo apt-get update && sudo $cmd"
}

# Fast path without the lock: a finished build never changes underneath us.
if command -v "$cc" >/dev/null && whisper_built && pa_built; then
  print_env
  exit 0
fi

mkdir -p "$root"
exec 9>"$root/lock"
if ! flock -n 9; then
  log "another Windows build is running; waiting for it"
  flock 9
fi
need_tools

build_whisper() {
  # The Linux build's cache holds the verified source; it is read, never
  # written (the mingw build tree is out of source, here).
  "$here/whisper.sh" >/dev/null
  rm -f "$wdir/stamp"
  mkdir -p "$wdir"
  if [ -f "$wdir/build/CMakeCache.txt" ] &&
    ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$wsrc" "$wdir/build/CMakeCache.txt"; then
    rm -rf "$wdir/build"
  fi
  log "building whisper.cpp $whisper_version for Windows (log: $wdir/build.log)"
  local start=$SECONDS
  if ! { cmake -S "$wsrc" -B "$wdir/build" -DCMAKE_TOOLCHAIN_FILE="$here/mingw-w64.cmake" "${whisper_flags[@]}" \
    -DCMAKE_C_FLAGS="$whisper_cflags" &&
    cmake --build "$wdir/build" -j"${WHISPER_JOBS:-2}" --target whisper; } >"$wdir/build.log" 2>&1; then
    tail -n 30 "$wdir/build.log" >&2
    die "whisper.cpp for Windows failed to build; full log in $wdir/build.log"
  fi
  # ggml names its Windows libraries without the "lib" prefix (ggml.a),
  # which -lggml does not find: link them under the names the cgo flags
  # of the Go binding ask for.
  local l
  for l in "${wlibs[@]}"; do
    local bare
    bare="$(dirname "$l")/$(basename "$l" | sed 's/^lib//')"
    [ -f "$l" ] || { [ -f "$bare" ] && ln -sf "$(basename "$bare")" "$l"; }
    [ -f "$l" ] || die "whisper.cpp built but $l is missing"
  done
  want_wstamp >"$wdir/stamp"
  log "whisper.cpp for Windows built in $((SECONDS - start)) s"
}

build_portaudio() {
  rm -f "$padir/stamp"
  mkdir -p "$padir"
  local tgz="$padir/portaudio19_$pa_version.orig.tar.gz"
  if [ ! -f "$tgz" ] || [ "$(sha256sum "$tgz" | cut -d' ' -f1)" != "$pa_sha256" ]; then
    local mirror pa_url
    mirror="$(apt_mirror)"
    [ -n "$mirror" ] || die "no Debian archive in apt's sources to fetch PortAudio's source from"
    pa_url="$mirror/pool/main/p/portaudio19/portaudio19_${pa_version}.orig.tar.gz"
    log "fetching PortAudio $pa_version source from Debian"
    curl -fsS -o "$tgz.part" "$pa_url" || die "cannot download $pa_url"
    mv "$tgz.part" "$tgz"
  fi
  local got
  got="$(sha256sum "$tgz" | cut -d' ' -f1)"
  [ "$got" = "$pa_sha256" ] || die "PortAudio tarball hash mismatch: $got (want $pa_sha256); refusing to build it"
  rm -rf "$padir/src" "$padir/prefix"
  mkdir -p "$padir/src"
  tar -C "$padir/src" --strip-components=1 -xzf "$tgz"
  # 19.6.0 ships stand-ins for the WASAPI headers of 2010's MinGW, which
  # clash with mingw-w64's real ones (PortAudio 19.7 deleted them too).
  rm -rf "$padir/src/src/hostapi/wasapi/mingw-include"
  patch -d "$padir/src" -p1 -s <"$here/portaudio-$pa_version-mingw-w64.patch" ||
    die "cannot apply build/portaudio-$pa_version-mingw-w64.patch"
  log "building PortAudio $pa_version for Windows: WASAPI, WinMME (log: $padir/build.log)"
  local start=$SECONDS
  if ! (cd "$padir/src" && CC="$cc" CXX="$cxx" ./configure "${pa_flags[@]}" --prefix="$padir/prefix" &&
    make -j"${WHISPER_JOBS:-2}" && make install) >"$padir/build.log" 2>&1; then
    tail -n 30 "$padir/build.log" >&2
    die "PortAudio for Windows failed to build; full log in $padir/build.log"
  fi
  # A host API that configure could not build is left out without an
  # error: check the two that must be there.
  local init syms
  syms="$("$host-nm" "$padir/prefix/lib/libportaudio.a" 2>/dev/null || true)"
  for init in PaWasapi_Initialize PaWinMme_Initialize; do
    grep -q " T $init\$" <<<"$syms" ||
      die "PortAudio for Windows was built without $init; see $padir/build.log"
  done
  cat >"$padir/pkg-config" <<EOF
#!/bin/sh
# Only this PortAudio: never the build machine's own .pc files.
PKG_CONFIG_LIBDIR='$padir/prefix/lib/pkgconfig' exec pkg-config --static "\$@"
EOF
  chmod +x "$padir/pkg-config"
  want_pastamp >"$padir/stamp"
  log "PortAudio for Windows built in $((SECONDS - start)) s"
}

whisper_built || build_whisper
pa_built || build_portaudio
print_env
