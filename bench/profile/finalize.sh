#!/usr/bin/env bash
# MPI_Finalize with the profile, Open MPI, oversubscribed: the largest time
# over the ranks (bench/profile/finalize.c), without the tool and with each
# library given, interleaved run by run so that a change of load hits every
# column alike; the median of the repetitions per column, and each column's
# median minus the no-tool median ("added").
#   finalize.sh <build-dir> [-r reps] [-n "ranks..."] [-x NAME=VALUE]... [other-lib...]
# The build's own library is always the first column; other libraries (say,
# the same build of an older commit) follow. -x passes a setting to every
# rank of the tool runs (e.g. -x MPISCOPE_PVARS=none to leave the MPI_T
# sampler out).
set -euo pipefail
b=${1:?build dir}; shift
reps=7 counts="16 32 64" extra=()
while [ $# -gt 0 ]; do
  case $1 in
    -r) reps=$2; shift 2 ;;
    -n) counts=$2; shift 2 ;;
    -x) extra+=(-x "$2"); shift 2 ;;
    *) break ;;
  esac
done
libs=("$b/lib/mpiscope/openmpi/libmpiscope.so" "$@")
bin=$b/bench/profile/openmpi/finalize
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
once() { # <np> [lib]: the largest MPI_Finalize time over the ranks
  local np=$1 lib=${2:-} x=()
  [ -n "$lib" ] && x=(-x LD_PRELOAD="$lib" -x MPISCOPE_MODE=profile -x MPISCOPE_QUIET=1
                      -x MPISCOPE_OUTPUT="$out/o$RANDOM$RANDOM" "${extra[@]}")
  mpirun.openmpi -np "$np" "${x[@]}" "$bin" | awk '$1=="finalize"{if($3>m)m=$3} END{printf "%.3f\n", m}'
}
median() { sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
echo "# MPI_Finalize seconds, largest over ranks, median of $reps; Open MPI on $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf "# columns: none"; for l in "${libs[@]}"; do printf " | %s" "$l"; done; echo
for np in $counts; do
  : > "$out/none"
  for l in "${!libs[@]}"; do : > "$out/lib$l"; done
  for r in $(seq "$reps"); do
    once "$np" >> "$out/none"
    for l in "${!libs[@]}"; do once "$np" "${libs[$l]}" >> "$out/lib$l"; done
  done
  m0=$(median < "$out/none")
  line=$(printf "%4s ranks: none %.3f" "$np" "$m0")
  for l in "${!libs[@]}"; do
    m=$(median < "$out/lib$l")
    line+=$(printf " | %.3f (added %+.3f)" "$m" "$(echo "$m - $m0" | bc -l)")
  done
  echo "$line"
done
