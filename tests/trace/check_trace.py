#!/usr/bin/python3
"""Checks an mpiscope OTF2 archive with the OTF2 reader (python3-otf2).

    check_trace.py <output dir> [--ranks N] [--flushes] [--skew]

Asserts, for the archive <output dir>/trace/traces.otf2:
- the archive opens and says it is complete;
- per rank, the Enter events per region equal the calls the program counted
  (<output dir>/expect.<rank>, written by tests/trace/expect.h);
- timestamps never decrease on a location; Enter/Leave nest properly;
- every send (MpiSend, MpiIsend) matches exactly one receive (MpiRecv,
  MpiIrecv) by communicator, sender, receiver, tag and length, in order;
  no receive ends before its matching send begins (clock correction), to
  within the synchronization's own error bound, which the archive states
  (property MPISCOPE::CLOCK_SYNC_ERROR_NS: half the shortest round trip of
  the worst-synchronized rank; on a loaded machine it can reach milliseconds);
- every MpiIsend has one MpiIsendComplete and every MpiIrecvRequest one
  MpiIrecv, or a MpiRequestCancelled; every NonBlockingCollectiveRequest one
  NonBlockingCollectiveComplete;
- every member of a communicator records the same sequence of collective
  operations on it (so communicators were unified);
- with --flushes, at least one BufferFlush event is present;
- with --rma (tests/trace/rma.c, 2 ranks): per rank exactly the one-sided
  records that program makes (window creation and destruction, puts, gets,
  atomics with target rank and bytes, blocking completions matched by id,
  fences, locks, PSCW synchronizations, request-based operations completed
  by RmaOpCompleteNonBlocking in the Wait/Test/Waitall that completes them,
  one RmaOpTest per Test that did not, flushes and Win_sync as RmaSync), and
  windows unified across ranks.
- with --fortran (tests/trace/rma_io.f90, 2 ranks): the same for the RMA and
  I/O calls of a Fortran program, and the file named as Fortran gave it.
- with --io (tests/trace/io.c, 2 ranks): per rank exactly the MPI-IO records
  that program makes (handle creation and destruction, every operation's
  mode, collective and nonblocking flags, bytes requested and done, Issued
  for the nonblocking forms, ids matched), one MPI-IO paradigm, one file
  for both ranks and a handle per rank over MPI_COMM_WORLD.
Must run with /usr/bin/python3 (the otf2 module is installed for it).
"""
import collections
import glob
import os
import subprocess
import sys

import otf2
import otf2.definitions as D

from otf2_check import Failures  # (also fixes python3-otf2's InterComm definitions)

fail = failures = Failures("check_trace", shown=29)


def comm_groups(comm):
    """World ranks of the local groups: (A, B) for an intercommunicator."""
    def ranks(g):
        return [m if isinstance(m, int) else int(m._ref) & 0xffffffff for m in g.members]
    if isinstance(comm, D.InterComm):
        return ranks(comm.groupA), ranks(comm.groupB)
    return ranks(comm.group), None


def world_of(comm, me, peer):
    """World rank of `peer` (a rank in `comm`) as seen by world rank `me`."""
    a, b = comm_groups(comm)
    if b is None:
        return a[peer]
    return b[peer] if me in a else a[peer]


def archive_properties(anchor):
    """The anchor file's properties. python3-otf2 does not expose them, so
    they come from `otf2-print -I` (name and value lines in turn)."""
    out = subprocess.run(["otf2-print", "-I", anchor], capture_output=True, text=True).stdout
    props, name = {}, None
    for line in out.splitlines():
        if line.startswith("Property name"):
            name = line.split(None, 2)[2].strip()
        elif line.startswith("Property value") and name:
            props[name] = line.split(None, 2)[2].strip() if len(line.split(None, 2)) > 2 else ""
            name = None
    return props


def win_name(w):
    return w.name if w is not None else None


# What tests/trace/rma.c does on each rank, as (record, window index in
# creation order, target rank, bytes...) tuples in the order of the trace.
LOCK_ALL = 0xffffffff
RMA_EXPECT = {
    0: [("RmaWinCreate", 0), ("RmaWinCreate", 1), ("RmaWinCreate", 2),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaPut", 0, 1, 40), ("RmaOpCompleteBlocking", 0),
        ("RmaGet", 0, 1, 20), ("RmaOpCompleteBlocking", 0),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaAtomic", 0, 1, "ACCUMULATE", 12, 0), ("RmaOpCompleteBlocking", 0),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaAtomic", 0, 1, "FETCH_AND_ACCUMULATE", 8, 8), ("RmaOpCompleteBlocking", 0),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaRequestLock", 1, LOCK_ALL, "SHARED"),
        ("RmaAtomic", 1, 1, "FETCH_AND_ACCUMULATE", 4, 4), ("RmaOpCompleteBlocking", 1),
        ("RmaAtomic", 1, 1, "COMPARE_AND_SWAP", 4, 4), ("RmaOpCompleteBlocking", 1),
        ("RmaReleaseLock", 1, LOCK_ALL),
        ("RmaGroupSync", 2), ("RmaGroupSync", 2),
] + [None] + [
        ("RmaWinDestroy", 2), ("RmaWinDestroy", 1), ("RmaWinDestroy", 0)],
    1: [("RmaWinCreate", 0), ("RmaWinCreate", 1), ("RmaWinCreate", 2),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaAtomic", 0, 0, "ACCUMULATE", 12, 0), ("RmaOpCompleteBlocking", 0),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaAtomic", 0, 0, "FETCH_AND_ACCUMULATE", 8, 8), ("RmaOpCompleteBlocking", 0),
        ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
        ("RmaRequestLock", 1, 0, "EXCLUSIVE"),
        ("RmaPut", 1, 0, 16), ("RmaOpCompleteBlocking", 1),
        ("RmaReleaseLock", 1, 0),
        ("RmaRequestLock", 1, LOCK_ALL, "SHARED"),
        ("RmaAtomic", 1, 0, "FETCH_AND_ACCUMULATE", 4, 4), ("RmaOpCompleteBlocking", 1),
        ("RmaAtomic", 1, 0, "COMPARE_AND_SWAP", 4, 4), ("RmaOpCompleteBlocking", 1),
        ("RmaReleaseLock", 1, LOCK_ALL),
        ("RmaGroupSync", 2),
        ("RmaPut", 2, 0, 16), ("RmaOpCompleteBlocking", 2),
        ("RmaGroupSync", 2)] + [None] + [
        ("RmaWinDestroy", 2), ("RmaWinDestroy", 1), ("RmaWinDestroy", 0)],
}


def _requests(o):
    """The request-based part of rma.c (window 0, target o): completions name
    the operation they complete; RmaOpTest records are checked apart."""
    return [("RmaRequestLock", 0, LOCK_ALL, "SHARED"),
            ("RmaPut", 0, o, 24), ("RmaGet", 0, o, 12),
            ("RmaOpCompleteNonBlocking", 0, "RmaPut"), ("RmaOpCompleteNonBlocking", 0, "RmaGet"),
            ("RmaAtomic", 0, o, "ACCUMULATE", 8, 0),
            ("RmaAtomic", 0, o, "FETCH_AND_ACCUMULATE", 4, 4),
            ("RmaSync", 0, o, "MEMORY"), ("RmaSync", 0, o, "MEMORY"),
            ("RmaOpCompleteNonBlocking", 0, "ACCUMULATE"),
            ("RmaOpCompleteNonBlocking", 0, "FETCH_AND_ACCUMULATE"),
            ("RmaSync", 0, LOCK_ALL, "MEMORY"), ("RmaSync", 0, LOCK_ALL, "MEMORY"),
            ("RmaSync", 0, LOCK_ALL, "MEMORY"),
            ("RmaReleaseLock", 0, LOCK_ALL)]


for _r in (0, 1):
    _i = RMA_EXPECT[_r].index(None)
    RMA_EXPECT[_r][_i:_i + 1] = _requests(1 - _r)


def _fortran_rma(o):
    """What tests/trace/rma_io.f90 does on window 0 (target o)."""
    return [("RmaWinCreate", 0),
            ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
            ("RmaPut", 0, o, 16), ("RmaOpCompleteBlocking", 0),
            ("RmaGet", 0, o, 8), ("RmaOpCompleteBlocking", 0),
            ("RmaCollectiveBegin",), ("RmaCollectiveEnd", 0),
            ("RmaRequestLock", 0, o, "SHARED"),
            ("RmaPut", 0, o, 12), ("RmaSync", 0, o, "MEMORY"),
            ("RmaOpCompleteNonBlocking", 0, "RmaPut"),
            ("RmaReleaseLock", 0, o),
            ("RmaWinDestroy", 0)]


FORTRAN_RMA_EXPECT = {r: _fortran_rma(1 - r) for r in (0, 1)}
FORTRAN_IO_EXPECT = [("IoCreateHandle", "READ_WRITE", "CREATE"),
                     ("IoOperationBegin", "WRITE", "", 40), ("IoOperationComplete", 40),
                     ("IoOperationBegin", "READ", "", 40), ("IoOperationComplete", 40),
                     ("IoOperationBegin", "WRITE", "N", 20), ("IoOperationIssued",),
                     ("IoOperationComplete", 20),
                     ("IoOperationBegin", "WRITE", "C", 8), ("IoOperationComplete", 8),
                     ("IoDestroyHandle",)]
RMA_OUT = None  # the output directory (rmatests.<rank>: the program's failed Tests)


def check_rma(rma, expect=None):
    """rma: rank -> list of RMA events in order. Windows are named by their
    index in the rank's creation order; the global definitions must agree."""
    created = {}
    for rank, evs in rma.items():
        created[rank] = [ev.win for ev in evs if type(ev).__name__ == "RmaWinCreate"]
    if len(created) != 2:
        fail(f"RMA records on ranks {sorted(created)}, expected ranks 0 and 1")
        return
    if created[0] != created[1]:
        fail(f"windows not unified: rank 0 created {[win_name(w) for w in created[0]]}, "
             f"rank 1 {[win_name(w) for w in created[1]]}")
    if len(set(w._ref for w in created[0])) != len(created[0]):
        fail("two windows share a definition")
    if len(created[0]) == 3:
        comms = [w.comm for w in created[0]]
        if comms[0].name != "MPI_COMM_WORLD" or comms[1].name != "MPI_COMM_WORLD":
            fail(f"windows 0 and 1 are not over MPI_COMM_WORLD: {[c.name for c in comms]}")
        if comms[2] == comms[0] or sorted(comm_groups(comms[2])[0]) != [0, 1]:
            fail("window 2 is not over the duplicate of the world")
    for rank, evs in rma.items():
        index = {w._ref: i for i, w in enumerate(created[rank])}
        got, ids, what, tests = [], {}, {}, 0
        for ev in evs:
            n = type(ev).__name__
            w = index.get(ev.win._ref, -1) if getattr(ev, "win", None) is not None else None
            if n == "RmaOpTest":
                tests += 1
                if ids.get(ev.matching_id, 0) != 1 or what.get(ev.matching_id) != "RmaGet":
                    fail(f"rank {rank}: RmaOpTest {ev.matching_id} is not of the pending Rget")
                continue
            if n == "RmaOpCompleteNonBlocking":
                got.append((n, w, what.get(ev.matching_id)))
                if ids.get(ev.matching_id, 0) != 1:
                    fail(f"rank {rank}: RmaOpCompleteNonBlocking {ev.matching_id} matches no "
                         "open operation")
                ids[ev.matching_id] = ids.get(ev.matching_id, 0) - 1
                continue
            if n == "RmaSync":
                got.append((n, w, ev.remote, str(ev.sync_type).split(".")[-1]))
                continue
            if n in ("RmaWinCreate", "RmaWinDestroy", "RmaCollectiveEnd", "RmaGroupSync"):
                got.append((n, w))
                if n == "RmaCollectiveEnd" and str(ev.collective_op).split(".")[-1] != "BARRIER":
                    fail(f"rank {rank}: fence as {ev.collective_op}")
            elif n == "RmaCollectiveBegin":
                got.append((n,))
            elif n in ("RmaPut", "RmaGet"):
                got.append((n, w, ev.remote, ev.bytes))
                ids[ev.matching_id] = ids.get(ev.matching_id, 0) + 1
                what[ev.matching_id] = n
            elif n == "RmaAtomic":
                got.append((n, w, ev.remote, str(ev.type).split(".")[-1], ev.bytes_sent,
                            ev.bytes_received))
                ids[ev.matching_id] = ids.get(ev.matching_id, 0) + 1
                what[ev.matching_id] = str(ev.type).split(".")[-1]
            elif n == "RmaOpCompleteBlocking":
                got.append((n, w))
                if ids.get(ev.matching_id, 0) != 1:
                    fail(f"rank {rank}: RmaOpCompleteBlocking {ev.matching_id} matches no open operation")
                ids[ev.matching_id] = ids.get(ev.matching_id, 0) - 1
            elif n == "RmaRequestLock":
                got.append((n, w, ev.remote, str(ev.lock_type).split(".")[-1]))
            elif n == "RmaReleaseLock":
                got.append((n, w, ev.remote))
        want = (expect or RMA_EXPECT).get(rank, [])
        if got != want:
            fail(f"rank {rank}: RMA records differ from the program's calls")
            for i in range(max(len(got), len(want))):
                g = got[i] if i < len(got) else None
                e = want[i] if i < len(want) else None
                if g != e:
                    fail(f"rank {rank}: record {i}: got {g}, expected {e}")
                    break
        for k, v in ids.items():
            if v:
                fail(f"rank {rank}: RMA operation {k} without completion")
        failed = 0
        if expect is None:
            with open(os.path.join(RMA_OUT, f"rmatests.{rank}")) as f:
                failed = int(f.read())
        if tests != failed:
            fail(f"rank {rank}: {tests} RmaOpTest records, {failed} Tests did not complete")


def _io_ops():
    """What tests/trace/io.c does on each rank (both the same)."""
    ops = [("W", "", 40, 40), ("R", "", 40, 40), ("W", "", 48, 48), ("R", "", 48, 48),
           ("W", "C", 20, 20), ("R", "C", 20, 20), ("W", "C", 12, 12), ("R", "C", 12, 12),
           ("W", "N", 28, 28), ("R", "N", 28, 28), ("W", "N", 8, 8), ("R", "N", 8, 8),
           ("R", "", 40, 0)]
    want = [("IoCreateHandle", "READ_WRITE", "CREATE")]
    for mode, flags, req, done in ops:
        want.append(("IoOperationBegin", {"W": "WRITE", "R": "READ"}[mode], flags, req))
        if flags == "N":
            want.append(("IoOperationIssued",))
        want.append(("IoOperationComplete", done))
    want.append(("IoDestroyHandle",))
    return want


IO_EXPECT = _io_ops()


def flag_letters(f):
    v = int(f.value)
    return ("C" if v & 2 else "") + ("N" if v & 1 else "")


def check_io(io, want=None, fname="/io.dat"):
    want = want or IO_EXPECT
    if sorted(io) != [0, 1]:
        fail(f"I/O records on ranks {sorted(io)}, expected ranks 0 and 1")
        return
    handles = {}
    for rank, evs in io.items():
        got, open_ids = [], {}
        for ev in evs:
            n = type(ev).__name__
            handles.setdefault(rank, set()).add(ev.handle)
            if n == "IoCreateHandle":
                got.append((n, str(ev.mode).split(".")[-1], str(ev.creation_flags).split(".")[-1]))
            elif n == "IoDestroyHandle":
                got.append((n,))
            elif n == "IoOperationBegin":
                got.append((n, str(ev.mode).split(".")[-1], flag_letters(ev.operation_flags),
                            ev.bytes_request))
                if ev.matching_id in open_ids:
                    fail(f"rank {rank}: I/O matching id {ev.matching_id} reused while open")
                open_ids[ev.matching_id] = "begun"
            elif n == "IoOperationIssued":
                got.append((n,))
                if open_ids.get(ev.matching_id) != "begun":
                    fail(f"rank {rank}: IoOperationIssued {ev.matching_id} without Begin")
                open_ids[ev.matching_id] = "issued"
            elif n == "IoOperationComplete":
                got.append((n, ev.bytes_result))
                if ev.matching_id not in open_ids:
                    fail(f"rank {rank}: IoOperationComplete {ev.matching_id} without Begin")
                open_ids.pop(ev.matching_id, None)
        if open_ids:
            fail(f"rank {rank}: I/O operations never completed: {open_ids}")
        if got != want:
            fail(f"rank {rank}: I/O records differ from the program's calls")
            for i in range(max(len(got), len(want))):
                g = got[i] if i < len(got) else None
                e = want[i] if i < len(want) else None
                if g != e:
                    fail(f"rank {rank}: record {i}: got {g}, expected {e}")
                    break
    h0, h1 = handles.get(0, set()), handles.get(1, set())
    if len(h0) != 1 or len(h1) != 1 or h0 == h1:
        fail(f"expected one handle per rank, distinct: {h0} {h1}")
        return
    a, b = next(iter(h0)), next(iter(h1))
    if a.file != b.file or not a.file.name.endswith(fname):
        fail(f"the ranks' handles are not on one file {fname}: {a.file.name} {b.file.name}")
    for h in (a, b):
        if h.comm is None or h.comm.name != "MPI_COMM_WORLD":
            fail(f"handle {h.name} is not over MPI_COMM_WORLD")
        if h.io_paradigm.name != "MPI-IO" or str(h.io_paradigm.io_paradigm_class).split(".")[-1] != "PARALLEL":
            fail(f"handle {h.name}: paradigm {h.io_paradigm}")


def main():
    out = sys.argv[1]
    want_flush = "--flushes" in sys.argv
    want_rma = "--rma" in sys.argv
    want_io = "--io" in sys.argv
    fortran = "--fortran" in sys.argv  # tests/trace/rma_io.f90: RMA and I/O from Fortran
    want_rma = want_rma or fortran
    anchor = os.path.join(out, "trace", "traces.otf2")
    if not os.path.exists(anchor):
        fail("no archive at " + anchor)
        return
    expect = {}
    for path in glob.glob(os.path.join(out, "expect.*")):
        rank = int(path.rsplit(".", 1)[1])
        with open(path) as f:
            expect[rank] = {l.split()[0]: int(l.split()[1]) for l in f if l.strip()}
    props = archive_properties(anchor)
    if "MPISCOPE::TRACE_COMPLETE" not in props:
        fail("the archive has no MPISCOPE::TRACE_COMPLETE property")
    sync_err = float(props.get("MPISCOPE::CLOCK_SYNC_ERROR_NS", "0"))
    with otf2.reader.open(anchor) as trace:
        enters = collections.defaultdict(collections.Counter)
        last_t = {}
        stacks = collections.defaultdict(list)
        sends = collections.defaultdict(list)   # (comm, src, dst, tag) -> [(len, t)]
        recvs = collections.defaultdict(list)
        isend, irecv, nbc = {}, {}, {}
        colls = collections.defaultdict(lambda: collections.defaultdict(list))
        flushes = 0
        nev = 0
        rma = collections.defaultdict(list)
        io = collections.defaultdict(list)
        for loc, ev in trace.events:
            nev += 1
            me = int(loc._ref) & 0xffffffff
            key = int(loc._ref)
            name = type(ev).__name__
            if key in last_t and ev.time < last_t[key]:
                fail(f"time goes back on location {key}: {ev.time} < {last_t[key]}")
            last_t[key] = ev.time
            if name == "Enter":
                enters[me][ev.region.name] += 1
                stacks[key].append(ev.region.name)
            elif name == "Leave":
                if not stacks[key] or stacks[key][-1] != ev.region.name:
                    fail(f"Leave {ev.region.name} does not match the open region on {key}")
                else:
                    stacks[key].pop()
            elif name in ("MpiSend", "MpiIsend"):
                dst = world_of(ev.communicator, me, ev.receiver)
                sends[(ev.communicator._ref, me, dst, ev.msg_tag)].append((ev.msg_length, ev.time))
                if name == "MpiIsend":
                    isend[(key, ev.request_id)] = isend.get((key, ev.request_id), 0) + 1
            elif name in ("MpiRecv", "MpiIrecv"):
                src = world_of(ev.communicator, me, ev.sender)
                recvs[(ev.communicator._ref, src, me, ev.msg_tag)].append((ev.msg_length, ev.time))
                if name == "MpiIrecv":
                    if irecv.get((key, ev.request_id), 0) < 1:
                        fail(f"MpiIrecv without request on {key}: {ev.request_id}")
                    irecv[(key, ev.request_id)] = irecv.get((key, ev.request_id), 0) - 1
            elif name == "MpiIrecvRequest":
                irecv[(key, ev.request_id)] = irecv.get((key, ev.request_id), 0) + 1
            elif name == "MpiIsendComplete":
                isend[(key, ev.request_id)] = isend.get((key, ev.request_id), 0) - 1
            elif name == "MpiRequestCancelled":
                if irecv.get((key, ev.request_id), 0) > 0:
                    irecv[(key, ev.request_id)] -= 1
                else:
                    isend[(key, ev.request_id)] = isend.get((key, ev.request_id), 0) - 1
            elif name == "MpiCollectiveEnd":
                colls[ev.communicator._ref][me].append((str(ev.collective_op), ev.root))
            elif name == "NonBlockingCollectiveRequest":
                nbc[(key, ev.request_id)] = nbc.get((key, ev.request_id), 0) + 1
            elif name == "NonBlockingCollectiveComplete":
                nbc[(key, ev.request_id)] = nbc.get((key, ev.request_id), 0) - 1
                colls[ev.communicator._ref][me].append((str(ev.collective_op), ev.root))
            elif name == "BufferFlush":
                flushes += 1
            elif name.startswith("Rma"):
                rma[me].append(ev)
            elif name.startswith("Io"):
                io[me].append(ev)
        print(f"check_trace: {nev} events, {len(last_t)} locations, {flushes} flushes")

        for k, st in stacks.items():
            if st:
                fail(f"regions left open on {k}: {st}")
        for rank, want in expect.items():
            got = enters.get(rank, collections.Counter())
            for fn, n in want.items():
                if got[fn] != n:
                    fail(f"rank {rank}: {got[fn]} Enter events for {fn}, {n} calls made")
            for fn, n in got.items():
                if fn not in want:
                    fail(f"rank {rank}: {n} Enter events for {fn}, which was not called")
        if set(expect) and set(expect) != set(range(len(expect))):
            fail("expect files are not from ranks 0..n-1")
        for k in set(sends) | set(recvs):
            s, r = sends.get(k, []), recvs.get(k, [])
            if len(s) != len(r):
                fail(f"{len(s)} sends and {len(r)} receives for (comm, src, dst, tag) {k}")
                continue
            for (sl, st), (rl, rt) in zip(s, r):
                if sl != rl:
                    fail(f"message {k}: sent {sl} bytes, received {rl}")
                if rt + 2 * sync_err < st:
                    fail(f"message {k}: received at {rt} before it was sent at {st} "
                         f"(synchronization error bound {sync_err} ns per rank)")
        for what, tab in (("MpiIsend", isend), ("MpiIrecvRequest", irecv), ("nonblocking collective", nbc)):
            for k, v in tab.items():
                if v != 0:
                    fail(f"{what} {k}: {v} posts without completion")
        for comm, per in colls.items():
            seqs = list(per.values())
            for s in seqs[1:]:
                if [op for op, _ in s] != [op for op, _ in seqs[0]]:
                    fail(f"members of communicator {comm} disagree on its collectives")
                    break
        if want_flush and flushes == 0:
            fail("no BufferFlush event although the buffer was small")
        if want_rma:
            global RMA_OUT
            RMA_OUT = out
            check_rma(rma, FORTRAN_RMA_EXPECT if fortran else None)
        elif rma:
            fail(f"RMA records in a program without one-sided calls: {dict(rma)}")
        if fortran:
            check_io(io, FORTRAN_IO_EXPECT, "/fortran.dat")
        elif want_io:
            check_io(io)
        elif io:
            fail(f"I/O records in a program without MPI-IO calls: {dict(io)}")
        if not sends and expect and not want_rma and not want_io:
            fail("no messages in the trace")
        if props.get("MPISCOPE::TRACE_COMPLETE") == "false":
            fail("the archive says it is incomplete")


if __name__ == "__main__":
    main()
    if failures:
        print(f"check_trace: {len(failures)} problems", file=sys.stderr)
        sys.exit(1)
    print("check_trace: ok")
