#!/usr/bin/env bash
# Multi-node runs on one machine: N "nodes", each a process holding its own
# network, UTS and mount namespaces (its own host name, its own /tmp on a
# tmpfs, its own /etc/hosts), joined by veth pairs to a bridge in a switch
# namespace. Addresses 10.77.<id>.<node>/24 exist only inside these
# namespaces; nothing is routed anywhere else.
#   nodes.sh up <dir> <n>     make nodes msn1..msn<n>; <dir>/pids, <dir>/hosts
#   nodes.sh down <dir>       end every holder (the namespaces, veths and
#                             tmpfs mounts go with them); safe to repeat
#   nodes.sh exec <dir> <node> cmd...   run cmd inside a node's namespaces
#   nodes.sh agent <host> cmd...        the launcher agent (plm_rsh_agent,
#                             Hydra's -launcher-exec): runs cmd on <host>;
#                             finds the nodes through $MSC_NODES_DIR
# "up" exits 77 with the reason when namespaces cannot be made (no
# privilege): the tests then report SKIP, never a pass; with CI=true, a
# failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

holder() {   # $1 = node name; prints the holder's pid
  local ready=$dir/.ready.$1
  rm -f "$ready"
  unshare --net --uts --mount --propagation private --fork --kill-child \
    bash -c "hostname $1 && mount -t tmpfs -o size=256m tmpfs /tmp && ip link set lo up &&
             mount --bind '$dir/hosts' /etc/hosts && touch '$ready' && exec sleep infinity" \
    > "$dir/holder.$1.log" 2>&1 &
  local pid=$! i
  for i in $(seq 1 100); do
    [ -e "$ready" ] && break
    kill -0 "$pid" 2> /dev/null || { cat "$dir/holder.$1.log" >&2; return 1; }
    sleep 0.05
  done
  [ -e "$ready" ] || return 1
  # the child of unshare --fork holds the namespaces
  local child
  child=$(pgrep -P "$pid" | head -1)
  echo "$1 $pid $child" >> "$dir/pids"
}

nspid() { awk -v n="$2" '$1 == n {print $3}' "$1/pids"; }

case "${1:-}" in
  up)
    dir=$2 n=$3
    mkdir -p "$dir"
    : > "$dir/pids"
    if ! err=$(unshare --net --uts --mount true 2>&1); then
      # Under CI (CI=true) the machine is root: no namespaces is a failure.
      [ "${CI:-}" = true ] && { echo "FAIL (CI=true): cannot create network, UTS and mount namespaces: $err"; exit 1; }
      echo "SKIP: cannot create network, UTS and mount namespaces here: $err"
      exit 77
    fi
    net=$(( ($$ % 200) + 20 ))   # per harness, so that concurrent tests do not meet
    : > "$dir/hosts.tmp"
    echo "127.0.0.1 localhost" > "$dir/hosts"
    for i in $(seq 1 "$n"); do echo "10.77.$net.$i msn$i" >> "$dir/hosts"; done
    trap '"$here/nodes.sh" down "$dir"' ERR
    holder switch
    sw=$(nspid "$dir" switch)
    nsenter -t "$sw" --net ip link add br0 type bridge
    nsenter -t "$sw" --net ip link set br0 up
    for i in $(seq 1 "$n"); do
      holder "msn$i"
      p=$(nspid "$dir" "msn$i")
      # veth pair made in the switch namespace, one end moved into the node
      nsenter -t "$sw" --net ip link add "p$i" type veth peer name eth0 netns "$p"
      nsenter -t "$sw" --net ip link set "p$i" master br0 up
      nsenter -t "$p" --net ip addr add "10.77.$net.$i/24" dev eth0
      nsenter -t "$p" --net ip link set eth0 up
    done
    echo "$net" > "$dir/net"
    # every node's link is up (the bridge forwards at once: no STP)
    for i in $(seq 1 "$n"); do
      p=$(nspid "$dir" "msn$i")
      for t in $(seq 1 50); do
        nsenter -t "$p" --net cat /sys/class/net/eth0/operstate | grep -q up && break
        sleep 0.1
      done
    done
    ;;
  down)
    dir=$2
    [ -f "$dir/pids" ] || exit 0
    while read -r name pid child; do
      kill "$child" "$pid" 2> /dev/null || true
    done < "$dir/pids"
    while read -r name pid child; do
      for t in $(seq 1 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.05; done
      kill -9 "$child" "$pid" 2> /dev/null || true
    done < "$dir/pids"
    rm -f "$dir/pids"
    ;;
  exec)
    dir=$2 node=$3
    shift 3
    p=$(nspid "$dir" "$node")
    [ -n "$p" ] || { echo "nodes.sh: no node $node in $dir" >&2; exit 1; }
    exec nsenter -t "$p" --net --uts --mount -- "$@"
    ;;
  agent)
    shift
    while [ "${1:-}" != "${1#-}" ]; do shift; done   # launcher options (ssh's -x, ...)
    host=$1
    shift
    dir=${MSC_NODES_DIR:?nodes.sh agent: MSC_NODES_DIR not set}
    p=$(nspid "$dir" "$host")
    [ -n "$p" ] || { echo "nodes.sh agent: no node $host in $dir" >&2; exit 1; }
    exec nsenter -t "$p" --net --uts --mount -- /bin/sh -c "$*"
    ;;
  *)
    echo "usage: nodes.sh up DIR N | down DIR | exec DIR NODE CMD... | agent HOST CMD..." >&2
    exit 2
    ;;
esac
