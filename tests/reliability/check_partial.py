#!/usr/bin/env python3
"""After a job in which rank <dead> went down (tests/reliability/dies.c run
with "calls"): checks what the tool left in the output directory.

  check_partial.py <dir> <mode: profile|trace> <dead rank> <reason|none> <np> <report command>
(the report command is split like a shell would, e.g. "build/bin/mpiscope report")

profile: every profile.rank<R>.incomplete.json says scope rank-incomplete and
why, and holds the 5 MPI_Sendrecv of 400 bytes each way that ranks 0 and 1
made before; the dead rank has one, with <reason>, unless <reason> is "none"
(SIGKILL: nothing can run, so it must have none). No profile.json. The
report of the directory names every rank: partial with its reason, or
MISSING. trace: each rank<R>.incomplete/traces.otf2 under trace/ is read by
otf2-print without an error, says MPISCOPE::TRACE_COMPLETE=false and why,
and holds the 5 MPI_SEND and 5 MPI_RECV of 400 bytes; the dead rank has
one unless <reason> is "none"; the run's own archive has no anchor file.
"""
import glob
import json
import os
import re
import shlex
import subprocess
import sys

out, mode, dead, reason, np, report = sys.argv[1:7]
dead, np = int(dead), int(np)
fail = []


def check_profile():
    if os.path.exists(os.path.join(out, "profile.json")):
        fail.append("profile.json exists although the job died")
    files = sorted(glob.glob(os.path.join(out, "profile.rank*.incomplete.json")))
    ranks = {}
    for f in files:
        doc = json.load(open(f))
        r = doc["incomplete"]["rank"]
        ranks[r] = doc
        if doc["scope"] != "rank-incomplete":
            fail.append(f"{f}: scope {doc['scope']}")
        if not os.path.exists(f[:-5] + ".txt") or "INCOMPLETE" not in open(f[:-5] + ".txt").read():
            fail.append(f"{f[:-5]}.txt missing or not marked INCOMPLETE")
        fns = {x["name"]: x for x in doc["functions"]}
        sr = fns.get("MPI_Sendrecv")
        if r < 2 and (not sr or sr["calls"] != 5 or sr["bytes_sent"] != 2000 or sr["bytes_recv"] != 2000):
            fail.append(f"rank {r}: MPI_Sendrecv {sr}, expected 5 calls, 2000 bytes each way")
        b = fns.get("MPI_Barrier")
        if r == dead and (not b or b["calls"] != 1):
            fail.append(f"rank {r}: MPI_Barrier {b}, expected 1 call")
    if reason == "none":
        if dead in ranks:
            fail.append(f"rank {dead} has a partial profile although SIGKILL allows none")
    elif dead not in ranks:
        fail.append(f"rank {dead} has no partial profile (files: {files})")
    elif not re.search(reason, ranks[dead]["incomplete"]["reason"]):
        fail.append(f"rank {dead}: reason {ranks[dead]['incomplete']['reason']!r}, expected {reason!r}")
    rep = subprocess.run(shlex.split(report) + [out], capture_output=True, text=True)
    text = rep.stdout
    if not files and not glob.glob(os.path.join(out, "rank-*.incomplete")):
        # Every rank killed without notice (MPICH after a SIGKILL): nothing
        # to merge, and the report must say so, not print an empty profile.
        if rep.returncode != 1 or "no partial profile" not in rep.stderr:
            fail.append(f"report of an empty directory: exit {rep.returncode}, {rep.stderr!r}")
        print(rep.stderr)
        return
    if rep.returncode != 0:
        fail.append(f"report exit code {rep.returncode}: {rep.stderr}")
    if "INCOMPLETE RUN" not in text:
        fail.append("report does not say the run is incomplete")
    for r in range(np):
        if r in ranks:
            want = rf"rank {r}: partial profile, went down: .*{reason if r == dead else ''}"
        else:
            want = rf"rank {r}: MISSING"
        if not re.search(want, text):
            fail.append(f"report does not match {want!r}")
    calls = sum(5 for r in ranks if r < 2)
    m = re.search(r"MPI_Sendrecv\s+(\d+)", text)
    if calls and (not m or int(m.group(1)) != calls):
        fail.append(f"report: merged MPI_Sendrecv calls {m and m.group(1)}, expected {calls}")
    print(text)


def check_trace():
    tdir = os.path.join(out, "trace")
    if os.path.exists(os.path.join(tdir, "traces.otf2")):
        fail.append("trace/traces.otf2 exists although the job died")
    have = {}
    for r in range(np):
        anchor = os.path.join(tdir, f"rank{r}.incomplete", "traces.otf2")
        if not os.path.exists(anchor):
            print(f"rank {r}: no partial trace")
            continue
        ev = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
        props = subprocess.run(["otf2-print", "-A", anchor], capture_output=True, text=True)
        have[r] = props.stdout
        if ev.returncode or ev.stderr.strip():
            fail.append(f"rank {r}: otf2-print: exit {ev.returncode}, {ev.stderr.strip()[:300]}")
        if not re.search(r"MPISCOPE::TRACE_COMPLETE\s*\n\s*Property value\s+false", props.stdout):
            fail.append(f"rank {r}: not marked MPISCOPE::TRACE_COMPLETE=false")
        sends = len(re.findall(r"^MPI_SEND .*Length: 400$", ev.stdout, re.M))
        recvs = len(re.findall(r"^MPI_RECV .*Length: 400$", ev.stdout, re.M))
        if r < 2 and (sends, recvs) != (5, 5):
            fail.append(f"rank {r}: {sends} MPI_SEND and {recvs} MPI_RECV of 400 bytes, expected 5 and 5")
        m = re.search(r"MPISCOPE::INCOMPLETE_REASON\s*\n\s*Property value\s+(.*)", props.stdout)
        print(f"rank {r}: partial trace, {sends} sends, {recvs} receives, reason {m and m.group(1)}")
        if r == dead and reason != "none" and not (m and re.search(reason, m.group(1))):
            fail.append(f"rank {r}: reason {m and m.group(1)!r}, expected {reason!r}")
    if reason == "none" and dead in have:
        fail.append(f"rank {dead} has a partial trace although SIGKILL allows none")
    if reason != "none" and dead not in have:
        fail.append(f"rank {dead} has no partial trace")


if mode == "profile":
    check_profile()
else:
    check_trace()
for f in fail:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if fail else 0)
