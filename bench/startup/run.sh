#!/usr/bin/env bash
# Start-up cost of mpiscope: MPI_Init (largest over the ranks) of a program
# that does nothing else, without the tool, with it at default settings, and
# with the MPI_T sampling off (MPISCOPE_PVARS=none); median of <reps> runs
# each, interleaved so that a busy machine hurts every column alike.
#   run.sh <build-dir> [reps] [openmpi|mpich ...]
# Prints one table per MPI and rank count (1 and 2), seconds; "added" is the
# median with the tool minus the median without. MPI_Finalize times are
# printed too (largest over ranks).
set -euo pipefail
b=${1:?build dir}; reps=${2:-21}; shift $(( $# > 2 ? 2 : $# ))
mpis=${*:-openmpi mpich}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # <mpi> <np> <case> : prints "init finalize"
  local mpi=$1 np=$2 c=$3 lib=$b/lib/mpiscope/$1/libmpiscope.so prog=$b/bench/startup/$1/init
  local env=()
  case $c in
    without) ;;
    default) env=(LD_PRELOAD="$lib" MPISCOPE_QUIET=1 MPISCOPE_OUTPUT="$out/$RANDOM$RANDOM") ;;
    nopvars) env=(LD_PRELOAD="$lib" MPISCOPE_QUIET=1 MPISCOPE_OUTPUT="$out/$RANDOM$RANDOM"
                  MPISCOPE_PVARS=none) ;;
  esac
  local args=()
  for e in "${env[@]}"; do
    if [ "$mpi" = openmpi ]; then args+=(-x "$e"); else args+=(-genv "${e%%=*}" "${e#*=}"); fi
  done
  "mpirun.$mpi" -np "$np" "${args[@]}" "$prog" |
    awk '$1=="init"{i=$2} $1=="finalize"&&$3>f{f=$3} END{print i, f}'
}
median() { sort -g | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }
for mpi in $mpis; do
  for np in 1 2; do
    for c in without default nopvars; do : > "$out/$c"; done
    for ((r = 0; r < reps; r++)); do
      for c in without default nopvars; do run "$mpi" "$np" "$c" >> "$out/$c"; done
    done
    echo "# $mpi, $np rank(s): median of $reps runs, seconds"
    printf "%-10s %10s %10s %10s %10s\n" case MPI_Init added MPI_Finalize added
    i0=$(cut -d' ' -f1 "$out/without" | median); f0=$(cut -d' ' -f2 "$out/without" | median)
    for c in without default nopvars; do
      i=$(cut -d' ' -f1 "$out/$c" | median); f=$(cut -d' ' -f2 "$out/$c" | median)
      printf "%-10s %10.4f %10.4f %10.4f %10.4f\n" "$c" "$i" "$(echo "$i - $i0" | bc -l)" \
        "$f" "$(echo "$f - $f0" | bc -l)"
    done
    echo
  done
done
