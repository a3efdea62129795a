#!/usr/bin/env python3
"""Checks the profile of a Fortran test program run on 2 ranks.

    check.py basic|wide <output-dir> <source-file>

The programs check their own results and call counts; this checks what only
correct call records give. In every mode, each call site must lie in the
Fortran source, which only the Fortran wrappers can report: a call that
reached the tool through the C layer has its site in the MPI library.
  basic (mpif.F90, f08.f90): bytes from counts and datatypes converted from
    Fortran; bytes received from statuses converted after the call, also
    when the program passed MPI_STATUS(ES)_IGNORE; MPI_IN_PLACE recognised
    (the in-place MPI_Allgather sends 4 bytes per rank; it would count its
    sendcount, 0, otherwise); peers (the matrix); sites at the SITE: lines.
  wide (wide.F90, wide_f08.F90): each receive completes with its own bytes
    whichever completion call finished it, which needs the request handles
    before the call and the indices made 0-based; persistent requests.
Standard library only.
"""
import json
import os
import sys

mode, out, source = sys.argv[1], sys.argv[2], sys.argv[3]
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
base = os.path.basename(source)
at = {(s["function"], s["frames"][0].get("line")): s for s in doc["callsites"] if s["frames"]}


def function(name, calls, sent, recv):
    f = functions.get(name)
    if not f:
        failures.append(f"{name}: not in the profile")
        return
    expect(f"{name} calls, bytes sent, bytes received",
           (f["calls"], f["bytes_sent"], f["bytes_recv"]), (calls, sent, recv))


def site(tag, name, calls, sent, recv):
    s = at.get((name, sites[tag]))
    if not s:
        failures.append(f"no call site of {name} at {base}:{sites[tag]} (SITE:{tag})")
        return
    expect(f"site {tag}: calls, bytes sent, bytes received",
           (s["calls"], s["bytes_sent"], s["bytes_recv"]), (calls, sent, recv))


expect("ranks", doc["ranks"], 2)
for s in doc["callsites"]:
    f0 = s["frames"][0] if s["frames"] else {}
    if os.path.basename(f0.get("file") or "?") != base:
        failures.append(f"call site of {s['function']} outside {base}: {f0}")

if mode == "basic":
    n, msg = 10, 400  # messages in the blocking loop, bytes per message
    function("MPI_Send", n, n * msg, 0)
    function("MPI_Recv", n, 0, n * msg)
    function("MPI_Isend", 4, 4 * msg, 0)
    function("MPI_Irecv", 4, 0, 4 * msg)
    function("MPI_Waitall", 4, 0, 0)
    function("MPI_Allreduce", 2, 8, 8)
    function("MPI_Allgather", 2, 8, 16)
    function("MPI_Bcast", 2, msg, msg)
    function("MPI_Barrier", 4, 0, 0)
    pairs = {(p["from"], p["to"]): (p["messages"], p["bytes"])
             for p in doc["matrix"]["pairs"] if p["class"] == "p2p"}
    expect("p2p matrix", pairs, {(0, 1): (n + 2, (n + 2) * msg), (1, 0): (2, 2 * msg)})
    site("send", "MPI_Send", n, n * msg, 0)
    site("recv", "MPI_Recv", n // 2, 0, n // 2 * msg)
    site("recv_ignore", "MPI_Recv", n // 2, 0, n // 2 * msg)
    site("irecv", "MPI_Irecv", 4, 0, 4 * msg)
    site("isend", "MPI_Isend", 4, 4 * msg, 0)
    site("waitall", "MPI_Waitall", 2, 0, 0)
    site("waitall_ignore", "MPI_Waitall", 2, 0, 0)
    site("allreduce", "MPI_Allreduce", 2, 8, 8)
    site("allgather", "MPI_Allgather", 2, 8, 16)
    site("bcast", "MPI_Bcast", 2, msg, msg)
    site("barrier", "MPI_Barrier", 2, 0, 0)
    site("barrier2", "MPI_Barrier", 2, 0, 0)
elif mode == "wide":
    rounds, small, big = 7, 40, 400  # completion rounds, bytes of the two messages
    function("MPI_Isend", 4 * rounds, 2 * rounds * (small + big), 0)
    function("MPI_Irecv", 4 * rounds, 0, 2 * rounds * (small + big))
    site("isend_small", "MPI_Isend", 2 * rounds, 2 * rounds * small, 0)
    site("isend_big", "MPI_Isend", 2 * rounds, 2 * rounds * big, 0)
    site("irecv_small", "MPI_Irecv", 2 * rounds, 0, 2 * rounds * small)
    site("irecv_big", "MPI_Irecv", 2 * rounds, 0, 2 * rounds * big)
    site("recv_init", "MPI_Recv_init", 2, 0, 2 * 4 * small)
    site("send_init", "MPI_Send_init", 2, 2 * 4 * small, 0)
    site("sendrecv", "MPI_Sendrecv", 2, 2 * small, 2 * small)
    site("recv_probed", "MPI_Recv", 1, 0, 37 * 4)
    site("recv_iprobed", "MPI_Recv", 1, 0, 11 * 4)
else:
    failures.append(f"unknown mode {mode}")

if failures:
    print(f"check.py: {len(failures)} failure(s) in {out}/profile.json:", file=sys.stderr)
    for x in failures:
        print("  " + x, file=sys.stderr)
    sys.exit(1)
print(f"check.py: profile of {base} as expected ({mode})")
