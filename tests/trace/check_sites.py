#!/usr/bin/python3
"""Checks the call sites of MPI calls in a trace (tests/trace/sites.c, sites.f90).

    check_sites.py <output dir> <source file> c|fortran

The source marks each MPI call it checks with a comment "site:<name>"; the
line of the marker is the line the Enter's SOURCE_CODE_LOCATION must give.
The attribute is delta-encoded per MPI region and location: an Enter without
it is at the location last given for its region. On every rank:

c:       MPI_Comm_rank at rank, flush, flush, each with the attribute (the
         second "flush" follows MPI_Pcontrol(2), which makes the next Enter
         of every region give its site again); MPI_Barrier 10 times at loop,
         only the first with the attribute, then once at on (the barrier
         while recording was off is not in the trace); MPI_Allreduce 5 times
         at alt1 then alt2, each with the attribute.
fortran: MPI_Barrier 3 times at loop, only the first with the attribute,
         then once at last.

Every location is in a file of the source's name. Must run with
/usr/bin/python3 (python3-otf2).
"""
import os
import re
import sys

import otf2
import otf2.events as E

from otf2_check import Failures

fail = failures = Failures("check_sites")


def markers(path):
    lines = {}
    with open(path) as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"site:(\w+)", text)
            if m and not text.lstrip().startswith(("*", "/*", "!")):
                lines[m.group(1)] = n
    return lines


def sites(anchor):
    """Per rank (main thread), per MPI region: [(given, file, line)]."""
    out = {}
    with otf2.reader.open(anchor) as r:
        state = {}
        for loc, ev in r.events:
            if not isinstance(ev, E.Enter) or ev.region.paradigm != otf2.Paradigm.MPI:
                continue
            if int(loc._ref) >> 32:
                continue
            rank = int(loc._ref)
            scl = [v for a, v in (ev.attributes or {}).items() if a.name == "SOURCE_CODE_LOCATION"]
            key = (rank, ev.region.name)
            if scl:
                state[key] = (str(scl[0].file), scl[0].line_number) if scl[0] is not None else None
            where = state.get(key)
            out.setdefault(rank, {}).setdefault(ev.region.name, []).append(
                (bool(scl), where[0] if where else None, where[1] if where else None))
    return out


def expect(rank, got, region, want, source):
    """want: [(marker line, given)] in order."""
    have = got.get(region, [])
    if len(have) != len(want):
        fail("rank %d: %d Enters of %s, expected %d: %s" % (rank, len(have), region, len(want), have))
        return
    for i, ((given, file, line), (wline, wgiven)) in enumerate(zip(have, want)):
        if given != wgiven:
            fail("rank %d: %s #%d %s the attribute" % (rank, region, i + 1,
                                                      "has" if given else "lacks"))
        if file is None or os.path.basename(file) != source or line != wline:
            fail("rank %d: %s #%d at %s:%s, expected %s:%d" % (rank, region, i + 1, file, line,
                                                               source, wline))


def main():
    out, src, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    m = markers(src)
    got = sites(os.path.join(out, "trace", "traces.otf2"))
    if not got:
        fail("no MPI Enter events")
    name = os.path.basename(src)
    for rank, regions in sorted(got.items()):
        if mode == "c":
            expect(rank, regions, "MPI_Comm_rank",
                   [(m["rank"], True), (m["flush"], True), (m["flush"], True)], name)
            expect(rank, regions, "MPI_Barrier",
                   [(m["loop"], i == 0) for i in range(10)] + [(m["on"], True)], name)
            expect(rank, regions, "MPI_Allreduce",
                   [(m["alt1" if i % 2 == 0 else "alt2"], True) for i in range(10)], name)
        else:
            expect(rank, regions, "MPI_Barrier",
                   [(m["loop"], i == 0) for i in range(3)] + [(m["last"], True)], name)
        print("check_sites: rank %d: %s" % (rank, {k: len(v) for k, v in regions.items()}))


if __name__ == "__main__":
    main()
    if failures:
        print("check_sites: %d problems" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("check_sites: ok")
