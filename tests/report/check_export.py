#!/usr/bin/python3
"""Checks `mpiscope export --chrome DIR` on a run of tests/report/waits.c.

    check_export.py <output dir> <ranks> <mpiscope>

- the export exits 0 and writes DIR/trace.json, valid JSON with a
  traceEvents list (the object form chrome://tracing and Perfetto read);
- every rank is a process with a process_name; every event has ph, pid,
  tid and ts (numbers);
- per thread, B and E events nest (each E closes the open slice of the
  same name) and time never goes back; no slice is left open;
- the program's MPI calls are there: each rank has its MPI_Barrier,
  MPI_Allreduce, MPI_Bcast and MPI_Reduce slices; rank 0 three MPI_Recv
  and rank 1 one;
- every flow start (s) has exactly one finish (f) with the same id, bytes
  and tag, on the receiver, not earlier, and each lies inside a slice of
  its thread; there are 4 messages (the program sends 4);
- against the OTF2 archive itself (python3-otf2): per rank, the slices of
  each function equal the trace's Enter events of that region, and the flows
  equal the trace's sends (MpiSend, MpiIsend), per sender and receiver, with
  their bytes (the Trace Event Format's view holds all of the trace's calls
  and messages, not a sample).
"""
import collections
import glob
import json
import os
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("check_export: " + msg, file=sys.stderr)


def main():
    out, n, cli = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    p = subprocess.run([cli, "export", "--chrome", out], capture_output=True, text=True, timeout=120)
    path = os.path.join(out, "trace.json")
    if p.returncode != 0 or not os.path.exists(path):
        fail(f"export exited {p.returncode}: {p.stderr}")
        return
    with open(path) as f:
        doc = json.load(f)
    ev = doc.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        fail("no traceEvents list")
        return
    names = {e["pid"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    if names != set(range(n)):
        fail(f"process names for ranks {sorted(names)}, expected 0..{n - 1}")
    stacks = collections.defaultdict(list)
    last = {}
    calls = collections.defaultdict(collections.Counter)
    flows = {}
    ends = collections.Counter()
    finishes = []
    for e in ev:
        ph = e.get("ph")
        if ph == "M":
            continue
        if not all(isinstance(e.get(k), (int, float)) for k in ("pid", "tid", "ts")):
            fail(f"event without pid/tid/ts: {e}")
            continue
        key = (e["pid"], e["tid"])
        if e["ts"] < last.get(key, -1e300) and ph in "BE":
            fail(f"time goes back on {key}")
        if ph in "BE":
            last[key] = e["ts"]
        if ph == "B":
            stacks[key].append(e["name"])
            calls[e["pid"]][e["name"]] += 1
        elif ph == "E":
            if not stacks[key] or stacks[key][-1] != e["name"]:
                fail(f"E {e['name']} does not close the open slice on {key}")
            else:
                stacks[key].pop()
        elif ph in ("s", "f"):
            if not stacks[key]:
                fail(f"flow {ph} outside any slice on {key}")
            if ph == "s":
                if e["id"] in flows:
                    fail(f"two flow starts with id {e['id']}")
                flows[e["id"]] = e
            else:
                ends[e["id"]] += 1
                finishes.append(e)
    for key, st in stacks.items():
        if st:
            fail(f"slices left open on {key}: {st}")
    # Files need not be in time order: match once everything is read.
    for e in finishes:
        s = flows.get(e["id"])
        if not s:
            fail(f"flow finish {e['id']} without start")
        elif e.get("bp") != "e" or e["args"] != s["args"] or e["ts"] < s["ts"] or s["pid"] == e["pid"]:
            fail(f"flow {e['id']}: start {s} and finish {e} do not match")
    for fid in flows:
        if ends[fid] != 1:
            fail(f"flow {fid} has {ends[fid]} finishes")
    if len(flows) != 4:
        fail(f"{len(flows)} messages, the program sends 4")
    for r in range(n):
        for fn in ("MPI_Barrier", "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce"):
            if calls[r][fn] < 1:
                fail(f"rank {r} has no {fn} slice")
    if calls[0]["MPI_Recv"] != 3 or calls[1]["MPI_Recv"] != 1:
        fail(f"MPI_Recv slices: rank 0 {calls[0]['MPI_Recv']} (3), rank 1 {calls[1]['MPI_Recv']} (1)")
    fin = {e["id"]: e for e in finishes}
    compare_with_trace(out, calls, [(st["pid"], fin[i]["pid"], st["args"].get("bytes"))
                                    for i, st in flows.items() if i in fin])
    print(f"check_export: {len(ev)} events, {sum(sum(c.values()) for c in calls.values())} slices, "
          f"{len(flows)} flows")


def compare_with_trace(out, calls, messages):
    """Slices per rank and function, and messages per (sender, receiver,
    bytes), against what the OTF2 archive holds."""
    import otf2
    anchor = glob.glob(os.path.join(out, "trace", "*.otf2"))
    if len(anchor) != 1:
        fail(f"no single OTF2 anchor in {out}/trace")
        return
    enters = collections.defaultdict(collections.Counter)
    sends = collections.Counter()
    with otf2.reader.open(anchor[0]) as trace:
        groups = list(trace.definitions.location_groups)
        for loc, event in trace.events:
            rank = groups.index(loc.group)
            if isinstance(event, otf2.events.Enter):
                enters[rank][event.region.name] += 1
            elif isinstance(event, (otf2.events.MpiSend, otf2.events.MpiIsend)):
                comm = event.communicator
                members = [m if isinstance(m, int) else int(m._ref) & 0xffffffff for m in comm.group.members]
                sends[(rank, members[event.receiver], event.msg_length)] += 1
    for r in set(enters) | set(calls):
        traced = {k: v for k, v in enters[r].items() if k in calls[r] or k.startswith("MPI_")}
        if dict(calls[r]) != traced:
            fail(f"rank {r}: slices {dict(calls[r])}, the trace's Enter events {traced}")
    got = collections.Counter(messages)
    if got != sends:
        fail(f"flows (sender, receiver, bytes) {dict(got)}, the trace's sends {dict(sends)}")


if __name__ == "__main__":
    main()
    if failures:
        print(f"check_export: {len(failures)} problems", file=sys.stderr)
        sys.exit(1)
    print("check_export: ok")
