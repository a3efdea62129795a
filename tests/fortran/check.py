#!/usr/bin/env python3
"""Checks the profile of a Fortran test program (mpif.F90 or f08.f90, 2 ranks).

    check.py <output-dir> <source-file>

The programs check their own call counts; this checks what only correct call
records give: bytes from counts and datatypes converted from Fortran, bytes
received from statuses converted after the call (also when the program passed
MPI_STATUS(ES)_IGNORE), MPI_IN_PLACE recognised (the in-place MPI_Allgather
sends 4 bytes per rank; it would count its sendcount, 0, otherwise), peers
and communicators (the matrix), and call sites in the Fortran source at the
lines marked SITE:, which only the Fortran wrappers can report: a call that
reached the tool through the C layer would have its site in the MPI library.
Standard library only.
"""
import json
import os
import sys

out, source = sys.argv[1], sys.argv[2]
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


with open(os.path.join(out, "profile.json")) as f:
    doc = json.load(f)
functions = {f["name"]: f for f in doc["functions"]}
sites = {}
with open(source) as f:
    for lineno, line in enumerate(f, 1):
        if "SITE:" in line:
            sites[line.split("SITE:")[1].split()[0]] = lineno

n, msg = 10, 400  # messages in the blocking loop, bytes per message
expect("ranks", doc["ranks"], 2)
for name, calls, sent, recv in [("MPI_Send", n, n * msg, 0),
                                ("MPI_Recv", n, 0, n * msg),
                                ("MPI_Isend", 4, 4 * msg, 0),
                                ("MPI_Irecv", 4, 0, 4 * msg),
                                ("MPI_Waitall", 4, 0, 0),
                                ("MPI_Allreduce", 2, 8, 8),
                                ("MPI_Allgather", 2, 8, 16),
                                ("MPI_Bcast", 2, msg, msg),
                                ("MPI_Barrier", 4, 0, 0)]:
    f = functions.get(name)
    if not f:
        failures.append(f"{name}: not in the profile")
        continue
    expect(f"{name} calls, bytes sent, bytes received",
           (f["calls"], f["bytes_sent"], f["bytes_recv"]), (calls, sent, recv))

pairs = {(p["from"], p["to"]): (p["messages"], p["bytes"])
         for p in doc["matrix"]["pairs"] if p["class"] == "p2p"}
expect("p2p matrix", pairs, {(0, 1): (n + 2, (n + 2) * msg), (1, 0): (2, 2 * msg)})

base = os.path.basename(source)
for s in doc["callsites"]:
    f0 = s["frames"][0] if s["frames"] else {}
    if os.path.basename(f0.get("file") or "?") != base:
        failures.append(f"call site of {s['function']} outside {base}: {f0}")
at = {(s["function"], s["frames"][0].get("line")): s for s in doc["callsites"] if s["frames"]}
for tag, name, calls, recv in [("send", "MPI_Send", n, 0),
                               ("recv", "MPI_Recv", n // 2, n // 2 * msg),
                               ("recv_ignore", "MPI_Recv", n // 2, n // 2 * msg),
                               ("irecv", "MPI_Irecv", 4, 4 * msg),
                               ("isend", "MPI_Isend", 4, 0),
                               ("waitall", "MPI_Waitall", 2, 0),
                               ("waitall_ignore", "MPI_Waitall", 2, 0),
                               ("allreduce", "MPI_Allreduce", 2, 8),
                               ("allgather", "MPI_Allgather", 2, 16),
                               ("bcast", "MPI_Bcast", 2, msg),
                               ("barrier", "MPI_Barrier", 2, 0),
                               ("barrier2", "MPI_Barrier", 2, 0)]:
    s = at.get((name, sites[tag]))
    if not s:
        failures.append(f"no call site of {name} at {base}:{sites[tag]} (SITE:{tag})")
        continue
    expect(f"site {tag}: calls, bytes received", (s["calls"], s["bytes_recv"]), (calls, recv))

if failures:
    print(f"check.py: {len(failures)} failure(s) in {out}/profile.json:", file=sys.stderr)
    for x in failures:
        print("  " + x, file=sys.stderr)
    sys.exit(1)
print(f"check.py: profile of {base} as expected")
