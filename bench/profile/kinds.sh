#!/usr/bin/env bash
# The profile's cost per kind of MPI call against the floor (issue 30), both
# MPIs, 1 rank (bench/profile/kinds.c has the kinds):
#   kinds.sh <build-dir> [--mpi "openmpi mpich"] [--iters N] [--blocks B]
#            [--kinds k1,k2] [--lib openmpi=PATH,mpich=PATH] [--callgrind]
# Default: wall clock. Per kind, blocks of N iterations through MPI_ (the
# tool, profile mode, call-site depth 1), through PMPI_ and of the floor (two
# reads of the tool's clock) take turns in one process; printed: the medians
# (ns per iteration), the tool's cost per MPI call and its ratio to the floor.
# --callgrind: instructions instead, exact and the same under load; per kind
# the whole loop through MPI_ minus through PMPI_ (valgrind client requests
# around each loop), per iteration and per call, and what each wrapper adds
# per call (its recording path minus its PMPI call: cgcalls.py; the six
# instructions of the exported thunk are not in it).
# --lib: another build of the library (for example the parent commit's) in
# place of <build-dir>'s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
b=$(cd "${1:?build dir}" && pwd); shift
mpis="openmpi mpich" iters="" blocks=101 kinds=all cg=0 libs=""
while [ $# -gt 0 ]; do
  case $1 in
    --mpi) mpis=$2; shift ;;
    --iters) iters=$2; shift ;;
    --blocks) blocks=$2; shift ;;
    --kinds) kinds=$2; shift ;;
    --lib) libs=$2; shift ;;
    --callgrind) cg=1 ;;
    *) echo "kinds.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_osc=pt2pt # osc pt2pt: tests/trace/tests.cmake
unset LD_PRELOAD
for v in $(env | sed -n 's/^\(MPISCOPE_[A-Z0-9_]*\)=.*/\1/p'); do unset "$v"; done
out=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "# files kept in $out" || trap 'rm -rf "$out"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), git $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo ?)," \
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for mpi in $mpis; do
  lib=$b/lib/mpiscope/$mpi/libmpiscope.so
  for l in ${libs//,/ }; do [ "${l%%=*}" = "$mpi" ] && lib=${l#*=}; done
  prog=$b/bench/profile/$mpi/kinds
  [ -x "$prog" ] || { echo "kinds.sh: no $prog" >&2; exit 1; }
  if [ "$cg" = 1 ]; then
    n=${iters:-2000}
    run=(valgrind -q --tool=callgrind --callgrind-out-file="$out/cg-$mpi.%p" "$prog" cg "$n" "$kinds")
  else
    n=${iters:-1000}
    run=("$prog" time "$n" "$blocks" "$kinds")
  fi
  echo "# $mpi, $lib"
  if [ "$mpi" = openmpi ]; then
    mpirun.openmpi -np 1 -x LD_PRELOAD="$lib" -x MPISCOPE_QUIET=1 -x MPISCOPE_PVARS=none \
      -x MPISCOPE_OUTPUT="$out/o-$mpi" "${run[@]}" > "$out/$mpi.txt"
  else
    mpirun.mpich -np 1 -genv LD_PRELOAD "$lib" -genv MPISCOPE_QUIET 1 \
      -genv MPISCOPE_OUTPUT "$out/o-$mpi" "${run[@]}" > "$out/$mpi.txt"
  fi
  if [ "$cg" = 0 ]; then
    cat "$out/$mpi.txt"
    continue
  fi
  python3 - "$here/../check/cgcalls.py" "$n" "$out"/cg-"$mpi".*.* <<'PY'
import re, subprocess, sys
cgcalls, n, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = {}
for f in files:
    what = tot = None
    for line in open(f):
        if line.startswith("desc: Trigger: Client Request: "):
            what = line[len("desc: Trigger: Client Request: "):].strip()
        elif line.startswith("totals:"):  # the costs in the file ("summary" can be more)
            tot = int(line.split()[1])
    if what and tot is not None:
        runs[what] = (tot, f)
print(f"{'kind':<22} {'calls':>5} {'added/iter':>10} {'added/call':>10}   per wrapper (instructions added per call)")
seen = []
for what in runs:
    name, v, calls = what.split(":")
    if v != "mpi" or (name, calls) in seen: continue
    seen.append((name, calls))
    if f"{name}:pmpi:{calls}" not in runs: continue
    d = (runs[what][0] - runs[f"{name}:pmpi:{calls}"][0]) / n
    per = []
    for line in subprocess.run(["python3", cgcalls, runs[what][1], "--fns", "x"],
                               capture_output=True, text=True).stdout.splitlines():
        w = line.split()
        if len(w) == 3 and w[0].startswith("MPI_") and w[1].isdigit() and int(w[1]) >= n:
            per.append(f"{w[0][4:]} {w[2]}")
    print(f"{name:<22} {calls:>5} {d:>10.0f} {d / int(calls):>10.0f}   {', '.join(per)}")
PY
done
