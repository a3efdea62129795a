#!/usr/bin/env python3
"""Checks the profile of tests/comms/isendrecv.c against the numbers the program makes.

    check_isendrecv.py <output dir> <ranks>

Around a ring of R ranks each rank posts 20 MPI_Isendrecv and 10
MPI_Isendrecv_replace of 8 ints (32 bytes) each way: per function R x calls,
32 bytes sent and 32 received per call (the send when posted, the receive
when its request completes; both in histogram bin 6, 32..63 bytes), nothing
counted under MPI_Wait and MPI_Waitall, and one matrix cell per ring edge of
30 messages and 960 bytes.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_rows import check_rows  # noqa: E402

MSG = 8 * 4


def fail(msg):
    print(f"check_isendrecv.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    with open(f"{out}/profile.json") as f:
        prof = json.load(f)
    want = {  # name: (calls, bytes_sent, bytes_recv, histogram)
        "MPI_Isendrecv": (20 * n, 20 * n * MSG, 20 * n * MSG, {6: 40 * n}),
        "MPI_Isendrecv_replace": (10 * n, 10 * n * MSG, 10 * n * MSG, {6: 20 * n}),
        "MPI_Wait": (20 * n, 0, 0, {}),
        "MPI_Waitall": (10 * n, 0, 0, {}),
    }
    check_rows(prof, want, fail)
    p2p = sorted((p["from"], p["to"], p["messages"], p["bytes"])
                 for p in prof["matrix"]["pairs"] if p["class"] == "p2p")
    ring = sorted((r, (r + 1) % n, 30, 30 * MSG) for r in range(n))
    if p2p != ring:
        fail(f"matrix p2p {p2p}, want {ring}")
    print(f"check_isendrecv.py: {n} ranks, 30 exchanges per ring edge, exact")


if __name__ == "__main__":
    main()
