#!/usr/bin/env python3
"""Checks the profile of tests/comms/partitioned.c against the numbers the program makes.

    check_partitioned.py <output dir>

Each of the 5 MPI_Start ... MPI_Wait cycles of the partitioned request is one
message of 8 partitions x 16 ints = 512 bytes from rank 0 to rank 1: counted
under MPI_Psend_init (sent) and MPI_Precv_init (received) like any
persistent request, 5 in histogram bin 10 (512..1023 bytes), one matrix cell
of 5 messages and 2560 bytes; the MPI_Pready* calls are calls of their own.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_rows import check_rows  # noqa: E402

CYCLES, MSG = 5, 8 * 16 * 4


def fail(msg):
    print(f"check_partitioned.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    with open(f"{sys.argv[1]}/profile.json") as f:
        prof = json.load(f)
    want = {  # name: (calls, bytes_sent, bytes_recv, histogram)
        "MPI_Psend_init": (1, CYCLES * MSG, 0, {10: CYCLES}),
        "MPI_Precv_init": (1, 0, CYCLES * MSG, {10: CYCLES}),
        "MPI_Start": (2 * CYCLES, 0, 0, {}),
        "MPI_Pready_range": (CYCLES, 0, 0, {}),
        "MPI_Pready_list": (CYCLES, 0, 0, {}),
        "MPI_Pready": (2 * CYCLES, 0, 0, {}),
    }
    check_rows(prof, want, fail)
    pairs = [(p["from"], p["to"], p["class"], p["messages"], p["bytes"])
             for p in prof["matrix"]["pairs"]]
    if pairs != [(0, 1, "p2p", CYCLES, CYCLES * MSG)]:
        fail(f"matrix {pairs}")
    print(f"check_partitioned.py: {CYCLES} messages of {MSG} bytes, 0 -> 1")


if __name__ == "__main__":
    main()
