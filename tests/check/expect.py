#!/usr/bin/env python3
"""Compares checks.json with the expectations written in a test program.

    expect.py <checks.json> <source.c> [CASE [NP]]

A line of the source that holds `expect: CLASS rank=R[, CLASS rank=R ...]`
expects, for each entry, a finding of that class whose sites include rank R
at that line (no rank: any rank; with NP given, every rank 0..NP-1, each at
that line). `expect(CASE): ...` applies only when CASE is the third
argument, for a program that runs one case per argument. Every finding must
be expected (no false positives), and every expectation met. A source (or
case) without markers expects no finding at all.
"""
import json
import os
import re
import sys


def main():
    out, src = sys.argv[1], sys.argv[2]
    case = sys.argv[3] if len(sys.argv) > 3 else None
    np = int(sys.argv[4]) if len(sys.argv) > 4 else None
    want = []

    def add(text, lineno):
        for item in text.split(","):
            w = item.split()
            if not w:
                continue
            if len(w) > 1:
                want.append((w[0], int(w[1].split("=")[1]), lineno))
            elif np is not None:
                want.extend((w[0], r, lineno) for r in range(np))
            else:
                want.append((w[0], None, lineno))

    with open(src) as f:
        for lineno, line in enumerate(f, 1):
            for m in re.finditer(r"expect(?:\((\w+)\))?: ([^*]*)", line):
                if m.group(1) is None or m.group(1) == case:
                    add(m.group(2), lineno)
    with open(out) as f:
        data = json.load(f)
    base = os.path.basename(src)
    ok = True

    def hits(finding, cls, rank, line):
        if finding["class"] != cls:
            return False
        return any(os.path.basename(s["file"]) == base and s["line"] == line and
                   (rank is None or s["rank"] == rank) for s in finding["sites"])

    for cls, rank, line in want:
        if not any(hits(fd, cls, rank, line) for fd in data["findings"]):
            print(f"expect.py: missing {cls} rank {rank} at {base}:{line}")
            ok = False
    for fd in data["findings"]:
        if not any(hits(fd, c, r, l) for c, r, l in want):
            print(f"expect.py: unexpected {fd['class']} {fd['sites']}")
            ok = False
    if not ok:
        print(json.dumps(data, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
