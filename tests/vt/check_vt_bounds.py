#!/usr/bin/env python3
"""The trace of vt_bounds.c: on every rank's location, region "deep" is
entered 512 times (256 nesting levels, twice) and left as often, each Leave
closing the innermost open region (no refused VT_enter leaves a trace).

    check_vt_bounds.py <output dir>
"""
import os
import sys

import otf2
import otf2.events as E


def main():
    anchor = os.path.join(sys.argv[1], "trace", "traces.otf2")
    stacks, enters = {}, {}
    with otf2.reader.open(anchor) as trace:
        for loc, e in trace.events:
            if isinstance(e, E.Enter):
                stacks.setdefault(loc, []).append(e.region.name)
                if e.region.name == "deep":
                    enters[loc] = enters.get(loc, 0) + 1
            elif isinstance(e, E.Leave):
                s = stacks.get(loc, [])
                if not s or s[-1] != e.region.name:
                    sys.exit(f"FAIL: Leave of {e.region.name} on {loc.name}, open: {s[-3:]}")
                s.pop()
    if len(enters) < 2:
        sys.exit(f"FAIL: region deep on {len(enters)} locations, expected 2")
    for loc, n in enters.items():
        if n != 512:
            sys.exit(f"FAIL: {n} Enters of deep on {loc.name}, expected 512")
        if stacks[loc]:
            sys.exit(f"FAIL: regions left open on {loc.name}: {stacks[loc][-3:]}")
    print("vt bounds: ok")


if __name__ == "__main__":
    main()
