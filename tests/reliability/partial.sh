#!/usr/bin/env bash
# A rank goes down with MPISCOPE_MODE=<mode>: the job's exit code and output
# are unchanged (same-exit.sh) and what the tool saved is checked
# (check_partial.py). MSC_DIES_CALLS=calls-flush makes the ranks flush the
# trace with MPI_Pcontrol(2) half way.
#   partial.sh <flavor> <np> <program> <how> <mode> <dead rank> <reason|none> <report> [notes...]
set -uo pipefail
flavor=$1 np=$2 prog=$3 how=$4 mode=$5 dead=$6 reason=$7 report=$8
shift 8
here=$(cd "$(dirname "$0")" && pwd)
export MPISCOPE_MODE=$mode
"$here/same-exit.sh" "$flavor" "$np" "$prog" "$how ${MSC_DIES_CALLS:-calls}" "$@" || exit 1
"$here/check_partial.py" "$MSC_OUT/with" "$mode" "$dead" "$reason" "$np" "$report"
