#!/usr/bin/python3
"""Checks the wait states of tests/report/waits.c (see its header for the
expected times) through `mpiscope report`.

    check_waits.py <output dir> <ranks> <delay ms> <mpiscope>

- `mpiscope report DIR` exits 0, prints the profile and then the wait-state
  section, writes DIR/waitstates.json and prints nothing on stderr (stderr
  is not a terminal: no progress lines);
- every pattern's total and every rank's time equal what the trace itself
  implies (trace_waits.py computes them from the recorded timestamps with
  the definitions of docs/report.md), within 0.5 % + 0.05 ms;
- the program made each pattern wait (each > 0 in the trace), and the
  completions stay small next to the waiting they follow;
- the call sites are per source line: the sites that wait in each pattern
  are at lines waits.c marks for it ("site:<name>"), the one that waits most
  among them, and the site's name says so ("MPI_Ssend @ .../waits.c:65");
- a second run reuses waitstates.json (same bytes, file not rewritten).

No expectation comes from the program's sleeps (D): on two shared cores a
busy machine stretches or shrinks the waiting, but the analysis must still
agree with the timestamps it read.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_waits  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("check_waits: " + msg, file=sys.stderr)


def near(what, got_ns, want_ns):
    tol = 0.005 * want_ns + 50e3
    ok = abs(got_ns - want_ns) <= tol
    print(f"check_waits: {what}: {got_ns / 1e6:.3f} ms, the trace implies {want_ns / 1e6:.3f} ms"
          f"{'' if ok else '  <-- FAIL'}")
    if not ok:
        fail(f"{what}: {got_ns / 1e6:.3f} ms, the trace implies {want_ns / 1e6:.3f} ms")


def main():
    out, n, d, cli = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
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
    want, want_rank, want_fn = trace_waits.waits(os.path.join(out, "trace", "traces.otf2"))
    for pid in ("late_sender", "late_sender_wrong_order", "late_receiver", "wait_barrier",
                "wait_nxn", "late_broadcast", "early_reduce"):
        near(pid, pat[pid], want[pid])
        if want[pid] <= 0:
            fail(f"{pid}: the trace shows no waiting; the program makes some")
        for r in range(n):
            near(f"rank {r} {pid}", ws["per_rank"][r][pid], want_rank[r][pid])
    # Completion: time after the first member left. Scheduling decides it,
    # not the program; per instance it stays below the waiting it follows.
    inst = {p["id"]: p["instances"] for p in ws["patterns"]}
    for pid, of in (("barrier_completion", "wait_barrier"), ("nxn_completion", "wait_nxn")):
        print(f"check_waits: {pid}: {pat[pid] / 1e6:.3f} ms in {inst[pid]} calls")
        if pat[pid] > pat[of]:
            fail(f"{pid}: {pat[pid] / 1e6:.3f} ms, more than the {of} it follows")
    marks = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "waits.c")) as f:
        for i, src in enumerate(f, 1):
            m = re.search(r"site:(\w+) \*/", src)
            if m:
                marks[m.group(1)] = i
    for fn, pid, where in (("MPI_Recv", "late_sender", ("recv1", "recv2")),
                           ("MPI_Ssend", "late_receiver", ("ssend",)),
                           ("MPI_Bcast", "late_broadcast", ("bcast",)),
                           ("MPI_Reduce", "early_reduce", ("reduce",)),
                           ("MPI_Allreduce", "wait_nxn", ("allreduce",))):
        sites = [s for s in ws["callsites"] if s["function"] == fn]
        if not sites:
            fail(f"no call site {fn} in waitstates.json")
            continue
        near(f"sites of {fn} {pid}", sum(s[pid] for s in sites), want_fn[(fn, pid)])
        lines = sorted(marks[w] for w in where)
        waiting = [s for s in sites if s[pid] > 0]
        top = max(waiting, key=lambda s: s[pid]) if waiting else None
        if not top or top["line"] not in lines:
            fail(f"{fn} {pid}: waits most at line {top and top['line']}, expected one of {lines}")
        for s in waiting:
            if s["line"] not in lines and s[pid] > 0.1 * top[pid]:
                fail(f"{fn} {pid}: {s[pid] / 1e6:.3f} ms at line {s['line']}, not a marked line")
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
