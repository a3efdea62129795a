#!/usr/bin/env python3
"""Checks the results of tests/comms/mpmd.c: a world of two programs shows each command with its ranks.

    check_mpmd.py <output dir> <program> spawn <ranks of world A> [trace|check]
    check_mpmd.py <output dir> <program> mpmd [trace|check]

"spawn": world A's results are in the directory itself, world B's (made by
MPI_Comm_spawn_multiple from "<program> left" x1 and "<program> right" x2)
in worlds/<id>. "mpmd": one world started by the launcher with the same two
commands ("mpmd-left", "mpmd-right"). Every world's profile must hold its
exact calls, bytes and matrix cells (mpmd.c's header has them) and, in
run.commands, each command line with its ranks, which profile.txt shows;
with "trace", each world's archive reads without an error and holds its
world's barriers; with "check", no finding.
"""
import json
import os
import subprocess
import sys


def fail(msg):
    print(f"check_mpmd.py: {msg}", file=sys.stderr)
    sys.exit(1)


def calls(prof):
    return {f["name"]: (f["calls"], f["bytes_sent"], f["bytes_recv"]) for f in prof["functions"]}


def two_programs(left, right):
    """World B, or the MPMD world: rank 0 is `left`, ranks 1-2 `right`."""
    return {
        "ranks": 3,
        "commands": [{"command": left, "ranks": "0", "count": 1},
                     {"command": right, "ranks": "1-2", "count": 2}],
        "fns": {"MPI_Send": (20, 80, 0), "MPI_Barrier": (18, 0, 0), "MPI_Comm_size": (8, 0, 0)},
        "pairs": [(1, 0, 10, 40), (2, 0, 10, 40)],
        "barriers": 18,
    }


def main():
    out, prog, how = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
    if how == "spawn":
        n = int(sys.argv[4])
        mode = sys.argv[5] if len(sys.argv) > 5 else ""
        ids = sorted(os.listdir(f"{out}/worlds")) if os.path.isdir(f"{out}/worlds") else []
        if len(ids) != 1:
            fail(f"worlds/ holds {ids}, want the 1 world that MPI_Comm_spawn_multiple made")
        a = {
            "ranks": n,
            "commands": [{"command": prog, "ranks": f"0-{n - 1}" if n > 1 else "0", "count": n}],
            "fns": {"MPI_Comm_spawn_multiple": (n, 0, 0), "MPI_Send": (90, 360, 0),
                    "MPI_Barrier": (4 * n, 0, 0), "MPI_Comm_size": (n, 0, 0)},
            "pairs": [],
            "barriers": 4 * n,
            "spawned": 1,
        }
        b = two_programs(f"{prog} left", f"{prog} right")
        # Its 30 ints from A's rank 0 each, and the 20 of the two "right" ranks.
        b["fns"]["MPI_Recv"] = (110, 0, 440)
        b["spawned"] = 0
        worlds = {"A": (out, a), "B": (f"{out}/worlds/{ids[0]}", b)}
    else:
        mode = sys.argv[4] if len(sys.argv) > 4 else ""
        w = two_programs(f"{prog} mpmd-left", f"{prog} mpmd-right")
        w["fns"]["MPI_Recv"] = (20, 0, 80)
        w["spawned"] = 0
        worlds = {"MPMD": (out, w)}
    for name, (d, want) in worlds.items():
        with open(f"{d}/profile.json") as f:
            prof = json.load(f)
        if prof["ranks"] != want["ranks"]:
            fail(f"world {name} ({d}): {prof['ranks']} ranks, want {want['ranks']}")
        if prof["spawned_worlds"] != want["spawned"]:
            fail(f"world {name}: spawned_worlds {prof['spawned_worlds']}, want {want['spawned']}")
        cmds = prof["run"].get("commands")
        if cmds != want["commands"]:
            fail(f"world {name}: run.commands {cmds}, want {want['commands']}")
        got = calls(prof)
        for fn, v in want["fns"].items():
            if got.get(fn) != v:
                fail(f"world {name}: {fn} {got.get(fn)}, want {v}")
        pairs = sorted((p["from"], p["to"], p["messages"], p["bytes"])
                       for p in prof["matrix"]["pairs"] if p["class"] == "p2p")
        if pairs != want["pairs"]:
            fail(f"world {name}: p2p pairs {pairs}, want {want['pairs']}")
        with open(f"{d}/profile.txt") as f:
            text = f.read()
        if len(want["commands"]) > 1:
            line = next((l for l in text.splitlines() if l.lstrip().startswith("commands")), "")
            for c in want["commands"]:
                if f"{c['command']} (ranks {c['ranks']})" not in line:
                    fail(f"world {name}: profile.txt's commands line {line!r} lacks {c}")
        if mode == "trace":
            r = subprocess.run(["otf2-print", f"{d}/trace/traces.otf2"], capture_output=True,
                               text=True)
            if r.returncode or "ERROR" in r.stdout + r.stderr:
                fail(f"world {name}: otf2-print: rc {r.returncode}: {r.stderr[:500]}")
            enters = sum(1 for l in r.stdout.splitlines()
                         if l.startswith("ENTER") and '"MPI_Barrier"' in l)
            if enters != want["barriers"]:
                fail(f"world {name}: {enters} Enter events of MPI_Barrier, want {want['barriers']}")
        if mode == "check":
            with open(f"{d}/checks.json") as f:
                c = json.load(f)
            if c.get("count") != 0:
                fail(f"world {name}: {c.get('count')} findings, want 0")
    print(f"check_mpmd.py: {', '.join(worlds)}: each command with its ranks, exact calls"
          f"{', ' + mode if mode else ''}")


if __name__ == "__main__":
    main()
