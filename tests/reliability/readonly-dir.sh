#!/usr/bin/env bash
# An existing output directory that cannot be written (issue 15): a
# read-only tmpfs mounted by the test, which stops root too. Preloaded
# (MPISCOPE_OUTPUT): the run carries on untraced, rank 0 says once why, no
# process dies, the exit code and output are the application's. Through
# `mpiscope run -o`: refused before anything is launched (exit 2, one line).
#   readonly-dir.sh <flavor> <program: dies> <mpiscope>
set -uo pipefail
flavor=$1 prog=$2 cli=$3
here=$(cd "$(dirname "$0")/.." && pwd)
work=$MSC_OUT
umount "$work/ro" 2>/dev/null
rm -rf "$work" && mkdir -p "$work/ro"
if ! mount -t tmpfs -o ro,size=64k tmpfs "$work/ro" 2>/dev/null; then
  echo "readonly-dir: skipped (cannot mount a tmpfs here)"
  exit 0
fi
trap 'umount "$work/ro"' EXIT
MSC_OUT=$work/without MSC_LIB= MSC_EXPECT_RC=any "$here/run-mpi.sh" "$flavor" 2 "$prog" exit calls \
  > "$work/without.stdout" 2>/dev/null
rc_without=$(cat "$work/without/.rc")
export MPISCOPE_MODE=profile,trace MPISCOPE_OUTPUT=$work/ro
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
case $flavor in
  openmpi)
    "$MSC_MPIRUN" -np 2 -x LD_PRELOAD="$MSC_LIB" -x MPISCOPE_OUTPUT -x MPISCOPE_MODE \
      "$prog" exit calls > "$work/with.stdout" 2> "$work/with.stderr" ;;
  mpich)
    "$MSC_MPIRUN" -np 2 -genv LD_PRELOAD "$MSC_LIB" "$prog" exit calls \
      > "$work/with.stdout" 2> "$work/with.stderr" ;;
esac
rc_with=$?
status=0
bad() { echo "readonly-dir: $*" >&2; status=1; }
grep -E "mpiscope|signal|Segmentation" "$work/with.stderr"
[ "$rc_with" = "$rc_without" ] || bad "exit code $rc_with with the tool, $rc_without without"
cmp -s "$work/without.stdout" "$work/with.stdout" || bad "standard output differs"
grep -qiE "signal|Segmentation" "$work/with.stderr" && bad "a process died"
n=$(grep -c "trace: cannot write in $work/ro (Read-only file system); no trace is written" "$work/with.stderr")
[ "$n" = 1 ] || bad "$n messages that the trace cannot be written, expected one"
grep -q "results in" "$work/with.stderr" && bad "says 'results in' though nothing was written"
grep -q "nothing was written to $work/ro" "$work/with.stderr" || bad "does not say that nothing was written"
# Through the command: refused before launching.
unset MPISCOPE_OUTPUT MPISCOPE_MODE
$cli run --trace -o "$work/ro" -- "$MSC_MPIRUN" -np 2 "$prog" exit calls > "$work/cli.stdout" 2> "$work/cli.stderr"
rc=$?
cat "$work/cli.stderr"
[ $rc = 2 ] || bad "mpiscope run -o <read-only dir>: exit $rc, expected 2"
[ "$(wc -l < "$work/cli.stderr")" = 1 ] || bad "mpiscope run: expected one line on stderr"
grep -q "cannot write in the output directory '$work/ro': Read-only file system" "$work/cli.stderr" \
  || bad "mpiscope run does not say why"
[ $status = 0 ] && echo "readonly-dir ($flavor): untraced with one message when preloaded, refused by mpiscope run"
exit $status
