#!/usr/bin/env bash
# Instructions the check mode adds per MPI call, by callgrind (deterministic
# on a loaded machine, unlike wall-clock time):
#   callgrind.sh <build-dir> [openmpi|mpich] [iterations] [self|halo|imb]
# self (default, 2000 iterations): one rank runs bench_check self (MPI_Irecv,
# MPI_Send, MPI_Wait, MPI_Isend, MPI_Recv, MPI_Wait to itself).
# halo (suggested 300 iterations): two ranks run bench_check halo (two 16 KiB
# faces each way with MPI_Irecv/MPI_Isend/MPI_Waitall, an MPI_Allreduce),
# averaged over the ranks; the MPI_Allreduce is left out (the tool's own
# PMPI_Allreduce calls, and their waiting, blur wrapper minus PMPI).
# imb (iterations: the repetition scale, 0.05 suggested): two ranks run
# bench_check imb; per IMB step the instructions the tool adds per
# repetition (cgcalls.py), the tool's own blocking collectives on its
# shadows (mostly waiting for the peer) apart, per collective.
# Both with the tool in profile mode and in check mode; for each MPI
# function, the wrapper's inclusive instructions per call minus those of the
# PMPI function it calls: what the tool adds, its own MPI calls (the sidecar
# messages, the unexpected-queue probe) included, the time MPI spends
# waiting for the peer excluded. The last line: the sum per iteration.
# Sidecar records travel when a batch is full or of a new kind, not after a
# delay (MPISCOPE_CHECK_SIDECAR_DELAY=1000000: under valgrind every delay
# passes within a few calls, which would make the counts depend on time).
set -euo pipefail
b=$(cd "${1:?build dir}" && pwd); mpi=${2:-openmpi}; n=${3:-2000}; pat=${4:-self}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "# callgrind files kept in $out" || trap 'rm -rf "$out"' EXIT
lib=$b/lib/mpiscope/$mpi/libmpiscope.so
extra=()
if [ "$pat" = imb ]; then
  np=2 args=(imb "$n") extra=(--separate-callers=6)
elif [ "$pat" = halo ]; then
  np=2 args=(halo "$n")
  calls=(MPI_Irecv:2 MPI_Isend:2 MPI_Waitall:1)
else
  np=1 args=(self "$n" 1)
  calls=(MPI_Irecv:1 MPI_Send:1 MPI_Wait:2 MPI_Isend:1 MPI_Recv:1)
fi
for mode in profile check; do
  cg=(valgrind -q --tool=callgrind --callgrind-out-file="$out/cg-$mode.%p" "${extra[@]}")
  if [ "$mpi" = openmpi ]; then
    mpirun.openmpi -np $np -x LD_PRELOAD="$lib" -x MPISCOPE_MODE=$mode -x MPISCOPE_QUIET=1 \
      -x MPISCOPE_CHECK_UNEXPECTED=${UNEXP:-64} -x MPISCOPE_OUTPUT="$out/o-$mode" \
      -x MPISCOPE_CHECK_SIDECAR_DELAY=1000000 \
      "${cg[@]}" "$b/bench/check/$mpi/bench_check" "${args[@]}" >/dev/null
  else
    mpirun.mpich -np $np -genv LD_PRELOAD "$lib" -genv MPISCOPE_MODE $mode -genv MPISCOPE_QUIET 1 \
      -genv MPISCOPE_OUTPUT "$out/o-$mode" -genv MPISCOPE_CHECK_SIDECAR_DELAY 1000000 \
      "${cg[@]}" "$b/bench/check/$mpi/bench_check" "${args[@]}" >/dev/null
  fi
  [ "$pat" = imb ] && continue
  for f in "$out"/cg-$mode.*; do
    callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null >"$f.a"
  done
done
if [ "$pat" = imb ]; then
  echo "# instructions added per repetition of each IMB step ($mpi, scale $n, 2 ranks)"
  python3 - "$(dirname "$0")/cgcalls.py" "$out" <<'PY'
import subprocess, sys, glob
cg, out = sys.argv[1], sys.argv[2]
def table(mode):
    files = sorted(glob.glob(f"{out}/cg-{mode}.*"))
    d = {}
    for line in subprocess.run(["python3", cg, *files, "--fns", "x"], capture_output=True,
                               text=True).stdout.splitlines():
        w = line.split()
        if len(w) >= 3 and w[0].startswith("MPI_") and w[1].isdigit():
            d[w[0]] = (int(w[2]), int(w[3]) if len(w) > 3 else 0)
    return d
steps = [("PingPong", {"MPI_Send": 1, "MPI_Recv": 1}), ("Sendrecv", {"MPI_Sendrecv": 1}),
         ("Exchange", {"MPI_Irecv": 2, "MPI_Isend": 2, "MPI_Waitall": 1}),
         ("Allreduce", {"MPI_Allreduce": 1}), ("Reduce", {"MPI_Reduce": 1}),
         ("Bcast", {"MPI_Bcast": 1}), ("Allgather", {"MPI_Allgather": 1}),
         ("Alltoall", {"MPI_Alltoall": 1}), ("Barrier", {"MPI_Barrier": 1})]
p, c = table("profile"), table("check")
print(f"{'step':<10} {'profile':>9} {'check':>9} {'check: tool colls':>18}")
for name, calls in steps:
    tot = lambda t, i: sum(t.get(f, (0, 0))[i] * k for f, k in calls.items())
    print(f"{name:<10} {tot(p, 0):>9} {tot(c, 0):>9} {tot(c, 1):>18}")
PY
  exit 0
fi
# Inclusive instructions of function $1 in annotation $2 (0 if absent).
incl() {
  awk -v f="$1" '$0 ~ ("[ :]" f " ") || $0 ~ ("[ :]" f "$") {gsub(",","",$1); print $1; exit}' "$2"
}
echo "# instructions per call added by the tool ($mpi, $pat, $n iterations, $np rank(s))"
printf "%-14s %10s %10s\n" call profile check
declare -A tot=([profile]=0 [check]=0)
for fc in "${calls[@]}"; do
  f=${fc%:*} k=${fc#*:} line=""
  for mode in profile check; do
    sum=0 files=0
    for a in "$out"/cg-$mode.*.a; do
      w=$(incl "$f" "$a") p=$(incl "P$f" "$a")
      sum=$((sum + ${w:-0} - ${p:-0})) files=$((files + 1))
    done
    per=$((sum / files / (n * k)))
    tot[$mode]=$((tot[$mode] + per * k))
    line="$line $per"
  done
  printf "%-14s %10s %10s\n" $f $line
done
printf "%-14s %10s %10s\n" per-iteration "${tot[profile]}" "${tot[check]}"
