#!/usr/bin/python3
"""Checks the wait states of tests/report/waits.c (see its header for the
expected times) through `mpiscope report`.

    check_waits.py <output dir> <ranks> <delay ms> <mpiscope>

- `mpiscope report DIR` exits 0, prints the profile and then the wait-state
  section, writes DIR/waitstates.json and prints nothing on stderr (stderr
  is not a terminal: no progress lines);
- every pattern's total (completions: under 10 % of D per call), rank 0's and the call sites' times match the
  program's known delays within the tolerance below;
- the call sites are per source line: the site that waits in each pattern
  is at the line waits.c marks for it ("site:<name>"), and the site's name
  says so ("MPI_Ssend @ .../waits.c:65");
- a second run reuses waitstates.json (same bytes, file not rewritten).

Tolerance: |measured - expected| <= 15 % of the delay D + 10 % of the
expected time (30 ms + 10 % at D = 200 ms). Sleeps overshoot, and on two
shared cores a rank polling in MPI can lose its core for several ms, so a
barrier that ends a phase costs a few ms of real, unplanned waiting.
"""
import json
import os
import re
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("check_waits: " + msg, file=sys.stderr)


D = 0.0


def near(what, got_ns, want_ms):
    got = got_ns / 1e6
    tol = 0.15 * D + 0.1 * want_ms
    ok = abs(got - want_ms) <= tol
    print(f"check_waits: {what}: {got:.3f} ms, expected {want_ms:.1f} ms +- {tol:.1f}"
          f"{'' if ok else '  <-- FAIL'}")
    if not ok:
        fail(f"{what}: {got:.3f} ms, expected {want_ms:.1f} +- {tol:.1f} ms")


def main():
    global D
    out, n, d, cli = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    D = d
    p = subprocess.run([cli, "report", out], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"mpiscope report exited {p.returncode}: {p.stderr}")
        return
    if p.stderr:
        fail(f"mpiscope report wrote on stderr although it is not a terminal: {p.stderr!r}")
    text = p.stdout
    for want in ("Functions", "Wait states (from the trace", "Late Sender", "Waiting time per rank",
                 "Call sites with waiting time"):
        if want not in text:
            fail(f"the text report has no '{want}'")
    path = os.path.join(out, "waitstates.json")
    try:
        with open(path) as f:
            raw = f.read()
        ws = json.loads(raw)
    except (OSError, ValueError) as e:
        fail(f"cannot read {path}: {e}")
        return
    if ws.get("kind") != "waitstates" or ws.get("ranks") != n:
        fail(f"waitstates.json: kind {ws.get('kind')}, ranks {ws.get('ranks')} (want {n})")
    if ws.get("unmatched"):
        fail(f"{ws['unmatched']} unmatched message ends")
    pat = {p["id"]: p["time_ns"] for p in ws["patterns"]}
    near("Late Sender", pat["late_sender"], 2 * d)
    near("Late Sender, wrong order", pat["late_sender_wrong_order"], d)
    near("Late Receiver", pat["late_receiver"], d)
    near("Wait at Barrier", pat["wait_barrier"], (n - 1) * d)
    near("Wait at NxN", pat["wait_nxn"], (n - 1) * d)
    near("Late Broadcast", pat["late_broadcast"], (n - 1) * d)
    near("Early Reduce", pat["early_reduce"], d)
    # Completion: time after the first member left. Scheduling decides it,
    # not the program; it must stay small per instance.
    inst = {p["id"]: p["instances"] for p in ws["patterns"]}
    for pid in ("barrier_completion", "nxn_completion"):
        per = pat[pid] / 1e6 / max(inst[pid], 1)
        print(f"check_waits: {pid}: {pat[pid] / 1e6:.3f} ms in {inst[pid]} calls")
        if per > 0.1 * d:
            fail(f"{pid}: {per:.3f} ms per call, more than 10 % of the delay")
    r0 = ws["per_rank"][0]
    near("rank 0 Late Sender", r0["late_sender"], 2 * d)
    near("rank 0 Late Receiver", r0["late_receiver"], d)
    near("rank 0 Early Reduce", r0["early_reduce"], d)
    near("rank 0 Late Broadcast", r0["late_broadcast"], 0)
    last = ws["per_rank"][n - 1]
    near(f"rank {n - 1} Wait at Barrier", last["wait_barrier"], 0)
    near(f"rank {n - 1} Wait at NxN", last["wait_nxn"], 0)
    marks = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "waits.c")) as f:
        for i, src in enumerate(f, 1):
            m = re.search(r"site:(\w+) \*/", src)
            if m:
                marks[m.group(1)] = i
    for fn, pid, want, where in (("MPI_Recv", "late_sender", 2 * d, ("recv1", "recv2")),
                                 ("MPI_Ssend", "late_receiver", d, ("ssend",)),
                                 ("MPI_Bcast", "late_broadcast", (n - 1) * d, ("bcast",)),
                                 ("MPI_Reduce", "early_reduce", d, ("reduce",)),
                                 ("MPI_Allreduce", "wait_nxn", (n - 1) * d, ("allreduce",))):
        sites = [s for s in ws["callsites"] if s["function"] == fn]
        if not sites:
            fail(f"no call site {fn} in waitstates.json")
            continue
        near(f"sites of {fn} {pid}", sum(s[pid] for s in sites), want)
        waiting = sorted(s["line"] for s in sites if s[pid] > want / len(where) / 2 * 1e6)
        lines = sorted(marks[w] for w in where)
        if waiting != lines:
            fail(f"{fn} {pid}: waiting at lines {waiting}, expected {lines}")
        for s in sites:
            if os.path.basename(s["file"]) != "waits.c" or \
                    not s["site"].startswith(f"{fn} @ {s['file']}:{s['line']}"):
                fail(f"{fn}: call site {s['site']!r} at {s['file']!r}:{s['line']}")
    # The analysis is saved: a second report reads it back.
    st = os.stat(path)
    p2 = subprocess.run([cli, "report", out], capture_output=True, text=True, timeout=120)
    if p2.returncode != 0 or p2.stdout != text:
        fail("a second mpiscope report printed something else")
    if os.stat(path).st_mtime_ns != st.st_mtime_ns:
        fail("the second report analysed the trace again instead of reading waitstates.json")


if __name__ == "__main__":
    main()
    if failures:
        print(f"check_waits: {len(failures)} problems", file=sys.stderr)
        sys.exit(1)
    print("check_waits: ok")
