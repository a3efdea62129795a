#!/usr/bin/env python3
"""Checks the results of tests/comms/join.c: traffic over an MPI_Comm_join intercommunicator counted exactly.

    check_join.py <output dir> <ranks> [check]

The two joined processes are ranks 0 and 1 of one world, so the messages on
their intercommunicator are the world's: 25 doubles from rank 1 to rank 0
in the matrix beside the port number rank 0 sent on MPI_COMM_WORLD, and the
function table holds the join, the sends, receives and the Allreduce on the
intercommunicator (join.c's header has them). With "check", no finding.
"""
import json
import sys


def fail(msg):
    print(f"check_join.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    with open(f"{out}/profile.json") as f:
        prof = json.load(f)
    got = {f["name"]: (f["calls"], f["bytes_sent"], f["bytes_recv"]) for f in prof["functions"]}
    want = {"MPI_Comm_join": (2, 0, 0), "MPI_Send": (26, 204, 0), "MPI_Recv": (26, 0, 204),
            "MPI_Comm_disconnect": (2, 0, 0), "MPI_Barrier": (3 * n, 0, 0)}
    for fn, v in want.items():
        if got.get(fn) != v:
            fail(f"{fn} {got.get(fn)}, want {v}")
    if got.get("MPI_Allreduce", (0,))[0] != 2:
        fail(f"MPI_Allreduce {got.get('MPI_Allreduce')}, want 2 calls")
    pairs = sorted((p["from"], p["to"], p["messages"], p["bytes"])
                   for p in prof["matrix"]["pairs"] if p["class"] == "p2p")
    if pairs != [(0, 1, 1, 4), (1, 0, 25, 200)]:
        fail(f"p2p pairs {pairs}, want [(0, 1, 1, 4), (1, 0, 25, 200)]")
    if mode == "check":
        with open(f"{out}/checks.json") as f:
            c = json.load(f)
        if c.get("count") != 0:
            fail(f"{c.get('count')} findings, want 0: {json.dumps(c)[:800]}")
    print(f"check_join.py: {n} ranks, the joined pair's 25 messages in the matrix{', ' + mode if mode else ''}")


if __name__ == "__main__":
    main()
