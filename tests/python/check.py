"""Checks of the Python package and the folded export (tests/python/tests.cmake).

    check.py load|hatchet|thicket OUT          (the virtual environment's python)
    check.py folded OUT MPISCOPE               (any python 3, otf2-print)
    check.py flame OUT MPISCOPE                (any python 3, headless Chromium)
    check.py version OUT MPISCOPE VERSION

OUT holds runs.sh's two runs of nested.c at call-site depth 3: a (2 ranks,
traced, reported) and b (1 rank), and c, tests/check/neg_count.c checked. Every number is compared with the JSON
files the run wrote, exactly; the call paths with those nested.c makes.
"""

import json
import os
import subprocess
import sys

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def check(cond, msg):
    if not cond:
        fail(msg)


def read(path):
    with open(path) as f:
        return json.load(f)


# The call paths nested.c makes at depth 3, and their calls per rank: the
# halo's stack (main, solve, exchange, halo) is one frame too deep; the lines
# of the two MPI_Sendrecv calls are each reached on two paths.
EXPECTED_PATHS = {
    "main;solve;exchange;MPI_Sendrecv": 4,
    "[cut at depth 3];solve;exchange;halo;MPI_Sendrecv": 4,
    "main;solve;MPI_Allreduce": 4,
    "main;MPI_Barrier": 1,
    "main;exchange;MPI_Sendrecv": 1,
    "main;exchange;halo;MPI_Sendrecv": 1,
}


def expected_folded(profile):
    """The folded stacks, worked out here independently of the package and
    of the C export: frames outermost first from main (or under
    "[cut at depth N]" when a stack of N frames has no main), the MPI
    function last, MPI time summed per path in microseconds, rounded."""
    depth = profile["callsite_depth"]
    ns = {}
    for s in profile["callsites"]:
        syms = [f["symbol"] for f in s["frames"]]
        if "main" in syms:
            syms = syms[:len(syms) - syms[::-1].index("main")]
            head = []
        else:
            head = ["[cut at depth %d]" % depth] if len(syms) >= depth else []
        key = ";".join(head + syms[::-1] + [s["function"]])
        ns[key] = ns.get(key, 0) + s["time_ns"]
    return {k: (v + 500) // 1000 for k, v in ns.items() if (v + 500) // 1000 > 0}


def path_calls(profile):
    calls = {}
    for s in profile["callsites"]:
        syms = [f["symbol"] for f in s["frames"]]
        if "main" in syms:
            syms = syms[:len(syms) - syms[::-1].index("main")]
            head = []
        else:
            head = ["[cut at depth %d]" % profile["callsite_depth"]]
        key = ";".join(head + syms[::-1] + [s["function"]])
        calls[key] = calls.get(key, 0) + s["calls"]
    return calls


def runs(out):
    return [os.path.join(out, "a"), os.path.join(out, "b")]


def check_paths(profile, ranks, what):
    got = path_calls(profile)
    for p, n in EXPECTED_PATHS.items():
        check(got.get(p) == n * ranks, "%s: path %s: %s calls, expected %d" % (what, p, got.get(p), n * ranks))


def rows_equal(df, rows, key, what, skip=()):
    """Each JSON row is the DataFrame's row with the same key, field for field."""
    check(len(df) == len(rows), "%s: %d rows, profile has %d" % (what, len(df), len(rows)))
    idx = {tuple(r[k] for k in key): r for r in df.to_dict("records")}
    for j in rows:
        k = tuple(j[c] for c in key)
        r = idx.get(k)
        if r is None:
            fail("%s: no row %s" % (what, k))
            continue
        for c, v in j.items():
            if c in skip or isinstance(v, (list, dict)):
                continue
            if r.get(c) != v and not (v is None and r.get(c) != r.get(c)):
                fail("%s %s: %s = %r, file has %r" % (what, k, c, r.get(c), v))


def cmd_load(out):
    import mpiscope

    a_dir, b_dir = runs(out)
    a = mpiscope.load(a_dir)
    p = read(os.path.join(a_dir, "profile.json"))
    check(a.ranks == 2 and a.callsite_depth == 3, "run a: ranks %s depth %s" % (a.ranks, a.callsite_depth))
    check_paths(p, 2, "profile.json a")
    rows_equal(a.functions, p["functions"], ["name"], "functions")
    rows_equal(a.per_rank, p["per_rank"], ["rank"], "per_rank")
    for r in a.per_rank.to_dict("records"):
        check(r["app_ns"] == r["profiled_ns"] - r["mpi_ns"], "per_rank app_ns")
    check(len(a.callsites) == len(p["callsites"]), "callsites: %d rows" % len(a.callsites))
    for (_, r), s in zip(a.callsites.iterrows(), p["callsites"]):
        for c in ("function", "calls", "time_ns", "time_min_ns", "time_max_ns", "bytes_sent", "bytes_recv",
                  "ranks", "rank_time_min_ns", "rank_time_max_ns", "rank_time_mean_ns"):
            check(r[c] == s[c], "callsites %s: %s = %r, file has %r" % (r["path"], c, r[c], s[c]))
        check(r["line"] == s["frames"][0]["line"] and r["file"] == s["frames"][0]["file"],
              "callsites %s: innermost frame" % r["path"])
        check(r["depth"] == len(s["frames"]), "callsites %s: depth" % r["path"])
    got = a.callsites.groupby("path")["calls"].sum().to_dict()
    for path, n in EXPECTED_PATHS.items():
        check(got.get(path) == 2 * n, "callsites: path %s has %s calls, expected %d" % (path, got.get(path), 2 * n))
    cut = a.callsites.loc[a.callsites["cut"], "path"].tolist()
    check(cut == ["[cut at depth 3];solve;exchange;halo;MPI_Sendrecv"], "cut stacks: %s" % cut)
    hist = [dict(h, function=f["name"]) for f in p["functions"] for h in f["histogram"]]
    rows_equal(a.message_sizes, hist, ["function", "bin"], "message_sizes")
    sr = a.message_sizes[a.message_sizes["function"] == "MPI_Sendrecv"]
    check(sr[["bin", "lo", "hi", "count"]].values.tolist() == [[4, 8, 15, 20]],
          "message_sizes: MPI_Sendrecv %s (20 calls of 8 bytes)" % sr.values.tolist())
    rows_equal(a.matrix, p["matrix"]["pairs"], ["from", "to", "class"], "matrix")
    p2p = a.matrix[(a.matrix["class"] == "p2p")]
    check(sorted(p2p[["from", "to", "messages", "bytes"]].values.tolist()) == [[0, 1, 10, 80], [1, 0, 10, 80]],
          "matrix p2p: %s" % p2p.values.tolist())
    check(list(a.io.columns[:3]) == ["name", "ranks", "opens"] and len(a.io) == len(p["io"]["files"]), "io")
    m = read(os.path.join(a_dir, "mpit.json")) if a.has("mpit") else {"pvars": p.get("pvars", {})}
    mrows = [dict(r, name=v["name"]) for v in m["pvars"].get("variables", []) for r in v["per_rank"]]
    rows_equal(a.mpit, mrows, ["name", "rank"], "mpit")
    check(len(a.findings) == 0 and "class" in a.findings.columns, "findings: a clean run has none")
    c = mpiscope.load(os.path.join(out, "c"))
    cj = read(os.path.join(out, "c", "checks.json"))
    frows = [dict({k: v for k, v in f.items() if k != "sites"}, **s) for f in cj["findings"] for s in f["sites"]]
    rows_equal(c.findings, frows, ["class", "rank"], "findings")
    got = sorted(c.findings[["class", "rank", "call", "line"]].values.tolist())
    check(got == [["LOCAL:ARG:NEGATIVE_COUNT", 0, "MPI_Send", 10], ["LOCAL:CALL:FAILED", 0, "MPI_Send", 10]],
          "findings of neg_count.c: %s" % got)
    ws = read(os.path.join(a_dir, "waitstates.json"))
    rows_equal(a.waitstates, ws["callsites"], ["site"], "waitstates")
    rows_equal(a.waitstate_patterns, ws["patterns"], ["id"], "waitstate_patterns", skip=("part_of",))
    rows_equal(a.waitstates_per_rank, ws["per_rank"], ["rank"], "waitstates_per_rank")
    pop = {(r["source"], r["metric"]): r["value"] for r in a.pop.to_dict("records")}
    for src, d in (("profile", p.get("pop", {})), ("trace", ws.get("pop", {}))):
        check(len(d) > 0, "pop: %s has none" % src)
        for k, v in d.items():
            if isinstance(v, (int, float)):
                check(pop.get((src, k)) == v, "pop %s %s: %r, file has %r" % (src, k, pop.get((src, k)), v))
    cp = ws.get("critical_path", {})
    check(len(cp) > 0, "waitstates.json has no critical path")
    rows_equal(a.critical_path, cp.get("sites", []), ["site", "kind"], "critical_path")
    for k, v in a.critical_path_info.items():
        check(cp[k] == v, "critical_path_info %s" % k)
    check(len(ws["delay"]["patterns"]) > 0, "waitstates.json has no delay analysis")
    rows_equal(a.delay_patterns, ws["delay"]["patterns"], ["id"], "delay_patterns")
    rows_equal(a.delay, ws["delay"]["causes"], ["pattern", "rank", "site"], "delay")
    # Two runs.
    many = mpiscope.load_many([a_dir, b_dir])
    pb = read(os.path.join(b_dir, "profile.json"))
    check(many.metadata["ranks"].tolist() == [2, 1], "load_many metadata ranks")
    f = many.functions
    check(len(f) == len(p["functions"]) + len(pb["functions"]), "load_many functions rows")
    for i, prof in enumerate((p, pb)):
        for fn in prof["functions"]:
            got = f[(f["run"] == i) & (f["name"] == fn["name"])]["time_ns"].tolist()
            check(got == [fn["time_ns"]], "load_many run %d %s: %s" % (i, fn["name"], got))
    check_paths(pb, 1, "profile.json b")
    for t in a.tables():
        check(len(getattr(many, t)) == len(getattr(a, t)) + len(getattr(mpiscope.load(b_dir), t)),
              "load_many %s rows" % t)
    # The package's folded stacks are the independent computation's.
    check(a.folded() == expected_folded(p), "Run.folded: %s" % a.folded())


def tree_paths(gf):
    """{path tuple: node} of a Hatchet graph."""
    out = {}

    def walk(node, prefix):
        path = prefix + (node.frame["name"],)
        out[path] = node
        for c in node.children:
            walk(c, path)

    for r in gf.graph.roots:
        walk(r, ())
    return out


def check_tree(df_of, paths, profile, what):
    """Every node's metrics against the call sites of the profile: leaves
    (MPI functions) the sums of their sites, inner nodes 0 exclusive and
    their subtree inclusive; the leaves of each MPI function add up to the
    function's row (the report's numbers)."""
    depth = profile["callsite_depth"]
    leaf = {}
    for s in profile["callsites"]:
        syms = [f["symbol"] for f in s["frames"]]
        if "main" in syms:
            syms = syms[:len(syms) - syms[::-1].index("main")]
            head = []
        else:
            head = ["[cut at depth %d]" % depth]
        k = tuple(head + syms[::-1] + [s["function"]])
        v = leaf.setdefault(k, {"time": 0, "calls": 0, "bytes_sent": 0, "bytes_recv": 0})
        v["time"] += s["time_ns"]
        v["calls"] += s["calls"]
        v["bytes_sent"] += s["bytes_sent"]
        v["bytes_recv"] += s["bytes_recv"]
    check(set(leaf) <= set(paths), "%s: paths missing from the tree: %s" % (what, set(leaf) - set(paths)))
    for path in paths:
        row = df_of(path)
        for m in ("time", "calls", "bytes_sent", "bytes_recv"):
            exc = leaf.get(path, {}).get(m, 0)
            inc = sum(v[m] for k, v in leaf.items() if k[:len(path)] == path)
            check(row[m] == exc, "%s %s: %s = %s, sites give %s" % (what, ";".join(path), m, row[m], exc))
            check(row[m + " (inc)"] == inc,
                  "%s %s: %s (inc) = %s, sites give %s" % (what, ";".join(path), m, row[m + " (inc)"], inc))
    if profile["dropped"]["callsite_calls"] == 0:
        for fn in profile["functions"]:
            t = sum(v["time"] for k, v in leaf.items() if k[-1] == fn["name"])
            c = sum(v["calls"] for k, v in leaf.items() if k[-1] == fn["name"])
            if c:
                check(t == fn["time_ns"] and c == fn["calls"],
                      "%s: %s leaves %d ns %d calls, functions row %d ns %d calls"
                      % (what, fn["name"], t, c, fn["time_ns"], fn["calls"]))


def cmd_hatchet(out):
    import mpiscope
    import mpiscope.hatchet

    a_dir = runs(out)[0]
    p = read(os.path.join(a_dir, "profile.json"))
    gf = mpiscope.hatchet.graphframe(a_dir)
    paths = tree_paths(gf)
    for path in EXPECTED_PATHS:
        check(tuple(path.split(";")) in paths, "hatchet: no node %s" % path)
    roots = sorted(r.frame["name"] for r in gf.graph.roots)
    check("main" in roots and "[cut at depth 3]" in roots, "hatchet roots %s" % roots)
    check_tree(lambda path: gf.dataframe.loc[paths[path]], paths, p, "hatchet")
    check(gf.metadata["ranks"] == 2, "hatchet metadata")
    print(gf.tree(metric_column="time (inc)", precision=0))


def cmd_thicket(out):
    import mpiscope
    import mpiscope.hatchet

    dirs = runs(out)
    tk = mpiscope.hatchet.thicket(dirs, names=["a", "b"])
    check(len(tk.profile) == 2, "thicket: %d profiles" % len(tk.profile))
    check(sorted(tk.metadata["ranks"].tolist()) == [1, 2], "thicket metadata ranks")
    paths = tree_paths(tk)
    inv = {v: k for k, v in tk.profile_mapping.items()}
    for d, name in zip(dirs, ("a", "b")):
        p = read(os.path.join(d, "profile.json"))
        prof = inv[name]
        check_tree(lambda path: tk.dataframe.loc[(paths[path], prof)], 
                   {k: v for k, v in paths.items() if (v, prof) in tk.dataframe.index}, p, "thicket " + name)


def trace_calls(anchor):
    """Every MPI call of the trace, read with otf2-print: (rank, function,
    "file:line", ticks), and the trace's resolution (ticks per second). An
    Enter without SOURCE_CODE_LOCATION is at the location last given for its
    pair (previous MPI region entered on the location, its region): docs/trace.md."""
    import re
    d = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True, timeout=120).stdout
    res = int(re.search(r"Ticks per Seconds: (\d+)", d).group(1))
    group_rank = {g: int(r) for g, r in re.findall(r'^LOCATION_GROUP\s+(\d+)\s+Name: "MPI Rank (\d+)"', d, re.M)}
    loc_rank = {loc: group_rank[g] for loc, g in
                re.findall(r'^LOCATION\s+(\d+)\s+Name: .*Group: "[^"]*" <(\d+)>', d, re.M)}
    p = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, timeout=120).stdout
    calls, pair_site, prev, open_ = [], {}, {}, {}
    pending = None
    for line in p.splitlines():
        if line.startswith(" ") and "SOURCE_CODE_LOCATION" in line and pending is not None:
            m = re.search(r'SOURCE_CODE_LOCATION; "([^"]*)"', line)
            loc, name, pair = pending
            open_[loc][2] = m.group(1)
            pair_site[pair] = m.group(1)
            continue
        pending = None
        f = line.split()
        if len(f) < 3 or not f[1].isdigit() or not f[2].isdigit():
            continue
        loc, t = f[1], int(f[2])
        if f[0] == "ENTER":
            name = re.search(r'Region: "([^"]*)"', line).group(1)
            if not name.startswith("MPI_"):
                continue
            pair = (loc, prev.get(loc), name)
            open_[loc] = [name, t, pair_site.get(pair)]
            prev[loc] = name
            pending = (loc, name, pair)
        elif f[0] == "LEAVE" and loc in open_:
            name, t0, site = open_.pop(loc)
            calls.append((loc_rank[loc], name, site, t - t0))
    return calls, res


def cmd_folded(out, cli):
    a_dir = runs(out)[0]
    p = read(os.path.join(a_dir, "profile.json"))
    check_paths(p, 2, "profile.json a")
    want = expected_folded(p)
    # Every stack is one nested.c makes (a path under half a microsecond in
    # all is left out: the single calls from main can be).
    check(set(want) <= set(EXPECTED_PATHS), "unexpected stacks: %s" % (set(want) - set(EXPECTED_PATHS)))
    r = subprocess.run([cli, "export", "--folded", "-o", "-", a_dir], capture_output=True, text=True)
    check(r.returncode == 0, "export --folded -o -: exit %d: %s" % (r.returncode, r.stderr))
    got = {}
    for line in r.stdout.splitlines():
        stack, _, w = line.rpartition(" ")
        check(stack not in got, "stack %s twice" % stack)
        got[stack] = int(w)
    check(got == want, "folded stacks:\n%s\nexpected:\n%s" % (got, want))
    check(r.stdout.splitlines() == sorted(r.stdout.splitlines()), "lines sorted")
    # The default file, DIR/stacks.folded, has the same lines.
    r = subprocess.run([cli, "export", "--folded", a_dir], capture_output=True, text=True)
    check(r.returncode == 0 and "stacks.folded" in r.stdout, "export --folded DIR: %s %s" % (r.stdout, r.stderr))
    with open(os.path.join(a_dir, "stacks.folded")) as f:
        check(f.read().splitlines() == sorted("%s %d" % kv for kv in want.items()), "stacks.folded")
    # A profile without call sites is refused.
    nosites = dict(p, callsite_depth=0, callsites=[])
    path = os.path.join(out, "nosites.json")
    with open(path, "w") as f:
        json.dump(nosites, f)
    r = subprocess.run([cli, "export", "--folded", "-o", "-", path], capture_output=True, text=True)
    check(r.returncode == 1 and "no call sites" in r.stderr and not r.stdout,
          "no call sites: exit %d, %s" % (r.returncode, r.stderr))
    r = subprocess.run([cli, "export", "--folded", "--bogus", a_dir], capture_output=True, text=True)
    check(r.returncode == 2, "bad option: exit %d" % r.returncode)
    print("".join("%s %d\n" % kv for kv in sorted(got.items())), end="")
    # --per-rank: each rank's calls from the trace, credited to the path of
    # the profile's site with the same innermost frame.
    r = subprocess.run([cli, "export", "--folded", "--per-rank", "-o", "-", a_dir], capture_output=True, text=True)
    check(r.returncode == 0, "export --folded --per-rank: exit %d: %s" % (r.returncode, r.stderr))
    per_rank_out = r.stdout
    # The profile's paths by innermost frame: one line reached on several
    # paths is "[several callers];<frame>;<function>" (the trace has one frame).
    paths_of = {}
    for site in p["callsites"]:
        f0 = site["frames"][0]
        path = next(iter(expected_folded(dict(p, callsites=[dict(site, time_ns=1000)]))))
        paths_of.setdefault((site["function"], "%s:%d" % (f0["file"], f0["line"])), set()).add(path)
    by_frame = {}
    for (fn, where), paths in paths_of.items():
        inner = next(iter(paths)).split(";")[-2]
        by_frame[(fn, where)] = next(iter(paths)) if len(paths) == 1 else "[several callers];%s;%s" % (inner, fn)
    check(sorted(v for v in by_frame.values() if v.startswith("[several")) ==
          ["[several callers];exchange;MPI_Sendrecv", "[several callers];halo;MPI_Sendrecv"],
          "several callers: %s" % by_frame)
    calls, res = trace_calls(os.path.join(a_dir, "trace", "traces.otf2"))
    ticks, ncalls = {}, {}
    for rank, fn, site, dt in calls:
        key = (rank, by_frame.get((fn, site), "?"))
        ticks[key] = ticks.get(key, 0) + dt
        ncalls[key[1]] = ncalls.get(key[1], 0) + 1
    check("?" not in ncalls, "trace calls without a profile site: %d" % ncalls.get("?", 0))
    want_calls = {"main;solve;MPI_Allreduce": 8, "main;MPI_Barrier": 2,
                  "[several callers];exchange;MPI_Sendrecv": 10, "[several callers];halo;MPI_Sendrecv": 10}
    check(ncalls == want_calls, "trace: calls per path %s, expected %s" % (ncalls, want_calls))
    want_rank = {}
    for (rank, path), t in ticks.items():
        us = (t * 10**9 // res + 500) // 1000
        if us > 0:
            want_rank["rank %d;%s" % (rank, path)] = us
    got_rank = {}
    for line in per_rank_out.splitlines():
        stack, _, w = line.rpartition(" ")
        got_rank[stack] = int(w)
    check(got_rank == want_rank, "per-rank stacks:\n%s\nexpected:\n%s" % (got_rank, want_rank))
    # The ranks add up to the profile's numbers (the same calls timed by the
    # same wrapper; each rank's share rounded to the microsecond).
    prof_ns = {}
    for site in p["callsites"]:
        f0 = site["frames"][0]
        k = by_frame[(site["function"], "%s:%d" % (f0["file"], f0["line"]))]
        prof_ns[k] = prof_ns.get(k, 0) + site["time_ns"]
    for path, ns in prof_ns.items():
        w = (ns + 500) // 1000
        total = sum(v for k, v in got_rank.items() if k.split(";", 1)[1] == path)
        check(abs(total - w) <= 2, "per-rank %s: ranks add up to %d us, profile %d us" % (path, total, w))
    r = subprocess.run([cli, "export", "--folded", "--per-rank", "-o", "-", os.path.join(out, "b")],
                       capture_output=True, text=True)
    check(r.returncode == 1 and "--trace" in r.stderr, "--per-rank without a trace: exit %d" % r.returncode)
    print(per_rank_out, end="")


def flame_frames(html):
    """The flame view's frames in a page or a DOM dump: id -> attributes,
    the rect's x and width as drawn, and whether it is hidden."""
    import html as h
    import re
    frames = {}
    for m in re.finditer(r'<g class="fr"([^>]*)>.*?<rect([^>]*)>', html):
        a = {k: h.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', m.group(1))}
        r = dict(re.findall(r'(?:^|\s)([\w-]+)="([^"]*)"', m.group(2)))
        a["hidden"] = "display: none" in m.group(1) or "display:none" in m.group(1)
        a["rx"], a["rw"] = float(r["x"]), float(r["width"])
        frames[a["id"]] = a
    return frames


def cmd_flame(out, cli):
    """The HTML report's flame view against `mpiscope export --folded`: its
    bottom frames are the folded stacks with their weights, every frame
    weighs what its children weigh, widths are weights; in headless
    Chromium, the page opened zoomed into main;solve (#flame=N) draws that
    frame and its ancestors the full width, its descendants scaled by the
    same factor, and hides the rest."""
    import shutil
    import tempfile
    a_dir = runs(out)[0]
    r = subprocess.run([cli, "export", "--folded", "-o", "-", a_dir], capture_output=True, text=True)
    check(r.returncode == 0, "export --folded: exit %d" % r.returncode)
    folded = {l.rpartition(" ")[0]: int(l.rpartition(" ")[2]) for l in r.stdout.splitlines()}
    check(folded == expected_folded(read(os.path.join(a_dir, "profile.json"))), "folded: %s" % folded)
    work = tempfile.mkdtemp(prefix="msc-flame-")
    try:
        d = os.path.join(work, "a")
        shutil.copytree(a_dir, d)
        r = subprocess.run([cli, "report", "--html", d], capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, "report --html: exit %d: %s" % (r.returncode, r.stderr))
        page = open(os.path.join(d, "report.html")).read()
        check('<section id="flame"><h2>Call paths</h2>' in page, "no flame section")
        check('href="#flame"' in page, "the navigation bar has no link to the flame view")
        fr = flame_frames(page)
        kids = {}
        for i, f in fr.items():
            kids.setdefault(f["parent"], []).append(i)
        total = sum(folded.values())
        check(fr.get("0", {}).get("us") == str(total), "root %s us, folded total %d" % (fr.get("0"), total))
        leaves = {f["path"]: int(f["us"]) for i, f in fr.items() if i not in kids and i != "0"}
        check(leaves == folded, "bottom frames:\n%s\nfolded:\n%s" % (leaves, folded))
        for i, f in fr.items():
            us, w = int(f["us"]), float(f["w"])
            check(abs(w - 1000.0 * us / total) < 1e-3 and abs(f["rw"] - w) < 2e-3,
                  "frame %s: width %s/%s for %d of %d us" % (f["path"], f["w"], f["rw"], us, total))
            if i in kids:
                check(sum(int(fr[c]["us"]) for c in kids[i]) == us, "frame %s: children's sum" % f["path"])
                x = float(f["x"])
                for c in kids[i]:  # children side by side from the parent's left edge
                    check(abs(float(fr[c]["x"]) - x) < 1e-3, "frame %s: x %s, expected %.3f" % (fr[c]["path"], fr[c]["x"], x))
                    x += float(fr[c]["w"])
        print("flame: %d frames, %d stacks, %d us" % (len(fr), len(leaves), total))
        if os.environ.get("MSC_TEST_BROWSER") == "0":
            print("flame: the browser check is left to the normal pass (MSC_TEST_BROWSER=0)")
            return
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
        import check_html
        solve = [i for i, f in fr.items() if f["path"] == "main;solve"]
        check(len(solve) == 1, "one frame main;solve: %s" % solve)
        if not solve:
            return
        z = solve[0]
        url = "file://" + os.path.abspath(os.path.join(d, "report.html")) + "#flame=" + z
        p = check_html.chromium(["--window-size=1100,3000", "--dump-dom"], url)
        failures.extend(check_html.failures)
        dom = flame_frames(p.stdout)
        check(('id="flame-svg"' in p.stdout and 'data-zoom="%s"' % z in p.stdout), "not zoomed into %s" % z)

        def up(i):
            while i != "-1":
                yield i
                i = fr[i]["parent"]
        k = 1000.0 / float(fr[z]["w"])
        x0 = float(fr[z]["x"])
        shown = 0
        for i, f in dom.items():
            if i in up(z):
                check(not f["hidden"] and abs(f["rx"]) < 1e-3 and abs(f["rw"] - 1000) < 1e-3,
                      "zoomed: %s not the full width (%s %s)" % (fr[i]["path"], f["rx"], f["rw"]))
            elif z in up(i):
                check(not f["hidden"] and abs(f["rw"] - float(fr[i]["w"]) * k) < 2e-3 and
                      abs(f["rx"] - (float(fr[i]["x"]) - x0) * k) < 2e-3,
                      "zoomed: %s at %s %s, expected %.3f %.3f" % (fr[i]["path"], f["rx"], f["rw"],
                                                                   (float(fr[i]["x"]) - x0) * k, float(fr[i]["w"]) * k))
                shown += 1
            else:
                check(f["hidden"], "zoomed: %s shown" % fr[i]["path"])
        check(shown == 3, "zoomed into main;solve: %d frames under it, expected 3" % shown)
        print("flame: zoomed into main;solve in Chromium, %d frames under it" % shown)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def cmd_version(out, cli, version):
    import mpiscope

    r = subprocess.run([cli, "--version"], capture_output=True, text=True)
    first = r.stdout.splitlines()[0] if r.stdout else ""
    check(first == "mpiscope " + version, "mpiscope --version: %r, project %s" % (first, version))
    check(mpiscope.__version__ == version, "package %s, project %s" % (mpiscope.__version__, version))
    from importlib import metadata
    check(metadata.version("mpiscope") == version, "installed distribution %s" % metadata.version("mpiscope"))
    print("mpiscope --version: %s; Python package: %s" % (first, mpiscope.__version__))


def main():
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "load":
        cmd_load(out)
    elif cmd == "hatchet":
        cmd_hatchet(out)
    elif cmd == "thicket":
        cmd_thicket(out)
    elif cmd == "folded":
        cmd_folded(out, sys.argv[3])
    elif cmd == "flame":
        cmd_flame(out, sys.argv[3])
    elif cmd == "version":
        cmd_version(out, sys.argv[3], sys.argv[4])
    else:
        sys.exit("check.py: unknown check " + cmd)
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("check.py %s: ok" % cmd)


if __name__ == "__main__":
    main()
