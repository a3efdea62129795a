#!/usr/bin/env bash
# The library in some ranks only: an MPMD command whose first program gets
# LD_PRELOAD and whose second does not (Open MPI's -x and MPICH's -env hold
# for one app context), 1 + 2 ranks of tests/comms/mpmd.c. The tool's rank
# cannot make its set-up with ranks that do not take part; it must say so
# once, turn recording off and let the program run as without the tool
# (same output and exit code) instead of waiting for them forever, in
# MPI_Init or at MPI_Finalize. MPISCOPE_SETUP_TIMEOUT=3 bounds the wait.
#   partial-preload.sh <flavor> <mpmd program>
set -uo pipefail
flavor=$1 prog=$2
work=$MSC_OUT
rm -rf "$work" && mkdir -p "$work"
preload=${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$MSC_LIB
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
second=(-np 2 "$prog" mpmd-right)
case $flavor in
  openmpi) first=(-np 1 -x "LD_PRELOAD=$preload" -x "MPISCOPE_OUTPUT=$work/out"
                  -x MPISCOPE_SETUP_TIMEOUT=3 "$prog" mpmd-left) ;;
  mpich) first=(-np 1 -env LD_PRELOAD "$preload" -env MPISCOPE_OUTPUT "$work/out"
                -env MPISCOPE_SETUP_TIMEOUT 3 "$prog" mpmd-left) ;;
esac
status=0
bad() { echo "partial-preload: $*" >&2; status=1; }
"$MSC_MPIRUN" -np 1 "$prog" mpmd-left : "${second[@]}" > "$work/without.stdout" 2> "$work/without.stderr"
rc_without=$?
"$MSC_MPIRUN" "${first[@]}" : "${second[@]}" > "$work/with.stdout" 2> "$work/with.stderr"
rc_with=$?
[ "$rc_with" = "$rc_without" ] || bad "exit code $rc_with with the library in rank 0 only, $rc_without without"
# The given-up duplicate stays pending (MPI-3.1 section 5.12: freeing or
# cancelling a nonblocking collective's request is erroneous), and MPICH's
# UCX layer prints one line about it at MPI_Finalize, on stdout.
grep -v "UCX  WARN .* was not returned to mpool ucp_requests" "$work/with.stdout" > "$work/with.app.stdout"
cmp -s "$work/without.stdout" "$work/with.app.stdout" || bad "standard output differs: $(cat "$work/with.stdout")"
n=$(grep -c "^mpiscope\[0\]: not every rank of the world joined the tool's set-up within 3 s" "$work/with.stderr")
[ "$n" = 1 ] || bad "$n messages about the set-up, expected one: $(grep mpiscope "$work/with.stderr")"
[ "$(grep -c '^mpiscope' "$work/with.stderr")" = 1 ] || bad "other messages: $(grep mpiscope "$work/with.stderr")"
[ -e "$work/out/profile.json" ] && bad "a profile was written by a process whose recording is off"
[ $status = 0 ] && echo "partial-preload ($flavor): one message, recording off, the program ran as without the tool"
exit $status
