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
expect("per_rank order", [r["rank"] for r in doc["per_rank"]], list(range(nranks)))
# MPI time is summed over a rank's threads: with 4 threads in MPI at once
# (threads.c, plus the main thread) it may exceed the wall time 5-fold.
threads = 5 if test == "threads" else 1
for r in doc["per_rank"]:
    if not (0 < r["mpi_ns"] <= threads * r["profiled_ns"] and r["profiled_ns"] <= r["wall_ns"]):
        failures.append(f"rank {r['rank']}: expected 0 < mpi_ns <= {threads} x profiled_ns, profiled_ns <= wall_ns: {r}")

n = nranks


def check_run(doc):
    """The run's metadata (docs/profile.md, Run metadata)."""
    import datetime
    import re
    import socket
    run = doc.get("run", {})
    exe = run.get("executable", "")
    if not (os.path.isabs(exe) and os.path.exists(exe)):
        failures.append(f"run.executable {exe!r} is not an existing absolute path")
    expect("program (the executable's whole name)", doc["program"], os.path.basename(exe))
    args = run.get("args", [])
    words = [exe] + [a if a and not re.search(r"[\s'\"\\$`*?\[\]{}()<>|&;]", a) else "'" + a.replace("'", "'\\''") + "'" for a in args]
    expect("run.command", run.get("command"), " ".join(words))
    want_args = os.environ.get("MSC_TEST_ARGS")
    if want_args is not None:
        expect("run.args", args, want_args.split("|"))
    host = socket.gethostname()
    expect("run.hosts", run.get("hosts"), [{"name": host, "ranks": f"0-{n - 1}" if n > 1 else "0", "count": n}])
    expect("per_rank hosts", [r.get("host") for r in doc["per_rank"]], [host] * n)
    defaults = {}
    with open(os.path.join(os.environ.get("MSC_SOURCE_DIR", "."), "src", "core", "settings.def")) as f:
        text = f.read()
    for m in re.finditer(r'MSC_SETTING\(\w+,\s*"(\w+)",\s*\w+,[^"]*?(?:"[^"]*"|NULL),\s*"([^"]*)"', text):
        defaults[m.group(1)] = m.group(2)
    want = {k: v for k, v in os.environ.items() if k.startswith("MPISCOPE_") and defaults.get(k) != v}
    expect("run.settings (the non-default ones)", run.get("settings"), want)
    lib, ver = run.get("mpi_library", ""), run.get("mpi_version")
    if doc["mpi"] == "openmpi":
        ok = lib.startswith("Open MPI v4.") and ver == "3.1"
    else:
        ok = lib.startswith("MPICH Version: 4.") and ver == "4.0"
    if not ok:
        failures.append(f"run.mpi_library/mpi_version {lib!r} {ver!r} do not name {doc['mpi']}")
    with open(os.path.join(os.environ.get("MSC_SOURCE_DIR", "."), "CMakeLists.txt")) as f:
        version = re.search(r"project\(mpiscope VERSION ([0-9.]+)", f.read()).group(1)
    expect("run.mpiscope_version", run.get("mpiscope_version"), version)
    expect("run.duration_ns", run.get("duration_ns"), doc["summary"]["wall_ns_max"])
    try:
        t = datetime.datetime.strptime(run.get("start_time", ""), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        failures.append(f"run.start_time {run.get('start_time')!r} is not an ISO 8601 UTC time")
        return
    ns = run.get("start_unix_ns", 0)
    if abs(t.timestamp() - ns / 1e9) > 0.001:
        failures.append(f"run.start_time {t} and start_unix_ns {ns} differ")
    written = os.path.getmtime(os.path.join(out, "profile.json"))
    if not written - 600 <= ns / 1e9 <= written:
        failures.append(f"run.start_unix_ns {ns} is not within the 10 minutes before profile.json was written ({written})")


def rank_rows(text):
    """The rows of profile.txt's per-rank table: (label, rank, host)."""
    rows, on = [], False
    for line in text.splitlines():
        if line.startswith("Per rank ("):
            on = True
            continue
        if on and not line.strip():
            break
        if on and line.split() and line.split()[0] != "rank":
            w = line.split()
            rows.append((w[0], int(w[1]), w[2]) if not w[0].isdigit() else ("", int(w[0]), w[1]))
    return rows


if test not in ("sites", "matrix-ranks", "matrix-pairs", "requests", "perrank", "threads"):
    check_run(doc)
budget_files = int(os.environ.get("MPISCOPE_PROFILE_FILES", "256"))
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
elif test == "icoll":
    # icoll.c: nonblocking, persistent (MPI-4: MPICH) and neighbourhood
    # collectives, counted like the blocking forms when posted (started).
    persistent = doc["mpi"] == "mpich"
    left, right = (lambda r: (r - 1) % n), (lambda r: (r + 1) % n)
    line_nb = lambda r: [x for x in (r - 1, r + 1) if 0 <= x < n]
    root_g = 1 % n
    want = {  # function: (bytes_sent, bytes_recv, histogram)
        "MPI_Ibcast": (800, 800 * (n - 1), {10: n}),
        "MPI_Iallreduce": (40 * n, 40 * n, {6: n}),
        "MPI_Ialltoall": (12 * n * n, 12 * n * n, {(12 * n).bit_length(): n}),
        "MPI_Igatherv": (4 * n * (n + 1) // 2, 4 * n * (n + 1) // 2, None),
        "MPI_Neighbor_allgather": (16 * n, 16 * n, {5: n}),
        "MPI_Neighbor_alltoallv": (sum(8 * (r + 1) for r in range(n)),
                                   sum(4 * (left(r) + 1 + right(r) + 1) for r in range(n)), None),
        "MPI_Neighbor_alltoall": (sum(4 * len(line_nb(r)) for r in range(n)),
                                  sum(4 * len(line_nb(r)) for r in range(n)), None),
        "MPI_Ineighbor_allgather": (24 * n, 24 * n, {5: n}),
    }
    if persistent:
        want["MPI_Allreduce_init"] = (3 * 128 * n, 3 * 128 * n, {8: 3 * n})
        want["MPI_Bcast_init"] = (2 * 20, 2 * 20 * (n - 1), {5: 2 * n})
        want["MPI_Neighbor_allgather_init"] = (4 * n, 4 * n, {3: n})
    hg = {}
    for r in range(n):
        b = (4 * (r + 1)).bit_length()
        hg[b] = hg.get(b, 0) + 1
    want["MPI_Igatherv"] = want["MPI_Igatherv"][:2] + (hg,)
    for name, (sent, recv, h) in want.items():
        f = fn(doc, name)
        if not f:
            failures.append(f"{name}: not in the profile")
            continue
        expect(f"{name} bytes", (f["bytes_sent"], f["bytes_recv"]), (sent, recv))
        if h is not None:
            expect(f"{name} histogram", hist(f), h)
    if not persistent:
        expect("MPI_Allreduce_init recorded (MPI-3 library)", fn(doc, "MPI_Allreduce_init"), None)
    # Call sites: a persistent collective's bytes go to its MPI_*_init line.
    for tag, name, sent in [("ibcast", "MPI_Ibcast", 800), ("ialltoall", "MPI_Ialltoall", 12 * n * n),
                            ("nallgather", "MPI_Neighbor_allgather", 16 * n),
                            ("inallgather", "MPI_Ineighbor_allgather", 24 * n)] + \
                           ([("allreduce_init", "MPI_Allreduce_init", 3 * 128 * n),
                             ("nallgather_init", "MPI_Neighbor_allgather_init", 4 * n)] if persistent else []):
        expect(f"site {tag} bytes_sent", site(doc, name, tag).get("bytes_sent"), sent)
    coll = {}

    def add(i, j, m, b):
        x = coll.get((i, j), (0, 0))
        coll[(i, j)] = (x[0] + m, x[1] + b)
    for i in range(n):
        for j in range(n):
            if i != j:
                add(i, j, 1, 40)          # Iallreduce
                add(i, j, 1, 12)          # Ialltoall
                if i == 0:
                    add(i, j, 1, 800)     # Ibcast from 0
                if j == root_g:
                    add(i, j, 1, 4 * (i + 1))  # Igatherv to 1 % n
                if persistent:
                    add(i, j, 3, 3 * 128)  # Allreduce_init, 3 starts
                    if i == n - 1:
                        add(i, j, 2, 2 * 20)  # Bcast_init from n-1, 2 starts
        for j in (left(i), right(i)):
            add(i, j, 1, 8)               # Neighbor_allgather on the ring
            add(i, j, 1, 4 * (i + 1))     # Neighbor_alltoallv
        for j in line_nb(i):
            add(i, j, 1, 4)               # Neighbor_alltoall on the line
        add(i, right(i), 1, 24)           # Ineighbor_allgather on the graph
        if persistent:
            add(i, right(i), 1, 4)        # Neighbor_allgather_init
    expect("collective matrix", pairs(doc, "collective"), coll)
elif test == "io":
    # io.c: what each MPI-IO call read or wrote, per function and call site
    # (written bytes count as sent, read bytes as received).
    big, mid, small, split, own = 65536, 1000, 300, 500, 4096
    want = {"MPI_File_write_at_all": (big, 0, 1), "MPI_File_write_at": (mid, 0, 1),
            "MPI_File_iwrite_at": (small, 0, 1), "MPI_File_write_all_end": (split, 0, 1),
            "MPI_File_read_at_all": (0, big, 1), "MPI_File_read_at": (0, mid, 1),
            "MPI_File_iread_at": (0, small, 1), "MPI_File_read_all_end": (0, split, 1),
            "MPI_File_write": (own, 0, 2), "MPI_File_read": (0, own, 1)}
    for name, (w, rd, calls) in want.items():
        f = fn(doc, name)
        if not f:
            failures.append(f"{name}: not in the profile")
            continue
        expect(f"{name} calls", f["calls"], calls * n)
        expect(f"{name} bytes", (f["bytes_sent"], f["bytes_recv"]), (w * calls * n, rd * calls * n))
        expect(f"{name} histogram", hist(f), {(w or rd).bit_length(): calls * n})
    for name in ("MPI_File_write_all_begin", "MPI_File_read_all_begin", "MPI_File_seek"):
        f = fn(doc, name) or {}
        expect(f"{name} bytes", (f.get("bytes_sent"), f.get("bytes_recv")), (0, 0))
    for tag, name, w, rd in [("write_at_all", "MPI_File_write_at_all", big, 0),
                             ("iwrite_at", "MPI_File_iwrite_at", small, 0),
                             ("write_all_end", "MPI_File_write_all_end", split, 0),
                             ("read_at", "MPI_File_read_at", 0, mid),
                             ("iread_at", "MPI_File_iread_at", 0, small),
                             ("read_all_end", "MPI_File_read_all_end", 0, split),
                             ("write", "MPI_File_write", own, 0), ("write2", "MPI_File_write", own, 0),
                             ("read", "MPI_File_read", 0, own)]:
        x = site(doc, name, tag)
        expect(f"site {tag} calls/bytes", (x.get("calls"), x.get("bytes_sent"), x.get("bytes_recv")),
               (n, w * n, rd * n))
    # The I/O section: the shared file and one file per rank.
    io = doc.get("io", {})
    files = {f["name"]: f for f in io.get("files", [])}
    shared_bytes = n * (big + mid + small + split)
    shared = files.get(os.path.join(out, "io-shared.dat"), {})
    per_rank_io = {r["rank"]: r.get("io_ns", -1) for r in doc["per_rank"]}

    def check_file(what, f, ranks, opens, reads, writes, br, bw, rsizes, wsizes):
        got = (f.get("ranks"), f.get("opens"), (f.get("reads_independent"), f.get("reads_collective")),
               (f.get("writes_independent"), f.get("writes_collective")), f.get("bytes_read"),
               f.get("bytes_written"))
        expect(f"{what}: ranks, opens, reads, writes, bytes", got, (ranks, opens, reads, writes, br, bw))
        expect(f"{what}: read sizes", {h["bin"]: h["count"] for h in f.get("read_sizes", [])}, rsizes)
        expect(f"{what}: write sizes", {h["bin"]: h["count"] for h in f.get("write_sizes", [])}, wsizes)
        if f.get("time_ns") != f.get("read_time_ns", 0) + f.get("write_time_ns", 0) + f.get("meta_time_ns", 0):
            failures.append(f"{what}: time_ns is not read + write + meta time: {f}")
        if not f.get("read_time_ns") or not f.get("write_time_ns") or not f.get("meta_time_ns"):
            failures.append(f"{what}: a read, write or meta time of 0: {f}")
        if f.get("read_time_rank_max_ns", 0) > f.get("read_time_ns", 0) or \
           f.get("rank_time_max_ns", 0) > f.get("time_ns", 0):
            failures.append(f"{what}: a rank's time exceeds the total: {f}")
        want_bw = f.get("bytes_read", 0) * 1e9 / f["read_time_rank_max_ns"] if f.get("read_time_rank_max_ns") else 0
        if abs(f.get("read_bandwidth_Bps", -1) - want_bw) > 1:
            failures.append(f"{what}: read bandwidth {f.get('read_bandwidth_Bps')} is not bytes / slowest rank's read time ({want_bw})")

    sizes = {9: 2 * n, 10: n, 17: n}  # 300 and 500, 1000, 65536 bytes
    own_files = {r: os.path.join(out, f"io-rank{r}.dat") for r in range(n)}
    if budget_files == 1:
        # Each rank keeps its first file (the shared one); its own file goes to other_files.
        expect("io.files", sorted(files), [os.path.join(out, "io-shared.dat")])
        expect("io.files_dropped", io.get("files_dropped"), n)
        expect("io.files_merged", io.get("files_merged"), 0)
        check_file("other_files", io.get("other_files", {}), n, n, (n, 0), (2 * n, 0), own * n, 2 * own * n,
                   {13: n}, {13: 2 * n})
        text_has.append(f"  other files: {n} open(s) beyond a rank's budget, 0 file record(s) beyond the merged budget (MPISCOPE_PROFILE_FILES)")
    else:
        expect("io.files", sorted(files), sorted([os.path.join(out, "io-shared.dat")] + list(own_files.values())))
        expect("io.other_files", io.get("other_files"), None)
        expect("io.files_dropped/merged", (io.get("files_dropped"), io.get("files_merged")), (0, 0))
        for r, name in own_files.items():
            f = files.get(name, {})
            check_file(f"io-rank{r}.dat", f, 1, 1, (1, 0), (2, 0), own, 2 * own, {13: 1}, {13: 2})
            expect(f"io-rank{r}.dat rank", (f.get("rank_time_min_at"), f.get("rank_time_max_at")), (r, r))
    check_file("io-shared.dat", shared, n, n, (2 * n, 2 * n), (2 * n, 2 * n), shared_bytes, shared_bytes,
               sizes, sizes)
    expect("io bytes", (io.get("bytes_read"), io.get("bytes_written")),
           (shared_bytes + n * own, shared_bytes + 2 * n * own))
    expect("io.ranks_with_io", io.get("ranks_with_io"), n)
    expect("io.time_ns (the per-rank I/O times summed)", io.get("time_ns"), sum(per_rank_io.values()))
    all_files = list(files.values()) + ([io["other_files"]] if io.get("other_files") else [])
    expect("io.time_ns (the files' times summed)", io.get("time_ns"), sum(f["time_ns"] for f in all_files))
    mx = max(per_rank_io.values())
    expect("io.rank_time_max", (io.get("rank_time_max_ns"), io.get("rank_time_max_at")),
           (mx, min(r for r, t in per_rank_io.items() if t == mx)))
    mean = sum(per_rank_io.values()) / n
    if abs(io.get("imbalance_pct", -1) - 100 * (mx - mean) / mx) > 0.01:
        failures.append(f"io.imbalance_pct {io.get('imbalance_pct')} is not 100 x (max - mean) / max of the ranks' I/O time")
    for r in doc["per_rank"]:
        if not 0 < r.get("io_ns", 0) <= r["mpi_ns"]:
            failures.append(f"rank {r['rank']}: io_ns {r.get('io_ns')} is not in (0, mpi_ns {r['mpi_ns']}]")
    text_has.append(f"I/O (MPI-IO): {len(files)} file(s), {n} of {n} rank(s) did I/O")
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
# The per-rank table: every rank in profile.txt (n <= 20); with --limit 1,
# folded to the ranks of least, lower median and most MPI time.
import socket
expect("per-rank table of profile.txt", rank_rows(text), [("", r, socket.gethostname()) for r in range(n)])
by_mpi = sorted(doc["per_rank"], key=lambda r: (r["mpi_ns"], r["rank"]))
folded = [("min", by_mpi[0]["rank"]), ("median", by_mpi[(n - 1) // 2]["rank"]), ("max", by_mpi[-1]["rank"])]
if n > 1:
    expect("per-rank table folded (--limit 1)", [(a, b) for a, b, _ in rank_rows(limited.stdout)], folded)

if failures:
    print(f"profile check {test}: {len(failures)} failure(s)")
    for f in failures:
        print("  " + f)
    sys.exit(1)
print(f"profile check {test}: ok")
