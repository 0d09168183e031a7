#!/usr/bin/env bash
# Prints the path of a go.work that builds Spirit against Fyne patched to
# rest when nothing happens (build/fyne/README.md). The Makefile exports
# it as GOWORK for every go command; with plain go:
#
#   export GOWORK=$(build/fyne-patch.sh)      # or: eval "$(build/fyne-patch.sh --export)"
#
# Go refuses overlays (-overlay) of files in the module cache, so the
# patched Fyne is a copy of the module outside the clone, under
# SPIRIT_CACHE: hard links to the module cache's files (a plain copy where
# links fail; about 24 MB) except the patched ones, made once per patch.
# The go.work beside it `use`s this clone and replaces fyne.io/fyne/v2
# with the copy; go.mod and go.sum stay as they are, so `go mod tidy`,
# `go get` and Dependabot-style bumps work as usual. The upstream files
# must be exactly those the patch was made for (build/fyne/upstream.sha256):
# anything else fails here, with a message, rather than in the compiler.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
patchdir=$here/fyne
want=v2.8.1
GO=${GO:-go}
cache=${SPIRIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spirit}
export_mode=false
[ "${1:-}" = --export ] && export_mode=true

die() { echo "build/fyne-patch.sh: $*" >&2; exit 1; }

sha256() {
	if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

cd "$root"
# Ask about the module as go.mod has it, not through a workspace already set.
export GOWORK=off GOFLAGS=
ver=$("$GO" list -m -f '{{.Version}}' fyne.io/fyne/v2) || die "cannot ask Go for Fyne's version"
[ "$ver" = "$want" ] || die "go.mod requires fyne.io/fyne/v2 $ver, but the idle-loop patch (build/fyne/idle-loop.patch) is made for $want: port the patch to $ver, then update build/fyne/upstream.sha256 and 'want' in this script (build/fyne/README.md)"
dir=$("$GO" list -m -f '{{.Dir}}' fyne.io/fyne/v2)
if [ -z "$dir" ]; then
	"$GO" mod download fyne.io/fyne/v2 || die "cannot download fyne.io/fyne/v2 $want"
	dir=$("$GO" list -m -f '{{.Dir}}' fyne.io/fyne/v2)
fi
[ -d "$dir" ] || die "no module folder for fyne.io/fyne/v2 $want"
(cd "$dir" && sha256 -c --quiet --status "$patchdir/upstream.sha256") ||
	die "Fyne's files in $dir differ from those the patch was made for (build/fyne/upstream.sha256); is the module cache modified?"
goversion=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)

# The patched copy, once per patch and module folder.
key=$( { cat "$patchdir/idle-loop.patch" "$patchdir/upstream.sha256"; echo "$dir"; } | sha256 | cut -c1-16)
base=$cache/fyne-patch/$key
mkdir -p "$cache/fyne-patch"
if [ ! -f "$base/fyne/.patched" ]; then
	tmp=$(mktemp -d "$cache/fyne-patch/.new.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	cp -R -l "$dir" "$tmp/fyne" 2>/dev/null || { rm -rf "$tmp/fyne"; cp -R "$dir" "$tmp/fyne"; }
	# The module cache's folders are read-only; the copy's are its own.
	find "$tmp/fyne" -type d -exec chmod u+w {} +
	# Files the patch changes become copies of their own first: a hard
	# link written through would change the module cache.
	while read -r _ f; do
		rm -f "$tmp/fyne/$f"
		cp "$dir/$f" "$tmp/fyne/$f"
		chmod u+w "$tmp/fyne/$f"
	done <"$patchdir/upstream.sha256"
	# And files it adds must be new to Fyne.
	for f in $(sed -n 's|^+++ b/||p' "$patchdir/idle-loop.patch"); do
		grep -q "  $f\$" "$patchdir/upstream.sha256" || [ ! -e "$dir/$f" ] ||
			die "the patch adds $f, which Fyne $want already has"
	done
	patch -s -d "$tmp/fyne" -p1 --forward --no-backup-if-mismatch <"$patchdir/idle-loop.patch" ||
		die "build/fyne/idle-loop.patch does not apply to Fyne $want"
	touch "$tmp/fyne/.patched"
	mkdir -p "$base"
	[ -f "$base/fyne/.patched" ] || rm -rf "$base/fyne" # left by a run cut short
	# Another build may have made it meanwhile: keep theirs.
	mv "$tmp/fyne" "$base/fyne" 2>/dev/null || [ -f "$base/fyne/.patched" ] || die "cannot write $base/fyne"
	rm -rf "$tmp"
	trap - EXIT
fi

# The workspace, once per clone.
clone=$(pwd -P)
work=$base/work-$(echo "$clone" | sha256 | cut -c1-12)
want_work="go $goversion

// Written by build/fyne-patch.sh for $clone
use $clone

replace fyne.io/fyne/v2 $want => $base/fyne
"
if [ ! -f "$work/go.work" ] || [ "$(cat "$work/go.work")" != "$want_work" ]; then
	mkdir -p "$work"
	printf '%s' "$want_work" >"$work/go.work.new"
	mv "$work/go.work.new" "$work/go.work"
fi
if $export_mode; then
	echo "export GOWORK=$work/go.work"
else
	echo "$work/go.work"
fi
