#!/usr/bin/python3
"""The report's "slurm" line without a cluster: a profile (tests/report/data/
scaling-2) given a run.slurm and run.hosts by hand, for node lists the
Slurm tests' cluster never makes, and the line `mpiscope report` prints.

    report_nodes.py CLI WORKDIR
"""
import json
import os
import subprocess
import sys

cli, work = sys.argv[1], sys.argv[2]
src = os.path.join(os.path.dirname(__file__), "..", "report", "data", "scaling-2", "profile.json")
cases = [
    # node list, hosts with their ranks, the line expected after "  slurm     "
    ("n[08-10],login", {"n08": "0", "n09": "1"},
     "job 7, step 2, cluster c: nodes n[08-10],login (4), ranks on 2; none on n10, login"),
    ("msn[1-3]", {"msn1.example.org": "0", "msn2": "1", "msn3": ""},
     "job 7, step 2, cluster c: nodes msn[1-3] (3), ranks on all 3"),
    ("a[1-2]", {"a1": "0", "b7": "1"},
     "job 7, step 2, cluster c: nodes a[1-2] (2), ranks on 1; none on a2; "
     "ranks on hosts outside the job: b7"),
    ("r[1-2]n[1-2]", {"r1n1": "0-1"},
     "job 7, step 2, cluster c: nodes r[1-2]n[1-2] (a node list this report cannot read)"),
    ("x[3-1]", {"x1": "0-1"},
     "job 7, step 2, cluster c: nodes x[3-1] (a node list this report cannot read)"),
]
bad = 0
os.makedirs(work, exist_ok=True)
for i, (nodelist, hosts, want) in enumerate(cases):
    prof = json.load(open(src))
    prof["run"] = {"hosts": [{"name": h, "ranks": r, "count": 1} for h, r in hosts.items()],
                   "slurm": {"job_id": "7", "step_id": "2", "cluster": "c",
                             "nodelist": nodelist}}
    d = os.path.join(work, f"case{i}")
    os.makedirs(d, exist_ok=True)
    json.dump(prof, open(os.path.join(d, "profile.json"), "w"))
    rep = subprocess.run([cli, "report", "--no-waitstates", d], capture_output=True, text=True)
    got = next((l[12:] for l in rep.stdout.splitlines() if l.startswith("  slurm     ")), None)
    if rep.returncode or got != want:
        print(f"report_nodes: {nodelist}: exit {rep.returncode}, line {got!r}, expected {want!r}",
              file=sys.stderr)
        bad += 1
    else:
        print(f"report_nodes: {nodelist}: {got}")
sys.exit(1 if bad else 0)
