#!/usr/bin/env bash
# Runs wrapgen for one MPI: preprocesses mpi.h through that MPI's compiler
# wrapper, lists the symbols its libraries export and hands both to
# wrapgen.py. Called by the build; output goes to the build tree only.
#   generate.sh <name> <mpicc> <outdir> <python> <c-libs;...> [<fortran-libs;...>]
set -euo pipefail
name=$1 mpicc=$2 out=$3 python=$4 clibs=$5 flibs=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
printf '#include <mpi.h>\n' > "$out/mpi_h.c"
"$mpicc" -E -P -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX "$out/mpi_h.c" > "$out/mpi_h.i"
"$mpicc" -E -dM -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX "$out/mpi_h.c" > "$out/mpi_h.macros"
: > "$out/symbols.txt"
IFS=';' read -r -a libs <<< "$clibs"
for l in "${libs[@]}"; do nm -D --defined-only "$l" >> "$out/symbols.txt"; done
: > "$out/fortran-symbols.txt"
IFS=';' read -r -a libs <<< "$flibs"
for l in "${libs[@]}"; do [ -n "$l" ] && nm -D --defined-only "$l" >> "$out/fortran-symbols.txt"; done
exec "$python" "$here/wrapgen.py" --mpi "$name" --header "$out/mpi_h.i" \
  --macros "$out/mpi_h.macros" --symbols "$out/symbols.txt" \
  --fortran-symbols "$out/fortran-symbols.txt" \
  --facts "$here/functions.txt" --legacy "$here/legacy.txt" --outdir "$out"
