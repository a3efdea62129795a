#!/usr/bin/env bash
# Output directory problems: the tool says so once on stderr, and the job's
# exit code and output are what they are without the tool.
#   output-dir.sh <flavor> <program>
# Cases: a directory that cannot be created, a regular file in the way, a
# read-only file system (a tmpfs mounted read-only, when we may mount), and
# a path longer than the setting allows.
set -uo pipefail
flavor=$1 prog=$2
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work"
status=0

run() { # run <name> <MPISCOPE_OUTPUT value> <expected message>
  local name=$1 dir=$2 want=$3
  local err=$work/$name.stderr
  case $flavor in
    openmpi)
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
      MPISCOPE_OUTPUT=$dir "$MSC_MPIRUN" -np 2 -x LD_PRELOAD="$MSC_LIB" -x MPISCOPE_OUTPUT \
        "$prog" exit > "$work/$name.stdout" 2> "$err" ;;
    mpich)
      MPISCOPE_OUTPUT=$dir "$MSC_MPIRUN" -np 2 -genv LD_PRELOAD "$MSC_LIB" \
        "$prog" exit > "$work/$name.stdout" 2> "$err" ;;
  esac
  local rc=$?
  local n
  n=$(grep -c "$want" "$err")
  if [ "$rc" != 3 ]; then echo "$name: exit code $rc, expected the program's 3" >&2; status=1; fi
  if [ "$n" != 1 ]; then
    echo "$name: expected exactly one message matching '$want' on stderr, got $n:" >&2
    cat "$err" >&2
    status=1
  fi
  echo "$name: exit $rc, message: $(grep "$want" "$err" | head -1)"
}

run cannot-create /proc/no/such/dir "cannot create output directory '/proc/no/such/dir'"
touch "$work/a-file"
run file-in-the-way "$work/a-file/out" "cannot create output directory"
long=$work/$(printf 'x%.0s' $(seq 1 1100))
run too-long "$long" "MPISCOPE_OUTPUT is 1.* characters long"
if mkdir -p "$work/ro" && mount -t tmpfs -o size=64k,ro tmpfs "$work/ro" 2>/dev/null; then
  run read-only "$work/ro/out" "cannot create output directory.*Read-only file system"
  umount "$work/ro"
else
  echo "read-only: skipped (cannot mount a tmpfs here)"
fi
exit $status
