#!/usr/bin/env python3
"""Runs the check corpus (tests/check/corpus/<category>/*.c) and scores it.

    corpus.py --flavor F --mpirun MPIRUN --lib LIBMPISCOPE --cli MPISCOPE
              --bin BINDIR --src CORPUSDIR --out OUTDIR [--category C ...]

Every source is built twice (CMake, tests/check/tests.cmake): with -DBUG, the
erroneous program, and without, its correct twin. Markers in the source:

    /* EXPECT: CLASS */              on the line the finding must name (any rank)
    /* EXPECT: CLASS rank=R */       ... by rank R
    /* NP: n */                      ranks (default 2)
    /* RC: native */                 the erroneous program's exit code must be
                                     the one it has without the tool (zero or
                                     not: MPI's own abort, a signal)
    /* RC: n */                      it must exit with n under the tool
    /* ENV: NAME=VALUE ... */        extra MPISCOPE_* settings (default: none)
    /* ONLY: openmpi|mpich */        run on that MPI only
    /* TIMEOUT: s */                 seconds for one run (default 60)

Each erroneous program runs with the tool's default settings (MPISCOPE_MODE=
check and nothing else); its findings are read from checks.json, which
`mpiscope report` assembles from the per-rank files when the run died. An
expectation is met by a finding of that class with a site at that line of
that source (and rank). The correct twin must give no finding at all and
exit 0. Prints one line per program, then per category and per class: the
expectations met (recall) and the false findings on correct twins.
Exit status 1 if a category's recall is below --min-recall (0.9), any correct
twin has a finding or fails, or an exit code differs from what is required.
"""
import argparse
import glob
import json
import os
import re
import shutil
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
    try:
        p = subprocess.run(cmd + [prog], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=e)
        rc, log = p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as x:
        rc, log = "timeout", (x.stdout or b"").decode(errors="replace")
    with open(os.path.join(out, "run.log"), "w") as f:
        f.write(log)
    return rc, time.time() - t0


def findings(a, out):
    path = os.path.join(out, "checks.json")
    if glob.glob(os.path.join(out, "checks.rank*.jsonl")):
        # The run died before MPI_Finalize: the report is assembled from the
        # per-rank files, as a user would (mpiscope report).
        subprocess.run([a.cli, "report", out], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
    try:
        with open(path) as f:
            return json.load(f)["findings"], None
    except (OSError, ValueError) as x:
        return [], f"no checks.json ({x})"


def hits(fd, cls, rank, line, base):
    return fd["class"] == cls and any(
        os.path.basename(s["file"]) == base and s["line"] == line and
        (rank is None or s["rank"] == rank) for s in fd["sites"])


def main():
    ap = argparse.ArgumentParser()
    for o in ("flavor", "mpirun", "lib", "cli", "bin", "src", "out"):
        ap.add_argument("--" + o, required=True)
    ap.add_argument("--category", action="append")
    ap.add_argument("--min-recall", type=float, default=0.9)
    ap.add_argument("--sample", type=int, default=1, help="run every N-th program only")
    a = ap.parse_args()
    cats = a.category or sorted(d for d in os.listdir(a.src)
                                if os.path.isdir(os.path.join(a.src, d)))
    ok = True
    classes = {}
    for cat in cats:
        met = total = fp_progs = twins = 0
        for i, src in enumerate(sorted(glob.glob(os.path.join(a.src, cat, "*.c")))):
            if i % a.sample:
                continue
            name = os.path.splitext(os.path.basename(src))[0]
            m = markers(src)
            if m["only"] and m["only"] != a.flavor:
                continue
            base = os.path.basename(src)
            bug = os.path.join(a.bin, f"chk_{cat}_{name}_bug")
            good = os.path.join(a.bin, f"chk_{cat}_{name}_ok")
            outb = os.path.join(a.out, cat, name + "-bug")
            outg = os.path.join(a.out, cat, name + "-ok")
            notes = []
            # The erroneous program.
            rc, secs = run(a, bug, m["np"], m["env"], outb, True, m["timeout"])
            fds, err = findings(a, outb)
            if err and m["expect"]:
                notes.append(err)
            got = 0
            for cls, rank, line in m["expect"]:
                hit = any(hits(fd, cls, rank, line, base) for fd in fds)
                got += hit
                c = classes.setdefault((cat, cls), [0, 0, 0])
                c[0] += 1
                c[1] += hit
                if not hit:
                    notes.append(f"missed {cls} at line {line}")
            met += got
            total += len(m["expect"])
            extra = [fd["class"] for fd in fds
                     if not any(hits(fd, c, r, l, base) for c, r, l in m["expect"])]
            if extra:
                notes.append("also " + ",".join(sorted(set(extra))))
            if m["rc"] == "native":
                nrc, _ = run(a, bug, m["np"], [], outb + "-native", False, m["timeout"])
                # The class of the exit: success, failure, or a hang.
                def kind(x):
                    return x if x in (0, "timeout") else "failure"
                if kind(nrc) != kind(rc):
                    notes.append(f"exit code {rc}, native {nrc}")
                    ok = False
                else:
                    notes.append(f"exit code {rc}, native {nrc}")
            elif m["rc"] is not None and str(rc) != m["rc"]:
                notes.append(f"exit code {rc}, expected {m['rc']}")
                ok = False
            print(f"{a.flavor} {cat}/{name} bug: {got}/{len(m['expect'])} rc={rc} {secs:.1f}s"
                  + (" -- " + "; ".join(notes) if notes else ""), flush=True)
            # Its correct twin.
            rc, secs = run(a, good, m["np"], m["env"], outg, True, m["timeout"])
            fds, err = findings(a, outg)
            twins += 1
            bad = [f"{fd['class']}@{fd['sites'][0]['file'].split('/')[-1]}:{fd['sites'][0]['line']}"
                   for fd in fds]
            if bad or err or rc != 0:
                fp_progs += 1
                ok = False
                for fd in fds:
                    c = classes.setdefault((cat, fd["class"]), [0, 0, 0])
                    c[2] += 1
                print(f"{a.flavor} {cat}/{name} ok: FALSE rc={rc} {secs:.1f}s "
                      f"{' '.join(bad)} {err or ''}", flush=True)
            else:
                print(f"{a.flavor} {cat}/{name} ok: clean {secs:.1f}s", flush=True)
        recall = met / total if total else 1.0
        print(f"{a.flavor} category {cat}: recall {met}/{total} = {recall:.2f}, "
              f"correct twins with findings {fp_progs}/{twins}", flush=True)
        if recall < a.min_recall:
            ok = False
    print(f"\n{a.flavor}: per class (category, class, expected, found, recall, false findings on twins)")
    for (cat, cls), (n, h, fp) in sorted(classes.items()):
        print(f"  {cat:10} {cls:40} {n:4} {h:4} {h / n if n else 1:5.2f} {fp:4}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
