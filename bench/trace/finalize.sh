#!/usr/bin/env bash
# MPI_Finalize added by the tool, profile and trace, Open MPI oversubscribed:
#   finalize.sh <build-dir> [repetitions] [rank counts...]   (default 3; 16 32 64 128)
# For each rank count, runs bench/profile's finalize program (a ring of
# sends and allreduces, then MPI_Finalize timed on every rank) without the
# tool, with MPISCOPE_MODE=profile and with MPISCOPE_MODE=profile,trace;
# each figure is the median over the repetitions of the largest
# MPI_Finalize over the ranks. "added" is with minus without. Wall-clock:
# take it on an idle machine (on a loaded one, compare runs of one session
# only, e.g. main's build against a branch's with the same script).
set -euo pipefail
b=${1:?build dir}; reps=${2:-3}; shift $(( $# > 2 ? 2 : $# ))
counts=${*:-16 32 64 128}
lib=$b/lib/mpiscope/openmpi/libmpiscope.so
bin=$b/bench/profile/openmpi/finalize
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
once() { # <np> <mode|none>: the largest MPI_Finalize over the ranks, seconds
  local np=$1 mode=$2 x=()
  [ "$mode" != none ] && x=(-x LD_PRELOAD="$lib" -x MPISCOPE_MODE="$mode" -x MPISCOPE_PVARS=none
                            -x MPISCOPE_OUTPUT="$out/o-$np-$RANDOM$RANDOM" -x MPISCOPE_QUIET=1)
  mpirun.openmpi -np "$np" "${x[@]}" "$bin" | awk '$1=="finalize"{if($3>m)m=$3} END{printf "%.4f\n", m}'
}
median() { # <np> <mode>
  local v=()
  for _ in $(seq "$reps"); do v+=("$(once "$1" "$2")"); done
  printf '%s\n' "${v[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
echo "# MPI_Finalize seconds (largest over ranks, median of $reps runs), Open MPI, oversubscribed on $(nproc) cores"
printf "%6s %10s %10s %10s %14s %14s\n" ranks without profile trace added-profile added-trace
for np in $counts; do
  w0=$(median "$np" none); w1=$(median "$np" profile); w2=$(median "$np" profile,trace)
  printf "%6s %10.3f %10.3f %10.3f %14.3f %14.3f\n" "$np" "$w0" "$w1" "$w2" \
    "$(echo "$w1 - $w0" | bc -l)" "$(echo "$w2 - $w0" | bc -l)"
done
