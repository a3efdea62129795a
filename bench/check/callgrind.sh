#!/usr/bin/env bash
# Instructions the check mode adds per point-to-point call, by callgrind
# (deterministic on a loaded machine, unlike wall-clock time):
#   callgrind.sh <build-dir> [openmpi|mpich] [iterations]
# One rank runs bench_check self (MPI_Irecv, MPI_Send, MPI_Wait, MPI_Isend,
# MPI_Recv, MPI_Wait to itself) with the tool in profile mode and in check
# mode; for each MPI function, the wrapper's inclusive instructions per call
# minus those of the PMPI function it calls: what the tool adds, its own
# MPI calls (the sidecar messages) included.
set -euo pipefail
b=$(cd "${1:?build dir}" && pwd); mpi=${2:-openmpi}; n=${3:-2000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
lib=$b/lib/mpiscope/$mpi/libmpiscope.so
for mode in profile check; do
  if [ "$mpi" = openmpi ]; then
    mpirun.openmpi -np 1 -x LD_PRELOAD="$lib" -x MPISCOPE_MODE=$mode -x MPISCOPE_QUIET=1 -x MPISCOPE_CHECK_UNEXPECTED=${UNEXP:-64} \
      -x MPISCOPE_OUTPUT="$out/o-$mode" valgrind -q --tool=callgrind \
      --callgrind-out-file="$out/cg-$mode" "$b/bench/check/$mpi/bench_check" self "$n" 1 >/dev/null
  else
    mpirun.mpich -np 1 -genv LD_PRELOAD "$lib" -genv MPISCOPE_MODE $mode -genv MPISCOPE_QUIET 1 \
      -genv MPISCOPE_OUTPUT "$out/o-$mode" valgrind -q --tool=callgrind \
      --callgrind-out-file="$out/cg-$mode" "$b/bench/check/$mpi/bench_check" self "$n" 1 >/dev/null
  fi
  callgrind_annotate --inclusive=yes --threshold=100 "$out/cg-$mode" 2>/dev/null >"$out/a-$mode"
done
echo "# instructions per call added by the tool ($mpi, $n iterations, 1 rank)"
printf "%-12s %10s %10s\n" call profile check
for f in MPI_Irecv MPI_Send MPI_Wait MPI_Isend MPI_Recv; do
  line=""
  for mode in profile check; do
    w=$(awk -v f="$f" '$0 ~ ("[ :]" f " ") || $0 ~ ("[ :]" f "$") {gsub(",","",$1); print $1; exit}' "$out/a-$mode")
    p=$(awk -v f="P$f" '$0 ~ ("[ :]" f " ") || $0 ~ ("[ :]" f "$") {gsub(",","",$1); print $1; exit}' "$out/a-$mode")
    calls=$n; [ "$f" = MPI_Wait ] && calls=$((2 * n))
    line="$line $(( (${w:-0} - ${p:-0}) / calls ))"
  done
  printf "%-12s %10s %10s\n" $f $line
done
