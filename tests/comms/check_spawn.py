#!/usr/bin/env python3
"""Checks the results of tests/comms/spawn.c: one result directory per world, each with the calls only it makes.

    check_spawn.py <output dir> <ranks of world A> [trace|check]

World A's results are in the directory itself, the two spawned worlds' in
worlds/<id>: B has 2 ranks, C 1 (spawn.c's header has what each does). Each
profile must hold exactly its world's calls and bytes (the 100 messages A
sends to B and the 7 B sends to C are counted by the sender's and receiver's
functions, not in any world's matrix, which holds world ranks); with
"trace", each world has an archive of its own whose Enter count of
MPI_Barrier is its world's; with "check", every world's checks.json has no
finding.
"""
import json
import os
import subprocess
import sys


def fail(msg):
    print(f"check_spawn.py: {msg}", file=sys.stderr)
    sys.exit(1)


def calls(prof):
    return {f["name"]: (f["calls"], f["bytes_sent"], f["bytes_recv"]) for f in prof["functions"]}


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    ids = sorted(os.listdir(f"{out}/worlds"))
    if len(ids) != 2:
        fail(f"worlds/ holds {ids}, want the 2 spawned worlds")
    dirs = {"A": out}
    for i in ids:
        with open(f"{out}/worlds/{i}/profile.json") as f:
            dirs["B" if json.load(f)["ranks"] == 2 else "C"] = f"{out}/worlds/{i}"
    if set(dirs) != {"A", "B", "C"}:
        fail(f"spawned worlds' rank counts do not give B (2) and C (1): {dirs}")
    want = {
        "A": (n, {"MPI_Comm_spawn": (n, 0, 0), "MPI_Send": (100, 400, 0),
                  "MPI_Barrier": (10 * n, 0, 0)}),
        "B": (2, {"MPI_Comm_spawn": (2, 0, 0), "MPI_Recv": (100, 0, 400), "MPI_Send": (7, 28, 0),
                  "MPI_Barrier": (200, 0, 0)}),
        "C": (1, {"MPI_Recv": (7, 0, 28), "MPI_Comm_size": (3, 0, 0)}),
    }
    barriers = {"A": 10 * n, "B": 200, "C": 0}
    for w, d in dirs.items():
        with open(f"{d}/profile.json") as f:
            prof = json.load(f)
        ranks, fns = want[w]
        if prof["spawned_worlds"] != {"A": 1, "B": 1, "C": 0}[w]:
            fail(f"world {w} ({d}): spawned_worlds {prof['spawned_worlds']}")
        if prof["ranks"] != ranks or prof["world_size"] != ranks:
            fail(f"world {w} ({d}): {prof['ranks']} ranks, want {ranks}")
        world = prof["run"]["world"]
        if world["spawned"] != (w != "A") or world["id"] != (os.path.basename(d) if w != "A" else ""):
            fail(f"world {w} ({d}): run.world {world}")
        got = calls(prof)
        for name, v in fns.items():
            if got.get(name) != v:
                fail(f"world {w} ({d}): {name} {got.get(name)}, want {v}")
        other = {"A": "MPI_Recv", "B": "MPI_Comm_size", "C": "MPI_Barrier"}[w]
        if other in got:
            fail(f"world {w} ({d}) holds {other} {got[other]}: another world's calls")
        if prof["matrix"]["pairs"] and any(p["class"] == "p2p" for p in prof["matrix"]["pairs"]):
            fail(f"world {w}: p2p pairs {prof['matrix']['pairs']}: no message stays in a world")
        if mode == "trace":
            r = subprocess.run(["otf2-print", f"{d}/trace/traces.otf2"], capture_output=True,
                               text=True)
            if r.returncode or "warning" in r.stderr or "ERROR" in r.stdout + r.stderr:
                fail(f"world {w}: otf2-print: rc {r.returncode}: {r.stderr[:500]}")
            enters = sum(1 for l in r.stdout.splitlines()
                         if l.startswith("ENTER") and '"MPI_Barrier"' in l)
            if enters != barriers[w]:
                fail(f"world {w}: {enters} Enter events of MPI_Barrier, want {barriers[w]}")
            if any(l.startswith(("MPI_SEND", "MPI_RECV")) for l in r.stdout.splitlines()):
                fail(f"world {w}: a message across worlds was written as one within it")
        if mode == "check":
            with open(f"{d}/checks.json") as f:
                c = json.load(f)
            if c.get("count") != 0:
                fail(f"world {w}: {c.get('count')} findings, want 0")
    print(f"check_spawn.py: 3 worlds ({n}, 2, 1 ranks), each with its own calls{', ' + mode if mode else ''}")


if __name__ == "__main__":
    main()
