#!/usr/bin/env bash
# Start-up cost in instructions (deterministic on a busy machine): MPI_Init
# of bench/startup/init run as a singleton under callgrind, without the
# tool, with it at default settings, with MPISCOPE_PVARS=none and with
# MPISCOPE_MODE=none (the tool loaded, nothing recorded).
#   callgrind.sh <build-dir> [openmpi|mpich ...]
# Prints, per MPI and case, the instructions of MPI_Init (the program's call,
# inclusive) and of the library's PMPI_Init inside it.
set -euo pipefail
b=${1:?build dir}; shift
mpis=${*:-openmpi mpich}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for mpi in $mpis; do
  prog=$b/bench/startup/$mpi/init lib=$b/lib/mpiscope/$mpi/libmpiscope.so
  printf "# %s: instructions\n%-10s %14s %14s %14s\n" "$mpi" case MPI_Init PMPI_Init added
  base=
  for c in without default nopvars modenone; do
    env=()
    case $c in
      default) env=(LD_PRELOAD="$lib") ;;
      nopvars) env=(LD_PRELOAD="$lib" MPISCOPE_PVARS=none) ;;
      modenone) env=(LD_PRELOAD="$lib" MPISCOPE_MODE=none) ;;
    esac
    env "${env[@]}" MPISCOPE_QUIET=1 MPISCOPE_OUTPUT="$out/o-$c-$mpi" \
      valgrind --tool=callgrind --callgrind-out-file="$out/cg.$c" "$prog" > /dev/null 2>&1
    ann=$(callgrind_annotate --inclusive=yes "$out/cg.$c" 2>/dev/null)
    # The program's MPI_Init: the tool's wrapper, else the library's entry.
    total=$(awk '/lifecycle.c:MPI_Init \[/{gsub(",","",$1); print $1; exit}' <<<"$ann")
    pmpi=$(awk '/\?\?\?:PMPI_Init \[/{gsub(",","",$1); print $1; exit}' <<<"$ann")
    total=${total:-$pmpi}
    base=${base:-$total}
    printf "%-10s %14s %14s %14s\n" "$c" "$total" "$pmpi" "$((total - base))"
  done
  echo
done
