#!/usr/bin/python3
"""Sizes beyond 2^31 bytes (tests/profile/large.c, 2 ranks):

    check_large.py OUT MPI_VERSION_MAJOR

profile.json: MPI_Send's bytes sent and MPI_Recv's received are 2^31 + 2^20,
exactly, and so are MPI_Send_c's and MPI_Recv_c's with MPI-4; each call's
histogram entry is in bin 32, [2^31, 2^32 - 1]; the matrix has the
point-to-point messages from 0 to 1 with their bytes and the broadcast's
collective message; the trace's MPI_SEND and MPI_RECV records (otf2-print)
carry the same length. Check mode ran too: no finding.
"""
import json
import os
import re
import subprocess
import sys

out, major = sys.argv[1], int(sys.argv[2])
N = 2049 << 20
failures = []


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: {got}, expected {want}")


p = json.load(open(os.path.join(out, "profile.json")))
fns = {f["name"]: f for f in p["functions"]}
p2p = [("MPI_Send", "bytes_sent"), ("MPI_Recv", "bytes_recv")]
if major >= 4:
    p2p += [("MPI_Send_c", "bytes_sent"), ("MPI_Recv_c", "bytes_recv")]
for name, key in p2p:
    f = fns.get(name, {})
    expect(f"{name} calls", f.get("calls"), 1)
    expect(f"{name} {key}", f.get(key), N)
    expect(f"{name} histogram", [(h["bin"], h["lo"], h["hi"], h["count"]) for h in f.get("histogram", [])],
           [(32, 1 << 31, (1 << 32) - 1, 1)])
b = fns.get("MPI_Bcast", {})
expect("MPI_Bcast calls", b.get("calls"), 2)
expect("MPI_Bcast histogram", sum(h["count"] for h in b.get("histogram", []) if h["bin"] == 32), 2)
m = p["matrix"]
msgs = 2 if major >= 4 else 1
expect("matrix p2p", m["p2p"], {"messages": msgs, "bytes": msgs * N})
expect("matrix collective", m["collective"], {"messages": 1, "bytes": N})
expect("matrix pairs", sorted((q["from"], q["to"], q["class"], q["messages"], q["bytes"]) for q in m["pairs"]),
       sorted([(0, 1, "p2p", msgs, msgs * N), (0, 1, "collective", 1, N)]))
r = subprocess.run(["otf2-print", os.path.join(out, "trace", "traces.otf2")], capture_output=True, text=True)
expect("otf2-print exit", r.returncode, 0)
lens = re.findall(r"^(MPI_SEND|MPI_RECV) .*Length: (\d+)", r.stdout, re.M)
expect("trace messages", sorted(lens), sorted([("MPI_SEND", str(N))] * msgs + [("MPI_RECV", str(N))] * msgs))
c = json.load(open(os.path.join(out, "checks.json")))
expect("check findings", c.get("count"), 0)
for f in failures:
    print("check_large: " + f, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"check_large: {msgs} point-to-point message(s) and a broadcast of {N} bytes, exact")
