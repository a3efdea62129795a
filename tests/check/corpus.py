#!/usr/bin/env python3
"""Runs the check corpus (tests/check/corpus/<category>/*.c, and gen.py's
programs in the build tree) and scores it.

    corpus.py --flavor F --mpirun MPIRUN --lib LIBMPISCOPE --cli MPISCOPE
              --bin BINDIR --src CORPUSDIR [--src GENDIR] --out OUTDIR [--category C ...]
              [--jobs N] [--targets FILE] [--md FILE] [--native]

Every source is built twice at build time (CMake, tests/check/tests.cmake):
with -DBUG, the erroneous program, and without, its correct twin. Markers in
the source:

    /* EXPECT: CLASS */              on the line the finding must name (any rank)
    /* EXPECT: CLASS rank=R */       ... by rank R
    /* NP: n */                      ranks (default 2)
    /* RC: native */                 the erroneous program's exit code must be
                                     of the class (zero, failure, hang) it has
                                     without the tool
    /* RC: n */                      it must exit with n under the tool
    /* ENV: NAME=VALUE ... */        extra MPISCOPE_* settings (default: none)
    /* ONLY: openmpi|mpich */        run on that MPI only
    /* TIMEOUT: s */                 seconds for one run (default 60); an
                                     erroneous program that hangs after its
                                     finding is killed then and scored from
                                     its per-rank files

Each program runs with the tool's default settings (MPISCOPE_MODE=check and
nothing else); its findings are read from checks.json, assembled by `mpiscope
report` from the per-rank files (checks.rank<R>.jsonl) when the run died, and
from any per-rank line written after the report (calls after MPI_Finalize).
An expectation is met by a finding of that class with a site at that line of
that source (and rank). The correct twin must give no finding and exit 0.

Programs run --jobs at a time (each its own process group, killed whole on
timeout). Output: one line per program, then per category and per class the
expectations met (recall) and the false findings on correct twins, and the
list of misses. Exit status 1 if a category's recall is below its target
(--min-recall, 0.9, or the lower value recorded for it in --targets), a
correct twin has a finding not listed as known in --targets, or an exit code
differs from what is required. --native runs every correct twin without the
tool instead and requires it to exit 0 (a check of the corpus itself).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time


def markers(src):
    m = {"np": 2, "rc": None, "env": [], "only": None, "timeout": 60, "expect": []}
    with open(src) as f:
        for lineno, line in enumerate(f, 1):
            for e in re.finditer(r"EXPECT:\s*([A-Z0-9_:]+)(?:\s+rank=(\d+))?", line):
                m["expect"].append((e.group(1), int(e.group(2)) if e.group(2) else None, lineno))
            x = re.search(r"/\*\s*NP:\s*(\d+)", line)
            if x:
                m["np"] = int(x.group(1))
            x = re.search(r"/\*\s*RC:\s*(\w+)", line)
            if x:
                m["rc"] = x.group(1)
            x = re.search(r"/\*\s*ENV:\s*([^*]*)\*/", line)
            if x:
                m["env"] += x.group(1).split()
            x = re.search(r"/\*\s*ONLY:\s*(\w+)", line)
            if x:
                m["only"] = x.group(1)
            x = re.search(r"/\*\s*TIMEOUT:\s*(\d+)", line)
            if x:
                m["timeout"] = int(x.group(1))
    return m


def run(a, prog, np, env, out, tool, timeout):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [a.mpirun, "-np", str(np)]
    settings = ["MPISCOPE_MODE=check", "MPISCOPE_OUTPUT=" + out] + env if tool else []
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("MPISCOPE_"):
            del e[k]
    if a.flavor == "openmpi":
        e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                 OMPI_MCA_rmaps_base_oversubscribe="1")
        if tool:
            cmd += ["-x", "LD_PRELOAD=" + a.lib]
        for s in settings:
            cmd += ["-x", s]
    else:
        if tool:
            cmd += ["-genv", "LD_PRELOAD", a.lib]
        for s in settings:
            k, _, v = s.partition("=")
            cmd += ["-genv", k, v]
    t0 = time.time()
    # Its own session, so that a hanging run is killed with every rank.
    p = subprocess.Popen(cmd + [prog], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=e, cwd=out, start_new_session=True)
    try:
        log, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        log, _ = p.communicate()
        rc = "timeout"
    with open(os.path.join(out, "run.log"), "w") as f:
        f.write(log.decode(errors="replace"))
    return rc, time.time() - t0


def findings(a, out):
    path = os.path.join(out, "checks.json")
    ranks = glob.glob(os.path.join(out, "checks.rank*.jsonl"))
    if ranks and not os.path.exists(path):
        # The run died before MPI_Finalize: the report is assembled from the
        # per-rank files, as a user would (mpiscope report).
        subprocess.run([a.cli, "report", out], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
    fds, err = [], None
    try:
        with open(path) as f:
            fds = json.load(f)["findings"]
    except (OSError, ValueError) as x:
        err = f"no checks.json ({x})"
    # Lines written after checks.json (after MPI_Finalize).
    seen = {site(fd) for fd in fds}
    for r in ranks:
        with open(r, errors="replace") as f:
            for line in f:
                try:
                    d = json.loads(line)
                except ValueError:
                    continue
                if isinstance(d, dict) and "class" in d and site(d) not in seen:
                    seen.add(site(d))
                    fds.append(d)
                    err = None
    return fds, err


def hits(fd, cls, rank, line, base):
    return fd["class"] == cls and any(
        os.path.basename(s.get("file", "")) == base and s.get("line") == line and
        (rank is None or s.get("rank") == rank) for s in fd.get("sites", []))


def site(fd):
    s = (fd.get("sites") or [{}])[0]
    return f"{fd['class']}@{os.path.basename(s.get('file', '?'))}:{s.get('line', '?')}"


def kind(x):
    """The class of an exit: success, failure, or a hang."""
    return x if x in (0, "timeout") else "failure"


def one(a, cat, src):
    """Runs one source's two programs; returns its result record."""
    name = os.path.splitext(os.path.basename(src))[0]
    m = markers(src)
    base = os.path.basename(src)
    bug = os.path.join(a.bin, f"chk_{cat}_{name}_bug")
    good = os.path.join(a.bin, f"chk_{cat}_{name}_ok")
    outb = os.path.join(a.out, cat, name + "-bug")
    outg = os.path.join(a.out, cat, name + "-ok")
    r = {"cat": cat, "name": name, "expect": [], "notes": [], "rcfail": False,
         "false": [], "lines": []}
    if a.native:
        rcg, sg = run(a, good, m["np"], [], outg + "-native", False, m["timeout"])
        r["lines"].append(f"{a.flavor} {cat}/{name} native: ok rc={rcg} {sg:.1f}s"
                          + ("" if rcg == 0 else " -- TWIN FAILS"))
        r["rcfail"] = rcg != 0
        return r
    # The erroneous program.
    rc, secs = run(a, bug, m["np"], m["env"], outb, True, m["timeout"])
    fds, err = findings(a, outb)
    if err and m["expect"]:
        r["notes"].append(err)
    got = 0
    for cls, rank, line in m["expect"]:
        hit = any(hits(fd, cls, rank, line, base) for fd in fds)
        got += hit
        r["expect"].append((cls, line, hit))
    extra = [site(fd) for fd in fds
             if not any(hits(fd, c, rk, l, base) for c, rk, l in m["expect"])]
    r["found"] = sorted(set(extra))
    if extra:
        r["notes"].append("also " + ",".join(r["found"]))
    if m["rc"] == "native":
        nrc, _ = run(a, bug, m["np"], [], outb + "-native", False, m["timeout"])
        if kind(nrc) != kind(rc):
            # The reference once more: the native run of an erroneous
            # program can itself hang in the MPI's abort path on a loaded
            # machine (Open MPI's zero_comm_recv: a timeout once in a
            # fresh full run, exit 5 in 0.3 s otherwise).
            first = nrc
            nrc, _ = run(a, bug, m["np"], [], outb + "-native", False, m["timeout"])
            r["notes"].append(f"native {first} at first")
        r["notes"].append(f"exit code {rc}, native {nrc}")
        if kind(nrc) != kind(rc):
            r["rcfail"] = True
            r["notes"][-1] += " (DIFFERENT)"
    elif m["rc"] is not None and str(rc) != m["rc"]:
        r["notes"].append(f"exit code {rc}, expected {m['rc']}")
        r["rcfail"] = True
    r["lines"].append(f"{a.flavor} {cat}/{name} bug: {got}/{len(m['expect'])} rc={rc} "
                      f"{secs:.1f}s" + (" -- " + "; ".join(r["notes"]) if r["notes"] else ""))
    # Its correct twin.
    rc, secs = run(a, good, m["np"], m["env"], outg, True, m["timeout"])
    fds, err = findings(a, outg)
    r["false"] = [fd["class"] for fd in fds]
    r["twin"] = [site(fd) for fd in fds] + ([err] if err else []) + \
        ([f"rc={rc}"] if rc != 0 else [])
    if r["twin"]:
        r["lines"].append(f"{a.flavor} {cat}/{name} ok: FALSE {' '.join(r['twin'])} {secs:.1f}s")
    else:
        r["lines"].append(f"{a.flavor} {cat}/{name} ok: clean {secs:.1f}s")
    return r


def targets(path, flavor):
    """targets.txt: `recall FLAVOR|* CATEGORY VALUE` lowers a category's
    target to the recall it has now; `false FLAVOR|* CATEGORY/NAME` lists a
    correct twin known to get a finding. Both name what is missing."""
    rec, known = {}, set()
    if not path or not os.path.exists(path):
        return rec, known
    with open(path) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) < 3 or w[1] not in ("*", flavor):
                continue
            if w[0] == "recall" and len(w) >= 4:
                rec[w[2]] = float(w[3])
            elif w[0] == "false":
                known.add(w[2])
    return rec, known


def main():
    ap = argparse.ArgumentParser()
    for o in ("flavor", "mpirun", "lib", "cli", "bin", "out"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("--src", action="append", required=True,
                    help="a directory of <category>/ sources (repeated: the hand-written "
                         "ones and gen.py's)")
    ap.add_argument("--category", action="append")
    ap.add_argument("--min-recall", type=float, default=0.9)
    ap.add_argument("--sample", type=int, default=1, help="run every N-th program only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--targets")
    ap.add_argument("--md", help="also write the table and the misses to this file (Markdown)")
    ap.add_argument("--native", action="store_true")
    ap.add_argument("--no-recall", action="store_true",
                    help="judge only the correct twins and exit codes (sanitizer builds)")
    a = ap.parse_args()
    cats = a.category or sorted({d for top in a.src for d in os.listdir(top)
                                 if os.path.isdir(os.path.join(top, d))})
    rec_target, known = targets(a.targets, a.flavor)
    todo = []
    for cat in cats:
        srcs = [s for top in a.src for ext in ("*.c", "*.F90")
                for s in glob.glob(os.path.join(top, cat, ext))]
        for i, src in enumerate(sorted(srcs, key=os.path.basename)):
            if i % a.sample:
                continue
            only = markers(src)["only"]
            if only and only != a.flavor:
                continue
            todo.append((cat, src))
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        results = list(ex.map(lambda cs: one(a, *cs), todo))
    wall = time.time() - t0
    for r in results:
        for line in r["lines"]:
            print(line)
    ok = True
    if a.native:
        bad = [f"{r['cat']}/{r['name']}" for r in results if r["rcfail"]]
        print(f"\n{a.flavor}: {len(results)} sources run natively in {wall:.0f} s; "
              f"correct twins that fail: {' '.join(bad) or 'none'}")
        return 1 if bad else 0
    classes, misses, falses, table = {}, [], [], []
    for cat in cats:
        rs = [r for r in results if r["cat"] == cat]
        met = sum(h for r in rs for _, _, h in r["expect"])
        total = sum(len(r["expect"]) for r in rs)
        fps = [r for r in rs if r["twin"]]
        for r in rs:
            for cls, line, hit in r["expect"]:
                c = classes.setdefault((cat, cls), [0, 0, 0])
                c[0] += 1
                c[1] += hit
                if not hit:
                    misses.append(f"{cat}/{r['name']}.c:{line} expected {cls}; found: "
                                  f"{', '.join(r['found']) or 'nothing'}"
                                  + (f" ({'; '.join(r['notes'])})" if r["notes"] else ""))
            for cls in r["false"]:
                classes.setdefault((cat, cls), [0, 0, 0])[2] += 1
            if r["twin"]:
                tag = "known" if f"{cat}/{r['name']}" in known else "NEW"
                falses.append(f"{cat}/{r['name']}.c ({tag}): {' '.join(r['twin'])}")
                if tag == "NEW":
                    ok = False
            if r["rcfail"]:
                ok = False
        recall = met / total if total else 1.0
        target = rec_target.get(cat, a.min_recall)
        verdict = "ok" if recall >= target else "BELOW TARGET"
        if recall < target and not a.no_recall:
            ok = False
        note = f" (target {target:.2f} recorded in targets.txt, goal {a.min_recall:.2f})" \
            if cat in rec_target else f" (target {target:.2f})"
        if cat in rec_target and recall >= a.min_recall:
            note += ": the goal is met, remove the line from targets.txt"
        table.append(f"{a.flavor} category {cat}: {len(rs)} sources, recall {met}/{total} = "
                     f"{recall:.2f}{note} {verdict}; correct twins with findings "
                     f"{len(fps)}/{len(rs)}")
    out = [""] + table
    out.append(f"\n{a.flavor}: per class (category, class, expected, found, recall, "
               f"false findings on twins)")
    for (cat, cls), (n, h, fp) in sorted(classes.items()):
        out.append(f"  {cat:10} {cls:40} {n:4} {h:4} {h / n if n else 1:5.2f} {fp:4}")
    out.append(f"\n{a.flavor}: misses ({len(misses)})")
    out += ["  " + x for x in misses]
    out.append(f"\n{a.flavor}: correct twins with findings ({len(falses)})")
    out += ["  " + x for x in falses]
    out.append(f"\n{a.flavor}: {len(results)} sources, {wall:.0f} s with {a.jobs} jobs")
    print("\n".join(out))
    if a.md:
        with open(a.md, "a") as f:
            f.write("```\n" + "\n".join(out) + "\n```\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
