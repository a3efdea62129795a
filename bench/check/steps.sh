#!/usr/bin/env bash
# Where check mode's cost lies in the IMB-like sweep, step by step:
#   steps.sh <build-dir> [openmpi|mpich ...]
# Runs `bench_check imb IMB_SCALE` REPS (5) times in profile and in check
# mode, interleaved (order alternating), with BENCH_CHECK_STEPS=1; per IMB
# step (PingPong, Sendrecv, Exchange, Allreduce, Reduce, Bcast, Allgather,
# Alltoall, Barrier) and size band (0-1 KiB, 2-16 KiB, 32-64 KiB) the median
# over the repetitions of the seconds in each mode, what check adds, and
# the ratio. Wall-clock: run on an idle machine, or read as loaded.
set -euo pipefail
REPS=${REPS:-5} IMB_SCALE=${IMB_SCALE:-2}
b=$(cd "${1:?build dir}" && pwd); shift
mpis=${*:-openmpi mpich}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # <mpi> <mode> <file for the steps>
  local mpi=$1 mode=$2 f=$3 lib=$b/lib/mpiscope/$1/libmpiscope.so prog=$b/bench/check/$1/bench_check
  local o="$out/o-$mpi-$mode-$RANDOM"
  if [ "$mpi" = openmpi ]; then
    mpirun.openmpi -np 2 -x BENCH_CHECK_STEPS=1 -x LD_PRELOAD="$lib" -x MPISCOPE_MODE="$mode" \
      -x MPISCOPE_OUTPUT="$o" -x MPISCOPE_QUIET=1 "$prog" imb "$IMB_SCALE" 2>"$f" >/dev/null
  else
    mpirun.mpich -np 2 -genv BENCH_CHECK_STEPS 1 -genv LD_PRELOAD "$lib" -genv MPISCOPE_MODE "$mode" \
      -genv MPISCOPE_OUTPUT "$o" -genv MPISCOPE_QUIET 1 "$prog" imb "$IMB_SCALE" 2>"$f" >/dev/null
  fi
}
for mpi in $mpis; do
  for ((k = 0; k < REPS; k++)); do
    if ((k % 2)); then order="check profile"; else order="profile check"; fi
    for m in $order; do run "$mpi" $m "$out/$mpi.$m.$k"; done
  done
  echo "# $mpi, IMB_SCALE=$IMB_SCALE, medians of $REPS interleaved repetitions (ms)"
  python3 - "$out" "$mpi" "$REPS" <<'PY'
import sys, statistics, collections
d, mpi, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
band = lambda b: "0-1K" if b <= 1024 else "2K-16K" if b <= 16384 else "32K-64K"
order = ["PingPong", "Sendrecv", "Exchange", "Allreduce", "Reduce", "Bcast", "Allgather",
         "Alltoall", "Barrier"]
v = {m: collections.defaultdict(list) for m in ("profile", "check")}
for m in v:
    for k in range(reps):
        acc = collections.Counter()
        for line in open(f"{d}/{mpi}.{m}.{k}"):
            w = line.split()
            if len(w) == 4 and w[0] == "step":
                acc[(w[1], band(int(w[2])))] += float(w[3])
                acc[(w[1], "all")] += float(w[3])
                acc[("total", "all")] += float(w[3])
        for key, s in acc.items(): v[m][key].append(s)
print(f"{'step':<10} {'sizes':<8} {'profile':>9} {'check':>9} {'added':>9} {'ratio':>6}")
for st in order + ["total"]:
    for bd in (["0-1K", "2K-16K", "32K-64K", "all"] if st != "total" else ["all"]):
        p = v["profile"].get((st, bd)); c = v["check"].get((st, bd))
        if not p or not c: continue
        pm, cm = statistics.median(p) * 1e3, statistics.median(c) * 1e3
        print(f"{st:<10} {bd:<8} {pm:9.2f} {cm:9.2f} {cm - pm:9.2f} {cm / pm if pm else 0:6.2f}")
PY
done
