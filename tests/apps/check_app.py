#!/usr/bin/python3
"""Checks one application run under mpiscope against the call counter
(tests/apps/counter), which saw the same calls without any help from
mpiscope.

    check_app.py counts   OUT CTR COVERAGE [KNOWN FLAVOR APP]
    check_app.py trace    OUT CTR COVERAGE [KNOWN FLAVOR APP]
    check_app.py findings OUT FINDINGS FLAVOR APP CTR COVERAGE [EXACT]

OUT is the run's MPISCOPE_OUTPUT, CTR the counter's directory (counts.<rank>:
"<name> <phase> <count>", phase 1 = between MPI_Init and MPI_Finalize), and
COVERAGE the build's gen/<mpi>/coverage.txt, the documented list of MPI
functions mpiscope does not record (MPI_Wtime, ...).

counts: per MPI function, the calls in profile.json equal the counter's
between MPI_Init and MPI_Finalize, every binding of one function (MPI_Send,
mpi_send_, MPI_SEND, mpi_send_f08, ...) added up; per rank, profile.json's
per_rank calls equal the rank's counted calls. A function the counter saw
that coverage.txt says is skipped is listed, not compared.

trace: the OTF2 archive is complete and valid (timestamps never decrease on
a location, Enter/Leave nest, every send matched by one receive of the same
length by communicator, sender, receiver and tag, in order, no receive
ending before its send began beyond the archive's stated clock error,
nonblocking requests completed, every member of a communicator records the
same collectives) and, per rank, its Enter events per MPI region equal the
counter's calls.

KNOWN (tests/apps/known-mpiscope-bugs.txt) lists the differences that are
known bugs of mpiscope, not of the application: "<flavor> <app> <function>
<calls per rank the counter sees and mpiscope does not> <what>". Exactly
that difference is accepted, and said loudly; any other is a failure.

findings: every finding of checks.json is triaged for this application in
FINDINGS (lines "<flavor|*> <app> <class> <call> <verdict>", verdict
app-bug or mpiscope-false-positive; docs/apps.md gives the evidence for
each); untriaged findings fail, triaged ones are listed with their verdict.
Communicator leaks are also held against the counter: per rank, no more
LOCAL:LEAK:COMM findings than communicators made (MPI_Comm_split, _dup,
_create, Cart_create, ...) and not freed (MPI_Comm_free), and exactly as
many when every constructor gives a communicator (EXACT given: the
application sets app_comms_real=1; a constructor may also give
MPI_COMM_NULL, which the counter cannot see).
"""
import collections
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "trace"))

fail = []


def problem(msg):
    fail.append(msg)
    if len(fail) <= 30:
        print(f"check_app: {msg}", file=sys.stderr)


def coverage(path):
    """C name of every function in coverage.txt (lower case -> name), and the
    skipped ones."""
    names, skipped = {}, set()
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[0].startswith("MPI_") and p[1] in ("wrapped", "skipped"):
                names[p[0].lower()] = p[0]
                if p[1] == "skipped":
                    skipped.add(p[0])
    return names, skipped


def c_name(sym, names):
    """mpi_send_, MPI_SEND, mpi_send_f08, pmpi-free MPI_Send -> MPI_Send."""
    b = re.sub(r"_f08(ts)?$", "", sym.lower().rstrip("_"))
    return names.get(b, sym)


def known_bugs(argv):
    """{function: calls per rank mpiscope misses} for this flavor and app."""
    known = {}
    if len(argv) == 3:
        path, flavor, app = argv
        with open(path) as f:
            for line in f:
                p = line.split("#", 1)[0].split(None, 4)
                if len(p) == 5 and p[0] == flavor and p[1] == app:
                    known[p[2]] = int(p[3])
                    print(f"check_app: KNOWN MPISCOPE BUG accepted: {p[2]}: {p[3]} calls per rank "
                          f"not recorded: {p[4].strip()}")
    return known


def counted(ctr, names):
    """{rank: Counter(C name -> calls between MPI_Init and MPI_Finalize)}."""
    per = {}
    for path in glob.glob(os.path.join(ctr, "counts.*")):
        rank = int(path.rsplit(".", 1)[1])
        c = collections.Counter()
        with open(path) as f:
            for line in f:
                sym, phase, n = line.split()
                if phase == "1":
                    c[c_name(sym, names)] += int(n)
        per[rank] = c
    if not per:
        problem(f"the counter wrote nothing in {ctr}")
    return per


def check_counts(out, ctr, cov, *known):
    names, skipped = coverage(cov)
    per = counted(ctr, names)
    known = known_bugs(known)
    for c in per.values():
        for fn, d in known.items():
            c[fn] -= d
    with open(os.path.join(out, "profile.json")) as f:
        prof = json.load(f)
    if prof.get("world_size") != len(per):
        problem(f"profile.json has world_size {prof.get('world_size')}, the counter saw {len(per)} ranks")
    total = collections.Counter()
    for c in per.values():
        total.update(c)
    got = {fn["name"]: fn["calls"] for fn in prof["functions"]}
    for name in sorted(set(total) | set(got)):
        if name in skipped:
            if name in got:
                problem(f"{name} is in the profile although coverage.txt says it is skipped")
            continue
        if got.get(name, 0) != total.get(name, 0):
            problem(f"{name}: {got.get(name, 0)} calls in the profile, {total.get(name, 0)} counted")
    for r in prof.get("per_rank", []):
        want = sum(n for fn, n in per.get(r["rank"], {}).items() if fn not in skipped)
        if r["calls"] != want:
            problem(f"rank {r['rank']}: {r['calls']} calls in the profile's per_rank, {want} counted")
    n = sum(v for k, v in total.items() if k not in skipped)
    left = sorted(k for k in total if k in skipped)
    print(f"check_app: counts: {n} calls counted, {len(got)} functions in the profile, {len(per)} ranks compared"
          + (f"; not recorded by design (coverage.txt): {', '.join(left)}" if left else ""))


def check_trace(out, ctr, cov, *known):
    import otf2
    from check_trace import archive_properties, world_of  # also fixes InterComm reading
    names, skipped = coverage(cov)
    per = counted(ctr, names)
    known = known_bugs(known)
    for c in per.values():
        for fn, d in known.items():
            c[fn] -= d
    anchor = os.path.join(out, "trace", "traces.otf2")
    if not os.path.exists(anchor):
        problem("no archive at " + anchor)
        return
    props = archive_properties(anchor)
    if props.get("MPISCOPE::TRACE_COMPLETE") != "true":
        problem(f"the archive's MPISCOPE::TRACE_COMPLETE is {props.get('MPISCOPE::TRACE_COMPLETE')!r}")
    sync_err = float(props.get("MPISCOPE::CLOCK_SYNC_ERROR_NS", "0"))
    enters = collections.defaultdict(collections.Counter)
    last_t, stacks = {}, collections.defaultdict(list)
    sends, recvs = collections.defaultdict(list), collections.defaultdict(list)
    pending = collections.Counter()
    colls = collections.defaultdict(lambda: collections.defaultdict(list))
    nev = 0
    with otf2.reader.open(anchor) as trace:
        for loc, ev in trace.events:
            nev += 1
            key = int(loc._ref)
            me = key & 0xffffffff
            name = type(ev).__name__
            if key in last_t and ev.time < last_t[key]:
                problem(f"time goes back on location {key}: {ev.time} < {last_t[key]}")
            last_t[key] = ev.time
            if name == "Enter":
                enters[me][ev.region.name] += 1
                stacks[key].append(ev.region.name)
            elif name == "Leave":
                if not stacks[key] or stacks[key][-1] != ev.region.name:
                    problem(f"Leave {ev.region.name} does not match the open region on {key}")
                else:
                    stacks[key].pop()
            elif name in ("MpiSend", "MpiIsend"):
                dst = world_of(ev.communicator, me, ev.receiver)
                sends[(ev.communicator._ref, me, dst, ev.msg_tag)].append((ev.msg_length, ev.time))
                if name == "MpiIsend":
                    pending[("send", key, ev.request_id)] += 1
            elif name in ("MpiRecv", "MpiIrecv"):
                src = world_of(ev.communicator, me, ev.sender)
                recvs[(ev.communicator._ref, src, me, ev.msg_tag)].append((ev.msg_length, ev.time))
                if name == "MpiIrecv":
                    pending[("recv", key, ev.request_id)] -= 1
            elif name == "MpiIrecvRequest":
                pending[("recv", key, ev.request_id)] += 1
            elif name == "MpiIsendComplete":
                pending[("send", key, ev.request_id)] -= 1
            elif name == "MpiRequestCancelled":
                k = ("recv", key, ev.request_id)
                pending[k if pending[k] > 0 else ("send", key, ev.request_id)] -= 1
            elif name == "MpiCollectiveEnd":
                colls[ev.communicator._ref][me].append(str(ev.collective_op))
            elif name == "NonBlockingCollectiveRequest":
                pending[("nbc", key, ev.request_id)] += 1
            elif name == "NonBlockingCollectiveComplete":
                pending[("nbc", key, ev.request_id)] -= 1
                colls[ev.communicator._ref][me].append(str(ev.collective_op))
    for k, st in stacks.items():
        if st:
            problem(f"regions left open on location {k}: {st}")
    nmsg = 0
    for k in set(sends) | set(recvs):
        s, r = sends.get(k, []), recvs.get(k, [])
        if len(s) != len(r):
            problem(f"{len(s)} sends and {len(r)} receives for (comm, src, dst, tag) {k}")
            continue
        nmsg += len(s)
        for (sl, st), (rl, rt) in zip(s, r):
            if sl != rl:
                problem(f"message {k}: sent {sl} bytes, received {rl}")
            if rt + 2 * sync_err < st:
                problem(f"message {k}: received at {rt} before it was sent at {st} "
                        f"(synchronization error bound {sync_err} ns per rank)")
    for k, v in pending.items():
        if v != 0:
            problem(f"request {k}: {v} posts without completion")
    ncoll = 0
    for comm, members in colls.items():
        seqs = list(members.values())
        ncoll += len(seqs[0])
        if any(s != seqs[0] for s in seqs[1:]):
            problem(f"members of communicator {comm} disagree on its collectives")
    if set(enters) != set(per):
        problem(f"events from ranks {sorted(enters)}, the counter saw ranks {sorted(per)}")
    for rank, want in per.items():
        got = enters.get(rank, collections.Counter())
        for fn in sorted(set(want) | set(got)):
            if fn in skipped and fn not in got:
                continue
            if got[fn] != want[fn]:
                problem(f"rank {rank}: {got[fn]} Enter events for {fn}, {want[fn]} calls counted")
    print(f"check_app: trace: {nev} events on {len(last_t)} locations; {nmsg} messages matched, "
          f"{ncoll} collective instances; Enter events compared with the counted calls on {len(per)} ranks")


COMM_MAKERS = ("MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_create", "MPI_Cart_create",
               "MPI_Cart_sub", "MPI_Graph_create", "MPI_Dist_graph_create",
               "MPI_Dist_graph_create_adjacent", "MPI_Comm_split_type", "MPI_Comm_dup_with_info",
               "MPI_Comm_idup", "MPI_Comm_create_group", "MPI_Intercomm_create",
               "MPI_Intercomm_merge")


def check_findings(out, path, flavor, app, ctr, cov, exact=""):
    triaged = {}
    with open(path) as f:
        for line in f:
            p = line.split("#", 1)[0].split()
            if len(p) == 5 and p[1] == app and p[0] in (flavor, "*"):
                triaged[(p[2], p[3])] = p[4]
    with open(os.path.join(out, "checks.json")) as f:
        found = json.load(f)["findings"]
    leaks = collections.Counter()
    for fd in found:
        calls = {s.get("call") for s in fd.get("sites", [])} or {None}
        where = ", ".join(f"{s.get('call')} at {s.get('file')}:{s.get('line')} on rank {s.get('rank')}"
                          for s in fd.get("sites", [])[:4])
        verdict = [triaged[(fd["class"], c)] for c in calls if (fd["class"], c) in triaged]
        if fd["class"] == "LOCAL:LEAK:COMM" and verdict[:1] != ["mpiscope-false-positive"]:
            for r in fd.get("ranks", []):
                leaks[r] += 1
        if verdict:
            note = " -- KNOWN FALSE POSITIVE OF MPISCOPE" if verdict[0] != "app-bug" else ""
            print(f"check_app: triaged finding ({verdict[0]}) {fd['class']} ({where}){note}")
        else:
            problem(f"finding not triaged in {os.path.basename(path)}: {fd['class']} ({where}): "
                    f"{fd.get('explanation', '')[:300]}")
    print(f"check_app: {len(found)} findings")
    names, _ = coverage(cov)
    unfreed = {}
    for rank, c in sorted(counted(ctr, names).items()):
        made = sum(c[m] for m in COMM_MAKERS)
        unfreed[rank] = made - c["MPI_Comm_free"]
        if leaks[rank] > unfreed[rank] or (exact and leaks[rank] != unfreed[rank]):
            problem(f"rank {rank}: {leaks[rank]} communicator leaks found, but {made} "
                    f"communicators made and {c['MPI_Comm_free']} freed (counted)")
    print(f"check_app: communicator leaks per rank {dict(sorted(leaks.items()))}, made and not "
          f"freed (counted) {unfreed}" + (" (must be equal)" if exact else ""))


def main():
    what = sys.argv[1]
    if what == "counts":
        check_counts(*sys.argv[2:8])
    elif what == "trace":
        check_trace(*sys.argv[2:8])
    elif what == "findings":
        check_findings(*sys.argv[2:8])
    else:
        sys.exit(f"check_app.py: unknown check {what}")
    if fail:
        print(f"check_app: {what}: {len(fail)} problems", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
