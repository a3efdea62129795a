#!/usr/bin/python3
"""MPISCOPE_COUNTERS=1 (src/counters/module.c) under mpirun.

    check_counters.py <output dir> <stderr file> <ranks>

On a machine without hardware counters (this VM): stderr has the message
that they are unavailable exactly once, counters.json says "recorded":
false with perf_event_open's reason, and the scaling table of the run marks
Instruction and IPC Scaling as not recorded. On a machine with them: every
rank has instructions and cycles, useful ones at most the totals. Either
way the program ran to its end and the profile is there."""
import json, os, subprocess, sys

out, err, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
fails = []
def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + (": " + detail if detail else ""))
    if not ok:
        fails.append(what)

text = open(err).read()
c = json.load(open(os.path.join(out, "counters.json")))
check("profile.json written", os.path.exists(os.path.join(out, "profile.json")))
msg = text.count("hardware counters are unavailable")
if c["recorded"]:
    check("no unavailability message", msg == 0, str(msg))
    check("every rank counted", len(c["per_rank"]) == n, str(len(c["per_rank"])))
    for r in c["per_rank"]:
        check("rank %d: instructions and cycles" % r["rank"],
              0 < r["useful_instructions"] <= r["instructions"] and 0 < r["useful_cycles"] <= r["cycles"], json.dumps(r))
else:
    check("said once", msg == 1, "%d times in: %s" % (msg, text[-400:]))
    check("the reason is perf_event_open's", "perf_event_open" in c["reason"], c["reason"])
    check("no per-rank counts", c["per_rank"] == [], "")
    cli = os.path.join(os.environ["MSC_BINARY_DIR"], "bin", "mpiscope")
    t = subprocess.run([cli, "report", "--no-waitstates", out, out], capture_output=True, text=True).stdout
    check("the scaling table marks IPC Scaling", "Instruction and IPC Scaling need hardware counters" in t, t[-300:])
sys.exit(1 if fails else 0)
