#!/usr/bin/python3
"""Checks the partition events of tests/comms/partitioned.c's trace against
what the program does.

    check_partitioned_trace.py <output dir>

The trace writes, inside each MPI_Pready, MPI_Pready_range, MPI_Pready_list
and MPI_Parrived region, a ParameterUnsignedInt "MPI partition" (the index)
followed by "MPI partition bytes" (src/trace/impl.h). Rank 0 readies the 8
partitions of 16 ints (64 bytes each) in every one of the 5 cycles: 0-3 in
one MPI_Pready_range, 4 and 5 in one MPI_Pready_list, 6 and 7 in one
MPI_Pready each, in that order. Rank 1 polls MPI_Parrived on partition 7
until it has arrived: one pair in each of its calls (the profile counts
them), the bytes 0 while it has not arrived and 64 in the call that ends
each cycle's loop, so exactly 5 calls find 64 bytes, and each is the last
MPI_Parrived before an MPI_Wait. Uses python3-otf2 (the system Python).
"""
import json
import sys

import otf2
import otf2.events as E

CYCLES, PARTS, BYTES = 5, 8, 16 * 4


def fail(msg):
    print(f"check_partitioned_trace.py: {msg}", file=sys.stderr)
    sys.exit(1)


def main():
    out = sys.argv[1]
    with open(f"{out}/profile.json") as f:
        prof = json.load(f)
    parrived_calls = None
    for row in prof["functions"]:
        if row["name"] == "MPI_Parrived":
            parrived_calls = row["calls"]
    if not parrived_calls:
        fail("no MPI_Parrived calls in the profile")
    # Per rank: [(region, [(parameter, value), ...])] for each MPI region.
    regions = {0: [], 1: []}
    open_region = {}
    with otf2.reader.open(f"{out}/trace/traces.otf2") as r:
        for loc, ev in r.events:
            rank = int(loc._ref)
            if rank not in regions:
                continue
            if isinstance(ev, E.Enter):
                open_region[rank] = (ev.region.name, [])
            elif isinstance(ev, E.Leave):
                if rank in open_region:
                    regions[rank].append(open_region.pop(rank))
            elif isinstance(ev, E.ParameterUnsignedInt):
                if rank not in open_region:
                    fail(f"rank {rank}: parameter {ev.parameter.name} outside a region")
                open_region[rank][1].append((ev.parameter.name, ev.value))
            elif isinstance(ev, E.ParameterInt):
                fail(f"rank {rank}: a signed parameter {ev.parameter.name}")

    def pairs(params, where):
        if len(params) % 2:
            fail(f"{where}: parameters not in pairs: {params}")
        got = []
        for (n1, v1), (n2, v2) in zip(params[::2], params[1::2]):
            if n1 != "MPI partition" or n2 != "MPI partition bytes":
                fail(f"{where}: parameters {n1}, {n2}")
            got.append((v1, v2))
        return got

    # Rank 0: every cycle readies 0..7 once, 64 bytes each, in the calls above.
    ready, calls = [], {}
    for name, params in regions[0]:
        if name.startswith("MPI_Pready"):
            got = pairs(params, f"rank 0 {name}")
            calls.setdefault(name, []).append([p for p, _ in got])
            ready.extend(got)
        elif params:
            fail(f"rank 0: parameters in {name}: {params}")
    want = [(p, BYTES) for _ in range(CYCLES) for p in range(PARTS)]
    if ready != want:
        fail(f"rank 0: partitions readied {ready}, expected {want}")
    expect_calls = {"MPI_Pready_range": [[0, 1, 2, 3]] * CYCLES,
                    "MPI_Pready_list": [[4, 5]] * CYCLES,
                    "MPI_Pready": [[6], [7]] * CYCLES}
    if calls != expect_calls:
        fail(f"rank 0: partitions per call {calls}")

    # Rank 1: one pair per MPI_Parrived; 64 bytes exactly in the last of each cycle.
    arrived, last_before_wait, n = 0, 0, 0
    prev = None
    for name, params in regions[1]:
        if name == "MPI_Parrived":
            got = pairs(params, "rank 1 MPI_Parrived")
            if len(got) != 1 or got[0][0] != PARTS - 1 or got[0][1] not in (0, BYTES):
                fail(f"rank 1: MPI_Parrived parameters {got}")
            n += 1
            arrived += got[0][1] == BYTES
            prev = got[0][1]
        elif name == "MPI_Wait":
            if prev == BYTES:
                last_before_wait += 1
            prev = None
        elif params:
            fail(f"rank 1: parameters in {name}: {params}")
    rank1_calls = parrived_calls  # only rank 1 calls MPI_Parrived
    if n != rank1_calls:
        fail(f"rank 1: {n} MPI_Parrived regions with partition events, the profile counts {rank1_calls}")
    if arrived != CYCLES or last_before_wait != CYCLES:
        fail(f"rank 1: {arrived} calls found the partition arrived, {last_before_wait} of them "
             f"last before MPI_Wait; expected {CYCLES}")
    print(f"check_partitioned_trace.py: rank 0 readied {len(ready)} partitions of {BYTES} bytes; "
          f"rank 1 asked {n} times, {arrived} found it arrived")


if __name__ == "__main__":
    main()
