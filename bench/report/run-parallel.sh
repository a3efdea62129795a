#!/usr/bin/env bash
# Wait-state analysis in one process against the analysis under MPI:
#   run-parallel.sh <build-dir> [ranks iterations repeats]
# Generates a synthetic trace (bench/report/gen_trace.c; default 8 ranks ×
# 1,000,000 iterations, about 40 M events), then times
# `mpiscope report --reanalyze` in this process and with --np 2 on each MPI,
# interleaved, `repeats` times (default 3); prints the best end-to-end wall
# time of each and the read and match times the analysis itself reports
# (waitstates.json's "analysis" line of that run), and checks that every
# run's waitstates.json equals the serial one but for that line.
# Meaningful only on an otherwise idle machine: with 2 cores, the second
# analysis process needs the second core.
set -euo pipefail
b=${1:?build dir}; ranks=${2:-8}; iters=${3:-1000000}; reps=${4:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cli=$b/bin/mpiscope
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$b/bin/msc_bench_gen_trace" "$dir/trace" "$ranks" "$iters" > /dev/null
events=$("$cli" report --reanalyze "$dir" > /dev/null && grep -o '"events": [0-9]*' "$dir/waitstates.json" | grep -o '[0-9]*')
grep -v '"analysis"' "$dir/waitstates.json" > "$dir/serial.json"
echo "# $ranks ranks x $iters iterations: $events events, $(du -sh "$dir/trace" | cut -f1); best of $reps; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
declare -A best line
run() { # name args...
  local name=$1; shift
  local t0 t1 t
  t0=$(date +%s.%N)
  "$cli" report --reanalyze "$@" "$dir" > /dev/null
  t1=$(date +%s.%N)
  t=$(echo "$t1 - $t0" | bc -l)
  grep -v '"analysis"' "$dir/waitstates.json" | cmp -s - "$dir/serial.json" ||
    { echo "run-parallel: $name: waitstates.json differs from the serial analysis" >&2; exit 1; }
  if [ -z "${best[$name]:-}" ] || [ "$(echo "$t < ${best[$name]}" | bc -l)" = 1 ]; then
    best[$name]=$t
    line[$name]=$(grep -o '"read_s": [0-9.]*, "match_s": [0-9.]*' "$dir/waitstates.json")
  fi
}
names=(serial)
for m in openmpi mpich; do
  [ -x "$b/lib/mpiscope/$m/mpiscope-analyze" ] && command -v "mpirun.$m" > /dev/null && names+=("$m")
done
for ((i = 0; i < reps; i++)); do
  for n in "${names[@]}"; do
    if [ "$n" = serial ]; then run serial; else run "$n" --np 2 --mpi "$n"; fi
  done
done
printf "%-22s %10s %14s  %s\n" analysis "wall s" "M events/s" "analysis line"
for n in "${names[@]}"; do
  label=$n; [ "$n" != serial ] && label="$n, 2 processes"
  printf "%-22s %10.2f %14.1f  %s\n" "$label" "${best[$n]}" "$(echo "$events / ${best[$n]} / 1000000" | bc -l)" "${line[$n]}"
done
