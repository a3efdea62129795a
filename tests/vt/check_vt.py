#!/usr/bin/python3
"""Checks the trace of one tests/vt/vt_api.c (or vt_api.f90) run.

    check_vt.py <output dir> <group> [--profile]

Reads <output dir>/trace/traces.otf2 with python3-otf2 and the values the
program wrote to <output dir>/vt.<rank>. Times the program took with
VT_timestamp() are compared with trace times relative to the "anchor"
region's Enter, taken between VT_timestamp() values t0 and t0b, within
200 us plus t0b - t0 (the program may be preempted between the two calls). On every location timestamps never
decrease. Must run with /usr/bin/python3.
"""
import collections
import glob
import json
import os
import sys

import otf2
import otf2.definitions as D
import otf2.events as E

_f = list(D.InterComm._fields)
if len(_f) == 8:
    D.InterComm._fields = tuple([_f[0]] + _f[4:])

TOL = 200e-6
failures = []


def fail(msg):
    failures.append(msg)
    print("check_vt: " + msg, file=sys.stderr)


def rank_of(loc):
    return int(loc._ref) & 0xffffffff


def main():
    out, group = sys.argv[1], sys.argv[2]
    vals = {}
    for path in glob.glob(os.path.join(out, "vt.*")):
        r = int(path.rsplit(".", 1)[1])
        with open(path) as f:
            vals[r] = {l.split()[0]: float(l.split()[1]) for l in f if len(l.split()) == 2
                       and l.split()[0] != "group"}
    anchor = os.path.join(out, "trace", "traces.otf2")
    if not os.path.exists(anchor):
        fail("no archive")
        return
    ev = collections.defaultdict(list)   # rank -> [(time, event, location name)]
    with otf2.reader.open(anchor) as trace:
        res = trace.definitions.clock_properties.timer_resolution
        last = {}
        for loc, e in trace.events:
            t = e.time
            if loc in last and t < last[loc]:
                fail("time goes back on %s: %d after %d (%s)" % (loc.name, t, last[loc],
                                                                   type(e).__name__))
            last[loc] = t
            ev[rank_of(loc)].append((t / res, e, loc.name))
        defs = trace.definitions
        locnames = {int(l._ref): l.name for l in defs.locations}
        groups = {g.name: [m.name for m in g.members] for g in defs.groups
                  if g.group_type == otf2.GroupType.REGIONS}
    def t0(r):
        for t, e, _ in ev[r]:
            if isinstance(e, E.Enter) and e.region.name == "anchor":
                return t
        fail("rank %d: no anchor" % r)
        return 0.0

    def near(r, key, t):
        want = vals[r][key] - vals[r]["t0"] + t0(r)
        slack = vals[r].get("t0b", vals[r]["t0"]) - vals[r]["t0"]
        if not (want - slack - TOL <= t <= want + TOL):
            fail("rank %d: %s at %.6f s, expected %.6f s" % (r, key, t, want))

    def of(r, cls, loc=None):
        return [(t, e) for t, e, n in ev[r] if isinstance(e, cls) and (loc is None or loc in n)]

    ranks = sorted(vals)
    if group == "control":
        for r in ranks:
            v = vals[r]
            if (v["state_on"], v["state_off"], v["state_again"]) != (0, 1, 0):
                fail("rank %d: tracestate %s" % (r, v))
            barriers = [e for _, e in of(r, E.Enter) if e.region.name == "MPI_Barrier"]
            if len(barriers) != 1:
                fail("rank %d: %d MPI_Barrier recorded, expected 1 (the other was off)"
                     % (r, len(barriers)))
    elif group == "regions":
        if sorted(groups.get("Solver", [])) != ["inner", "outer"]:
            fail("group Solver: %s" % groups)
        for r in ranks:
            names = collections.Counter(e.region.name for _, e in of(r, E.Enter))
            if names["outer"] != 3 or names["inner"] != 3 or names["plain"] != 1:
                fail("rank %d: enters %s" % (r, names))
            for _, e in of(r, E.Enter):
                if e.region.name in ("outer", "inner"):
                    scl = [v for a, v in (e.attributes or {}).items()
                           if a.name == "SOURCE_CODE_LOCATION"]
                    line = 42 if e.region.name == "outer" else 77
                    if not scl or scl[0].line_number != line or str(scl[0].file) != "solver.c":
                        fail("rank %d: %s source location %s" % (r, e.region.name, scl))
                    if e.region.canonical_name != "Solver:" + e.region.name:
                        fail("canonical name %s" % e.region.canonical_name)
            # inner entered after outer, each inner holds an MPI_Barrier
            seq = [e.region.name for _, e in of(r, E.Enter)]
            if "outer" in seq and seq[seq.index("outer") + 1] != "inner":
                fail("rank %d: nesting %s" % (r, seq[:6]))
        if "--profile" in sys.argv:
            with open(os.path.join(out, "profile-vt.json")) as f:
                p = {x["region"]: x for x in json.load(f)["regions"]}
            n = len(ranks)
            inner = p.get("Solver:inner", {})
            if inner.get("calls") != 3 * n or inner.get("mpi_calls") != 3 * n:
                fail("profile inner: %s" % inner)
            if inner.get("time_ns", 0) < 3 * n * 2e6 or inner.get("mpi_time_ns", 0) <= 0:
                fail("profile inner times: %s" % inner)
            if p.get("Solver:outer", {}).get("calls") != 3 * n or \
               p.get("Solver:outer", {}).get("mpi_calls") != 0:
                fail("profile outer: %s" % p.get("Solver:outer"))
            if p.get("plain", {}).get("calls") != n:
                fail("profile plain: %s" % p.get("plain"))
    elif group == "comm":
        n = len(ranks)
        for r in ranks:
            sends = [(t, e) for t, e in of(r, E.MpiSend, "Master")]
            recvs = [(t, e) for t, e in of(r, E.MpiRecv, "Master")]
            def find(lst, tag, size):
                return [(t, e) for t, e in lst if e.msg_tag == tag and e.msg_length == size]
            nxt, prv = (r + 1) % n, (r + n - 1) % n
            # VT_commdef: communicator 10 = all ranks reversed, 11 = rank 0 only.
            def members(c):
                return [m if isinstance(m, int) else int(m._ref) & 0xffffffff
                        for m in c.group.members]
            rev = list(range(n))[::-1]
            me10 = n - 1 - r
            s = find(sends, 13, 30 + r)
            rv = [(t, e) for t, e in recvs if e.msg_tag == 13]
            if len(s) != 1 or members(s[0][1].communicator) != rev or \
                    s[0][1].receiver != (me10 + 1) % n:
                fail("rank %d: sendmsg on a VT_commdef communicator %s" % (r, s))
            prev10 = (me10 + n - 1) % n
            if len(rv) != 1 or members(rv[0][1].communicator) != rev or \
                    rv[0][1].sender != prev10 or rv[0][1].msg_length != 30 + rev[prev10]:
                fail("rank %d: recvmsg on a VT_commdef communicator %s" % (r, rv))
            elif s and rv[0][1].communicator != s[0][1].communicator:
                fail("rank %d: one VT_commdef communicator, two definitions" % r)
            s11 = [e for _, e in sends if e.msg_tag == 14]
            if (r == 0) != (len(s11) == 1) or (s11 and members(s11[0].communicator) != [0]):
                fail("rank %d: message on communicator 11 %s" % (r, s11))
            s = find(sends, 7, 100 + r)
            if len(s) != 1 or s[0][1].receiver != nxt or s[0][1].communicator.name != "MPI_COMM_WORLD":
                fail("rank %d: sendmsg %s" % (r, s))
            elif not any(a.name == "SOURCE_CODE_LOCATION" and v.line_number == 10
                         for a, v in (s[0][1].attributes or {}).items()):
                fail("rank %d: sendmsg without its source location" % r)
            rv = find(recvs, 7, 100 + prv)
            if len(rv) != 1 or rv[0][1].sender != prv:
                fail("rank %d: recvmsg %s" % (r, rv))
            if len(find(sends, 9, 5)) != 1 or find(sends, 9, 5)[0][1].communicator.name != "MPI_COMM_SELF":
                fail("rank %d: self sendmsg" % r)
            s = find(sends, 11, 64)
            rv = find(recvs, 11, 64)
            if len(s) != 1 or len(rv) != 1:
                fail("rank %d: msgevent self %s %s" % (r, s, rv))
            else:
                near(r, "self_sendts", s[0][0])
                if rv[0][0] - s[0][0] < 2.5e-3:
                    fail("rank %d: msgevent receive only %.6f s after send" % (r, rv[0][0] - s[0][0]))
            ops = [(t, e) for t, e in of(r, E.MpiCollectiveEnd, "Master")]
            begins = [t for t, e in of(r, E.MpiCollectiveBegin, "Master")]
            bc = [(t, e) for t, e in ops if e.collective_op == otf2.CollectiveOp.BCAST]
            if len(bc) != 1:
                fail("rank %d: %d bcast records" % (r, len(bc)))
            else:
                t, e = bc[0]
                want = (1000, 0) if r == 0 else (0, 1000)
                if (e.size_sent, e.size_received) != want or e.root != 0:
                    fail("rank %d: bcast bytes %s root %s" % (r, (e.size_sent, e.size_received), e.root))
                b = max(x for x in begins if x <= t)
                near(r, "op_startts", b)
                if t - b < 4.5e-3:
                    fail("rank %d: bcast lasted %.6f s" % (r, t - b))
                enters = [e2.region.name for _, e2 in of(r, E.Enter)]
                if "MPI_Bcast" not in enters:
                    fail("rank %d: the bcast is not in region MPI_Bcast" % r)
            # allreduce logged by rank 0 for everyone: rank 0 on its own location,
            # the others on their extra location.
            where = "Master" if r == 0 else "other ranks"
            ar = [e for _, e in of(r, E.MpiCollectiveEnd, where)
                  if e.collective_op == otf2.CollectiveOp.ALLREDUCE]
            if len(ar) != 1 or (ar[0].size_sent, ar[0].size_received) != (8 * (r + 1), 16 * (r + 1)):
                fail("rank %d: opevent allreduce %s" % (r, ar))
        if n > 1:
            # rank 0 logged the message 1 -> 0: receive on rank 0, send on rank 1's extra location
            rv = [e for _, e in of(0, E.MpiRecv) if e.msg_tag == 12]
            s = [(t, e) for t, e in of(1, E.MpiSend, "other ranks") if e.msg_tag == 12]
            if len(rv) != 1 or rv[0].sender != 1 or rv[0].msg_length != 256:
                fail("foreign msgevent: receive %s" % rv)
            if len(s) != 1 or s[0][1].receiver != 0 or s[0][1].msg_length != 256:
                fail("foreign msgevent: send %s" % s)
            else:
                near(0, "foreign_sendts", s[0][0])  # rank 0's clock, same machine
    elif group == "unordered":
        for r in ranks:
            msgs = {e.msg_tag: t for t, e in of(r, E.MpiSend)}
            for tag in (21, 22, 23):
                if tag not in msgs:
                    fail("rank %d: message %d missing" % (r, tag))
            if 21 in msgs:
                near(r, "u_t1", msgs[21])
                work = [t for t, e in of(r, E.Enter) if e.region.name == "work"]
                if not work or msgs[21] > work[0]:
                    fail("rank %d: early send not sorted before region work" % r)
            if 23 in msgs:
                near(r, "u_t3", msgs[23])
    elif group == "counters":
        for r in ranks:
            m = collections.defaultdict(list)
            for _, e in of(r, E.Metric):
                name = e.metric.members[0].name
                m[name].extend(e.values)
            if m["iterations"] != [10 + r, 20 + r, 30 + r]:
                fail("rank %d: iterations %s" % (r, m["iterations"]))
            if [round(x, 6) for x in m["residual"]] != [1.0, 0.5, 0.333333, 0.25]:
                fail("rank %d: residual %s" % (r, m["residual"]))
            if m["bytes"] != [-5]:
                fail("rank %d: bytes %s" % (r, m["bytes"]))
            com = [e.string for _, e in of(r, E.ParameterString)]
            if com != ["hello from the VT_ API"]:
                fail("rank %d: comments %s" % (r, com))
            # VT_registernamed("main") on the main thread names its location.
            if locnames.get(r) != "main":
                fail("rank %d: main thread's location is named %r, not 'main'"
                     % (r, locnames.get(r)))
    elif group == "misuse":
        for r in ranks:
            if vals[r].get("misuse_done") != 1:
                fail("rank %d did not finish" % r)
            bad = [e.region.name for _, e in of(r, E.Enter) if e.region.name in ("ok", "x", "early", "late")]
            if bad:
                fail("rank %d: misused calls left events %s" % (r, bad))
    else:
        fail("unknown group " + group)


main()
if failures:
    print("check_vt: %d problems" % len(failures), file=sys.stderr)
    sys.exit(1)
print("check_vt: ok")
