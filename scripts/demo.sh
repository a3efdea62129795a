#!/usr/bin/env bash
# The main job: builds everything, then runs the demo program (a 1-D heat
# equation on 4 ranks, examples/demo.c) under `mpiscope run` with profiling
# and tracing on, prints the profile report and a summary of the OTF2 trace.
# Uses Open MPI; `scripts/demo.sh mpich` uses MPICH (on 2 ranks).
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=${1:-openmpi}
scripts/build.sh build
if [ "$(id -u)" -eq 0 ]; then
  # Open MPI refuses to run as root unless told that it is intended.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
out=build/demo-$mpi
rm -rf "$out"
case $mpi in
  openmpi) launch=(mpirun.openmpi -np 4) ;;
  mpich) launch=(mpirun.mpich -np 2) ;;
  *) echo "usage: scripts/demo.sh [openmpi|mpich]" >&2; exit 2 ;;
esac
build/bin/mpiscope run --trace -o "$out" -- "${launch[@]}" "build/examples/$mpi/demo" 1000
echo
build/bin/mpiscope report "$out"
if [ -f "$out/trace/traces.otf2" ]; then
  echo
  echo "OTF2 trace: $out/trace/traces.otf2"
  otf2-print "$out/trace/traces.otf2" | awk 'NR > 2 {n[$1]++} END {for (e in n) printf "  %-24s %d\n", e, n[e]}' | sort -k2 -nr | head -12
fi
