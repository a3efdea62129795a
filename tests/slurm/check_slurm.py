#!/usr/bin/python3
"""Checks one run of tests/multinode/spread.c under Slurm (tests/slurm/run.sh)
against where its ranks really ran and the job Slurm gave it.

    check_slurm.py OUT MODE NP PLACEMENT JOBID NODELIST NODES CLI
    check_slurm.py --cancelled OUT NP PLACEMENT CLI

OUT the output directory, MODE profile, trace or check, PLACEMENT the
program's own "rank R host H" lines, JOBID and NODELIST the job and the
nodes slurmctld gave it, NODES the node list expanded (`scontrol show
hostnames`), comma-separated, CLI the mpiscope program.

Every mode (each writes the profile):
- profile.json follows docs/profile-schema.json, has NP ranks and exactly spread.c's calls: 10 MPI_Sendrecv,
  10 MPI_Allreduce, 10 MPI_Barrier per rank (32 calls a rank with
  MPI_Comm_rank and MPI_Comm_size); per_rank names the host each rank ran on,
  run.hosts each host with its ranks;
- run.slurm is the job: its id, and its node list exactly as Slurm wrote it;
  the ranks ran on every node of the job and on no other host;
- `mpiscope report` reads it back: exit 0, a "slurm" line with the job, the
  node list, its size and "ranks on all N".
trace: the trace is complete and has every call (tests/trace/check_trace.py
with the program's expect.<rank> files), and `mpiscope report` with its wait
states exits 0. check: checks.json has no finding.

--cancelled (tests/slurm/stall.c, its job cancelled with scancel after every
rank said "ready"): no profile.json, no complete trace; every rank left
profile.rank<R>.incomplete.json, scope rank-incomplete, gone down on SIGTERM,
with exactly the 5 MPI_Sendrecv (400 bytes each way) and 1 MPI_Barrier it
made, and a partial trace trace/rank<R>.incomplete/traces.otf2 that
otf2-print reads, marked incomplete, with its 5 sends and 5 receives of 400
bytes; `mpiscope
report` exits 3 and says the trace is partial: the run did not reach
MPI_Finalize, and every rank left what it had recorded.
"""
import glob
import json
import jsonschema
import os
import re
import subprocess
import sys

bad = []


def placement(path):
    host = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            host[int(w[1])] = w[3]
    return host


def cancelled(out, np_, host, cli):
    if os.path.exists(os.path.join(out, "profile.json")):
        bad.append("profile.json exists although the job was cancelled")
    if os.path.exists(os.path.join(out, "trace", "traces.otf2")):
        bad.append("trace/traces.otf2 exists although the job was cancelled")
    for r in range(np_):
        f = os.path.join(out, f"profile.rank{r}.incomplete.json")
        if not os.path.exists(f):
            bad.append(f"rank {r} (on {host.get(r)}) left no partial profile")
            continue
        doc = json.load(open(f))
        why = doc.get("incomplete", {}).get("reason", "")
        if doc.get("scope") != "rank-incomplete" or "TERM" not in why:
            bad.append(f"rank {r}: scope {doc.get('scope')}, reason {why!r}; expected "
                       "rank-incomplete, SIGTERM")
        fns = {x["name"]: x for x in doc["functions"]}
        sr, b = fns.get("MPI_Sendrecv", {}), fns.get("MPI_Barrier", {})
        if (sr.get("calls"), sr.get("bytes_sent"), sr.get("bytes_recv"), b.get("calls")) != \
                (5, 2000, 2000, 1):
            bad.append(f"rank {r}: MPI_Sendrecv {sr.get('calls')} calls "
                       f"({sr.get('bytes_sent')}/{sr.get('bytes_recv')} bytes), MPI_Barrier "
                       f"{b.get('calls')}; expected 5 (2000/2000) and 1")
        if doc.get("per_rank", [{}])[0].get("host") not in (None, host.get(r)):
            bad.append(f"rank {r}: host {doc['per_rank'][0].get('host')}, it ran on {host.get(r)}")
        anchor = os.path.join(out, "trace", f"rank{r}.incomplete", "traces.otf2")
        if not os.path.exists(anchor):
            bad.append(f"rank {r} left no partial trace")
            continue
        ev = subprocess.run(["otf2-print", anchor], capture_output=True, text=True)
        props = subprocess.run(["otf2-print", "-A", anchor], capture_output=True, text=True)
        sends = len(re.findall(r"^MPI_SEND .*Length: 400$", ev.stdout, re.M))
        recvs = len(re.findall(r"^MPI_RECV .*Length: 400$", ev.stdout, re.M))
        if ev.returncode or (sends, recvs) != (5, 5):
            bad.append(f"rank {r}'s partial trace: otf2-print exit {ev.returncode}, {sends} "
                       f"MPI_SEND and {recvs} MPI_RECV of 400 bytes, expected 5 and 5")
        if not re.search(r"MPISCOPE::TRACE_COMPLETE\s*\n\s*Property value\s+false", props.stdout):
            bad.append(f"rank {r}'s partial trace is not marked MPISCOPE::TRACE_COMPLETE=false")
    rep = subprocess.run([cli, "report", "--no-waitstates", out], capture_output=True, text=True)
    print(rep.stderr.strip())
    if rep.returncode != 3:
        bad.append(f"mpiscope report: exit {rep.returncode}, expected 3 (partial)")
    if "INCOMPLETE RUN" not in rep.stdout:
        bad.append("mpiscope report does not say the run is incomplete")
    for r in range(np_):
        if not re.search(rf"rank {r}: partial profile, went down: .*TERM", rep.stdout):
            bad.append(f"mpiscope report does not name rank {r}'s profile as partial (SIGTERM)")
    want = (f"the trace is partial: the run did not reach MPI_Finalize; ranks 0-{np_ - 1} left "
            "what they had recorded")
    if want not in rep.stderr:
        bad.append(f"mpiscope report's message does not say {want!r}")
    print(f"check_slurm: cancelled: {np_} partial profiles and traces, report exit "
          f"{rep.returncode}")


def run(out, mode, np_, host, jobid, nodelist, nodes, cli):
    prof = json.load(open(os.path.join(out, "profile.json")))
    schema = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "profile-schema.json")
    try:
        jsonschema.validate(prof, json.load(open(schema)))
    except jsonschema.ValidationError as x:
        bad.append(f"profile.json does not follow docs/profile-schema.json: {x.message}")
    if prof.get("world_size") != np_:
        bad.append(f"profile world_size {prof.get('world_size')}, expected {np_}")
    calls = {f["name"]: f["calls"] for f in prof["functions"]}
    for fn in ("MPI_Sendrecv", "MPI_Allreduce", "MPI_Barrier"):
        if calls.get(fn) != 10 * np_:
            bad.append(f"profile: {calls.get(fn)} calls of {fn}, expected {10 * np_}")
    per = {r["rank"]: r for r in prof.get("per_rank", [])}
    if sorted(per) != list(range(np_)) or sorted(host) != list(range(np_)):
        bad.append(f"profile per_rank has ranks {sorted(per)}, the program printed {sorted(host)}")
    for r, e in per.items():
        if e.get("calls") != 32:
            bad.append(f"profile: rank {r} has {e.get('calls')} calls, expected 32")
        if e.get("host") != host.get(r):
            bad.append(f"profile: rank {r} on host {e.get('host')}, but it ran on {host.get(r)}")
    run_ = prof.get("run", {})
    listed = {h["name"]: h["count"] for h in run_.get("hosts", [])}
    want = {h: sum(1 for x in host.values() if x == h) for h in set(host.values())}
    if listed != want:
        bad.append(f"profile run.hosts {listed}, the ranks ran {want}")
    slurm = run_.get("slurm", {})
    if slurm.get("job_id") != jobid or slurm.get("nodelist") != nodelist:
        bad.append(f"profile run.slurm {slurm}, the job is {jobid} on {nodelist}")
    if set(host.values()) != set(nodes):
        bad.append(f"the ranks ran on {sorted(set(host.values()))}, the job has {nodes}")
    print(f"check_slurm: {mode}: {np_} ranks, exact calls, hosts {want}, job {jobid} on "
          f"{nodelist}")

    rep = subprocess.run([cli, "report", "--no-waitstates", out], capture_output=True, text=True)
    line = next((l for l in rep.stdout.splitlines() if l.startswith("  slurm ")), None)
    if rep.returncode:
        bad.append(f"mpiscope report: exit {rep.returncode}: {rep.stderr.strip()}")
    n = len(nodes)
    if not line or not line.startswith(f"  slurm     job {jobid}") or \
            f"nodes {nodelist} ({n}), ranks on all {n}" not in line:
        bad.append(f"mpiscope report's slurm line {line!r}, expected job {jobid}, nodes "
                   f"{nodelist} ({n}), ranks on all {n}")
    else:
        print(f"check_slurm: report: {line.strip()}")

    if mode == "trace":
        r = subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "..",
                                                             "trace", "check_trace.py"), out])
        if r.returncode:
            bad.append("the trace is not valid (check_trace.py above)")
        rep = subprocess.run([cli, "report", out], capture_output=True, text=True)
        if rep.returncode or "Wait states" not in rep.stdout:
            bad.append(f"mpiscope report of the trace: exit {rep.returncode}: "
                       f"{rep.stderr.strip()[:400]}")
        else:
            print("check_slurm: trace: complete, every call; report with wait states exit 0")
    if mode == "check":
        try:
            found = json.load(open(os.path.join(out, "checks.json")))["findings"]
        except (OSError, ValueError, KeyError) as x:
            found = [f"no checks.json ({x})"]
        if found:
            bad.append(f"check: {len(found)} finding(s), expected none: {found[:3]}")
        else:
            print("check_slurm: check: checks.json has no finding")


if sys.argv[1] == "--cancelled":
    out, np_, pl, cli = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
    cancelled(out, np_, placement(pl), cli)
else:
    out, mode, np_, pl, jobid, nodelist, nodes, cli = sys.argv[1:9]
    run(out, mode, int(np_), placement(pl), jobid, nodelist, nodes.split(","), cli)
for b in bad:
    print("check_slurm: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
