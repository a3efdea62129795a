"""Checks mpit.json of tests/mpit/unexpected.c (2 ranks, N messages):
   check_pvars.py <dir> <flavor> flood|flood-sendrecv|flood-late|clean <N> <threshold>
flood: one finding on rank 1 at unexpected.c's FLOOD_RECV line, with
N - threshold receives and the largest length N (Open MPI's queue length is N
at the first receive; MPICH's own measure counts N receives in a row);
flood-late on MPICH: the run counted from the flood's probe_stride-th receive
(the one before found nothing: probes every probe_stride-th, threshold / 4,
1 to 16), so stride - 1 fewer receives and a largest length N - stride + 1; Open
MPI's pml_ob1_unexpected_msgq_length on rank 1 starts at 0, reaches N and is
0 at the end. clean: no finding; rank 1's posted-receive queue (Open MPI)
and mpiscope_pending_requests (both) reach N and end at 0.
With a trace (trace/traces.otf2): the same variables as OTF2 metrics, one
event per sample at a call boundary (not the first, taken in MPI_Init, nor
for mpiscope's own variables the last, taken in MPI_Finalize), with the same
maximum and end on rank 1 (the library's variables end on their last call
boundary sample)."""
import json, os, sys

d, flavor, case, n, threshold = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
doc = json.load(open(os.path.join(d, "mpit.json")))
src = open(os.path.join(os.path.dirname(__file__), "unexpected.c")).read().splitlines()
marker = "FLOOD_SENDRECV" if case == "flood-sendrecv" else "FLOOD_RECV"
line = next(i + 1 for i, l in enumerate(src) if marker in l)
if "next line is" in src[line - 1]:
    line += 1
ok = True


def expect(what, got, want):
    global ok
    if got != want:
        print(f"FAIL {what}: {got!r}, expected {want!r}")
        ok = False
    else:
        print(f"ok {what}: {got!r}")


def var(name, cls):
    for v in doc["pvars"]["variables"]:
        if v["name"] == name and v["class"] == cls:
            return {r["rank"]: r for r in v["per_rank"]}
    return None


sites = doc["unexpected_queue"]["sites"]
expect("measure", doc["unexpected_queue"]["measure"],
       "pml_ob1_unexpected_msgq_length" if flavor == "openmpi"
       else "receives in a row that found their message waiting")
if case.startswith("flood"):
    late = min(16, max(1, threshold // 4)) - 1 if case == "flood-late" and flavor != "openmpi" else 0
    expect("findings", [(s["site"].split(" ")[0], s["rank"], s["count"], s["max_length"]) for s in sites],
           [(f"unexpected.c:{line}", 1, n - threshold - late, n - late)])
    if flavor == "openmpi":
        q = var("pml_ob1_unexpected_msgq_length", "size")
        expect("rank 1 unexpected queue start/max/end", (q[1]["start"], q[1]["max"], q[1]["end"]), (0, n, 0))
        # Rank 0 receives no application message on MPI_COMM_WORLD; what can
        # wait there is Open MPI's own: MPI_Comm_dup(MPI_COMM_WORLD) agrees
        # on the new context id by allreduces over MPI_COMM_WORLD (2 rounds
        # at most), whose message from rank 1 may arrive first under load.
        expect("rank 0 unexpected queue max <= 2", q[0]["max"] <= 2, True)
else:
    expect("findings", sites, [])
    p = var("mpiscope_pending_requests", "level")
    expect("rank 1 pending requests max/end", (p[1]["max"], p[1]["end"]), (n, 0))
    if flavor == "openmpi":
        q = var("pml_ob1_posted_recvq_length", "size")
        expect("rank 1 posted queue max/end", (q[1]["max"], q[1]["end"]), (n, 0))
        expect("rank 1 unexpected queue max", var("pml_ob1_unexpected_msgq_length", "size")[1]["max"], 0)
prof = json.load(open(os.path.join(d, "profile.json")))
expect("profile.json pvars as mpit.json's", prof.get("pvars") == doc["pvars"], True)
import jsonschema  # python3-jsonschema (scripts/install-deps.sh)
schema = json.load(open(os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                                     "profile-schema.json")))
try:
    jsonschema.validate(prof, schema)
    print("ok profile.json valid against docs/profile-schema.json")
except jsonschema.ValidationError as e:
    print(f"FAIL profile.json against the schema: {e.message}")
    ok = False
trace = os.path.join(d, "trace", "traces.otf2")
if os.path.exists(trace):
    import collections
    import otf2
    import otf2.events as E
    metrics = collections.defaultdict(list)
    with otf2.reader.open(trace) as t:
        for loc, e in t.events:
            if isinstance(e, E.Metric):
                metrics[(int(loc._ref) & 0xffffffff, e.metric.members[0].name)].extend(e.values)
    for v in doc["pvars"]["variables"]:
        shared = sum(1 for w in doc["pvars"]["variables"] if w["name"] == v["name"]) > 1
        name = v["name"] + (" (%s)" % v["class"] if shared else "")
        # Not in the trace: the sample taken in MPI_Init, and for mpiscope's
        # own variables the last one, taken in MPI_Finalize.
        own = v["name"].startswith("mpiscope_")
        for r in v["per_rank"]:
            got = metrics.get((r["rank"], name), [])
            expect(f"trace metric {name} rank {r['rank']}: events, max, last",
                   (len(got), max(got) if got else None, got[-1] if got else None),
                   (r["samples"] - (2 if own else 1), r["max"], r["end"]))
samples = {v["name"]: v["per_rank"][0]["samples"] for v in doc["pvars"]["variables"]}
if not samples or min(samples.values()) < n:
    print(f"FAIL samples: {samples} (interval 0: one per MPI call, at least {n})")
    ok = False
sys.exit(0 if ok else 1)
