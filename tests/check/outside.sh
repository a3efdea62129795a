#!/usr/bin/env bash
# Calls before MPI_Init / after MPI_Finalize (tests/check/outside.c): one run
# without and one with the tool (MPISCOPE_MODE=check) for each case; exit code
# and stdout must be the same, and stderr must name the erroneous call with
# its class and source line exactly once, and nothing else of that kind.
#   outside.sh <flavor> <program> <source>
# Environment: MSC_MPIRUN, MSC_LIB, MSC_OUT (as for run-mpi.sh).
set -uo pipefail
flavor=$1 prog=$2 src=$3
fail=0
run() { # <out-prefix> <with-tool 0|1> <case>
  local pre=$1 tool=$2 how=$3 args=(-np 1)
  local preload=${MSC_PRELOAD_EXTRA:-}
  [ "$tool" = 1 ] && preload="${preload:+$preload:}$MSC_LIB"
  case "$flavor" in
    openmpi)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
      # Without parameter checks Open MPI returns from calls after MPI_Finalize.
      args+=(-x OMPI_MCA_mpi_param_check=0 -x MPISCOPE_MODE=check -x "MPISCOPE_OUTPUT=$MSC_OUT/$pre")
      [ -n "$preload" ] && args+=(-x "LD_PRELOAD=$preload") ;;
    mpich)
      args+=(-genv MPISCOPE_MODE check -genv MPISCOPE_OUTPUT "$MSC_OUT/$pre")
      [ -n "$preload" ] && args+=(-genv LD_PRELOAD "$preload") ;;
  esac
  timeout 60 "$MSC_MPIRUN" "${args[@]}" "$prog" "$how" >"$MSC_OUT/$pre.out" 2>"$MSC_OUT/$pre.err"
  echo $? >"$MSC_OUT/$pre.rc"
}
line_of() { grep -n "expect: $1" "$src" | cut -d: -f1; }
rm -rf "$MSC_OUT" && mkdir -p "$MSC_OUT"
for how in none before after; do
  run "$how-plain" 0 "$how"
  run "$how-tool" 1 "$how"
  r0=$(cat "$MSC_OUT/$how-plain.rc") r1=$(cat "$MSC_OUT/$how-tool.rc")
  echo "$how: exit code $r0 without the tool, $r1 with it"
  [ "$r0" = "$r1" ] || { echo "FAIL $how: exit code changed"; fail=1; }
  cmp -s "$MSC_OUT/$how-plain.out" "$MSC_OUT/$how-tool.out" \
    || { echo "FAIL $how: stdout changed"; diff "$MSC_OUT/$how-plain.out" "$MSC_OUT/$how-tool.out"; fail=1; }
  found=$(grep -c 'check: LOCAL:CALL:' "$MSC_OUT/$how-tool.err")
  case $how in
    none) want=0 ;;
    before) want=1; pat="LOCAL:CALL:BEFORE_INIT: MPI_Comm_size called before MPI_Init at .*outside.c:$(line_of LOCAL:CALL:BEFORE_INIT) " ;;
    after) want=1; pat="LOCAL:CALL:AFTER_FINALIZE in MPI_Type_size at .*outside.c:$(line_of LOCAL:CALL:AFTER_FINALIZE)$" ;;
  esac
  [ "$found" = "$want" ] || { echo "FAIL $how: $found finding lines on stderr, expected $want"; fail=1; }
  if [ "$want" = 1 ] && ! grep -q "$pat" "$MSC_OUT/$how-tool.err"; then
    echo "FAIL $how: no line matching: $pat"; fail=1
  fi
  # The allowed calls leave no finding in the report of a completed run.
  if [ -f "$MSC_OUT/$how-tool/checks.json" ] && ! grep -q '"count": 0' "$MSC_OUT/$how-tool/checks.json"; then
    echo "FAIL $how: findings in checks.json"; cat "$MSC_OUT/$how-tool/checks.json"; fail=1
  fi
  # The finding is also in the per-rank file, written before MPI can abort
  # (before MPI_Init: under MPISCOPE_OUTPUT; after MPI_Finalize: the file
  # opened again once the report is written).
  if [ "$want" = 1 ]; then
    cls=LOCAL:CALL:BEFORE_INIT; [ "$how" = after ] && cls=LOCAL:CALL:AFTER_FINALIZE
    grep -q "\"class\":\"$cls\".*outside.c\",\"line\":$(line_of $cls)," "$MSC_OUT/$how-tool/checks.rank0.jsonl" 2>/dev/null \
      || { echo "FAIL $how: no $cls at line $(line_of $cls) in $how-tool/checks.rank0.jsonl"; fail=1; }
  fi
  sed 's/^/  stderr: /' "$MSC_OUT/$how-tool.err" | grep 'LOCAL:CALL' || true
done
exit $fail
