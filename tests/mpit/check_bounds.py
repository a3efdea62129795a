#!/usr/bin/python3
"""The unexpected-queue check at its bounds (tests/mpit/bounds.c): 64 call
sites kept with one receive each, 69 findings dropped (5 further sites, 64
receives at the site past the full table), 12 receives on communicators
past the 64 watched counted as unchecked; mpit.txt says both.

    check_bounds.py <output dir>
"""
import json
import os
import sys

out = sys.argv[1]
with open(os.path.join(out, "mpit.json")) as f:
    u = json.load(f)["unexpected_queue"]
got = (len(u["sites"]), sorted({s["count"] for s in u["sites"]}), u["dropped"], u["unchecked"])
want = (64, [1], 69, 12)
with open(os.path.join(out, "mpit.txt")) as f:
    text = f.read()
problems = []
if got != want:
    problems.append(f"sites/counts/dropped/unchecked {got}, expected {want}")
for line in ("69 findings at further call sites not kept",
             "12 receives not checked: their communicators came after the 64 watched at once"):
    if line not in text:
        problems.append(f"mpit.txt lacks '{line}'")
for p in problems:
    print("check_bounds: " + p, file=sys.stderr)
if problems:
    sys.exit(1)
print("check_bounds: 64 sites kept, 69 findings dropped, 12 receives unchecked")
