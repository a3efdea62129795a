#!/usr/bin/env bash
# One multi-node test: makes 3 nodes (tests/multinode/nodes.sh), runs
# tests/multinode/spread.c across them under mpiscope, launched from node
# msn1 by the MPI's own launcher through the node agent (Open MPI:
# plm_rsh_agent; MPICH: Hydra's -launcher ssh -launcher-exec), TCP between
# nodes for Open MPI, and checks the results. The nodes are taken down on every exit.
#   run.sh <flavor> <test>
# tests:
#   profile   output directory shared by the nodes (under the build tree):
#             the profile merges every rank of every node (calls per
#             function and per rank as the program made them); the trace
#             is valid (tests/trace/check_trace.py) and its system tree has
#             one node per host, named as the program saw its host, each
#             rank's location group under the node it ran on.
#   skew      as profile, with node msn2's clock 0.25 s ahead (a clock shim,
#             tests/multinode/skew.c): the trace's clock offsets measure it
#             (within the synchronization error) for every rank on msn2 and
#             only them, and the corrected trace is valid: no message is
#             received before it was sent.
#   unshared  MPISCOPE_OUTPUT=/tmp/...: each node has its own /tmp. mpiscope
#             says at start that the directory is not shared; the profile in
#             rank 0's copy is complete; every rank's events are in its own
#             node's copy, and the copies merged give a valid trace.
# Open MPI: 4 ranks (2 on msn1, 1 on msn2, 1 on msn3); MPICH: 3 ranks, one
# per node (MPICH busy-polls). Exit 77 when namespaces cannot be made.
# Environment (tests/multinode/tests.cmake): MSC_MPIRUN, MSC_LIB, MSC_PROG,
# MSC_OUT (a fresh directory for this test, not under /tmp), MSC_SOURCE_DIR.
set -uo pipefail
flavor=$1 test=$2
here=$(cd "$(dirname "$0")" && pwd)
nodes=$here/nodes.sh
dir=$MSC_OUT
# Each node mounts its own tmpfs on /tmp: a build tree or source tree under
# /tmp is invisible on the nodes, so the test cannot run there (skip, 77).
for p in "$dir" "$MSC_LIB" "$MSC_PROG" "$here"; do
  case $(realpath -m "$p") in
    /tmp|/tmp/*) echo "run.sh: $p is under /tmp, which each node replaces with its own; skipped" >&2
                 exit 77 ;;
  esac
done
rm -rf "$dir" && mkdir -p "$dir"
export MSC_NODES_DIR=$dir/nodes
"$nodes" up "$MSC_NODES_DIR" 3
rc=$?
[ "$rc" = 77 ] && exit 77
[ "$rc" = 0 ] || { echo "run.sh: could not make the nodes" >&2; exit 1; }
trap '"$nodes" down "$MSC_NODES_DIR"' EXIT
printf '#!/bin/sh\nexec %s agent "$@"\n' "$nodes" > "$dir/agent"
chmod +x "$dir/agent"

preload=${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$MSC_LIB
extra=()
case "$test" in
  profile) out=$dir/out ;;
  skew)
    # node msn2's clock 0.25 s ahead of the others' (tests/multinode/skew.c)
    out=$dir/out
    preload=${MSC_PRELOAD_EXTRA:+$MSC_PRELOAD_EXTRA:}$MSC_SKEW_LIB:$MSC_LIB   # a sanitizer runtime stays first
    extra=(MSC_SKEW_HOST=msn2 MSC_SKEW_NS=250000000 MPISCOPE_CLOCK=monotonic) ;;
  unshared) out=/tmp/mpiscope-multinode-$flavor ;;
  *) echo "run.sh: unknown test $test" >&2; exit 2 ;;
esac
envs=(MPISCOPE_MODE=profile,trace MPISCOPE_OUTPUT=$out "LD_PRELOAD=$preload" "${extra[@]}")
case "$flavor" in
  openmpi)
    np=4
    args=(-np 4 -host msn1:2,msn2:1,msn3:1 --mca plm_rsh_agent "$dir/agent"
          --mca btl tcp,self,vader --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    for e in "${envs[@]}"; do args+=(-x "$e"); done ;;
  mpich)
    np=3
    # UCX's own choice of transports. UCX_TLS=tcp,self would force TCP
    # between the nodes, but Debian's MPICH 4.0.2 (ch4:ucx) then hangs in
    # MPI_Finalize in about 1 run of 8 even on one node without mpiscope
    # (docs/multinode.md); since the nodes share one kernel, UCX may use its
    # shared-memory transports between them.
    args=(-launcher ssh -launcher-exec "$dir/agent" -hosts msn1,msn2,msn3 -ppn 1 -n 3 -iface eth0)
    for e in "${envs[@]}"; do args+=(-genv "${e%%=*}" "${e#*=}"); done ;;
esac

timeout 240 "$nodes" exec "$MSC_NODES_DIR" msn1 "$MSC_MPIRUN" "${args[@]}" "$MSC_PROG" \
  > "$dir/stdout" 2> "$dir/stderr"
rc=$?
cat "$dir/stderr" >&2
[ "$rc" = 0 ] || { echo "run.sh: the run across nodes exited with $rc" >&2; exit 1; }
grep '^rank ' "$dir/stdout" | sort -n -k2 > "$dir/placement"
echo "placement: $(tr '\n' ';' < "$dir/placement")"
[ "$(wc -l < "$dir/placement")" = "$np" ] || { echo "run.sh: not every rank reported its host" >&2; exit 1; }

if [ "$test" = unshared ]; then
  # Each node's copy of the output directory, gathered next to each other,
  # then merged the way docs/multinode.md tells users to.
  for n in msn1 msn2 msn3; do
    mkdir -p "$dir/copies/$n"
    "$nodes" exec "$MSC_NODES_DIR" "$n" sh -c "cd '$out' 2>/dev/null && tar -cf - ." |
      tar -xf - -C "$dir/copies/$n" || true
  done
  grep -q "is not shared by every rank" "$dir/stderr" ||
    { echo "run.sh: mpiscope did not say that the output directory is not shared" >&2; exit 1; }
  # Rank 0's copy alone is a partial trace, and the report names exactly the
  # ranks (with their hosts) whose events are in the other copies; given
  # those copies with --part, it reports the whole run.
  cli=$(dirname "$(dirname "$(dirname "$(dirname "$MSC_LIB")")")")/bin/mpiscope
  want=$(awk '$4 != "msn1" {printf "%s%s (%s)", n++ ? ", " : "", $2, $4}' "$dir/placement")
  "$cli" report --no-waitstates "$dir/copies/msn1" > "$dir/report0" 2> "$dir/report0.err"
  rc=$?
  [ "$rc" = 3 ] || { cat "$dir/report0.err" >&2; echo "run.sh: report of rank 0's copy exited $rc, not 3 (partial)" >&2; exit 1; }
  grep -qF "the events of ranks $want are in the copy" "$dir/report0.err" ||
    { cat "$dir/report0.err" >&2; echo "run.sh: the report does not name exactly ranks $want as elsewhere" >&2; exit 1; }
  "$cli" report "$dir/copies/msn1" --part "$dir/copies/msn2" --part "$dir/copies/msn3" \
    > "$dir/report-parts" 2> "$dir/report-parts.err" ||
    { cat "$dir/report-parts.err" >&2; echo "run.sh: report with --part failed" >&2; exit 1; }
  ! grep -q "PARTIAL\|in parts" "$dir/report-parts" "$dir/report-parts.err" ||
    { echo "run.sh: the report with every part still says partial" >&2; exit 1; }
  grep -q "^Wait states (from the trace: [0-9]* events, $np ranks, $np locations" "$dir/report-parts" ||
    { echo "run.sh: the merged parts were not analysed with every rank" >&2; exit 1; }
  echo "unshared: rank 0's copy names ranks $want as elsewhere; --part merges them"
  out=$dir/merged
  mkdir -p "$out"
  for n in msn1 msn2 msn3; do cp -a "$dir/copies/$n/." "$out/"; done
  [ -f "$dir/copies/msn1/profile.json" ] || { echo "run.sh: no profile in rank 0's copy" >&2; exit 1; }
  cp "$dir/copies/msn1/profile.json" "$dir/profile0.json"
fi

skewargs=()
[ "$test" = skew ] && skewargs=(--skew msn2 250000000)
/usr/bin/python3 "$here/check_nodes.py" "$out" "$dir/placement" "$np" "${skewargs[@]}" || exit 1
exit 0
