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
for r in doc["per_rank"]:
    if not (0 < r["mpi_ns"] <= r["profiled_ns"] <= r["wall_ns"]):
        failures.append(f"rank {r['rank']}: expected 0 < mpi_ns <= profiled_ns <= wall_ns: {r}")

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
else:
    failures.append(f"unknown test {test}")

# The report program prints profile.txt again from profile.json alone.
with open(os.path.join(out, "profile.txt")) as f:
    text = f.read()
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
