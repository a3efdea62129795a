#!/usr/bin/env python3
"""Checks profile.json of one test program against exact expected numbers.

    check.py <test> <output-dir> <source-file> <ranks> <report-program>

Every check also validates profile.json against docs/profile-schema.json,
checks that call-site lines are the lines marked "SITE:<name>" in the source,
and that the report program prints profile.txt again from the JSON alone.
"""
import json
import os
import subprocess
import sys

test, out, source, nranks, report = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
schema_path = os.path.join(os.environ.get("MSC_SOURCE_DIR", "."), "docs", "profile-schema.json")
failures = []
text_has = []   # lines profile.txt must contain


def expect(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


def load(name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


def validate(doc, name):
    import jsonschema  # python3-jsonschema (scripts/install-deps.sh)
    with open(schema_path) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        failures.append(f"{name} does not match the schema: {e.message} at {list(e.absolute_path)}")


def fn(doc, name):
    for f in doc["functions"]:
        if f["name"] == name:
            return f
    return None


def hist(f):
    return {h["bin"]: h["count"] for h in f["histogram"]} if f else None


def site_lines():
    lines = {}
    with open(source) as f:
        for i, line in enumerate(f, 1):
            if "SITE:" in line:
                lines[line.split("SITE:")[1].split()[0]] = i
    return lines


def site(doc, function, tag):
    """The call site of `function` at the line marked SITE:tag."""
    line = site_lines()[tag]
    base = os.path.basename(source)
    for s in doc["callsites"]:
        f0 = s["frames"][0]
        if s["function"] == function and f0["line"] == line and os.path.basename(f0["file"]) == base:
            return s
    failures.append(f"no call site of {function} at {base}:{line} (SITE:{tag}); sites: " +
                    ", ".join(f'{s["function"]}@{os.path.basename(s["frames"][0]["file"])}:{s["frames"][0]["line"]}'
                              for s in doc["callsites"]))
    return {}


def pairs(doc, cls):
    return {(p["from"], p["to"]): (p["messages"], p["bytes"]) for p in doc["matrix"]["pairs"] if p["class"] == cls}


doc = load("profile.json")
validate(doc, "profile.json")
expect("schema_version", doc["schema_version"], 1)
expect("ranks", doc["ranks"], nranks)
expect("per_rank entries", len(doc["per_rank"]), nranks)
# MPI time is summed over a rank's threads: with 4 threads in MPI at once
# (threads.c, plus the main thread) it may exceed the wall time 5-fold.
threads = 5 if test == "threads" else 1
for r in doc["per_rank"]:
    if not (0 < r["mpi_ns"] <= threads * r["profiled_ns"] and r["profiled_ns"] <= r["wall_ns"]):
        failures.append(f"rank {r['rank']}: expected 0 < mpi_ns <= {threads} x profiled_ns, profiled_ns <= wall_ns: {r}")

n = nranks
if test == "pingpong":
    per = 1 + 8 + 1000 + 65536
    s, rv = fn(doc, "MPI_Send"), fn(doc, "MPI_Recv")
    expect("MPI_Send calls", s["calls"], 2 * 20 + 2 * 3)
    expect("MPI_Send bytes_sent", s["bytes_sent"], 2 * 5 * per)
    expect("MPI_Recv calls", rv["calls"], 2 * 20 + 2 * 3)
    expect("MPI_Recv bytes_recv", rv["bytes_recv"], 2 * 5 * per)
    expect("MPI_Recv bytes_sent", rv["bytes_sent"], 0)
    expect("MPI_Send histogram", hist(s), {1: 10, 4: 10, 10: 10, 17: 10})
    expect("MPI_Recv histogram", hist(rv), {1: 10, 4: 10, 10: 10, 17: 10})
    expect("MPI_Send ranks", s["ranks"], 2)
    expect("p2p matrix", pairs(doc, "p2p"), {(0, 1): (20, 5 * per), (1, 0): (20, 5 * per)})
    expect("p2p totals", doc["matrix"]["p2p"], {"messages": 40, "bytes": 10 * per})
    for tag, f, calls, sent, recv, rank in [("send0", "MPI_Send", 20, 5 * per, 0, 0),
                                            ("recv0", "MPI_Recv", 20, 0, 5 * per, 0),
                                            ("send1", "MPI_Send", 20, 5 * per, 0, 1),
                                            ("recv1", "MPI_Recv", 20, 0, 5 * per, 1),
                                            ("sendnull", "MPI_Send", 6, 0, 0, None)]:
        x = site(doc, f, tag)
        if x:
            expect(f"site {tag} calls", x["calls"], calls)
            expect(f"site {tag} bytes", (x["bytes_sent"], x["bytes_recv"]), (sent, recv))
            if rank is not None:
                expect(f"site {tag} rank", (x["ranks"], x["rank_time_max_at"]), (1, rank))
            if x["frames"][0]["symbol"] != "main":
                failures.append(f"site {tag}: symbol {x['frames'][0]['symbol']!r}, expected main")
            if doc["callsite_depth"] == 2:
                # main's caller is in the C library (a shared object: resolved there too)
                outer = x["frames"][1] if len(x["frames"]) > 1 else {}
                if "libc" not in os.path.basename(outer.get("module", "")) or not outer.get("symbol"):
                    failures.append(f"site {tag}: second frame {outer!r} is not main's caller in libc")
elif test == "ring":
    irecv, isend = fn(doc, "MPI_Irecv"), fn(doc, "MPI_Isend")
    expect("MPI_Irecv calls", irecv["calls"], 20 * n)
    expect("MPI_Irecv bytes_recv", irecv["bytes_recv"], 10 * n * (40 + 80))
    expect("MPI_Isend bytes_sent", isend["bytes_sent"], 10 * n * (40 + 80))
    expect("MPI_Irecv histogram", hist(irecv), {6: 10 * n, 7: 10 * n})
    expect("MPI_Isend histogram", hist(isend), {6: 10 * n, 7: 10 * n})
    expect("MPI_Waitall calls", fn(doc, "MPI_Waitall")["calls"], 10 * n)
    a, b = site(doc, "MPI_Irecv", "irecv_a"), site(doc, "MPI_Irecv", "irecv_b")
    expect("irecv_a bytes_recv", a.get("bytes_recv"), 400 * n)
    expect("irecv_b bytes_recv (ANY_SOURCE, Testsome)", b.get("bytes_recv"), 800 * n)
    expect("isend_b bytes_sent", site(doc, "MPI_Isend", "isend_b").get("bytes_sent"), 800 * n)
    site(doc, "MPI_Testsome", "testsome")
    expect("p2p matrix", pairs(doc, "p2p"), {(r, (r + 1) % n): (20, 1200) for r in range(n)})
elif test == "persistent":
    ri, si = fn(doc, "MPI_Recv_init"), fn(doc, "MPI_Send_init")
    expect("MPI_Recv_init calls", ri["calls"], n)
    expect("MPI_Recv_init bytes_recv", ri["bytes_recv"], 12 * 100 * n)
    expect("MPI_Send_init bytes_sent", si["bytes_sent"], 12 * 100 * n)
    expect("MPI_Recv_init histogram", hist(ri), {7: 12 * n})
    expect("MPI_Startall calls", fn(doc, "MPI_Startall")["calls"], 8 * n)
    expect("MPI_Wait calls", fn(doc, "MPI_Wait")["calls"], 8 * n)
    expect("recv_init site bytes", site(doc, "MPI_Recv_init", "recv_init").get("bytes_recv"), 1200 * n)
    expect("send_init site bytes", site(doc, "MPI_Send_init", "send_init").get("bytes_sent"), 1200 * n)
    expect("p2p matrix", pairs(doc, "p2p"), {(r, (r + 1) % n): (12, 1200) for r in range(n)})
elif test == "split":
    colors = 2 if n >= 4 else 1
    groups = [[w for w in range(n) if w % colors == c] for c in range(colors)]
    coll, p2p = {}, {}
    for g in groups:
        local = sorted(g, reverse=True)  # key = -rank: local rank 0 is the highest world rank
        for i in local:
            for j in local:
                if i == j:
                    continue
                m, b = 2, 16 + 8  # Allreduce 4 ints, Alltoall 2 ints to each peer
                if i == local[0]:
                    m, b = m + 1, b + 64  # Bcast of 8 doubles from local rank 0
                coll[(i, j)] = (m, b)
        if len(local) > 1:
            p2p[(local[0], local[1])] = (1, 16)
    expect("collective matrix", pairs(doc, "collective"), coll)
    expect("p2p matrix", pairs(doc, "p2p"), p2p)
    ar = fn(doc, "MPI_Allreduce")
    expect("MPI_Allreduce calls/bytes", (ar["calls"], ar["bytes_sent"], ar["bytes_recv"]), (n, 16 * n, 16 * n))
    bc = fn(doc, "MPI_Bcast")
    expect("MPI_Bcast bytes", (bc["bytes_sent"], bc["bytes_recv"]), (64 * colors, 64 * (n - colors)))
    expect("allreduce site calls", site(doc, "MPI_Allreduce", "allreduce").get("calls"), n)
    site(doc, "MPI_Alltoall", "alltoall")
elif test == "pcontrol":
    expect("MPI_Barrier calls", fn(doc, "MPI_Barrier")["calls"], 7 * n)
    expect("MPI_Send recorded", fn(doc, "MPI_Send"), None)
    expect("MPI_Recv recorded", fn(doc, "MPI_Recv"), None)
    expect("barrier site calls", site(doc, "MPI_Barrier", "barrier").get("calls"), 3 * n)
    expect("barrier2 site calls", site(doc, "MPI_Barrier", "barrier2").get("calls"), 4 * n)
    for r in doc["per_rank"]:
        if not r["profiled_ns"] < r["wall_ns"]:
            failures.append(f"rank {r['rank']}: the Pcontrol(0) region is not excluded from profiled time")
    for r in range(n):
        name = f"profile.rank{r}.flush0.json"
        try:
            flush = load(name)
        except OSError as e:
            failures.append(f"{name}: {e}")
            continue
        validate(flush, name)
        expect(f"{name} scope", flush["scope"], "rank-flush")
        expect(f"{name} MPI_Barrier calls", fn(flush, "MPI_Barrier")["calls"], 3)
        if not os.path.exists(os.path.join(out, f"profile.rank{r}.flush0.txt")):
            failures.append(f"profile.rank{r}.flush0.txt missing")
elif test == "sites":
    # MPISCOPE_PROFILE_SITES=16: 20 sites per rank, 3 passes (sites.c).
    b = fn(doc, "MPI_Barrier")
    expect("MPI_Barrier calls (function rows count every call)", b["calls"], 60 * n)
    expect("dropped.callsite_calls", doc["dropped"]["callsite_calls"], 12 * n)
    expect("dropped.callsites_merged", doc["dropped"]["callsites_merged"], 16 * (n - 1))
    expect("call sites kept", len(doc["callsites"]), 16)
    expect("calls at the kept sites", sum(x["calls"] for x in doc["callsites"]), 48)
    text_has.append(f"  {12 * n} calls without a call site: a thread's table was full (MPISCOPE_PROFILE_SITES)")
    if n > 1:
        text_has.append(f"  {16 * (n - 1)} call sites left out of the merged report (MPISCOPE_PROFILE_SITES)")
elif test == "matrix-ranks":
    # MPISCOPE_PROFILE_MATRIX_RANKS below the world size: no matrix at all.
    limit = int(os.environ["MPISCOPE_PROFILE_MATRIX_RANKS"])
    expect("matrix.recorded", doc["matrix"]["recorded"], False)
    expect("matrix.ranks_limit", doc["matrix"]["ranks_limit"], limit)
    expect("matrix pairs", doc["matrix"]["pairs"], [])
    expect("MPI_Send calls", fn(doc, "MPI_Send")["calls"], n * (n - 1))
    text_has.append(f"  not recorded: more than {limit} ranks (MPISCOPE_PROFILE_MATRIX_RANKS)")
elif test == "matrix-pairs":
    # MPISCOPE_PROFILE_MATRIX_PAIRS=16 with 4 ranks: 12 p2p pairs (all heavier)
    # and 12 collective pairs of 4 bytes; the 8 collective pairs last in
    # (from, to) order are left out.
    p2p_want = {(i, j): (1, 1000 * (4 * i + j + 1)) for i in range(n) for j in range(n) if i != j}
    coll_all = sorted((i, j) for i in range(n) for j in range(n) if i != j)
    keep = 16 - len(p2p_want)
    expect("p2p matrix", pairs(doc, "p2p"), p2p_want)
    expect("collective matrix", pairs(doc, "collective"), {k: (1, 4) for k in coll_all[:keep]})
    omitted = len(coll_all) - keep
    expect("matrix.omitted", doc["matrix"]["omitted"], {"pairs": omitted, "messages": omitted, "bytes": 4 * omitted})
    expect("matrix.pairs_limit", doc["matrix"]["pairs_limit"], 16)
    text_has.append(f"  {omitted} lighter pairs left out (MPISCOPE_PROFILE_MATRIX_PAIRS): {omitted} messages, {4 * omitted} bytes")
elif test == "requests":
    # MPISCOPE_MAX_REQUESTS=64: 100 pending Irecvs per rank, then 50 (requests.c).
    irecv = fn(doc, "MPI_Irecv")
    expect("MPI_Irecv calls", irecv["calls"], 150 * n)
    expect("MPI_Irecv bytes_recv (tracked requests only)", irecv["bytes_recv"], (64 + 50) * 8 * n)
    expect("MPI_Send bytes_sent", fn(doc, "MPI_Send")["bytes_sent"], 150 * 8 * n)
    expect("dropped.requests", doc["dropped"]["requests"], 36 * n)
    expect("irecv site calls", site(doc, "MPI_Irecv", "irecv").get("calls"), 150 * n)
    text_has.append(f"  {36 * n} requests not tracked: their received bytes are unknown (MPISCOPE_MAX_REQUESTS)")
elif test == "perrank":
    rows = {x["rank"]: {f["name"]: f for f in x["functions"]} for x in doc.get("per_rank_functions", [])}
    expect("per_rank_functions ranks", sorted(rows), list(range(n)))
    for r in range(n):
        prev = (r + n - 1) % n
        got = rows.get(r, {})
        s_, r_ = got.get("MPI_Send", {}), got.get("MPI_Recv", {})
        expect(f"rank {r} MPI_Send calls/bytes", (s_.get("calls"), s_.get("bytes_sent")),
               (r + 1, (r + 1) * 100 * (r + 1)))
        expect(f"rank {r} MPI_Recv calls/bytes", (r_.get("calls"), r_.get("bytes_recv")),
               (prev + 1, (prev + 1) * 100 * (prev + 1)))
        if s_.get("time_ns", 0) <= 0:
            failures.append(f"rank {r}: MPI_Send time_ns {s_.get('time_ns')!r}, expected > 0")
    total = sum(r + 1 for r in range(n))
    expect("MPI_Send calls (all ranks)", fn(doc, "MPI_Send")["calls"], total)
elif test == "threads":
    calls = sum(25 + t for t in range(4))
    byts = sum((25 + t) * 8 * (t + 1) for t in range(4))
    sr = fn(doc, "MPI_Sendrecv")
    expect("MPI_Sendrecv calls", sr["calls"], calls * n)
    expect("MPI_Sendrecv bytes", (sr["bytes_sent"], sr["bytes_recv"]), (byts * n, byts * n))
    expect("MPI_Sendrecv histogram", hist(sr), {4: 25 * n, 5: (26 + 27) * n, 6: 28 * n})
    expect("sendrecv site calls", site(doc, "MPI_Sendrecv", "sendrecv").get("calls"), calls * n)
    expect("MPI_Comm_dup calls", fn(doc, "MPI_Comm_dup")["calls"], 4 * n)
    expect("p2p matrix", pairs(doc, "p2p"), {(r, (r + 1) % n): (calls, byts) for r in range(n)})
else:
    failures.append(f"unknown test {test}")

# The report program prints profile.txt again from profile.json alone.
with open(os.path.join(out, "profile.txt")) as f:
    text = f.read()
for line in text_has:
    if line + "\n" not in text:
        failures.append(f"profile.txt lacks the line {line!r}")
again = subprocess.run([report, out], capture_output=True, text=True)
expect("report exit code", again.returncode, 0)
if again.stdout != text:
    failures.append("`report DIR` differs from profile.txt")
limited = subprocess.run([report, "--sort", "calls", "--limit", "1", out], capture_output=True, text=True)
expect("report --sort calls --limit 1 exit code", limited.returncode, 0)
if "more\n" not in limited.stdout:
    failures.append("report --limit 1 did not limit the rows")

if failures:
    print(f"profile check {test}: {len(failures)} failure(s)")
    for f in failures:
        print("  " + f)
    sys.exit(1)
print(f"profile check {test}: ok")
