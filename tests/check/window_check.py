#!/usr/bin/env python3
"""What tests/check/window.c must give under --check.

    window_check.py <checks.json> <window.c> <windows> same|apart

same: exactly one finding, LOCAL:BUFFER:PENDING_OVERLAP at rank 1 on the
line marked site:window-irecv, seen 63 times per window (every receive of a
window but the first); apart: no finding at all.
"""
import json
import os
import sys

out, src, windows, how = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
line = next(i for i, l in enumerate(open(src), 1) if "site:window-irecv" in l)
found = json.load(open(out))["findings"]
ok = True
if how == "apart":
    if found:
        print("window_check: findings where nothing is wrong:", json.dumps(found))
        ok = False
else:
    want = 63 * windows
    if len(found) != 1:
        print("window_check: %d findings, want 1:" % len(found), json.dumps(found))
        ok = False
    else:
        f = found[0]
        sites = [(os.path.basename(s["file"]), s["line"], s["rank"]) for s in f["sites"]]
        if f["class"] != "LOCAL:BUFFER:PENDING_OVERLAP" or ("window.c", line, 1) not in sites:
            print("window_check: want PENDING_OVERLAP at window.c:%d rank 1, got" % line,
                  f["class"], sites)
            ok = False
        if f.get("count") != want:
            print("window_check: seen %s times, want %d (63 per window)" % (f.get("count"), want))
            ok = False
print("window_check: %s (%s, %d windows)" % ("ok" if ok else "FAILED", how, windows))
sys.exit(0 if ok else 1)
