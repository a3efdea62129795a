#!/usr/bin/env bash
# The runs the Python tests read (tests/python/tests.cmake):
#   runs.sh MPISCOPE MPIRUN PROGRAM CHECK_PROGRAM OUT
# OUT/a: 2 ranks, profile and trace, then `mpiscope report` (waitstates.json,
# with POP and the critical path); OUT/b: 1 rank, profile. Both at call-site
# depth 3. OUT/c: tests/check/neg_count.c under --check (two findings).
set -euo pipefail
cli=$1 mpirun=$2 prog=$3 checkprog=$4 out=$5
for v in $(env | sed -n 's/^\(MPISCOPE_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
rm -rf "$out" && mkdir -p "$out"
"$cli" run --quiet --trace --callsite-depth 3 -o "$out/a" -- "$mpirun" -np 2 "$prog"
"$cli" run --quiet --callsite-depth 3 -o "$out/b" -- "$mpirun" -np 1 "$prog"
"$cli" run --quiet --check -o "$out/c" -- "$mpirun" -np 2 "$checkprog" 2> "$out/c.stderr"
"$cli" report "$out/a" > "$out/a/report.txt"
test -s "$out/a/waitstates.json"
echo "runs.sh: $out/a, $out/b and $out/c written"
