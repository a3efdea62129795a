#!/usr/bin/env bash
# Two jobs launched separately, each under `mpiscope run --trace --check`,
# connected through Open MPI's name server (ompi-server, which mpirun needs
# for MPI_Publish_name/MPI_Lookup_name across jobs): each job's directory
# has its own results, nothing of the other's, a valid trace (otf2-print:
# the intercommunicator to the other job is defined by its local group, its
# messages left out) and no finding (docs/worlds.md).
#   connect.sh <mpiscope> <connect program> <output dir>
set -u
mpiscope=$1 prog=$2 out=$3
rm -rf "$out" && mkdir -p "$out" || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset LD_PRELOAD
ompi-server --no-daemonize -r "$out/uri" > "$out/server.log" 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null' EXIT
for i in $(seq 50); do [ -s "$out/uri" ] && break; sleep 0.1; done
[ -s "$out/uri" ] || { echo "connect.sh: ompi-server did not start"; cat "$out/server.log"; exit 1; }
launch() { # role
  "$mpiscope" run --quiet --trace --check -o "$out/$1" -- \
    mpirun.openmpi --ompi-server "file:$out/uri" -np 2 "$prog" "$1" < /dev/null > "$out/$1.out" 2>&1
}
launch server &
server=$!
# The client looks the port up once the server has published it.
for i in $(seq 600); do grep -q '^published' "$out/server.out" 2>/dev/null && break; sleep 0.1; done
launch client
crc=$?
wait $server
src=$?
fail=0
[ $src = 0 ] && [ $crc = 0 ] || { echo "connect.sh: exit codes server $src, client $crc"; fail=1; }
for role in server client; do
  [ "$(grep -c "^$role [01] done" "$out/$role.out")" = 2 ] || { echo "connect.sh: $role output:"; cat "$out/$role.out"; fail=1; }
done
python3 - "$out" <<'PY' || fail=1
import json, subprocess, sys
out = sys.argv[1]
want = {"server": {"MPI_Comm_accept": (2, 0, 0), "MPI_Recv": (20, 0, 80)},
        "client": {"MPI_Comm_connect": (2, 0, 0), "MPI_Send": (20, 80, 0)}}
other = {"server": "MPI_Send", "client": "MPI_Recv"}
ok = True
for role, fns in want.items():
    d = f"{out}/{role}"
    prof = json.load(open(f"{d}/profile.json"))
    got = {f["name"]: (f["calls"], f["bytes_sent"], f["bytes_recv"]) for f in prof["functions"]}
    for name, v in fns.items():
        if got.get(name) != v:
            print(f"connect.sh: {role}: {name} {got.get(name)}, want {v}"); ok = False
    if other[role] in got or prof["ranks"] != 2:
        print(f"connect.sh: {role}: {prof['ranks']} ranks, {other[role]} {got.get(other[role])}"); ok = False
    if json.load(open(f"{d}/checks.json"))["count"] != 0:
        print(f"connect.sh: {role}: findings in checks.json"); ok = False
    r = subprocess.run(["otf2-print", f"{d}/trace/traces.otf2"], capture_output=True, text=True)
    if r.returncode or "warning" in r.stderr:
        print(f"connect.sh: {role}: otf2-print rc {r.returncode}: {r.stderr[:300]}"); ok = False
    if any(l.startswith(("MPI_SEND", "MPI_RECV")) for l in r.stdout.splitlines()):
        print(f"connect.sh: {role}: a message to the other job written as one within this job"); ok = False
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] && echo "connect.sh: both jobs recorded apart, traces valid, no finding"
exit $fail
