#!/usr/bin/env bash
# Runs one test program under mpirun with the tool loaded, the way a user
# would, and then an optional check of the results.
#   run-mpi.sh <flavor> <np> <program> [args...]
# Environment (set by CTest, see tests/CMakeLists.txt):
#   MSC_MPIRUN   the flavor's mpirun
#   MSC_LIB      the tool library to preload; empty to run without the tool
#   MSC_OUT      a fresh output directory for this test (becomes MPISCOPE_OUTPUT)
#   MSC_CHECK    a command run after the program succeeded, with MPISCOPE_OUTPUT set
#   MSC_EXPECT_RC  the exit code the run must end with (default 0; "any": not
#                checked, the code is left in $MSC_OUT/.rc)
#   MSC_KEEP_STDERR=1  the run's stderr is also kept as $MSC_OUT/.stderr for the check
#   MSC_KEEP_STDOUT=1  the run's stdout is also kept as $MSC_OUT/.stdout for the check
#   MPISCOPE_*   passed on to every rank
set -uo pipefail
flavor=$1 np=$2
shift 2
rm -rf "$MSC_OUT" && mkdir -p "$MSC_OUT"
export MPISCOPE_OUTPUT="$MSC_OUT"
preload=${MSC_PRELOAD_EXTRA:-}
lib=${MSC_LIB:-}
# Check mode's allocator interposer goes before the tool library, as
# mpiscope run puts it (MSC_NO_HEAP=1: without it).
case ",${MPISCOPE_MODE:-}," in
  *,check,*) [ -n "$lib" ] && [ "${MSC_NO_HEAP:-0}" != 1 ] &&
               lib="$(dirname "$(dirname "$lib")")/libmpiscope-heap.so:$lib" ;;
esac
[ -n "$lib" ] && preload="${preload:+$preload:}$lib"
args=(-np "$np")
case "$flavor" in
  openmpi)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
    [ -n "$preload" ] && args+=(-x "LD_PRELOAD=$preload")
    for v in $(env | sed -n 's/^\(MPISCOPE_[A-Z0-9_]*\)=.*/\1/p'); do args+=(-x "$v"); done
    ;;
  mpich)
    [ -n "$preload" ] && args+=(-genv LD_PRELOAD "$preload")
    ;;
  *) echo "run-mpi.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
# Kept streams are written to their file, then shown as well.
run() {
  if [ "${MSC_KEEP_STDOUT:-0}" = 1 ]; then
    "$@" >"$MSC_OUT/.stdout"
  else
    "$@"
  fi
}
if [ "${MSC_KEEP_STDERR:-0}" = 1 ]; then
  run "$MSC_MPIRUN" "${args[@]}" "$@" 2>"$MSC_OUT/.stderr"
  rc=$?
else
  run "$MSC_MPIRUN" "${args[@]}" "$@"
  rc=$?
fi
[ "${MSC_KEEP_STDOUT:-0}" = 1 ] && cat "$MSC_OUT/.stdout"
[ "${MSC_KEEP_STDERR:-0}" = 1 ] && cat "$MSC_OUT/.stderr" >&2
echo "$rc" > "$MSC_OUT/.rc"
expect=${MSC_EXPECT_RC:-0}
if [ "$expect" != any ] && [ "$rc" != "$expect" ]; then
  echo "run-mpi.sh: exit code $rc, expected $expect" >&2
  exit 1
fi
if [ -n "${MSC_CHECK:-}" ]; then
  eval "$MSC_CHECK" || { echo "run-mpi.sh: check failed: $MSC_CHECK" >&2; exit 1; }
fi
exit 0
