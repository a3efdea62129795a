#!/usr/bin/python3
"""Checks what the tool recorded of tests/legacy/legacy.c (lang c) or
legacy.f (lang f), run with MPISCOPE_MODE=profile,trace on <ranks> ranks:

    legacy_check.py <output dir> <c|f> <ranks>

- profile.json: each function removed in MPI-3.0 that the program calls,
  and each modern function it compares them with, has exactly the calls the
  program makes per rank times the ranks (a legacy function that reaches its
  modern twin inside the library must not be counted twice);
- the trace: every location's Enter/Leave pairs nest, and the Enters of
  each region equal the profile's calls.
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "trace"))
import otf2_check  # noqa: E402,F401  (fixes python3-otf2's InterComm)
import otf2  # noqa: E402
from otf2.events import Enter, Leave  # noqa: E402

out, lang, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
# Calls per rank, counted in the program's text.
want = {"MPI_Address": 1, "MPI_Get_address": 1, "MPI_Type_extent": 1,
        "MPI_Type_hvector": 1, "MPI_Type_create_hvector": 1,
        "MPI_Type_hindexed": 1, "MPI_Type_create_hindexed": 1,
        "MPI_Type_struct": 1, "MPI_Type_create_struct": 1,
        "MPI_Type_lb": 1, "MPI_Type_ub": 1,
        "MPI_Errhandler_get": 1, "MPI_Errhandler_set": 1, "MPI_Errhandler_create": 1,
        "MPI_Comm_get_errhandler": 2, "MPI_Comm_set_errhandler": 1, "MPI_Type_free": 6}
if lang == "f":
    want.update({"MPI_Address": 2, "MPI_Get_address": 2, "MPI_Errhandler_create": 0})
bad = []
prof = json.load(open(os.path.join(out, "profile.json")))
calls = {f["name"]: f["calls"] for f in prof["functions"]}
for fn, n in want.items():
    if calls.get(fn, 0) != n * ranks:
        bad.append(f"profile: {calls.get(fn, 0)} {fn}, {n * ranks} made")

enters = collections.Counter()
with otf2.reader.open(os.path.join(out, "trace", "traces.otf2")) as tr:
    stacks = {}
    for loc, ev in tr.events:
        st = stacks.setdefault(loc, [])
        if isinstance(ev, Enter):
            enters[ev.region.name] += 1
            st.append(ev.region.name)
        elif isinstance(ev, Leave):
            if not st or st[-1] != ev.region.name:
                bad.append(f"{loc.name}: Leave {ev.region.name} does not close {st[-1:]}")
            else:
                st.pop()
for fn in want:
    if enters[fn] != calls.get(fn, 0):
        bad.append(f"trace: {enters[fn]} Enters of {fn}, profile {calls.get(fn, 0)}")
for b in bad:
    print("legacy_check:", b, file=sys.stderr)
print(f"legacy_check: {lang}: {sum(calls.get(f, 0) for f in want)} calls checked")
sys.exit(1 if bad else 0)
