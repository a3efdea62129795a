#!/usr/bin/env bash
# The output directory's file system is full: the tool says so clearly on
# stderr, leaves no half-written file under a final name, and the job's exit
# code and output are those without the tool.
#   disk-full.sh <flavor> <program> <mode: profile|trace>
# Mounts a 64 KiB tmpfs in $MSC_OUT and fills it (skipped with a message
# when mounting is not permitted).
set -uo pipefail
flavor=$1 prog=$2 mode=$3
here=$(cd "$(dirname "$0")/.." && pwd)
work=$MSC_OUT
mkdir -p "$work/fs"
umount "$work/fs" 2>/dev/null
rm -rf "$work" && mkdir -p "$work/fs"
if ! mount -t tmpfs -o size=64k tmpfs "$work/fs" 2>/dev/null; then
  echo "disk-full: skipped (cannot mount a tmpfs here)"
  exit 0
fi
trap 'umount "$work/fs"' EXIT
dd if=/dev/zero of="$work/fs/filler" bs=1k count=64 2>/dev/null
MSC_OUT=$work/without MSC_LIB= MSC_EXPECT_RC=any "$here/run-mpi.sh" "$flavor" 2 "$prog" exit calls > "$work/without.stdout" 2>/dev/null
rc_without=$(cat "$work/without/.rc")
# run-mpi.sh makes MSC_OUT afresh: point MPISCOPE_OUTPUT into the full
# file system through a setting it passes on.
export MPISCOPE_MODE=$mode
# The profile's own files are the subject here: Open MPI's default sampled
# performance variables would write mpit.txt first and take the full disk's
# message (that file goes through the same output helpers).
export MPISCOPE_PVARS=none
mkdir -p "$work/with"
case $flavor in
  openmpi)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    MPISCOPE_OUTPUT=$work/fs/out "$MSC_MPIRUN" -np 2 -x LD_PRELOAD="$MSC_LIB" -x MPISCOPE_OUTPUT \
      -x MPISCOPE_MODE -x MPISCOPE_PVARS "$prog" exit calls > "$work/with.stdout" 2> "$work/with.stderr" ;;
  mpich)
    MPISCOPE_OUTPUT=$work/fs/out "$MSC_MPIRUN" -np 2 -genv LD_PRELOAD "$MSC_LIB" \
      "$prog" exit calls > "$work/with.stdout" 2> "$work/with.stderr" ;;
esac
rc_with=$?
status=0
if [ "$rc_with" != "$rc_without" ]; then echo "exit code $rc_with with the tool, $rc_without without" >&2; status=1; fi
if ! cmp -s "$work/without.stdout" "$work/with.stdout"; then
  echo "standard output differs:" >&2; diff "$work/without.stdout" "$work/with.stdout" >&2; status=1
fi
grep mpiscope "$work/with.stderr"
out=$work/fs/out
if [ ! -d "$out" ]; then
  echo "(the output directory itself could not be created)"
  n=$(grep -c "cannot create output directory" "$work/with.stderr")
  [ "$n" = 1 ] || { echo "expected one message about the output directory, got $n" >&2; status=1; }
  exit $status
fi
if [ "$mode" = profile ]; then
  n=$(grep -c "profile.json.*No space left on device" "$work/with.stderr")
  [ "$n" = 1 ] || { echo "expected one message naming profile.json and the full disk, got $n" >&2; status=1; }
  for f in profile.json profile.txt; do
    [ -e "$out/$f" ] && { echo "$f exists under its final name" >&2; status=1; }
  done
else
  # One line per rank that hit the full disk, naming it; rank 0 says where
  # the unreadable archive went, or that the trace is incomplete.
  for r in 0 1; do
    n=$(grep -c "^mpiscope\[$r\]: trace: .*No space left on device" "$work/with.stderr")
    [ "$n" -le 1 ] || { echo "rank $r: $n messages about the full disk" >&2; status=1; }
  done
  grep -q "No space left on device" "$work/with.stderr" || { echo "no message names the full disk" >&2; status=1; }
  if [ -e "$out/trace/traces.otf2" ]; then
    otf2-print -A "$out/trace/traces.otf2" 2>&1 | grep -A1 "MPISCOPE::TRACE_COMPLETE" | grep -q false \
      || { echo "trace/traces.otf2 is not marked incomplete" >&2; status=1; }
  fi
fi
if find "$out" -name '.*partial*' | grep -q .; then
  echo "temporary files left: $(find "$out" -name '.*partial*')" >&2; status=1
fi
[ $status = 0 ] && echo "disk-full ($mode): exit $rc_with as without the tool, one clear message, nothing half-written under a final name"
exit $status
