#!/usr/bin/env bash
# Check mode's allocator interposer: heap_bench with libmpiscope-heap.so
# preloaded (never a timed test). Usage: bench/heap/run.sh [build] [rounds] [threads]
set -euo pipefail
build=${1:-build}
LD_PRELOAD="$build/lib/mpiscope/libmpiscope-heap.so" exec "$build/bench/heap/heap_bench" "${2:-41}" "${3:-2}"
