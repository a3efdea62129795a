#!/usr/bin/python3
"""Checks the call sites of MPI calls in a trace (tests/trace/sites.c, sites.f90).

    check_sites.py <output dir> <source file> c|fortran

The source marks each MPI call it checks with a comment "site:<name>"; the
line of the marker is the line the Enter's SOURCE_CODE_LOCATION must give.
The attribute is delta-encoded per pair (previous MPI region entered on the
location, region): an Enter without it is at the location last given for
its pair. On every rank, each Enter is at the marked line:

c:       MPI_Comm_rank at rank, flush, flush; MPI_Barrier 10 times at loop,
         then once at on (the barrier while recording was off is not in the
         trace); MPI_Allreduce 5 times at alt1 then alt2; MPI_Comm_size 5
         times at h1 and MPI_Type_size at h2 then h3, 5 times.
fortran: MPI_Barrier 3 times at loop, then once at last.

An Enter carries the attribute exactly when its line is not the one last
given for its pair (simulated over the rank's Enters), and, as sites.c
says, MPI_Type_size's alternating lines cost 2 attributes in 10 Enters.

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
    """Per rank (main thread), its MPI Enters in order: [(region, given, file, line)],
    the location read by the delta rule."""
    out = {}
    with otf2.reader.open(anchor) as r:
        state, prev = {}, {}
        for loc, ev in r.events:
            if not isinstance(ev, E.Enter) or ev.region.paradigm != otf2.Paradigm.MPI:
                continue
            if int(loc._ref) >> 32:
                continue
            rank = int(loc._ref)
            scl = [v for a, v in (ev.attributes or {}).items() if a.name == "SOURCE_CODE_LOCATION"]
            key = (rank, prev.get(rank), ev.region.name)
            prev[rank] = ev.region.name
            if scl:
                state[key] = (str(scl[0].file), scl[0].line_number) if scl[0] is not None else None
            where = state.get(key)
            out.setdefault(rank, []).append(
                (ev.region.name, bool(scl), where[0] if where else None, where[1] if where else None))
    return out


def expect(rank, enters, want, source):
    """want: {region: [marker line of each Enter, in order]}. Checks every
    Enter's location, and that it has the attribute exactly when its line is
    not the one last given for its pair (previous MPI region, region)."""
    seen, memo, prev = {}, {}, None
    for region, given, file, line in enters:
        k = seen[region] = seen.get(region, 0) + 1
        lines = want.get(region)
        if lines is None:
            prev = region
            continue
        if k > len(lines):
            fail("rank %d: more than %d Enters of %s" % (rank, len(lines), region))
            continue
        wline = lines[k - 1]
        wgiven = memo.get((prev, region)) != wline
        memo[(prev, region)] = wline
        prev = region
        if given != wgiven:
            fail("rank %d: %s #%d %s the attribute" % (rank, region, k, "has" if given else "lacks"))
        if file is None or os.path.basename(file) != source or line != wline:
            fail("rank %d: %s #%d at %s:%s, expected %s:%d" % (rank, region, k, file, line,
                                                               source, wline))
    for region, lines in want.items():
        if seen.get(region, 0) != len(lines):
            fail("rank %d: %d Enters of %s, expected %d" % (rank, seen.get(region, 0), region,
                                                            len(lines)))


def main():
    out, src, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    m = markers(src)
    got = sites(os.path.join(out, "trace", "traces.otf2"))
    if not got:
        fail("no MPI Enter events")
    name = os.path.basename(src)
    for rank, enters in sorted(got.items()):
        if mode == "c":
            expect(rank, enters, {
                "MPI_Comm_rank": [m["rank"], m["flush"], m["flush"]],
                "MPI_Barrier": [m["loop"]] * 10 + [m["on"]],
                "MPI_Allreduce": [m["alt1"], m["alt2"]] * 5,
                "MPI_Comm_size": [m["h1"]] * 5,
                "MPI_Type_size": [m["h2"], m["h3"]] * 5}, name)
            halo = sum(given for region, given, _, _ in enters if region == "MPI_Type_size")
            if halo != 2:
                fail("rank %d: %d of 10 MPI_Type_size Enters have the attribute, expected 2"
                     % (rank, halo))
        else:
            expect(rank, enters, {"MPI_Barrier": [m["loop"]] * 3 + [m["last"]]}, name)
        counts = {}
        for region, given, _, _ in enters:
            counts[region] = counts.get(region, 0) + 1
        print("check_sites: rank %d: %s; %d with the attribute" % (
            rank, counts, sum(given for _, given, _, _ in enters)))


if __name__ == "__main__":
    main()
    if failures:
        print("check_sites: %d problems" % len(failures), file=sys.stderr)
        sys.exit(1)
    print("check_sites: ok")
