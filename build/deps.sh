#!/usr/bin/env bash
# Installs the system packages Spirit needs to build, run and test.
# Usage: build/deps.sh run|test|package
# As root on Debian/Ubuntu it installs what is missing with apt-get; otherwise
# it prints the exact command to run and fails.
set -euo pipefail

want="${1:-run}"

# Build: cgo toolchain and the headers Fyne (GLFW, X11, Wayland) links against.
build_pkgs=(gcc g++ pkg-config libgl1-mesa-dev xorg-dev libx11-dev libxtst-dev
  libxkbcommon-dev libxkbcommon-x11-dev libx11-xcb-dev libxcb-xkb-dev libpng-dev
  libwayland-dev wayland-protocols portaudio19-dev cmake libtesseract-dev libleptonica-dev)
# Run: a session bus for the tray.
run_pkgs=(dbus dbus-x11 libgl1-mesa-dri libportaudio2 tesseract-ocr-eng)
# Test: a real X server, window manager and window tools; the real programs
# Spirit is tried against (Thunderbird, Chromium for webmail pages, a CalDAV
# server), the accessibility bus mail clients expose their text on, and
# desktop-file-validate for the autostart entry Spirit writes; the packages'
# tools (dpkg-shlibdeps for the .deb's Depends, appstreamcli to validate
# its metainfo).
test_pkgs=(xvfb openbox xdotool x11-utils jackd2 espeak-ng sox gnome-keyring
  thunderbird chromium at-spi2-core radicale desktop-file-utils dpkg-dev appstream)
# The fonts the mail look-alikes fall back to (Arial, Segoe UI, Helvetica and
# Calibri are metric-matched by Liberation Sans and Carlito). Chromium only
# recommends them, and without them a fresh machine renders those pages in
# DejaVu: TestPaneLayouts then read 34 of 40 and failed.
test_pkgs+=(fonts-liberation fonts-crosextra-carlito)
# The Windows build: cross-compiled with mingw-w64 and run under Wine (wine_test.go).
test_pkgs+=(gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64 wine curl)

pkgs=("${build_pkgs[@]}" "${run_pkgs[@]}")
if [ "$want" = test ] || [ "$want" = bench ]; then
  pkgs+=("${test_pkgs[@]}")
fi
# make package: dpkg-shlibdeps finds the libraries the .deb depends on.
if [ "$want" = package ]; then
  pkgs+=(dpkg-dev)
fi

case "$(uname -s)" in
  Darwin)
    command -v go >/dev/null || { echo "Spirit needs Go 1.26: brew install go" >&2; exit 1; }
    xcode-select -p >/dev/null 2>&1 || { echo "Spirit needs the Xcode command line tools: xcode-select --install" >&2; exit 1; }
    exit 0 ;;
  MINGW*|MSYS*|CYGWIN*)
    command -v gcc >/dev/null || { echo "Spirit needs a cgo compiler: install MSYS2 and 'pacman -S mingw-w64-x86_64-gcc'" >&2; exit 1; }
    exit 0 ;;
esac

if ! command -v dpkg-query >/dev/null; then
  echo "This is not a Debian/Ubuntu system; install the equivalents of: ${pkgs[*]}" >&2
  exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    echo "installing ${#missing[@]} system packages (once; a few minutes on a new machine): ${missing[*]}" >&2
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive $cmd
    echo "  done in $SECONDS s" >&2
    exit 0
  fi
  echo "Spirit needs these system packages: ${missing[*]}" >&2
  echo "Run:  sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
# Issue 28: a long first run says what it does and how long it took.
echo "installing ${#missing[@]} system packages (once; a few minutes on a new machine): ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive $cmd >/dev/null || {
  echo "apt-get could not install: ${missing[*]} (see the output above); install them and retry" >&2
  exit 1
}
echo "  done in $SECONDS s" >&2
