#!/usr/bin/python3
"""The trace's definitions are unified up a binomial tree (issue 15: rank 0's
finalize in O(log P) rounds, not a receive from every rank).

    check_unify.py <output dir> <ranks>

Reads <output dir>/unify-stats.txt, one line per rank written at finalize
when MPISCOPE_TEST_UNIFY_STATS=1 (src/trace/unify.c), and checks what the
tree implies, derived here independently of the tool:
- every rank took part once, in a run of <ranks> ranks;
- rank r received a set from each of its binomial children, r + 2^k for
  2^k below r's lowest set bit (every power of two for rank 0), so rank 0
  received ceil(log2 P) messages, not P - 1;
- every rank but 0 sent one set up; rank 0 sent none;
- every rank but 0 received its map from its parent, and every rank sent one
  to each child;
- sets are deduplicated on the way up: rank 0 received fewer words than the
  ranks' own sets add up to (what a gather to rank 0 would deliver; with 2
  or 3 ranks, where no rank but 0 merges, the same), and the
  global set it holds is smaller than all the ranks' own sets together.
"""
import math
import sys


def children(r, p):
    out, step = [], 1
    while step < p and (r == 0 or not r & step):
        if r + step < p:
            out.append(r + step)
        step <<= 1
    return out


def main():
    outdir, p = sys.argv[1], int(sys.argv[2])
    rows = {}
    with open(f"{outdir}/unify-stats.txt") as f:
        for line in f:
            w = line.split()
            d = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
            if d["rank"] in rows:
                sys.exit(f"rank {d['rank']} unified twice")
            rows[d["rank"]] = d
    bad = []
    if sorted(rows) != list(range(p)):
        sys.exit(f"stats from ranks {sorted(rows)}, expected 0..{p - 1}")
    for r, d in rows.items():
        ch = children(r, p)
        if d["size"] != p:
            bad.append(f"rank {r}: size {d['size']}")
        if d["children"] != len(ch) or d["up_recv_msgs"] != len(ch):
            bad.append(f"rank {r}: {d['up_recv_msgs']} sets received, "
                       f"{len(ch)} children {ch}")
        if (d["up_sent_words"] > 0) != (r != 0):
            bad.append(f"rank {r}: sent {d['up_sent_words']} words up")
        if (d["down_recv_words"] > 1) != (r != 0):
            bad.append(f"rank {r}: received a map of {d['down_recv_words']} words")
        if len(ch) and d["down_sent_words"] <= len(ch):
            bad.append(f"rank {r}: sent maps of {d['down_sent_words']} words to {len(ch)} children")
        if d["up_recv_words"] != sum(rows[c]["up_sent_words"] for c in ch):
            bad.append(f"rank {r}: received {d['up_recv_words']} words, its children sent "
                       f"{sum(rows[c]['up_sent_words'] for c in ch)}")
    root = rows[0]
    if root["up_recv_msgs"] != math.ceil(math.log2(p)):
        bad.append(f"rank 0 received {root['up_recv_msgs']} sets, not ceil(log2 {p})")
    gather = sum(d["own_words"] for r, d in rows.items() if r)
    total = gather + root["own_words"]
    merged_below = any(children(r, p) for r in range(1, p))  # P > 3
    if not (root["up_recv_words"] < gather if merged_below else root["up_recv_words"] <= gather):
        bad.append(f"rank 0 received {root['up_recv_words']} words, a gather {gather}")
    if not root["global_words"] < total:
        bad.append(f"rank 0 holds {root['global_words']} words, all ranks' sets {total}")
    print(f"check_unify: {p} ranks; rank 0 received {root['up_recv_msgs']} sets, "
          f"{root['up_recv_words']} words (a gather: {gather}); global set "
          f"{root['global_words']} words (all own sets: {total})")
    if bad:
        print("\n".join(bad))
        sys.exit(1)


main()
