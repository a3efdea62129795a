#!/usr/bin/env bash
# An MPI that no longer exports the functions removed in MPI-3.0: runs
# wrapgen on one MPI's real inputs (build/gen/<mpi>) with the ten legacy
# symbols (C and Fortran) taken out of the symbol lists, and checks that
# coverage.txt reports each as "removed in MPI-3.0 and not exported", that no
# wrapper is generated for it, and that every other function is still wrapped.
#   unexported.sh <python> <source dir> <gen dir of one MPI> <scratch dir>
set -euo pipefail
py=$1 src=$2 gen=$3 out=$4
names="Address Type_extent Type_struct Type_hvector Type_hindexed Type_lb Type_ub
       Errhandler_create Errhandler_get Errhandler_set"
rm -rf "$out"; mkdir -p "$out"
re=$(for n in $names; do printf '%s|' "$n"; done); re="(${re%|})"
grep -v -i -E " p?mpi_${re}(_+)?\$" "$gen/symbols.txt" > "$out/symbols.txt"
grep -v -i -E " p?mpi_${re}(_+)?\$" "$gen/fortran-symbols.txt" > "$out/fortran-symbols.txt"
"$py" "$src/tools/wrapgen/wrapgen.py" --mpi test --header "$gen/mpi_h.i" \
  --macros "$gen/mpi_h.macros" --symbols "$out/symbols.txt" \
  --fortran-symbols "$out/fortran-symbols.txt" --facts "$src/tools/wrapgen/functions.txt" \
  --legacy "$src/tools/wrapgen/legacy.txt" --outdir "$out" > /dev/null
fail=0
for n in $names; do
  row=$(grep "^MPI_$n " "$out/coverage.txt" | grep -v fortran | grep -v ' f77 \| f08 ' || true)
  if [ "$row" != "MPI_$n skipped removed in MPI-3.0 (tools/wrapgen/legacy.txt) and not exported by the library" ]; then
    echo "unexported.sh: MPI_$n: coverage says '$row'" >&2; fail=1
  fi
  if grep -q "msc_rec_MPI_${n}(\|msc_frec_MPI_${n}(" "$out/wrappers_c.c" "$out/wrappers_fortran.c"; then
    echo "unexported.sh: MPI_$n: a wrapper was generated" >&2; fail=1
  fi
done
# Nothing else changes: the same number of wrapped functions, minus the ten.
before=$(grep -c ' wrapped generated' "$gen/coverage.txt")
after=$(grep -c ' wrapped generated' "$out/coverage.txt")
[ "$after" -eq $((before - 10)) ] || { echo "unexported.sh: $before wrapped before, $after after" >&2; fail=1; }
exit $fail
