#!/usr/bin/python3
"""mpit.json of tests/mpit/unexpected.c's clean case (2 ranks: rank 1
posts N receives, then rank 0 sends N messages) with MPISCOPE_PVARS left at
its default, which is per MPI (src/mpit/pvars.c):
- Open MPI: its ob1 queue lengths; rank 1's posted-receive queue reaches N
  and ends at 0, nothing is ever unexpected (0 throughout);
- MPICH 4.0.2 (no performance variables of its own): mpiscope's pending
  requests, the level class only; rank 1 has N pending receives at most,
  0 at the end.
   check_pvars_default.py <dir> <flavor> <N>"""
import json, os, sys

d, flavor, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
pv = json.load(open(os.path.join(d, "mpit.json")))["pvars"]
want = {
    "openmpi": ("pml_ob1_unexpected_msgq_length,pml_ob1_posted_recvq_length",
                [("pml_ob1_unexpected_msgq_length", "size"), ("pml_ob1_posted_recvq_length", "size")]),
    "mpich": ("unexpected_recvq_length:level,posted_recvq_length:level,mpiscope_pending_requests:level",
              [("mpiscope_pending_requests", "level")]),
}[flavor]
problems = []
if pv["setting"] != want[0]:
    problems.append(f"setting {pv['setting']!r}, expected {want[0]!r}")
got = [(v["name"], v["class"]) for v in pv["variables"]]
if got != want[1]:
    problems.append(f"sampled {got}, expected {want[1]}")
for v in pv["variables"]:
    r1 = {r["rank"]: r for r in v["per_rank"]}.get(1, {})
    peak = 0 if "unexpected" in v["name"] else n
    if (r1.get("max"), r1.get("end"), r1.get("start")) != (peak, 0, 0):
        problems.append(f"{v['name']} rank 1: start/max/end {r1.get('start')}/{r1.get('max')}/"
                        f"{r1.get('end')}, expected 0/{peak}/0")
for p in problems:
    print("check_pvars_default: " + p, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check_pvars_default: {got} as expected")
