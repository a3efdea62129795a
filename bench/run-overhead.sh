#!/usr/bin/env bash
# Cost of mpiscope per MPI call, with recording off and on, against the same
# program without the tool, for each MPI; and the cost of the clock.
#
#   bench/run-overhead.sh [--build DIR] [--mpi "openmpi mpich"] [--rounds N]
#                         [--blocks N] [--scale X] [--quick]
#
# Configurations, each its own mpirun of bench/<mpi>/overhead:
#   uninstrumented  no tool: the baseline
#   none            tool preloaded, MPISCOPE_MODE=none
#   pcontrol0       tool preloaded, default mode, after MPI_Pcontrol(0)
#   on              tool preloaded, default mode, recording
# (pcontrol0 and on are blocks of the same process, interleaved.) Each round
# runs every configuration once, in a rotating order, so that the load of a
# shared machine falls on all of them alike; inside a process, blocks of the
# variants alternate too (see overhead.c). Reported: the median ns per call
# over all blocks, and the difference to the uninstrumented median. Every
# process also times PMPI_X called directly; the "vs PMPI" columns compare
# with that, inside one process: no process-to-process difference, which
# for the 2-rank calls (where and how the two ranks share memory and cores)
# is often larger than the tool's cost. The "uninstr" column of that group
# checks the method: without the tool, MPI_X and PMPI_X are one function.
# --quick: a smoke run with tiny counts (the CTest test bench/overhead-smoke).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../build
mpis="openmpi mpich"
rounds=20 blocks=11 scale=1 quick=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --mpi) mpis=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --blocks) blocks=$2; shift ;;
    --scale) scale=$2; shift ;;
    --quick) quick=1 rounds=1 blocks=2 scale=0.01 ;;
    *) echo "run-overhead.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
build=$(cd "$build" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(MPISCOPE_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
work=$(mktemp -d "${TMPDIR:-/tmp}/mpiscope-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
raw=$work/raw.txt
: > "$raw"

# run <mpi> <config> <np> <benches> <variants>
run() {
  local mpi=$1 config=$2 np=$3 benches=$4 variants=$5 lib=""
  local prog=$build/bench/$mpi/overhead
  [ "$config" != uninstrumented ] && lib=$build/lib/mpiscope/$mpi/libmpiscope.so
  local mode=profile
  [ "$config" = none ] && mode=none
  local -a args=(-np "$np")
  case $mpi in
    openmpi)
      args+=(-x MPISCOPE_MODE="$mode" -x MPISCOPE_QUIET=1 -x MPISCOPE_OUTPUT="$work/out-$mpi-$config")
      [ -n "$lib" ] && args+=(-x "LD_PRELOAD=$lib") ;;
    mpich)
      args+=(-bind-to core -genv MPISCOPE_MODE "$mode" -genv MPISCOPE_QUIET 1
             -genv MPISCOPE_OUTPUT "$work/out-$mpi-$config")
      [ -n "$lib" ] && args+=(-genv LD_PRELOAD "$lib") ;;
  esac
  rm -rf "$work/out-$mpi-$config"
  "mpirun.$mpi" "${args[@]}" "$prog" "$benches" "$blocks" "$scale" "$variants" > "$work/out.txt" ||
    { echo "run-overhead.sh: $mpi $config failed" >&2; cat "$work/out.txt" >&2; exit 1; }
  sed -n "s/^ns /$mpi $config /p" "$work/out.txt" >> "$raw"
}

echo "# mpiscope overhead benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# git: $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# rounds $rounds, blocks $blocks per process, scale $scale"
configs=(uninstrumented none default)
for mpi in $mpis; do
  [ -x "$build/bench/$mpi/overhead" ] || { echo "run-overhead.sh: no $build/bench/$mpi/overhead" >&2; exit 1; }
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#configs[@]}; i++)); do
      c=${configs[(i + r) % ${#configs[@]}]}
      case $c in
        default) variants=off,on,pmpi ;;
        *) variants=mpi,pmpi ;;
      esac
      run "$mpi" "$c" 1 comm_rank,barrier "$variants"
      run "$mpi" "$c" 2 pingpong,allreduce "$variants"
    done
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$raw" "$quick" <<'PY'
import sys, statistics
from collections import defaultdict
raw, quick = sys.argv[1], sys.argv[2] == "1"
d = defaultdict(list)
for line in open(raw):
    mpi, config, bench, variant, ns = line.split()
    d[(mpi, config, bench, variant)].append(float(ns))
def med(*k):
    v = d.get(k)
    return statistics.median(v) if v else float("nan")
mpis = sorted({k[0] for k in d}, key=lambda m: ["openmpi", "mpich"].index(m) if m in ("openmpi", "mpich") else 9)
benches = ["comm_rank", "barrier", "pingpong", "allreduce"]
what = {"comm_rank": "MPI_Comm_rank", "barrier": "MPI_Barrier, 1 rank",
        "pingpong": "0-byte ping-pong, per message", "allreduce": "8-byte MPI_Allreduce, 2 ranks"}
print()
print("ns per call: median over all blocks; (+x) = added to the uninstrumented median;")
print("vs PMPI: MPI_X minus PMPI_X timed in the same process (see the top of the script)")
hdr = (f"{'mpi':8} {'call':31} {'uninstr':>8} {'MODE=none':>15} {'Pcontrol(0)':>15} "
       f"{'recording on':>15}   | vs PMPI: {'uninstr':>7} {'none':>6} {'pctl0':>6} {'on':>6}")
print(hdr)
missing = 0
for mpi in mpis:
    for b in benches:
        base = med(mpi, "uninstrumented", b, "mpi")
        cols = []
        for config, variant in (("none", "mpi"), ("default", "off"), ("default", "on")):
            x = med(mpi, config, b, variant)
            cols.append(f"{x:7.1f} ({x - base:+5.1f})")
        inproc = [med(mpi, "uninstrumented", b, "mpi") - med(mpi, "uninstrumented", b, "pmpi"),
                  med(mpi, "none", b, "mpi") - med(mpi, "none", b, "pmpi"),
                  med(mpi, "default", b, "off") - med(mpi, "default", b, "pmpi"),
                  med(mpi, "default", b, "on") - med(mpi, "default", b, "pmpi")]
        n = len(d.get((mpi, "uninstrumented", b, "mpi"), []))
        missing += sum(1 for c in ("uninstrumented", "none") for v in ("mpi", "pmpi") if not d.get((mpi, c, b, v)))
        missing += sum(1 for v in ("off", "on", "pmpi") if not d.get((mpi, "default", b, v)))
        print(f"{mpi:8} {what[b]:31} {base:8.1f} {cols[0]:>15} {cols[1]:>15} {cols[2]:>15}   "
              f"   |          {inproc[0]:+7.1f} {inproc[1]:+6.1f} {inproc[2]:+6.1f} {inproc[3]:+6.1f}"
              f"   ({n} blocks)")
if missing:
    print(f"run-overhead.sh: {missing} series without results", file=sys.stderr)
    sys.exit(1)
PY

echo
if [ -x "$build/bench/clock_bench" ]; then
  if [ "$quick" = 1 ]; then "$build/bench/clock_bench" 3 1000 10; else "$build/bench/clock_bench"; fi
fi
