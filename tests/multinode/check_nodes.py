#!/usr/bin/python3
"""Checks a multi-node run (tests/multinode/run.sh) against where the ranks
really ran (the program's own "rank R host H" lines).

    check_nodes.py OUT PLACEMENT NP [--skew HOST NS]

- profile.json merges every rank: world_size NP, and per function and per
  rank exactly the calls spread.c makes (10 MPI_Sendrecv, 10 MPI_Allreduce,
  10 MPI_Barrier per rank); per_rank names each rank's host (a profile with
  run metadata, key "run", must; one without, from before issue 16's
  per-rank table, cannot);
- `mpiscope report --by-node` lists every rank under the host it ran on,
  each node with exactly its ranks, and the node count;
- the trace is valid and has every call (tests/trace/check_trace.py with
  the program's expect.<rank> files);
- the HTML timeline groups its rows by host, each with exactly its ranks;
- the OTF2 system tree has one node (class "node") per host, named by the
  host, under the machine, and each rank's location group hangs under the
  node of the host it ran on.
- with --skew (HOST's CLOCK_MONOTONIC runs NS ahead): the archive's clock
  offsets (otf2-print -C) of every rank on HOST are -NS and of every other
  rank 0, each to within 50 ms or three times the synchronization's own
  standard deviation, whichever is larger; check_trace.py has already
  asserted that no message is received before it was sent.
"""
import re
import json
import os
import subprocess
import sys

import otf2

out, placement, np_ = sys.argv[1], sys.argv[2], int(sys.argv[3])
host = {}
with open(placement) as f:
    for line in f:
        _, r, _, h = line.split()
        host[int(r)] = h
bad = []

prof = json.load(open(os.path.join(out, "profile.json")))
if prof.get("world_size") != np_:
    bad.append(f"profile world_size {prof.get('world_size')}, expected {np_}")
calls = {f["name"]: f["calls"] for f in prof["functions"]}
for fn in ("MPI_Sendrecv", "MPI_Allreduce", "MPI_Barrier"):
    if calls.get(fn) != 10 * np_:
        bad.append(f"profile: {calls.get(fn)} calls of {fn}, expected {10 * np_}")
per = {r["rank"]: r for r in prof.get("per_rank", [])}
if sorted(per) != list(range(np_)):
    bad.append(f"profile per_rank has ranks {sorted(per)}")
hosts_in_profile = 0
for r, e in per.items():
    if e.get("calls") != 32:   # and MPI_Comm_rank, MPI_Comm_size
        bad.append(f"profile: rank {r} has {e.get('calls')} calls, expected 32")
    h = e.get("host", e.get("hostname"))
    if h is not None:
        hosts_in_profile += 1
        if h != host[r]:
            bad.append(f"profile: rank {r} on host {h}, but it ran on {host[r]}")
if "run" in prof and hosts_in_profile != np_:
    bad.append(f"profile: per_rank names the host of {hosts_in_profile} of {np_} ranks")
print(f"check_nodes: profile merges {np_} ranks on {len(set(host.values()))} hosts"
      + (f"; per_rank names every rank's host" if hosts_in_profile == np_ else
         "; per_rank names no host (profile without run metadata)"))

# The report grouped by node (hosts from the profile or the system tree).
lib = os.environ["MSC_LIB"]
cli = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(lib)))),
                   "bin", "mpiscope")
rep_ = subprocess.run([cli, "report", "--by-node", "--no-waitstates", out], capture_output=True,
                      text=True)
if rep_.returncode:
    bad.append(f"mpiscope report --by-node: exit {rep_.returncode}: {rep_.stderr.strip()}")
section = rep_.stdout.split("\nRanks by node", 1)
listed, node, nodes_line = {}, None, None
for line in (section[1].splitlines() if len(section) == 2 else []):
    m = re.match(r"  node (\S+): (\d+) rank\(s\)", line)
    if m:
        node = m.group(1)
        continue
    m = re.match(r"\s+(\d+)\s+[0-9.]+\s+[0-9.]+$", line)
    if m and node:
        listed[int(m.group(1))] = node
        continue
    m = re.match(r"  (\d+) node\(s\), (\d+) rank\(s\)", line)
    if m:
        nodes_line = (int(m.group(1)), int(m.group(2)))
        break
if listed != host:
    bad.append(f"report --by-node: ranks under {listed}, they ran on {host}")
if nodes_line != (len(set(host.values())), np_):
    bad.append(f"report --by-node: totals {nodes_line}, expected {len(set(host.values()))} nodes")
print(f"check_nodes: report --by-node lists every rank under its host ({nodes_line})")

# The HTML timeline groups its rows by host: each host once, with exactly
# the ranks that ran there, in the order of their first rank.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "report"))
from check_html import chromium  # noqa: E402
html = os.path.join(out, "report-nodes.html")
rep_ = subprocess.run([cli, "report", "--html", out, "-o", html], capture_output=True, text=True)
if rep_.returncode:
    bad.append(f"mpiscope report --html: exit {rep_.returncode}: {rep_.stderr.strip()}")
else:
    d = chromium(["--dump-dom"], "file://" + os.path.abspath(html) + "#tl=0,1")
    m = re.search(r'<canvas id="tl-canvas"[^>]*data-groups="([^"]*)"', d.stdout)
    order = sorted(set(host.values()), key=lambda h: min(r for r in host if host[r] == h))
    want = ";".join(h + ":" + ",".join(str(r) for r in sorted(host) if host[r] == h) for h in order)
    if not m or m.group(1) != want:
        bad.append(f"timeline: row groups {m.group(1) if m else None}, expected {want}")
    else:
        print(f"check_nodes: the timeline groups its rows by host ({want})")

r = subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "..", "trace",
                                                     "check_trace.py"), out])
if r.returncode:
    bad.append("the trace is not valid (check_trace.py above)")

with otf2.reader.open(os.path.join(out, "trace", "traces.otf2")) as t:
    defs = t.definitions
    nodes = {n.name: n for n in defs.system_tree_nodes if n.class_name == "node"}
    if set(nodes) != set(host.values()):
        bad.append(f"system tree nodes {sorted(nodes)}, the ranks ran on {sorted(set(host.values()))}")
    for n in nodes.values():
        if n.parent is None or n.parent.class_name != "machine":
            bad.append(f"node {n.name} is not under the machine")
    groups = {g.name: g for g in defs.location_groups}
    for rank, h in host.items():
        g = groups.get(f"MPI Rank {rank}")
        if g is None:
            bad.append(f"no location group for rank {rank}")
        elif g.system_tree_parent is None or g.system_tree_parent.name != h:
            got = g.system_tree_parent.name if g.system_tree_parent else None
            bad.append(f"rank {rank}'s location group is under {got}, it ran on {h}")
print(f"check_nodes: system tree: {len(nodes)} nodes {sorted(nodes)}, every rank under its host")

if "--skew" in sys.argv:
    i = sys.argv.index("--skew")
    skew_host, skew = sys.argv[i + 1], int(sys.argv[i + 2])
    text = subprocess.run(["otf2-print", "-C", os.path.join(out, "trace", "traces.otf2")],
                          capture_output=True, text=True).stdout
    seen = set()
    for m in re.finditer(r"CLOCK_OFFSET\s+(\d+)\s+Time: \d+, Offset: ([-+]\d+), StdDev: ([0-9.e+]+)", text):
        loc, off, dev = int(m.group(1)), int(m.group(2)), float(m.group(3))
        rank = loc & 0xffffffff
        seen.add(rank)
        want = -skew if host.get(rank) == skew_host else 0
        tol = max(50e6, 3 * dev)
        if abs(off - want) > tol:
            bad.append(f"rank {rank} on {host.get(rank)}: clock offset {off} ns, expected {want} "
                       f"within {tol:.0f}")
    if seen != set(host):
        bad.append(f"clock offsets for ranks {sorted(seen)}, expected {sorted(host)}")
    print(f"check_nodes: clock offsets: the ranks on {skew_host} measured {skew} ns ahead, "
          f"the others level")
for b in bad:
    print("check_nodes: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
