#!/usr/bin/env bash
# step.sh LABEL COMMAND [ARG...]: runs one slow step of `make` and says so:
# a line with LABEL before it starts, its time after it ends (issue 28: a
# long first run must say what it is doing). The command's own output is
# kept and shown only if it fails, so a warm run stays a few lines long.
set -u
label=$1
shift
echo "$label" >&2
start=$SECONDS
log=$(mktemp "${TMPDIR:-/tmp}/spirit-step.XXXXXX")
trap 'rm -f "$log"' EXIT
if "$@" >"$log" 2>&1; then
  echo "  done in $((SECONDS - start)) s" >&2
  exit 0
else
  rc=$?
fi
cat "$log" >&2
echo "  FAILED after $((SECONDS - start)) s (exit $rc): $*" >&2
exit "$rc"
