#!/usr/bin/env bash
# An MPMD command under `mpiscope run`, as a user types it: one world of two
# programs (mpirun -np 1 mpmd mpmd-left : -np 2 mpmd mpmd-right). Every rank
# of both programs must be recorded (Open MPI 4.1 gives "-x NAME=VALUE" only
# to the app context it is in: before, the later program's ranks ran
# without the tool and the run hung), with each command line and its ranks
# in the profile (check_mpmd.py); traced, every message matched
# (check_trace.py); in check mode, no finding. The program's output and exit
# code are the same as without the tool.
#   mpmd.sh <flavor> <mpirun> <program> <mpiscope> <trace|check>
set -uo pipefail
flavor=$1 mpirun=$2 prog=$3 cli=$4 mode=$5
here=$(cd "$(dirname "$0")" && pwd)
out=$MSC_OUT
rm -rf "$out" && mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cmd=("$mpirun" -np 1 "$prog" mpmd-left : -np 2 "$prog" mpmd-right)
status=0
bad() { echo "mpmd.sh: $*" >&2; status=1; }
"${cmd[@]}" > "$out/without.stdout" 2> "$out/without.stderr"
rc_without=$?
"$cli" run --quiet -o "$out/run" "--$mode" -- "${cmd[@]}" > "$out/with.stdout" 2> "$out/with.stderr"
rc_with=$?
[ "$rc_with" = "$rc_without" ] || bad "exit code $rc_with under mpiscope run, $rc_without without"
[ "$rc_with" = 0 ] || bad "exit code $rc_with: $(tail -5 "$out/with.stderr")"
cmp -s <(sort "$out/without.stdout") <(sort "$out/with.stdout") ||
  bad "the program's output differs: $(cat "$out/with.stdout")"
[ $status = 0 ] || exit 1
python3 "$here/check_mpmd.py" "$out/run" "$prog" mpmd "$mode" || status=1
if [ "$mode" = trace ]; then
  /usr/bin/python3 "$here/../trace/check_trace.py" "$out/run" || status=1
fi
[ $status = 0 ] && echo "mpmd.sh ($flavor, $mode): both programs' ranks recorded, each command with its ranks"
exit $status
