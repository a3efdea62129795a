#!/usr/bin/env python3
"""Checks the profile of tests/comms/sessions.c against the numbers the program makes.

    check_sessions.py <output dir> <case> <ranks> [<module named as not run>]

Each case sends a known number of 4-byte messages from rank 0 to rank 1 over
communicators of its sessions and of the world model (sessions.c's header);
the profile, written by each process and joined by the last to finish when
the process entered MPI through a session, must hold exactly those calls,
bytes and matrix cells, one MPI_Allreduce per rank, every rank once, and no
leftover per-process file. With a module name, the run's stderr must say once
that this module was not run in a sessions process.
"""
import json
import os
import sys

SENDS = {"only": 100, "two": 60, "session-first": 50, "init-first": 50}


def fail(msg):
    print(f"check_sessions.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    out, case, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    left_out = sys.argv[4] if len(sys.argv) > 4 else None
    with open(f"{out}/profile.json") as f:
        prof = json.load(f)
    want = SENDS[case]
    if prof["scope"] != "run" or prof["ranks"] != n or prof["world_size"] != n:
        fail(f"scope {prof['scope']}, ranks {prof['ranks']}, world_size {prof['world_size']}: "
             f"want run, {n}, {n}")
    if [r["rank"] for r in prof["per_rank"]] != list(range(n)):
        fail(f"per_rank lists ranks {[r['rank'] for r in prof['per_rank']]}")
    entered = "MPI_Init" if case == "init-first" else "MPI_Session_init"
    if prof["run"]["world"] != {"id": "", "spawned": False, "entered_by": entered}:
        fail(f"run.world {prof['run']['world']}, want entered_by {entered}")
    fns = {f["name"]: f for f in prof["functions"]}
    for name, calls, sent, recv in (("MPI_Send", want, 4 * want, 0),
                                    ("MPI_Recv", want, 0, 4 * want),
                                    ("MPI_Allreduce", n, 4 * n, 4 * n)):
        f = fns.get(name)
        if not f or f["calls"] != calls or f["bytes_sent"] != sent or f["bytes_recv"] != recv:
            fail(f"{name}: {f and (f['calls'], f['bytes_sent'], f['bytes_recv'])}, "
                 f"want {(calls, sent, recv)}")
    p2p = [(p["from"], p["to"], p["messages"], p["bytes"])
           for p in prof["matrix"]["pairs"] if p["class"] == "p2p"]
    if p2p != [(0, 1, want, 4 * want)]:
        fail(f"matrix p2p {p2p}, want {[(0, 1, want, 4 * want)]}")
    if os.path.exists(f"{out}/.profile"):
        fail(f"per-process files left: {os.listdir(out + '/.profile')}")
    if not os.path.getsize(f"{out}/profile.txt"):
        fail("profile.txt is empty")
    with open(f"{out}/.stdout") as f:
        if "sum %d" % (n * (n - 1) // 2) not in f.read():
            fail("the program's own output changed")
    if left_out:
        with open(f"{out}/.stderr") as f:
            said = [l for l in f if "MPI_Session_init" in l and "not run in it: " + left_out in l]
        if len(said) != 1:
            fail(f"stderr says {len(said)} times that {left_out} was not run, want once")
    print(f"check_sessions.py: {case}: {want} messages 0->1, {n} ranks, joined once")


if __name__ == "__main__":
    main()
