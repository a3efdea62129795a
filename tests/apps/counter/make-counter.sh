#!/usr/bin/env bash
# Builds the call counter for one MPI (gen_counter.py says what it is):
#   make-counter.sh <mpifort> <mpicc> <out.so>
# The MPI libraries whose exported MPI names it traps are the ones a
# Fortran program using `use mpi_f08` links (C, mpif.h, `use mpi`, f08).
set -euo pipefail
fc=$1 cc=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'program p\n  use mpi_f08\n  call MPI_Init()\n  call MPI_Finalize()\nend program\n' > "$tmp/p.f90"
(cd "$tmp" && "$fc" -o p p.f90)
mapfile -t libs < <(ldd "$tmp/p" | awk '$1 ~ /^libmpi/ && $3 ~ /^\// {print $3}')
[ ${#libs[@]} -gt 0 ] || { echo "make-counter.sh: no MPI library linked by $fc" >&2; exit 1; }
/usr/bin/python3 "$here/gen_counter.py" "$tmp/tramp.S" "${libs[@]}"
"$cc" -shared -fPIC -O2 -o "$out" "$here/counter.c" "$tmp/tramp.S" -ldl
