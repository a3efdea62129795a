#!/usr/bin/env bash
# Profile benchmarks, Open MPI:
#   run.sh <build-dir> [calls-per-block blocks] [rank counts...]
# 1. ns per call, median of blocks, without the tool and with it (profile
#    mode, call-site depth 1 and 4), in the same run; "added" is the
#    difference of the medians. "in-proc-d1": MPI_X minus PMPI_X timed in
#    interleaved blocks of the depth-1 process, free of the differences
#    between processes (which for sendrecv_self are often over 10 ns).
# 2. MPI_Allreduce of 8 bytes at 2 and 8 ranks (oversubscribed beyond the
#    cores: its latency is then the scheduler's, and the difference of the
#    medians is noise; the callgrind count below is the figure to compare:
#    the recording path's instructions per call minus PMPI_Allreduce's, the
#    same at any communicator size since the matrix edges are folded).
# 3. MPI_Finalize time (largest over ranks) without and with the tool, for
#    each rank count (default 2 8 32; oversubscribed). finalize.sh compares
#    libraries at larger counts.
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
for k in comm_rank sendrecv_self barrier allreduce; do
  b0=$(awk -v k=$k '$1==k{print $2}' <<<"$base")
  b1=$(awk -v k=$k '$1==k{print $2}' <<<"$d1")
  p1=$(awk -v k=$k '$1==k{print $3}' <<<"$d1")
  b4=$(awk -v k=$k '$1==k{print $2}' <<<"$d4")
  printf "%-14s %10.1f %10.1f %10.1f %12.1f %12.1f %12.1f\n" $k $b0 $b1 $b4 \
    "$(echo "$b1 - $b0" | bc -l)" "$(echo "$b4 - $b0" | bc -l)" "$(echo "$b1 - $p1" | bc -l)"
done
echo
echo "# MPI_Allreduce, 8 bytes, ns per call (median of blocks), Open MPI"
printf "%6s %10s %10s %12s %12s\n" ranks baseline depth1 added-d1 in-proc-d1
for np in 2 8; do
  b0=$(run "$np" 0 1 "$bin/overhead" "$calls" "$blocks" 3 | awk '$1=="allreduce"{print $2}')
  l1=$(run "$np" 1 1 "$bin/overhead" "$calls" "$blocks" 3 | awk '$1=="allreduce"{print $2, $3}')
  b1=${l1% *} p1=${l1#* }
  printf "%6s %10.1f %10.1f %12.1f %12.1f\n" "$np" "$b0" "$b1" "$(echo "$b1 - $b0" | bc -l)" "$(echo "$b1 - $p1" | bc -l)"
done
if command -v valgrind > /dev/null; then
  # Collected inside the recording path only (--toggle-collect): its total
  # minus PMPI_Allreduce's is what the tool adds, whatever the polling cost.
  echo "# instructions added per MPI_Allreduce (callgrind, rank 0, 2000 calls x 6 blocks)"
  for np in 2 8; do
    d=$(mktemp -d)
    mpirun.openmpi -np "$np" -x LD_PRELOAD="$lib" -x MPISCOPE_OUTPUT="$d/o" -x MPISCOPE_QUIET=1 \
      -x MPISCOPE_PVARS=none valgrind --tool=callgrind --collect-atstart=no \
      --toggle-collect=msc_rec_MPI_Allreduce --callgrind-out-file="$d/cg.%q{OMPI_COMM_WORLD_RANK}" \
      "$bin/overhead" 2000 1 3 > /dev/null 2>&1
    callgrind_annotate --inclusive=yes "$d/cg.0" 2>/dev/null | awk -v np="$np" '
      /PROGRAM TOTALS/ { gsub(",", "", $1); tot = $1 }
      /:PMPI_Allreduce / { gsub(",", "", $1); pm = $1 }
      END { printf "%6s ranks %8.1f\n", np, (tot - pm) / 12000 }'
    rm -rf "$d"
  done
fi
echo
echo "# MPI_Finalize seconds (largest over ranks), Open MPI, oversubscribed on $(nproc) cores"
printf "%6s %12s %12s %12s\n" ranks without with added
for np in $counts; do
  w0=$(run "$np" 0 1 "$bin/finalize" | awk '$1=="finalize"{if($3>m)m=$3} END{print m}')
  w1=$(run "$np" 1 1 "$bin/finalize" | awk '$1=="finalize"{if($3>m)m=$3} END{print m}')
  printf "%6s %12.3f %12.3f %12.3f\n" "$np" "$w0" "$w1" "$(echo "$w1 - $w0" | bc -l)"
done
