#!/usr/bin/python3
"""Checks what profile, trace and check mode made of the calls that the
application's callbacks make inside an MPI call (tests/intercept/
reentrancy.c, cases delete_frees and user_op, run with
MPISCOPE_MODE=profile,trace,check):

    check_nested.py <output dir> <case> <ranks>

- profile.json: the calls of every rank, callbacks' calls included, exactly
  (delete_frees: 3 MPI_Comm_dup, 3 MPI_Comm_free, 2 MPI_Finalized per rank;
  user_op: 3 MPI_Allreduce and 1 MPI_Reduce_local per rank, and MPI_Type_size
  twice for each MPI_Comm_rank: the operation makes both);
- checks.json: no finding (the communicators the callback freed are not
  leaks);
- the trace: per location, time never decreases and Enter/Leave nest; every
  call a callback made lies inside the call that ran it (delete_frees: one
  MPI_Comm_free and one MPI_Finalized inside MPI_Comm_free and inside
  MPI_Comm_delete_attr; user_op: every MPI_Comm_rank inside MPI_Allreduce or
  MPI_Reduce_local), and the Enters per region equal the profile's calls.
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "trace"))
import otf2_check  # noqa: E402,F401  (fixes python3-otf2's InterComm)
import otf2  # noqa: E402
from otf2.events import Enter, Leave  # noqa: E402

out, case, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
bad = []

prof = json.load(open(os.path.join(out, "profile.json")))
calls = {f["name"]: f["calls"] for f in prof["functions"]}
if case == "delete_frees":
    want = {"MPI_Comm_dup": 3, "MPI_Comm_free": 3, "MPI_Finalized": 2, "MPI_Comm_set_attr": 2,
            "MPI_Comm_delete_attr": 1}
else:
    want = {"MPI_Allreduce": 3, "MPI_Reduce_local": 1}
    if calls.get("MPI_Comm_rank", 0) < ranks:
        bad.append(f"{calls.get('MPI_Comm_rank', 0)} MPI_Comm_rank recorded, at least {ranks} made")
    if calls.get("MPI_Type_size", 0) != 2 * calls.get("MPI_Comm_rank", 0):
        bad.append("MPI_Type_size is not twice MPI_Comm_rank")
for fn, n in want.items():
    if calls.get(fn, 0) != n * ranks:
        bad.append(f"profile: {calls.get(fn, 0)} {fn}, {n * ranks} made")

chk = json.load(open(os.path.join(out, "checks.json")))
if chk["count"] != 0:
    bad.append(f"check mode: {chk['count']} findings: "
               + "; ".join(str(f.get("class", f)) for f in chk["findings"][:3]))

inside = collections.Counter()   # (outer, inner) -> calls
enters = collections.Counter()
with otf2.reader.open(os.path.join(out, "trace", "traces.otf2")) as tr:
    stacks, last = {}, {}
    for loc, ev in tr.events:
        if ev.time < last.get(loc, 0):
            bad.append(f"{loc.name}: time goes back at {type(ev).__name__}")
        last[loc] = ev.time
        st = stacks.setdefault(loc, [])
        if isinstance(ev, Enter):
            name = ev.region.name
            enters[name] += 1
            if st:
                inside[(st[-1], name)] += 1
            st.append(name)
        elif isinstance(ev, Leave):
            if not st or st[-1] != ev.region.name:
                bad.append(f"{loc.name}: Leave {ev.region.name} does not close {st[-1:]}")
            else:
                st.pop()
    for loc, st in stacks.items():
        if st:
            bad.append(f"{loc.name}: {st} never left")
for fn, n in calls.items():
    if enters[fn] != n:
        bad.append(f"trace: {enters[fn]} Enters of {fn}, profile {n}")
if case == "delete_frees":
    for outer in ("MPI_Comm_free", "MPI_Comm_delete_attr"):
        for inner in ("MPI_Comm_free", "MPI_Finalized"):
            if inside[(outer, inner)] != ranks:
                bad.append(f"trace: {inside[(outer, inner)]} {inner} inside {outer}, {ranks} made")
else:
    n = inside[("MPI_Allreduce", "MPI_Comm_rank")] + inside[("MPI_Reduce_local", "MPI_Comm_rank")]
    if n != calls.get("MPI_Comm_rank", 0) or inside[("MPI_Reduce_local", "MPI_Comm_rank")] != ranks:
        bad.append(f"trace: {dict(inside)}: not every MPI_Comm_rank inside the reduction")
for b in bad:
    print("check_nested:", b, file=sys.stderr)
print(f"check_nested: {case}: {sum(enters.values())} Enters, nested {dict(inside)}")
sys.exit(1 if bad else 0)
