#!/usr/bin/env bash
# Slowdown of each mpiscope mode per packaged application (tests/apps):
# runs every application the build's tests know, on each MPI, REPS times in
# each mode (plain = without mpiscope, profile, trace, check; the call
# counter of the tests is not loaded here) through tests/apps/run-app.sh,
# and prints the median wall time of the mpirun per mode and its ratio to
# plain. A benchmark, not a test: run it on an idle machine.
#   bench/apps/run.sh [build dir] [reps]      (defaults: build, 5)
# Output: one line per application and MPI (the lead copies it into
# bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
reps=${2:-5}
src=$PWD
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
apps=$(sed -n 's/^set(msc_apps \(.*\))$/\1/p' tests/apps/tests.cmake)
export MSC_APPS_OUT=$out MSC_APPS_BIN=$build/tests MSC_SOURCE_DIR=$src
export MSC_BENCH_NO_COUNTER=1
printf '%-10s %-8s %9s %9s %9s %9s   %s\n' app mpi plain profile trace check "slowdown (profile trace check)"
for entry in $apps; do
  app=${entry%%:*}
  for flavor in $(echo "${entry#*:}" | tr , ' '); do
    [ -f "$build/gen/$flavor/coverage.txt" ] || continue
    export MSC_MPIRUN=$(command -v "mpirun.$flavor") MSC_LIB=$build/lib/mpiscope/$flavor/libmpiscope.so
    export MSC_COUNTER=$build/tests/$flavor/apps/libcallcounter.so MSC_COVERAGE=$build/gen/$flavor/coverage.txt
    declare -A times=()
    skip=
    for ((i = 0; i < reps; i++)); do
      for mode in plain profile trace check; do
        rc=0
        tests/apps/run-app.sh "$flavor" "$app" "$mode" > "$out/log" 2>&1 || rc=$?
        if [ "$rc" = 77 ]; then skip=1; break 2; fi
        [ "$rc" = 0 ] || { echo "bench/apps: $app on $flavor, $mode failed:" >&2; tail -5 "$out/log" >&2; exit 1; }
        times[$mode]+=" $(cat "$out/$flavor/$app/$mode/seconds")"
      done
    done
    [ -n "$skip" ] && continue
    med() { echo $1 | tr ' ' '\n' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
    p=$(med "${times[plain]}") f=$(med "${times[profile]}") t=$(med "${times[trace]}") c=$(med "${times[check]}")
    printf '%-10s %-8s %8.2fs %8.2fs %8.2fs %8.2fs   %.2fx %.2fx %.2fx\n' "$app" "$flavor" "$p" "$f" "$t" "$c" \
      "$(echo "$f / $p" | bc -l)" "$(echo "$t / $p" | bc -l)" "$(echo "$c / $p" | bc -l)"
    unset times
  done
done
