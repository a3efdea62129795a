#!/usr/bin/env python3
"""Checks the profile of tests/comms/idup.c (or idup_f.F90) against the numbers the program makes.

    check_comms.py <output dir> <ranks> <rounds> <program: c|fortran>

The program sends, per round, on each of its communicators made by
MPI_Comm_idup(_with_info), MSGS messages of 64 bytes to the next rank of the
communicator: for the C program a, b, c and e in world order and d in reverse
world order, plus one 4-byte token from world rank 0 to 1; for the Fortran
program one communicator in world order. profile.json's matrix (world ranks)
must hold exactly those messages and bytes per pair, and the function table
the exact number of MPI_Comm_idup(_with_info) calls: a count that only the
new communicators' traffic can give.
"""
import collections
import json
import sys

MSGS, BYTES = 10, 64


def main():
    out, n, rounds, prog = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    with open(f"{out}/profile.json") as f:
        prof = json.load(f)
    want = collections.Counter()
    wbytes = collections.Counter()
    forward = 4 if prog == "c" else 1
    for _ in range(rounds):
        for r in range(n):
            want[(r, (r + 1) % n)] += MSGS * forward
            wbytes[(r, (r + 1) % n)] += MSGS * forward * BYTES
            if prog == "c":  # d: the split of MPI_COMM_WORLD in reverse order
                want[(r, (r - 1) % n)] += MSGS
                wbytes[(r, (r - 1) % n)] += MSGS * BYTES
        if prog == "c":
            want[(0, 1)] += 1
            wbytes[(0, 1)] += 4
    got = collections.Counter()
    gbytes = collections.Counter()
    for p in prof["matrix"]["pairs"]:
        if p["class"] == "p2p":
            got[(p["from"], p["to"])] += p["messages"]
            gbytes[(p["from"], p["to"])] += p["bytes"]
    ok = True
    if got != want or gbytes != wbytes:
        print(f"check_comms: matrix {dict(got)} bytes {dict(gbytes)}, "
              f"expected {dict(want)} bytes {dict(wbytes)}")
        ok = False
    calls = {fn["name"]: fn["calls"] for fn in prof["functions"]}
    idups = calls.get("MPI_Comm_idup", 0) + calls.get("MPI_Comm_idup_with_info", 0)
    widup = rounds * n * (5 if prog == "c" else 1)
    if idups != widup:
        print(f"check_comms: {idups} calls of MPI_Comm_idup(_with_info), expected {widup}")
        ok = False
    if prof["dropped"]["requests"] != 0:
        print(f"check_comms: {prof['dropped']['requests']} requests dropped")
        ok = False
    print("check_comms: ok" if ok else "check_comms: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
