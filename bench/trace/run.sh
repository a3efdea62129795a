#!/usr/bin/env bash
# Trace overhead: ns added per traced call (Enter + message record + Leave)
# against the same program without the tool, and bytes per event on disk.
#   bench/trace/run.sh <build dir> [openmpi|mpich] [blocks] [calls per block/2]
# Each figure is the median over blocks; the run is repeated 3 times and the
# median of the 3 is printed, on one rank (no other rank competes).
set -euo pipefail
build=$(cd "$1" && pwd) flavor=${2:-openmpi} blocks=${3:-200} k=${4:-500}
prog=$build/bench/trace/bench_trace_$flavor
lib=$build/lib/mpiscope/$flavor/libmpiscope.so
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
run() { # <label> [env...]
  local vals=()
  for i in 1 2 3; do
    rm -rf "$out/o" && mkdir -p "$out/o"
    vals+=("$(env MPISCOPE_OUTPUT="$out/o" MPISCOPE_QUIET=1 "$@" "$prog" "$blocks" "$k")")
  done
  printf '%s\n' "${vals[@]}" | sort -g | sed -n 2p
}
base=$(run env)
off=$(run env LD_PRELOAD="$lib" MPISCOPE_MODE=none)
trace=$(run env LD_PRELOAD="$lib" MPISCOPE_MODE=trace)
events=$(otf2-print -G "$out/o/trace/traces.otf2" | awk '/^LOCATION /{for(i=1;i<=NF;i++) if($i=="Events:") {gsub(",","",$(i+1)); s+=$(i+1)}} END{print s}')
bytes=$(cat "$out"/o/trace/traces/*.evt | wc -c)
echo "flavor $flavor, $blocks blocks of $((2 * k)) calls"
echo "uninstrumented      ${base} ns per call"
echo "tool loaded, off    ${off} ns per call"
echo "traced              ${trace} ns per call"
awk -v b="$base" -v t="$trace" 'BEGIN{printf "added per traced call %.1f ns (Enter + MpiSend/MpiRecv + Leave)\n", t-b}'
awk -v e="$events" -v by="$bytes" 'BEGIN{printf "on disk             %d bytes for %d events: %.2f bytes per event\n", by, e, by/e}'
