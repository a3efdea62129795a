#!/usr/bin/env bash
# Reports on damaged data (issue 15). From a good run's directory (a 2-rank
# trace of tests/trace/mixed.c with its profile), copies in which one rank's
# event file is empty, missing, or cut short: `mpiscope report` and `export
# --chrome` name that location (rank 1), print no raw OTF2 lines, mark the
# result partial and exit 3; 0 with --allow-partial. The intact copy exits 0
# and is not marked. A profile.json of a future schema version is refused
# (exit 1, one message naming the version). An anchor file that declares
# 268 million properties (OTF2 would allocate 4 GB for them before reading
# one) is refused before OTF2 reads it: exit 1, one message; so is one whose
# property name OTF2 refuses (OTF2 would leak the archive).
#   damaged.sh <run directory with a trace> <mpiscope>
set -uo pipefail
src=$1 cli=$2
work="${src%/}-damaged"
rm -rf "$work" && mkdir -p "$work"
status=0
bad() { echo "damaged: $*" >&2; status=1; }
[ -s "$src/trace/traces/1.evt" ] || { echo "damaged: no trace in $src" >&2; exit 1; }
copy() { rm -rf "$work/$1"; cp -a "$src" "$work/$1"; rm -f "$work/$1/waitstates.json" "$work/$1/trace.json"; }

copy good
"$cli" report "$work/good" > "$work/good.out" 2> "$work/good.err"
rc=$?
[ $rc = 0 ] || bad "intact trace: report exit $rc"
grep -q "PARTIAL" "$work/good.out" && bad "intact trace marked partial"
msgs=$(sed -n 's/.*; \([0-9]*\) messages,.*/\1/p' "$work/good.out")
[ "${msgs:-0}" -gt 0 ] || bad "intact trace: no messages matched"

for how in empty missing cut; do
  copy $how
  f=$work/$how/trace/traces/1.evt
  case $how in
    empty) : > "$f" ;;
    missing) rm -f "$f" ;;
    cut) truncate -s $(( $(stat -c %s "$f") - 7 )) "$f" ;;
  esac
  "$cli" report "$work/$how" > "$work/$how.out" 2> "$work/$how.err"
  rc=$?
  [ $rc = 3 ] || bad "$how: report exit $rc, expected 3"
  grep -q "^mpiscope report: the trace is partial: location 1 (rank 1, thread 0): its event file" \
    "$work/$how.err" || bad "$how: report does not name rank 1's location: $(cat "$work/$how.err")"
  grep -q "OTF2" "$work/$how.err" && bad "$how: raw OTF2 lines: $(grep OTF2 "$work/$how.err" | head -2)"
  grep -q "^PARTIAL TRACE: location 1 (rank 1" "$work/$how.out" || bad "$how: report text not marked partial"
  "$cli" report --allow-partial "$work/$how" > /dev/null 2>&1
  rc=$?
  [ $rc = 0 ] || bad "$how: report --allow-partial exit $rc, expected 0"
  "$cli" export --chrome "$work/$how" > /dev/null 2> "$work/$how.xerr"
  rc=$?
  [ $rc = 3 ] || bad "$how: export exit $rc, expected 3"
  grep -q "^mpiscope export: the trace is partial: location 1 (rank 1" "$work/$how.xerr" \
    || bad "$how: export does not name the location"
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'rank 1' in d['otherData']['partial']" \
    "$work/$how/trace.json" || bad "$how: trace.json is not marked partial"
done

# Cut just after a "02 01" inside rank 1's event file: the file then ends
# as a whole one does, so only the count of events read against the
# location's definition shows the cut (OTF2's reader may also loop on such
# a file: a disk filled during a run left one that gave events without end).
copy cut-lucky
f=$work/cut-lucky/trace/traces/1.evt
at=$(/usr/bin/python3 -c "import sys; b=open(sys.argv[1],'rb').read(); p=[i for i in range(8, len(b) - 8) if b[i] == 2 and b[i + 1] == 1]; print(p[len(p) // 2] + 2 if p else 0)" "$f")
if [ "${at:-0}" -gt 0 ]; then
  truncate -s "$at" "$f"
  timeout 60 "$cli" report "$work/cut-lucky" > "$work/cut-lucky.out" 2> "$work/cut-lucky.err"
  rc=$?
  [ $rc = 3 ] || bad "cut-lucky: report exit $rc, expected 3: $(cat "$work/cut-lucky.err")"
  grep -q "^mpiscope report: the trace is partial: 1 location gave more or fewer events than its definition counts" \
    "$work/cut-lucky.err" || bad "cut-lucky: not reported as partial: $(cat "$work/cut-lucky.err")"
  grep -q "^PARTIAL TRACE: 1 location" "$work/cut-lucky.out" || bad "cut-lucky: report text not marked partial"
  timeout 60 "$cli" export --chrome "$work/cut-lucky" > /dev/null 2> "$work/cut-lucky.xerr"
  rc=$?
  [ $rc = 3 ] || bad "cut-lucky: export exit $rc, expected 3"
  grep -q "^mpiscope export: the trace is partial: 1 location gave more or fewer events" \
    "$work/cut-lucky.xerr" || bad "cut-lucky: export does not say partial: $(cat "$work/cut-lucky.xerr")"
else
  bad "cut-lucky: no 02 01 pair inside rank 1's event file"
fi

copy anchor
/usr/bin/python3 - "$work/anchor/trace/traces.otf2" <<'PY' || bad "anchor: could not patch"
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
assert b[1] == 0x42 and b[2:7] == b"OTF2\0" and b[7] >= 2, "unexpected anchor layout"
at = 46
for _ in range(3):
    at = b.index(0, at) + 1
b[at:at + 4] = struct.pack("<I", (1 << 28) + 2)
open(p, "wb").write(b)
PY
"$cli" report "$work/anchor" > "$work/anchor.out" 2> "$work/anchor.err"
rc=$?
[ $rc = 1 ] || bad "anchor: report exit $rc, expected 1"
grep -q "the OTF2 archive .*traces.otf2 is damaged: its anchor file declares more properties than it holds" \
  "$work/anchor.out" "$work/anchor.err" || bad "anchor: no clear message: $(cat "$work/anchor.err")"

copy propname
/usr/bin/python3 - "$work/propname/trace/traces.otf2" <<'PY' || bad "propname: could not patch"
import sys
p = sys.argv[1]
b = open(p, "rb").read()
assert b"MPISCOPE::TRACE_COMPLETE" in b, "no MPISCOPE::TRACE_COMPLETE property"
open(p, "wb").write(b.replace(b"MPISCOPE::TRACE_COMPLETE", b"MPISCOPE::TRACE-COMPLETE"))
PY
"$cli" report "$work/propname" > "$work/propname.out" 2> "$work/propname.err"
rc=$?
[ $rc = 1 ] || bad "propname: report exit $rc, expected 1"
grep -q "the OTF2 archive .*traces.otf2 is damaged: its anchor file holds a property OTF2 does not accept" \
  "$work/propname.out" "$work/propname.err" || bad "propname: no clear message: $(cat "$work/propname.err")"
grep -q "^\[OTF2\]" "$work/propname.err" && bad "propname: OTF2's own lines printed"

copy future
sed -i '0,/"schema_version": 1/s//"schema_version": 99/' "$work/future/profile.json"
"$cli" report --no-waitstates "$work/future" > "$work/future.out" 2> "$work/future.err"
rc=$?
cat "$work/future.err"
[ $rc = 1 ] || bad "future schema: exit $rc, expected 1"
grep -q "has profile schema version 99; this mpiscope reads version 1 and older" "$work/future.err" \
  || bad "future schema: no clear message"
grep -q "MPI_" "$work/future.out" && bad "future schema: the profile was rendered anyway"
[ $status = 0 ] && echo "damaged: partial traces named and exit 3, future schema refused"
exit $status
