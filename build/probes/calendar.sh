#!/usr/bin/env bash
# calendar.sh: the outside probe's calendar repros (issue 27), run against a
# built spirit, each on a fresh data folder, all traffic on loopback.
#
#   build/probes/calendar.sh [SPIRIT_BINARY]      (default bin/spirit: make build)
#
# For every repro it prints one table row: the command's peak memory (GNU
# time's maximum RSS), its wall time, its exit status and what it said,
# and flags a panic, a Go stack overflow, a run past the sync deadline or
# a secret in the output, the log or the database. The tests hold each of
# these as a rule (agents/calendar, cmd_calendar_*_test.go); this script
# is the probe's own view of the same inputs, for a note or a regression
# hunt. It needs python3 (the servers, the inputs) and /usr/bin/time. Exit status 1 if any row is
# flagged.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-bin/spirit}") || exit 2
[ -x "$bin" ] || { echo "no spirit binary at $bin: run make build" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install time" >&2; exit 2; }
work=$(mktemp -d /tmp/spirit-probe.XXXXXX)
trap '[ -f "$work/pids" ] && kill $(cat "$work/pids") 2>/dev/null; rm -rf "$work"' EXIT
export SPIRIT_CALDAV_PASSWORD='probe-Pass-word-77'
basic=$(printf 'dana:%s' "$SPIRIT_CALDAV_PASSWORD" | base64)
export DBUS_SESSION_BUS_ADDRESS= XDG_RUNTIME_DIR=$work/run # the keychain is the file fallback
mkdir -p "$work/run"
deadline=150 # the sync deadline is 2 minutes; past this a run counts as a hang
flagged=0

# row NAME CMD...: runs CMD on a fresh data folder ($d) and prints its row.
row() {
  local name=$1
  shift
  d=$work/data-$RANDOM$RANDOM
  mkdir -p "$d"
  run "$name" "$@"
}

# run NAME CMD...: as row, on the current $d.
run() {
  local name=$1 out=$work/out rc peak secs flags=""
  shift
  /usr/bin/time -o "$work/time" -f '%M %e' timeout -s KILL "$deadline" "$@" --data-dir "$d" >"$out" 2>&1 </dev/null
  rc=$?
  read -r peak secs < <(tail -n 1 "$work/time") || { peak=0 secs=0; }
  [ "$rc" = 137 ] && flags+=" HANG"
  grep -qE '^panic:|goroutine [0-9]+ \[' "$out" && flags+=" PANIC"
  grep -q 'stack overflow' "$out" && flags+=" STACK-OVERFLOW"
  [ $((peak / 1024)) -ge 300 ] && flags+=" MEMORY"
  secret "$out" "$d" && flags+=" SECRET"
  [ -n "$flags" ] && flagged=1
  local said
  said=$(tr '\n' ' ' <"$out" | sed -e 's/|/\\|/g' -e 's/  */ /g' | cut -c1-150)
  printf '| %s | %d MB | %s s | %s |%s | %s |\n' "$name" $((peak / 1024)) "$secs" "$rc" "${flags:- ok}" "$said"
}

# secret FILE DIR: the password or its Basic value in FILE or any file of
# DIR: SQLite keeps text as it is, so the database and its WAL are
# searched as bytes.
secret() {
  local f
  for f in "$1" "$2"/*; do
    [ -f "$f" ] || continue
    grep -qaF -e "$SPIRIT_CALDAV_PASSWORD" -e "$basic" "$f" && return 0
  done
  return 1
}

# server MODE [PORT]: a hostile server on PORT, else a free port; prints
# the port once it listens.
server() {
  local port=${2:-}
  [ -n "$port" ] || port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  (cd "$work" && exec python3 "$here/hostile_calendar_server.py" "$port" "$1") >/dev/null 2>&1 &
  echo $! >>"$work/pids"
  for _ in $(seq 50); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2)" 2>/dev/null && break
    sleep 0.1
  done
  echo "$port"
}

ics() { # ics FILE BODY: an iCalendar file around BODY
  printf 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//probe//EN\r\n%s\r\nEND:VCALENDAR\r\n' "$2" >"$1"
}
event() { # event RRULE [EXTRA]: one VEVENT
  printf 'BEGIN:VEVENT\r\nUID:%s@probe\r\nDTSTART:20200101T000000Z\r\nDTEND:20200101T003000Z\r\nSUMMARY:probe\r\n%s%s\r\nEND:VEVENT' \
    "$RANDOM" "${2:+$2$'\r\n'}" "$1"
}

echo "| repro | peak memory | time | exit | flags | what spirit said |"
echo "|---|---|---|---|---|---|"

row "add /dev/zero" "$bin" calendar add /dev/zero
ln -s /dev/zero "$work/zero.ics"
row "add a symlink to /dev/zero" "$bin" calendar add "$work/zero.ics"
mkfifo "$work/pipe.ics"
row "add a FIFO" "$bin" calendar add "$work/pipe.ics"

p=$(server stream)
row "CalDAV REPORT streaming without end" "$bin" calendar add "http://127.0.0.1:$p/cal/" --caldav --user dana
p=$(server propfind)
row "a 1 GiB PROPFIND property on add" "$bin" calendar add "http://127.0.0.1:$p/cal/" --caldav --user dana
p=$(server drip)
row "a server dripping a byte every 2 s" "$bin" calendar add "http://127.0.0.1:$p/cal.ics"

tz='BEGIN:VTIMEZONE\r\nTZID:Probe/Zone\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nRRULE:FREQ=MINUTELY\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0000\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:19700101T000030\r\nRRULE:FREQ=MINUTELY\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0100\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE'
ics "$work/minutely-tz.ics" "$(printf "$tz")"$'\r\n'"$(printf 'BEGIN:VEVENT\r\nUID:z@probe\r\nDTSTART;TZID=Probe/Zone:20261202T090000\r\nSUMMARY:zoned\r\nEND:VEVENT')"
row "FREQ=MINUTELY inside a VTIMEZONE" "$bin" calendar add "$work/minutely-tz.ics"
run "  then upcoming --hours 72" "$bin" calendar upcoming --hours 72

ics "$work/secondly.ics" "$(event 'RRULE:FREQ=SECONDLY')"
row "FREQ=SECONDLY, no end, since 2020" "$bin" calendar add "$work/secondly.ics"
run "  then sync" "$bin" calendar sync

python3 - "$work/nested.ics" <<'EOF'
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    f.write(b"BEGIN:X\r\n" * 4_700_000)
    f.write(b"END:VCALENDAR\r\n")
EOF
row "4.7 M nested components ($(($(stat -c %s "$work/nested.ics") >> 20)) MiB)" "$bin" calendar add "$work/nested.ics"
run "  then sync" "$bin" calendar sync
# The app itself: before, every start died of a stack overflow 5.5 s in.
/usr/bin/time -o "$work/time" -f '%M %e' timeout --preserve-status -s INT 20 "$bin" --headless --data-dir "$d" >"$work/out" 2>&1 </dev/null
rc=$?
read -r peak secs < <(tail -n 1 "$work/time")
flags=""
[ "$rc" = 0 ] || flags+=" EXIT-$rc"
grep -q 'stack overflow' "$work/out" && flags+=" STACK-OVERFLOW"
grep -qE '^panic:' "$work/out" && flags+=" PANIC"
[ -n "$flags" ] && flagged=1
printf '| %s | %d MB | %s s | %s |%s | %s |\n' "  then Spirit runs headless 20 s, SIGINT" $((peak / 1024)) "$secs" "$rc" "${flags:- ok}" \
  "$(grep -ciE 'calendar' "$work/out") calendar log lines"

ics "$work/nocolon.ics" "$(printf 'BEGIN:VEVENT\r\nUID:c@probe\r\nDTSTART:20261202T100000Z\r\nSUMMARY\r\nDESCRIPTION;X-P="quoted"garbage\r\nLOCATION;X="a:b\r\nEND:VEVENT')"
row "a line without a colon, a quoted parameter then garbage" "$bin" calendar add "$work/nocolon.ics"

ics "$work/count.ics" "$(event 'RRULE:FREQ=SECONDLY;COUNT=1000000000')"
row "FREQ=SECONDLY;COUNT=10^9" "$bin" calendar add "$work/count.ics"
ics "$work/until.ics" "$(event 'RRULE:FREQ=SECONDLY;UNTIL=99991231T235959Z')"
row "FREQ=SECONDLY;UNTIL=9999" "$bin" calendar add "$work/until.ics"
by="BYMONTH=$(seq -s, 1 12);BYMONTHDAY=$(seq -s, 1 31);BYHOUR=$(seq -s, 0 23);BYMINUTE=$(seq -s, 0 59);BYSECOND=$(seq -s, 0 59)"
ics "$work/by.ics" "$(event "RRULE:FREQ=YEARLY;$by;COUNT=1000000000")"
row "BYxxx rules multiplying out, COUNT=10^9" "$bin" calendar add "$work/by.ics"

for kb in 300 1024; do
  python3 - "$work/cn$kb.ics" "$kb" <<'EOF'
import sys
cn = "A" * (int(sys.argv[2]) * 1024)
line = "ATTENDEE;CN=%s:mailto:marcy@example.com" % cn
folded = "\r\n ".join(line[i:i + 74] for i in range(0, len(line), 74))
with open(sys.argv[1], "w") as f:
    f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:cn@probe\r\n"
            "DTSTART:20261202T100000Z\r\nSUMMARY:big name\r\n%s\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n" % folded)
EOF
  row "an attendee CN of $kb KB, folded" "$bin" calendar add "$work/cn$kb.ics"
done

python3 - "$work/big.ics" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    for i in range(68000):
        f.write("BEGIN:VEVENT\r\nUID:e%d@probe\r\nDTSTART:2026%02d%02dT%02d0000Z\r\nDTEND:2026%02d%02dT%02d3000Z\r\n"
                "SUMMARY:Matter %d call\r\nDESCRIPTION:%s\r\nEND:VEVENT\r\n"
                % (i, i % 12 + 1, i % 28 + 1, i % 24, i % 12 + 1, i % 28 + 1, i % 24, i, "x" * 800))
    f.write("END:VCALENDAR\r\n")
EOF
row "a $(($(stat -c %s "$work/big.ics") >> 20)) MiB calendar of 68k events" "$bin" calendar add "$work/big.ics"
run "  then upcoming --hours 720" "$bin" calendar upcoming --hours 720

# Credentials: a redirect to the same host on another port, and a 403 that
# echoes them.
p=$(server redirect)
server catch $((p + 1)) >/dev/null
row "CalDAV add redirected to another port" "$bin" calendar add "http://127.0.0.1:$p/cal/" --caldav --user dana
if [ -s "$work/$((p + 1)).auth" ]; then
  echo "| ^ the other port RECEIVED: $(head -c 60 "$work/$((p + 1)).auth") | | | | SECRET | |"
  flagged=1
fi
p=$(server echo403)
row "CalDAV 403 echoing the credentials" "$bin" calendar add "http://127.0.0.1:$p/cal/" --caldav --user dana

exit "$flagged"
