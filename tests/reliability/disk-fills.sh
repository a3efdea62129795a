#!/usr/bin/env bash
# The disk fills while a traced run writes its events (issue 15): a 1 MiB
# tmpfs mounted by the test, a 512 KiB trace buffer and 12000 ping-pongs
# (tests/trace/mixed.c: at least 0.85 MB of events per rank, 1.7 MB in all;
# its MPI_Test loops add more the busier the machine is) make the event
# flushes fail part way. Each rank's
# trace stops at its first write error with one message; the application's
# exit code and output are the same as without the tool; the profile is
# still written (the trace module's reserve, released at MPI_Finalize, left
# room for it); the archive says it is incomplete and why, and
# `mpiscope report` names the damage and exits 3 (0 with --allow-partial).
#   disk-fills.sh <flavor> <program: trace_mixed> <mpiscope>
set -uo pipefail
flavor=$1 prog=$2 cli=$3
reps=12000
here=$(cd "$(dirname "$0")/.." && pwd)
work=$MSC_OUT
umount "$work/fs" 2>/dev/null
rm -rf "$work" && mkdir -p "$work/fs"
if ! mount -t tmpfs -o size=1m tmpfs "$work/fs" 2>/dev/null; then
  echo "disk-fills: skipped (cannot mount a tmpfs here)"
  exit 0
fi
# A failed run keeps its archive (the tmpfs goes at the end) in $work/kept.
status=0
trap '[ $status = 0 ] || cp -r "$work/fs/out" "$work/kept" 2>/dev/null; umount "$work/fs"' EXIT
mkdir -p "$work/fs/without"
# Without the tool (the program writes its expect files into MPISCOPE_OUTPUT).
MSC_OUT=$work/without MSC_LIB= MSC_EXPECT_RC=any "$here/run-mpi.sh" "$flavor" 2 "$prog" $reps \
  > "$work/without.stdout" 2> "$work/without.stderr"
rc_without=$(cat "$work/without/.rc")
out=$work/fs/out
mkdir -p "$out"
export MPISCOPE_MODE=profile,trace MPISCOPE_TRACE_BUFFER=512K MPISCOPE_OUTPUT=$out
case $flavor in
  openmpi)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    "$MSC_MPIRUN" -np 2 -x LD_PRELOAD="$MSC_LIB" -x MPISCOPE_OUTPUT -x MPISCOPE_MODE \
      -x MPISCOPE_TRACE_BUFFER "$prog" $reps > "$work/with.stdout" 2> "$work/with.stderr" ;;
  mpich)
    "$MSC_MPIRUN" -np 2 -genv LD_PRELOAD "$MSC_LIB" "$prog" $reps \
      > "$work/with.stdout" 2> "$work/with.stderr" ;;
esac
rc_with=$?
bad() { echo "disk-fills: $*" >&2; status=1; }
[ "$rc_with" = "$rc_without" ] || bad "exit code $rc_with with the tool, $rc_without without"
cmp -s "$work/without.stdout" "$work/with.stdout" || bad "standard output differs"
grep -E "mpiscope|signal|Segmentation" "$work/with.stderr"
grep -qiE "signal|Segmentation" "$work/with.stderr" && bad "a process died"
grep -q "No space left on device" "$work/with.stderr" || bad "no message names the full disk"
for r in 0 1; do
  n=$(grep -c "^mpiscope\[$r\]: trace: .*No space left on device.*stops here" "$work/with.stderr")
  [ "$n" -le 1 ] || bad "rank $r: $n messages about the full disk, expected at most one"
done
for f in profile.json profile.txt; do [ -s "$out/$f" ] || bad "$f was not written"; done
grep -q "MPI_Sendrecv\|MPI_Send" "$out/profile.txt" 2>/dev/null || bad "profile.txt has no sends"
if [ -e "$out/trace/traces.otf2" ]; then
  props=$(timeout 60 otf2-print -I "$out/trace/traces.otf2" 2>&1)
  grep -A1 "MPISCOPE::TRACE_COMPLETE" <<< "$props" | grep -q false || bad "not marked incomplete"
  grep -A1 "MPISCOPE::INCOMPLETE_REASON" <<< "$props" | grep -q "No space left on device" \
    || bad "the archive does not say why it is incomplete"
  # Every location reads to its end without an error (OTF2's reader loops
  # on a chunk written in part, and cannot open a location without a file).
  timeout 60 otf2-print "$out/trace/traces.otf2" > "$work/print.out" 2>&1
  rc=$?
  [ $rc = 124 ] && bad "otf2-print does not finish: an event file is left cut short"
  [ $rc = 0 ] || [ $rc = 124 ] ||
    bad "otf2-print exits $rc: $(grep -m2 -E "ERROR|error" "$work/print.out")"
  $cli report "$out" > "$work/report.stdout" 2> "$work/report.stderr"
  rc=$?
  [ $rc = 3 ] || bad "report exit code $rc, expected 3 (partial trace)"
  grep -q "the trace is partial: .*No space left on device" "$work/report.stderr" \
    || bad "report does not say the trace is partial and why: $(cat "$work/report.stderr")"
  grep -q "^\[OTF2\]" "$work/report.stderr" && bad "report prints OTF2's raw error lines"
  grep -q "^PARTIAL TRACE" "$work/report.stdout" || bad "the report text is not marked partial"
  $cli report --allow-partial "$out" > /dev/null 2>&1
  rc=$?
  [ $rc = 0 ] || bad "report --allow-partial exit code $rc, expected 0"
else
  bad "no archive at all: the definitions should have had the reserve's room"
fi
[ -e "$out/trace/.reserve" ] && bad "the reserve file was left behind"
[ $status = 0 ] && echo "disk-fills ($flavor): the trace stopped cleanly, the profile was written, the report says partial and why"
exit $status
