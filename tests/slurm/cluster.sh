#!/usr/bin/env bash
# A real Slurm cluster on one machine, for the tests: Debian's Slurm 22.05
# on the network-namespace nodes of tests/multinode/nodes.sh. One munged
# (the host's namespaces, a private key and socket), slurmctld on node msn1,
# one slurmd per node (each in its own namespaces: its own host name, its
# own address, its own /tmp holding its spool directory and pid file).
# Nothing listens outside the namespaces; the system's munge and Slurm
# (if any) are neither used nor disturbed.
#   cluster.sh up <dir> <n>     nodes msn1..msn<n>, munged, slurmctld, the
#                               slurmds; waits until every node is idle.
#                               Writes <dir>/env (SLURM_CONF=...) to source.
#   cluster.sh down <dir>       cancels every job, stops the daemons, ends
#                               every process left in the nodes' namespaces,
#                               takes the nodes down; safe to repeat
#   cluster.sh exec <dir> <node> cmd...   cmd inside a node's namespaces,
#                               in the caller's working directory (srun, sbatch, salloc: nothing routes to
#                               the controller from the host's namespace)
# "up" exits 77 with the reason when it cannot be done here (not root, no
# namespaces, Slurm or munge not installed): the tests then report SKIP;
# with CI=true it exits 1 instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nodes=$here/../multinode/nodes.sh
sbin=/usr/sbin

# Under CI (CI=true, as .ci/run is run) the machine is root with Slurm and
# munge installed by scripts/install-deps.sh: a cluster that cannot be made
# there is a failure, not a skip.
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL (CI=true, where this must run): $*"; exit 1; fi
  echo "SKIP: $*"; exit 77
}

# Processes whose network namespace is one of the nodes': what the cluster
# started, and nothing else. The namespaces are known by the holders'
# children, and by $d/netns (written by "up"): when a test is killed the
# holders may be gone while a job's step daemons and ranks still run in
# their namespaces.
ns_pids() {
  local d=$1 inodes=" " name pid child p ns
  [ -f "$d/nodes/pids" ] || [ -f "$d/netns" ] || return 0
  if [ -f "$d/nodes/pids" ]; then
    while read -r name pid child; do
      [ "$name" = switch ] && continue
      ns=$(readlink "/proc/$child/ns/net" 2> /dev/null) && inodes+="$ns "
    done < "$d/nodes/pids"
  fi
  [ -f "$d/netns" ] && inodes+="$(tr '\n' ' ' < "$d/netns")"
  [ "$inodes" = " " ] && return 0
  for p in /proc/[0-9]*; do
    ns=$(readlink "$p/ns/net" 2> /dev/null) || continue
    case $inodes in *" $ns "*) echo "${p#/proc/}" ;; esac
  done
}

holder_pids() { awk '{print $2; print $3}' "$1/nodes/pids" 2> /dev/null; }

# A cluster whose test was killed (ctest's timeout sends SIGKILL: run.sh's
# EXIT trap never runs) keeps its daemons, its jobs and their ranks, which
# may spin, for as long as the machine runs. Each cluster's directory names
# its owner (run.sh's pid and pid namespace, written by "up"); "up" first
# takes down every cluster of this pid namespace whose owner is gone.
reap_stale() {   # $1 = the directory being made (left alone)
  local d owner ns me
  me=$(readlink /proc/self/ns/pid)
  for d in /var/tmp/msc-slurm.*; do
    [ -d "$d" ] && [ "$d" != "$1" ] && [ -f "$d/owner" ] || continue
    read -r owner ns < "$d/owner" || continue
    [ "$ns" = "$me" ] || continue
    kill -0 "$owner" 2> /dev/null && continue
    echo "cluster.sh: taking down $d, left running by a test that was killed (pid $owner)" >&2
    "$0" down "$d" || true
    rm -rf "$d"
  done
}

conf() {   # $1 = dir, $2 = node count
  local d=$1 n=$2 first_job=$(( (RANDOM * 32768 + RANDOM) % 60000000 + 1000 ))
  cat << EOF
# Written by tests/slurm/cluster.sh for one test; removed with it.
ClusterName=mscope
SlurmctldHost=msn1
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/sock
# Each node has its own /tmp (a tmpfs in its mount namespace): the spool
# directory and the pid file of each slurmd are its own.
StateSaveLocation=/tmp/slurmctld
SlurmdSpoolDir=/tmp/slurmd
SlurmctldPidFile=/tmp/slurmctld.pid
SlurmdPidFile=/tmp/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroup delegation here: processes are tracked through /proc, tasks
# are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
PlugStackConfig=$d/etc/plugstack.conf
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# scancel: SIGTERM, then SIGKILL after KillWait seconds.
KillWait=3
# A task that dies (a crash, a signal, a nonzero exit) ends its step: the
# other ranks, blocked in a collective with it, would otherwise wait until
# the test's deadline.
KillOnBadExit=1
MinJobAge=300
# Job ids of this cluster alone: every cluster would otherwise start at 1,
# and the names jobs derive from them (Open MPI's job id, hence its
# shared-memory segments in /dev/shm, which the nodes and every test share)
# would be the same in each test.
FirstJobId=$first_job
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=60
MessageTimeout=20
# Each node is said to have 2 CPUs whatever the machine has.
SlurmdParameters=config_overrides
NodeName=msn[1-$n] CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

case "${1:-}" in
  up)
    dir=$2 n=$3
    [ "$(id -u)" = 0 ] || skip "a Slurm cluster of namespaces needs root (slurmd runs as root)"
    for b in $sbin/munged $sbin/slurmctld $sbin/slurmd /usr/bin/srun; do
      [ -x "$b" ] || skip "$b is not installed (scripts/install-deps.sh installs munge, slurmctld, slurmd, slurm-client)"
    done
    mkdir -p "$dir"/{munge,log,etc}
    chmod 700 "$dir" "$dir/munge"
    echo "$PPID $(readlink /proc/self/ns/pid)" > "$dir/owner"
    reap_stale "$dir"
    set +e
    "$nodes" up "$dir/nodes" "$n"
    rc=$?
    set -e
    [ "$rc" = 77 ] && exit 77
    [ "$rc" = 0 ] || { echo "cluster.sh: could not make the nodes" >&2; exit 1; }
    while read -r name pid child; do
      [ "$name" = switch ] || readlink "/proc/$child/ns/net"
    done < "$dir/nodes/pids" > "$dir/netns"
    trap '"$0" down "$dir"' ERR
    # munge: a key of our own, a socket of our own.
    dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 status=none
    chmod 600 "$dir/munge/key"
    $sbin/munged --force --key-file="$dir/munge/key" --socket="$dir/munge/sock" \
      --pid-file="$dir/munge/pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
    : > "$dir/etc/plugstack.conf"
    conf "$dir" "$n" > "$dir/etc/slurm.conf"
    export SLURM_CONF=$dir/etc/slurm.conf
    echo "export SLURM_CONF=$SLURM_CONF" > "$dir/env"
    # In the foreground (-D), in the background of a node's namespaces; their
    # pids are found through the namespaces when the cluster goes down.
    "$nodes" exec "$dir/nodes" msn1 sh -c "mkdir -p /tmp/slurmctld && exec $sbin/slurmctld -D -i" \
      > "$dir/log/slurmctld.out" 2>&1 &
    for i in $(seq 1 "$n"); do
      "$nodes" exec "$dir/nodes" "msn$i" sh -c "mkdir -p /tmp/slurmd && exec $sbin/slurmd -D" \
        > "$dir/log/slurmd-msn$i.out" 2>&1 &
    done
    # Every node idle, or the logs.
    for t in $(seq 1 300); do
      idle=$("$nodes" exec "$dir/nodes" msn1 sinfo -h -N -o '%N %t' 2> /dev/null | grep -c ' idle$' || true)
      [ "$idle" = "$n" ] && break
      sleep 0.2
    done
    if [ "$idle" != "$n" ]; then
      echo "cluster.sh: $idle of $n nodes idle after 60 s" >&2
      "$nodes" exec "$dir/nodes" msn1 sinfo -N >&2 || true
      tail -n 20 "$dir"/log/*.log "$dir"/log/*.out >&2 || true
      "$0" down "$dir"
      exit 1
    fi
    ;;
  down)
    dir=$2
    export SLURM_CONF=$dir/etc/slurm.conf
    if [ -f "$dir/nodes/pids" ] || [ -f "$dir/netns" ]; then
      timeout 10 "$nodes" exec "$dir/nodes" msn1 scancel --full --quiet --user=root 2> /dev/null || true
      # The daemons (and any step or rank left): every process in the nodes'
      # namespaces other than the holders themselves.
      holders=" $(holder_pids "$dir" | tr '\n' ' ') "
      for sig in TERM TERM KILL; do
        pids=()
        for p in $(ns_pids "$dir"); do
          case $holders in *" $p "*) ;; *) pids+=("$p") ;; esac
        done
        [ ${#pids[@]} -eq 0 ] && break
        kill -"$sig" "${pids[@]}" 2> /dev/null || true
        for t in $(seq 1 30); do
          alive=0
          for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && alive=1; done
          [ "$alive" = 0 ] && break
          sleep 0.1
        done
      done
      "$nodes" down "$dir/nodes"
    fi
    if [ -f "$dir/munge/pid" ]; then
      kill "$(cat "$dir/munge/pid")" 2> /dev/null || true
      rm -f "$dir/munge/pid"
    fi
    ;;
  exec)
    dir=$2 node=$3
    shift 3
    export SLURM_CONF=$dir/etc/slurm.conf
    # nsenter leaves the working directory at /: the caller's, again.
    exec "$nodes" exec "$dir/nodes" "$node" env -C "$PWD" "$@"
    ;;
  *)
    echo "usage: cluster.sh up DIR N | down DIR | exec DIR NODE CMD..." >&2
    exit 2
    ;;
esac
