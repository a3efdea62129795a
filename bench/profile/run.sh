#!/usr/bin/env bash
# Profile benchmarks, Open MPI:
#   run.sh <build-dir> [calls-per-block blocks] [rank counts...]
# 1. ns per call, median of blocks, without the tool and with it (profile
#    mode, call-site depth 1 and 4), in the same run; "added" is the
#    difference of the medians. "in-proc-d1": MPI_X minus PMPI_X timed in
#    interleaved blocks of the depth-1 process, free of the differences
#    between processes (which for sendrecv_self are often over 10 ns).
# 2. MPI_Finalize time (largest over ranks) without and with the tool, for
#    each rank count (default 2 8 32; oversubscribed).
set -euo pipefail
b=${1:?build dir}; calls=${2:-10000}; blocks=${3:-200}; shift $(( $# > 3 ? 3 : $# ))
counts=${*:-2 8 32}
lib=$b/lib/mpiscope/openmpi/libmpiscope.so
bin=$b/bench/profile/openmpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # <np> <with tool: 0|1> <depth> <program> [args]
  local np=$1 tool=$2 depth=$3; shift 3
  local x=()
  [ "$tool" = 1 ] && x=(-x LD_PRELOAD="$lib" -x MPISCOPE_MODE=profile -x MPISCOPE_CALLSITE_DEPTH="$depth"
                         -x MPISCOPE_OUTPUT="$out/o$np-$depth-$RANDOM" -x MPISCOPE_QUIET=1)
  mpirun.openmpi -np "$np" "${x[@]}" "$@"
}
echo "# ns per call (median of $blocks blocks of $calls calls), Open MPI, 1 rank"
base=$(run 1 0 1 "$bin/overhead" "$calls" "$blocks")
d1=$(run 1 1 1 "$bin/overhead" "$calls" "$blocks")
d4=$(run 1 1 4 "$bin/overhead" "$calls" "$blocks")
printf "%-14s %10s %10s %10s %12s %12s %12s\n" call baseline depth1 depth4 added-d1 added-d4 in-proc-d1
for k in comm_rank sendrecv_self barrier; do
  b0=$(awk -v k=$k '$1==k{print $2}' <<<"$base")
  b1=$(awk -v k=$k '$1==k{print $2}' <<<"$d1")
  p1=$(awk -v k=$k '$1==k{print $3}' <<<"$d1")
  b4=$(awk -v k=$k '$1==k{print $2}' <<<"$d4")
  printf "%-14s %10.1f %10.1f %10.1f %12.1f %12.1f %12.1f\n" $k $b0 $b1 $b4 \
    "$(echo "$b1 - $b0" | bc -l)" "$(echo "$b4 - $b0" | bc -l)" "$(echo "$b1 - $p1" | bc -l)"
done
echo
echo "# MPI_Finalize seconds (largest over ranks), Open MPI, oversubscribed on $(nproc) cores"
printf "%6s %12s %12s %12s\n" ranks without with added
for np in $counts; do
  w0=$(run "$np" 0 1 "$bin/finalize" | awk '$1=="finalize"{if($3>m)m=$3} END{print m}')
  w1=$(run "$np" 1 1 "$bin/finalize" | awk '$1=="finalize"{if($3>m)m=$3} END{print m}')
  printf "%6s %12.3f %12.3f %12.3f\n" "$np" "$w0" "$w1" "$(echo "$w1 - $w0" | bc -l)"
done
