#!/usr/bin/env python3
"""Per-call instructions the tool adds, from callgrind files of one run:
    cgcalls.py FILE... [--fns chk_enter,send_sidecar,...]
For every recording path msc_rec_MPI_X in the files: the calls (those of
msc_rec_MPI_X to PMPI_X) and the instructions per call of msc_rec_MPI_X
minus its call of PMPI_X, i.e. what the tool adds, its own MPI calls
included, the application's MPI call excluded; then, per call of the listed
functions (--fns, or the check module's main ones), their inclusive
instructions summed over the files; --tree F,G: each one's own instructions
and callees, per call. From files written with --separate-callers=6, the
tool's own blocking collectives on its shadow communicators (global.c: one
small MPI_Allreduce before each of a communicator's first 64 blocking
collectives, then one per 64; mostly MPI waiting for the peer, which no
instruction count makes deterministic) are left out of "added/call" and
shown apart ("tool colls"). Several files (ranks) are averaged.
Reads callgrind's format directly (names compressed or not; one event, Ir)."""
import re, sys, collections

def parse(path):
    names = {}
    def name(tok):
        m = re.match(r"\((\d+)\)(?: (.*))?$", tok)
        if not m: return tok
        if m.group(2) is not None: names[m.group(1)] = m.group(2)
        return names.get(m.group(1), tok)
    self_ = collections.Counter()
    edges = collections.defaultdict(lambda: [0, 0])  # (caller, callee) -> [calls, incl]
    fn = None; pending = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line: continue
            if line.startswith("fn="):
                fn = name(line[3:]); continue
            if line.startswith("cfn="):
                pending = [name(line[4:]), None]; continue
            if line.startswith("calls="):
                pending[1] = int(line[6:].split()[0]); continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                w = line.split()
                cost = int(w[1]) if len(w) > 1 else 0
                if pending and pending[1] is not None:
                    e = edges[(fn, pending[0])]; e[0] += pending[1]; e[1] += cost
                    pending = None
                else:
                    self_[fn] += cost
                continue
            # fl=, fi=, fe=, ob=, cob=, cfi=, headers: positions and names only
            if line.startswith(("fl=", "fi=", "fe=", "ob=", "cob=", "cfi=", "cfl=")):
                m = re.match(r"c?f[lie]=|c?ob=", line)
                continue
    # Names with caller contexts (valgrind --separate-callers=N: "f'g'h")
    # are summed under the function's own name; the tool's own blocking
    # collectives are attributed to the recording path in their context.
    tool_colls = collections.Counter()
    base = lambda f: f.split("'")[0]
    if any("'" in f for f in list(self_) + [b for (a, b) in edges]):
        for (a, b), (k, c) in edges.items():
            if base(b) in TOOL_COLL and base(a) in TOOL_CALLERS:
                rec = next((x for x in b.split("'")[1:] if x.startswith("msc_rec_MPI_")), None)
                if rec: tool_colls[rec] += c
        s2 = collections.Counter()
        for f, c in self_.items(): s2[base(f)] += c
        e2 = collections.defaultdict(lambda: [0, 0])
        for (a, b), (k, c) in edges.items():
            e = e2[(base(a), base(b))]; e[0] += k; e[1] += c
        self_, edges = s2, e2
    incl = collections.Counter(self_)
    ncalls = collections.Counter()
    for (a, b), (n, c) in edges.items():
        if a != b: incl[a] += c
        ncalls[b] += n
    return incl, edges, ncalls, tool_colls

# The tool's own blocking collectives on its shadow communicators (global.c).
TOOL_COLL = {"PMPI_Allreduce", "PMPI_Allgather", "PMPI_Allgatherv", "PMPI_Waitall"}
TOOL_CALLERS = {"verify", "chk_coll_enter", "exchange", "chk_coll_finalize"}

def main():
    args = sys.argv[1:]
    fns = "chk_enter,chk_leave,chk_args_enter,chk_state_enter,chk_state_leave,chk_p2p_send_leave,chk_p2p_recv_done,chk_p2p_progress,chk_coll_enter,pv_enter,chk_req_new,chk_req_take,chk_checksum,chk_checksum_span,chk_eh_enter,chk_eh_leave,chk_wd_enter,chk_wd_leave,chk_thr_enter,chk_thr_leave,prof_enter,prof_leave"
    tree = []
    if "--tree" in args:
        i = args.index("--tree"); tree = args[i + 1].split(","); del args[i:i + 2]
    if "--fns" in args:
        i = args.index("--fns"); fns = args[i + 1]; del args[i:i + 2]
    runs = [parse(p) for p in args]
    n = len(runs)
    rec = sorted({a for r in runs for (a, b) in r[1] if a.startswith("msc_rec_MPI_")})
    sep = any(r[3] for r in runs)
    print(f"{'call':<24} {'calls':>9} {'added/call':>11}" + (f" {'tool colls':>11}" if sep else ""))
    for f in rec:
        x = f[len("msc_rec_"):]
        calls = sum(r[1].get((f, "P" + x), [0, 0])[0] for r in runs)
        if not calls: continue
        added = sum(r[0][f] - r[1].get((f, "P" + x), [0, 0])[1] for r in runs)
        tc = sum(r[3][f] for r in runs)
        print(f"{x:<24} {calls // n:>9} {(added - tc) / calls:>11.0f}" +
              (f" {tc / calls:>11.0f}" if sep else ""))
    print(f"\n{'function':<24} {'calls':>9} {'incl/call':>11} {'total':>12}")
    for f in fns.split(","):
        calls = sum(r[2][f] for r in runs); tot = sum(r[0][f] for r in runs)
        if calls: print(f"{f:<24} {calls // n:>9} {tot / calls:>11.0f} {tot // n:>12}")
    for f in tree:  # --tree F,...: F's self cost and callees, per call of F
        calls = sum(r[2][f] for r in runs)
        if not calls: continue
        print(f"\n{f} ({calls // n} calls): per call")
        selfc = sum(r[0][f] - sum(c for (a, b), (k, c) in r[1].items() if a == f and b != f)
                    for r in runs)
        rows = collections.Counter(); cnt = collections.Counter()
        for r in runs:
            for (a, b), (k, c) in r[1].items():
                if a == f and b != f: rows[b] += c; cnt[b] += k
        print(f"  {'(self)':<34} {selfc / calls:>9.0f}")
        for b, c in rows.most_common(25):
            print(f"  {b:<34} {c / calls:>9.0f}   ({cnt[b] / calls:.2f} calls each)")

main()
