#!/usr/bin/env bash
# The runs the Python tests read (tests/python/tests.cmake):
#   runs.sh MPISCOPE MPIRUN PROGRAM OUT
# OUT/a: 2 ranks, profile and trace, then `mpiscope report` (waitstates.json,
# with POP and the critical path); OUT/b: 1 rank, profile. Both at call-site
# depth 3.
set -euo pipefail
cli=$1 mpirun=$2 prog=$3 out=$4
for v in $(env | sed -n 's/^\(MPISCOPE_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
rm -rf "$out" && mkdir -p "$out"
"$cli" run --quiet --trace --callsite-depth 3 -o "$out/a" -- "$mpirun" -np 2 "$prog"
"$cli" run --quiet --callsite-depth 3 -o "$out/b" -- "$mpirun" -np 1 "$prog"
"$cli" report "$out/a" > "$out/a/report.txt"
test -s "$out/a/waitstates.json"
echo "runs.sh: $out/a and $out/b written"
