#!/usr/bin/python3
"""MPISCOPE_PVARS=*: every variable the MPI and mpiscope offer, sampled or
noted, and the run finished.

    check_pvars_all.py <output dir> <sampled> <notes> <notes dropped>

mpit.json must list exactly <sampled> variables, each with samples on both
ranks, exactly <notes> notes (the bound is 16) and <notes dropped> more
left-out variables counted past that bound.
"""
import json
import os
import sys

out, want = sys.argv[1], [int(x) for x in sys.argv[2:5]]
with open(os.path.join(out, "mpit.json")) as f:
    pv = json.load(f)["pvars"]
got = [len(pv["variables"]), len(pv.get("notes", [])), pv.get("notes_dropped", 0)]
problems = []
if got != want:
    problems.append(f"sampled/notes/dropped {got}, expected {want}")
for v in pv["variables"]:
    ranks = sorted(r["rank"] for r in v["per_rank"])
    if ranks != [0, 1] or any(r["samples"] < 1 for r in v["per_rank"]):
        problems.append(f"{v['name']}: samples {[(r['rank'], r['samples']) for r in v['per_rank']]}")
for p in problems:
    print("check_pvars_all: " + p, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check_pvars_all: {got[0]} sampled, {got[1]} notes, {got[2]} more left out")
