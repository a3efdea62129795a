#!/usr/bin/env python3
"""What the planted programs (planted.c) must give, derived from what their
ranks do (see planted.c):
  imbalance   Load Balance (N + 1) / (2 N) within 0.05, from the profile
              (profile.json's pop, the POP section of profile.txt) and from
              the trace (waitstates.json's pop);
  pipeline    Serialization Efficiency 2 / (N + 1) within 0.1, Load Balance
              above 0.9; runtime, ideal runtime, max useful and Transfer
              Efficiency as an independent replay of the recorded times
              implies (trace_replay.py); Transfer above 0.85 when no message
              was taken more than 2 ms after it was sent (else the machine's
              load made the real network cost something);
  slowlink    Transfer Efficiency as the independent replay of the recorded
              times implies (trace_replay.py) and below 0.95 (the planted
              copies cost time), Serialization Efficiency above 0.9, the
              report saying what the real network costs;
  latesender  rank 0's Late Sender at least 6 T (8 T planted); the delay
              analysis names rank 1 and the computation before the MPI_Send at
              the line marked site:heavy-send as the first cause, for at least
              90 % of the planted 8 T (or of the wait, if shorter).
  latereceiver  rank 0's Late Receiver at least 6 T (8 T planted); the
              delay analysis names rank 1 and the computation before the
              MPI_Recv at the line marked site:heavy-recv, for at least 90 %.
Every run: the critical path is as long as the run (within 1 %).
usage: check_planted.py OUTDIR MODE NRANKS T_MS MPISCOPE"""
import json, os, re, subprocess, sys

out, mode, n, t, cli = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
fails = []

def check(what, ok, detail):
    print(("ok   " if ok else "FAIL ") + what + ": " + detail)
    if not ok:
        fails.append(what)

rep = subprocess.run([cli, "report", out], capture_output=True, text=True)
check("mpiscope report exits 0", rep.returncode == 0, "rc %d %s" % (rep.returncode, rep.stderr[-300:]))
prof = json.load(open(os.path.join(out, "profile.json")))
ws = json.load(open(os.path.join(out, "waitstates.json")))
pop_p, pop_t = prof["pop"], ws["pop"]
txt = open(os.path.join(out, "profile.txt")).read()
check("profile.txt has the POP section", "POP efficiency" in txt and "Load Balance" in txt, "")
check("report has the trace's POP tree", "Serialization Efficiency" in rep.stdout, "")

if mode == "imbalance":
    want = (n + 1) / (2 * n)
    for src, p in (("profile", pop_p), ("trace", pop_t)):
        check("load balance from the " + src, abs(p["load_balance"] - want) <= 0.05,
              "%.3f, want %.3f +- 0.05" % (p["load_balance"], want))
    m = re.search(r"Load Balance\s+([0-9.]+)", txt)
    check("profile.txt prints it", m and abs(float(m.group(1)) - pop_p["load_balance"]) < 0.0006,
          m.group(0) if m else "missing")
elif mode == "pipeline":
    want = 2 / (n + 1)
    check("serialization efficiency", abs(pop_t["serialization_efficiency"] - want) <= 0.1,
          "%.3f, want %.3f +- 0.1" % (pop_t["serialization_efficiency"], want))
    # The ideal run time and its efficiencies as the recorded times imply
    # them (trace_replay.py, an independent replay): exact, under any load.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import trace_replay
    want_r = trace_replay.replay(os.path.join(out, "trace", "traces.otf2"))
    for key in ("runtime_ns", "ideal_runtime_ns", "useful_max_ns"):
        got, exp = pop_t[key], want_r[key.replace("ideal_runtime", "ideal")]
        check(key + " as the recorded times imply", abs(got - exp) <= 1e-6 * exp + 1000,
              "%d, want %.0f" % (got, exp))
    te = want_r["ideal_ns"] / want_r["runtime_ns"]
    check("transfer efficiency = ideal / real runtime", abs(pop_t["transfer_efficiency"] - te) <= 1e-3,
          "%.4f, want %.4f" % (pop_t["transfer_efficiency"], te))
    # Near 1 as planted when every message was taken as soon as it was sent;
    # on a busy machine a receiver that got its core late made the real
    # network (and scheduler) cost something, and then the value above is
    # what is judged.
    if want_r["late_deliveries"] == 0:
        check("transfer efficiency near 1", pop_t["transfer_efficiency"] > 0.85,
              "%.3f" % pop_t["transfer_efficiency"])
    else:
        print("note transfer efficiency %.3f not held to 'near 1': %d receives completed more "
              "than 2 ms after their message was sent (the machine's load)"
              % (pop_t["transfer_efficiency"], want_r["late_deliveries"]))
    check("load balance near 1", pop_t["load_balance"] > 0.9, "%.3f" % pop_t["load_balance"])
elif mode == "slowlink":
    # What the recorded times imply (the independent replay), exactly; and
    # the planted copies visible: below 0.95 would need each 128 MiB copy in
    # under 4 ms. (A fixed 0.7 failed once on Open MPI at 0.712: how long the
    # copies take against the sleeps depends on the machine and its load.)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import trace_replay
    want_r = trace_replay.replay(os.path.join(out, "trace", "traces.otf2"))
    te = want_r["ideal_ns"] / want_r["runtime_ns"]
    check("transfer efficiency = ideal / real runtime", abs(pop_t["transfer_efficiency"] - te) <= 1e-3,
          "%.4f, want %.4f" % (pop_t["transfer_efficiency"], te))
    check("transfer efficiency low", pop_t["transfer_efficiency"] < 0.95,
          "%.3f" % pop_t["transfer_efficiency"])
    check("serialization efficiency near 1", pop_t["serialization_efficiency"] > 0.9,
          "%.3f" % pop_t["serialization_efficiency"])
    check("the report says what the network costs", "the real network costs" in rep.stdout, "")
elif mode == "latesender":
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.c")).read().split("\n")
    line = next(i + 1 for i, l in enumerate(src) if "site:heavy-send" in l and "MPI_Send" in l)
    ls = next(r["late_sender"] for r in ws["per_rank"] if r["rank"] == 0)
    causes = [c for c in ws["delay"]["causes"] if c["pattern"] == "late_sender"]
    top = causes[0] if causes else {}
    # heavy() sleeps 4 T per round, so the wait is at least about 8 T (less
    # only by what rank 0 was preempted before its receive). On a busy machine
    # the sleeps overshoot and the start message can take tens of ms, which
    # adds wait that no computation caused: the planted 8 T must be blamed on
    # rank 1's computation for at least 90 %, and no cause can exceed the wait.
    check("rank 0's late sender at least 6 T", ls >= 0.75 * 8 * t * 1e6,
          "%.1f ms, planted 8 T = %.1f" % (ls / 1e6, 8 * t))
    site = "computation before MPI_Send @ "
    check("the cause is rank 1", top.get("rank") == 1, json.dumps(top))
    check("named by the send after it", top.get("site", "").startswith(site) and
          re.search(r"planted\.c:%d\b" % line, top.get("site", "")) is not None,
          "%s, want planted.c:%d" % (top.get("site"), line))
    check("it caused 90 % of the planted wait", 0.9 * min(ls, 8 * t * 1e6) <= top.get("ns", 0) <= ls,
          "%s of %d ns (planted %d)" % (top.get("ns"), ls, 8 * t * 1e6))
    check("the report names it", re.search(r"Late Sender\s+1\s+.*planted\.c:%d" % line, rep.stdout) is not None, "")
elif mode == "latereceiver":
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.c")).read().split("\n")
    line = next(i + 1 for i, l in enumerate(src) if "site:heavy-recv" in l and "MPI_Recv" in l)
    lr = next(r["late_receiver"] for r in ws["per_rank"] if r["rank"] == 0)
    causes = [c for c in ws["delay"]["causes"] if c["pattern"] == "late_receiver"]
    top = causes[0] if causes else {}
    # heavy() sleeps 4 T per round after rank 1's start message; rank 0's
    # MPI_Ssend waits for the receive after it (less only by the message's
    # latency): about 8 T in all, 90 % of it blamed on rank 1's computation.
    check("rank 0's late receiver at least 6 T", lr >= 0.75 * 8 * t * 1e6,
          "%.1f ms, planted 8 T = %.1f" % (lr / 1e6, 8 * t))
    site = "computation before MPI_Recv @ "
    check("the cause is rank 1", top.get("rank") == 1, json.dumps(top))
    check("named by the receive after it", top.get("site", "").startswith(site) and
          re.search(r"planted\.c:%d\b" % line, top.get("site", "")) is not None,
          "%s, want planted.c:%d" % (top.get("site"), line))
    check("it caused 90 % of the planted wait", 0.9 * min(lr, 8 * t * 1e6) <= top.get("ns", 0) <= lr,
          "%s of %d ns (planted %d)" % (top.get("ns"), lr, 8 * t * 1e6))
    check("the report names it", re.search(r"Late Receiver\s+1\s+.*planted\.c:%d" % line, rep.stdout) is not None, "")

cp = ws["critical_path"]
# The path runs from the start of its first location to the end of the run.
check("critical path from its start to the end", abs(cp["length_ns"] - (pop_t["runtime_ns"] - cp["start_ns"])) <= 1000,
      "%d against %d - %d ns" % (cp["length_ns"], pop_t["runtime_ns"], cp["start_ns"]))
check("critical path = computation + MPI", cp["computation_ns"] + cp["mpi_ns"] == cp["length_ns"], "")
print("%d passed, %d failed" % (0, len(fails)) if fails else "check_planted: all passed")
sys.exit(1 if fails else 0)
