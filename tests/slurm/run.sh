#!/usr/bin/env bash
# One Slurm test: starts a cluster of its own (tests/slurm/cluster.sh:
# slurmctld and 3 slurmds on namespace nodes msn1..msn3), runs
# tests/multinode/spread.c under `mpiscope run` in the three modes (profile,
# --trace, --check) launched the way the test says, checks each run
# (check_slurm.py) and takes the cluster down on every exit, keeping its
# logs in $MSC_OUT/cluster.
#   run.sh <flavor> <test>
# tests (every command runs on node msn1: nothing routes from the host):
#   srun     mpiscope run -- srun --mpi=M -N 3 -n NP prog; and once with
#            the plugin the MPI does not speak (Open MPI --mpi=pmi2: its
#            error; MPICH --mpi=none: singletons, which mpiscope names)
#   salloc   salloc -N 3 -n NP mpiscope run -- mpirun prog
#   sbatch   sbatch of a script whose step is
#            mpiscope run -- srun --mpi=M prog (docs/slurm.md's example)
#   scancel  the same script with tests/slurm/stall.c under --trace,
#            cancelled with scancel once every rank has made its calls:
#            every rank's partial profile and trace, the report partial
# Open MPI: NP 4 (2 ranks on msn1, 1 on msn2, 1 on msn3), srun --mpi=pmix
# (Slurm's pmix_v4 plugin against Debian's PMIx 4.2, which Open MPI 4.1's
# ext3x component also uses). MPICH: NP 3, srun --mpi=pmi2 (MPICH's own PMI
# client speaks the PMI wire protocol that Slurm's pmi2 plugin serves).
# Exit 77 (skipped) when not root, without Slurm or munge, or without
# namespaces.
# Environment (tests/slurm/tests.cmake): MSC_MPIRUN, MSC_CLI, MSC_PROG,
# MSC_STALL, MSC_OUT (fresh, not under /tmp).
set -uo pipefail
flavor=$1 test=$2
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/cluster.sh
dir=$MSC_OUT
# Each node mounts its own tmpfs on /tmp: what the ranks run or write must
# be elsewhere.
for p in "$dir" "$MSC_CLI" "$MSC_PROG" "$here"; do
  case $(realpath -m "$p") in
    /tmp|/tmp/*) echo "SKIP: $p is under /tmp, which each node replaces with its own" >&2
                 exit 77 ;;
  esac
done
rm -rf "$dir" && mkdir -p "$dir"
# The cluster's own directory: short (munge's socket path), not under /tmp.
cl=$(mktemp -d /var/tmp/msc-slurm.XXXXXX) || exit 1
finish() {
  local rc=$?
  # A failure's first questions are the daemons': their last lines.
  if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
    for f in "$cl"/log/*.log; do
      [ -f "$f" ] && { echo "== last lines of $(basename "$f")"; tail -n 8 "$f"; } >&2
    done
  fi
  "$cluster" down "$cl"
  mkdir -p "$dir/cluster"
  cp -a "$cl/log" "$cl/etc" "$dir/cluster/" 2> /dev/null
  rm -rf "$cl"
}
trap finish EXIT
t0=$SECONDS
# The test's own deadline, well inside ctest's TIMEOUT (tests.cmake): ctest
# ends a test that overruns with SIGKILL, and then nothing takes its cluster
# down (cluster.sh's next "up" does, later). Every command that waits on
# the cluster is bounded by what is left of it.
deadline=$((SECONDS + 240))
left() {   # seconds left before the deadline, at least 5, at most 120
  local r=$((deadline - SECONDS))
  [ "$r" -lt 5 ] && r=5
  [ "$r" -gt 120 ] && r=120
  echo "$r"
}
"$cluster" up "$cl" 3
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "run.sh: no Slurm cluster" >&2; exit 1; }
echo "cluster up in $((SECONDS - t0)) s: $("$cluster" exec "$cl" msn1 sinfo -h -o '%D nodes %N %t')"
on1() { "$cluster" exec "$cl" msn1 "$@"; }

# Under the sanitizer passes (scripts/test.sh) the ranks need the
# sanitizer's runtime preloaded before the tool: given on the launcher's
# command line, where `mpiscope run` keeps it in front of its own.
extra=${MSC_PRELOAD_EXTRA:-}
srun_opts=()
[ -n "$extra" ] && srun_opts=(--export=ALL,LD_PRELOAD=$extra)
case "$flavor" in
  openmpi)
    np=4 mpi=pmix
    mpirun=("$MSC_MPIRUN" --mca btl tcp,self,vader)
    [ -n "$extra" ] && mpirun+=(-x "LD_PRELOAD=$extra")
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
  mpich)
    np=3 mpi=pmi2
    mpirun=("$MSC_MPIRUN")
    [ -n "$extra" ] && mpirun+=(-genv LD_PRELOAD "$extra") ;;
  *) echo "run.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac

# A batch script as a user writes it (docs/slurm.md).
batch() {   # $1 = mpiscope run's mode option, $2 = output dir, $3 = program
  cat << EOF
#!/bin/bash
#SBATCH --nodes=3
#SBATCH --ntasks=$np
#SBATCH --job-name=mpiscope-$test
$MSC_CLI run $1 -o $2 -- srun --mpi=$mpi ${srun_opts[*]} $3
EOF
}

# Waits for a batch job to end (sbatch --wait polls every few seconds, up
# to 10: this every 0.2 s); its status is the job's exit code. A job still
# there when the time left (left) is up is cancelled, and fails.
wait_job() {   # $1 = job id
  local state start=$SECONDS end=$((SECONDS + $(left)))
  [ -n "$1" ] || return 1
  while on1 squeue -h -j "$1" 2> /dev/null | grep -q .; do
    if [ "$SECONDS" -ge "$end" ]; then
      echo "run.sh: job $1 still there after $((SECONDS - start)) s: cancelled" >&2
      on1 scancel "$1"
      sleep "$((3 + 1))"   # KillWait, then SIGKILL
      break
    fi
    sleep 0.2
  done
  state=$(on1 scontrol show job -o "$1" | tr ' ' '\n' | grep -E '^(JobState|ExitCode)=' | paste -sd' ')
  echo "job $1: $state"
  case $state in "JobState=COMPLETED ExitCode=0:0") return 0 ;; *) return 1 ;; esac
}

jobid_of() { sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p; s/^salloc: Granted job allocation \([0-9]*\).*/\1/p' "$@" | head -1; }

one() {   # $1 = mode
  local mode=$1 flag= out=$dir/$test-$1 rc t=$SECONDS
  case $mode in trace) flag=--trace ;; check) flag=--check ;; esac
  case $test in
    srun)
      on1 timeout "$(left)" "$MSC_CLI" run $flag -o "$out" -- srun --mpi=$mpi "${srun_opts[@]}" -N 3 -n $np "$MSC_PROG" \
        > "$out.stdout" 2> "$out.stderr" ;;
    salloc)
      on1 timeout "$(left)" salloc -N 3 -n $np "$MSC_CLI" run $flag -o "$out" -- "${mpirun[@]}" "$MSC_PROG" \
        > "$out.stdout" 2> "$out.stderr" ;;
    sbatch)
      batch "$flag" "$out" "$MSC_PROG" > "$out.job"
      on1 sbatch -o "$out.stdout" -e "$out.stderr" "$out.job" > "$out.sbatch" 2>&1
      wait_job "$(jobid_of "$out.sbatch")" ;;
  esac
  rc=$?
  cat "$out.stderr" >&2
  [ "$test" = sbatch ] && cat "$out.sbatch"
  [ "$rc" = 0 ] || { echo "run.sh: $test $mode exited with $rc" >&2; return 1; }
  grep '^rank ' "$out.stdout" | sort -n -k2 > "$out.placement"
  echo "$test $mode: $((SECONDS - t)) s, placement: $(tr '\n' ';' < "$out.placement")"
  # The job, as Slurm knows it: srun's job id is in the profile (run.slurm),
  # salloc's and sbatch's in what they printed.
  local job
  case $test in
    srun) job=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["slurm"]["job_id"])' \
                  "$out/profile.json" 2> /dev/null) ;;
    salloc) job=$(jobid_of "$out.stderr") ;;
    sbatch) job=$(jobid_of "$out.sbatch") ;;
  esac
  [ -n "$job" ] || { echo "run.sh: no job id for $test $mode" >&2; return 1; }
  # The nodes slurmctld gave the job, from its log ("sched: Allocate
  # JobId=N NodeList=..."): `scontrol show job` drops each node from a
  # finished job's NodeList as it completes.
  local nodelist nodes
  nodelist=$(sed -n "s/.* JobId=$job NodeList=\([^ ]*\).*/\1/p" "$cl/log/slurmctld.log" | head -1)
  nodes=$(on1 scontrol show hostnames "$nodelist" | paste -sd,)
  /usr/bin/python3 "$here/check_slurm.py" "$out" "$mode" "$np" "$out.placement" "$job" \
    "$nodelist" "$nodes" "$MSC_CLI"
}

cancelled() {
  local out=$dir/scancel job i n
  batch --trace "$out" "$MSC_STALL" > "$out.job"
  on1 sbatch -o "$out.stdout" -e "$out.stderr" "$out.job" > "$out.sbatch" 2>&1
  cat "$out.sbatch"
  job=$(jobid_of "$out.sbatch")
  [ -n "$job" ] || { echo "run.sh: sbatch gave no job" >&2; return 1; }
  for i in $(seq 1 300); do
    n=$(grep -c ' ready$' "$out.stdout" 2> /dev/null)
    [ "${n:-0}" = "$np" ] && break
    sleep 0.2
  done
  [ "${n:-0}" = "$np" ] || { cat "$out.stderr" >&2; echo "run.sh: $n of $np ranks ready after 60 s" >&2; return 1; }
  local t=$SECONDS
  on1 scancel "$job"
  # The job ends (SIGTERM, then SIGKILL after KillWait=3 s).
  for i in $(seq 1 150); do
    on1 squeue -h -j "$job" 2> /dev/null | grep -q . || break
    [ "$SECONDS" -ge "$deadline" ] && break
    sleep 0.2
  done
  echo "scancel: job $job gone $((SECONDS - t)) s after scancel: $(on1 scontrol show job -o "$job" | grep -o 'JobState=[A-Z]*')"
  cat "$out.stderr" >&2
  grep ' ready$' "$out.stdout" | sort -n -k2 > "$out.placement"
  /usr/bin/python3 "$here/check_slurm.py" --cancelled "$out" "$np" "$out.placement" "$MSC_CLI"
}

# srun with the plugin this MPI does not speak. Open MPI (PMIx only) stops
# in MPI_Init; MPICH comes up as one singleton per task, which mpiscope
# names (src/core/runtime.c).
wrong_plugin() {
  local out=$dir/srun-wrong rc
  case $flavor in openmpi) wrong=pmi2 ;; mpich) wrong=none ;; esac
  on1 timeout "$(left)" "$MSC_CLI" run -o "$out" -- srun --mpi=$wrong "${srun_opts[@]}" -N 3 -n $np "$MSC_PROG" \
    > "$out.stdout" 2> "$out.stderr"
  rc=$?
  case $flavor in
    openmpi)
      [ "$rc" != 0 ] && grep -q "OMPI was not built with SLURM's PMI support" "$out.stderr" ||
        { cat "$out.stderr" >&2; echo "run.sh: srun --mpi=$wrong: exit $rc, not Open MPI's error" >&2; return 1; }
      echo "srun --mpi=$wrong: exit $rc, $(grep -m1 'OPAL ERROR' "$out.stderr")" ;;
    mpich)
      local want="srun started $np tasks, but MPI_COMM_WORLD has 1 rank: each task is an MPI job of its own"
      [ "$(grep -c "$want" "$out.stderr")" = 1 ] ||
        { cat "$out.stderr" >&2; echo "run.sh: srun --mpi=$wrong: mpiscope did not say once: $want" >&2; return 1; }
      echo "srun --mpi=$wrong: exit $rc, $(grep -c '^rank 0 host' "$out.stdout") singletons; mpiscope: $want" ;;
  esac
}

fail=0
if [ "$test" = srun ]; then
  wrong_plugin || fail=1
fi
if [ "$test" = scancel ]; then
  cancelled || fail=1
else
  for mode in profile trace check; do
    one "$mode" || fail=1
  done
fi
echo "run.sh: $test on $flavor: $((SECONDS - t0)) s"
exit $fail
