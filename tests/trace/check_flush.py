#!/usr/bin/python3
"""Checks that a flush on request put the events on disk (tests/trace/flush_now.c).

    check_flush.py <output dir> pcontrol|vt|thread

For each copy snap<k>/<rank>.evt that the program took right after its k-th
flush (MPI_Pcontrol(2) or VT_flush), the copy is read with the final
archive's definitions in place of <rank>.evt and must hold exactly the
final trace's events of that location up to the flush call: the same
records with the same times, 10*k*(k+1)/2 MpiSend and k Allreduce, and the
next event of the final trace is the Enter of the MPI_Barrier after the
copy (MPI_Pcontrol itself has no records). The final archive is complete, holds
no .flushed file and every location's event count in the definitions is
the number of its events. With "thread", the copy snapT/<loc>.evt of a
second thread's location, taken after that thread's first MPI call since the
main thread's MPI_Pcontrol(2), must hold exactly its 7 earlier
MPI_Comm_rank calls, and the final trace go on with its MPI_Comm_size.
Must run with /usr/bin/python3 (python3-otf2).
"""
import glob
import os
import shutil
import sys
import tempfile

import otf2

from otf2_check import Failures

fail = failures = Failures("check_flush")


def describe(ev):
    """An event as a comparable tuple: type, time and its fields."""
    name = type(ev).__name__
    fields = []
    for k in ("region", "receiver", "sender", "communicator", "msg_tag", "msg_length",
              "collective_op", "root", "size_sent", "size_received", "mode"):
        v = getattr(ev, k, None)
        if v is None:
            continue
        fields.append((k, getattr(v, "name", v) if not isinstance(v, int) else v))
    return (name, ev.time, tuple(str(f) for f in fields))


def read(anchor):
    """Events per location (world rank of the main thread), and the
    location definitions' event counts."""
    per = {}
    counts = {}
    with otf2.reader.open(anchor) as r:
        for loc in r.definitions.locations:
            counts[int(loc._ref)] = loc.number_of_events
        for loc, ev in r.events:
            per.setdefault(int(loc._ref), []).append(ev)
    return per, counts


def region_name(ev):
    reg = getattr(ev, "region", None)
    return reg.name if reg is not None else None


def check_thread(out, trace, final):
    snaps = sorted(glob.glob(os.path.join(out, "snapT", "*.evt")))
    if len(snaps) != 2:
        fail("%d thread snapshots, expected one per rank" % len(snaps))
        return
    tmp = tempfile.mkdtemp()
    try:
        copy = os.path.join(tmp, "trace")
        shutil.copytree(trace, copy)
        for p in snaps:
            shutil.copyfile(p, os.path.join(copy, "traces", os.path.basename(p)))
        snap, _ = read(os.path.join(copy, "traces.otf2"))
    finally:
        shutil.rmtree(tmp)
    for p in snaps:
        loc = int(os.path.basename(p).split(".")[0])
        if loc >> 32 == 0:
            fail("snapshot %s is not of a second thread" % p)
            continue
        got, full = snap.get(loc, []), final.get(loc, [])
        n = len(got)
        if [describe(e) for e in got] != [describe(e) for e in full[:n]]:
            fail("location %x: its %d flushed events are not the final trace's first" % (loc, n))
            continue
        ranks = sum(1 for e in got if type(e).__name__ == "Enter"
                    and region_name(e) == "MPI_Comm_rank")
        nxt = full[n] if n < len(full) else None
        if n != 14 or ranks != 7:
            fail("location %x: %d events, %d MPI_Comm_rank, expected 14 and 7" % (loc, n, ranks))
        if nxt is None or type(nxt).__name__ != "Enter" or region_name(nxt) != "MPI_Comm_size":
            fail("location %x: the final trace goes on with %s" % (loc, nxt and describe(nxt)))
        print("thread: location %x: %d events on disk after its flush, of %d" % (loc, n, len(full)))


def main():
    out, how = sys.argv[1], sys.argv[2]
    trace = os.path.join(out, "trace")
    left = glob.glob(os.path.join(trace, "traces", "*.flushed"))
    if left:
        fail("files left behind: %s" % left)
    final, counts = read(os.path.join(trace, "traces.otf2"))
    for loc, evs in final.items():
        if counts.get(loc) != len(evs):
            fail("location %d: definition says %s events, the file has %d"
                 % (loc, counts.get(loc), len(evs)))
    if how == "thread":
        check_thread(out, trace, final)
        return
    for k in (1, 2):
        tmp = tempfile.mkdtemp()
        try:
            copy = os.path.join(tmp, "trace")
            shutil.copytree(trace, copy)
            for rank in (0, 1):
                shutil.copyfile(os.path.join(out, "snap%d" % k, "%d.evt" % rank),
                                os.path.join(copy, "traces", "%d.evt" % rank))
            snap, _ = read(os.path.join(copy, "traces.otf2"))
        finally:
            shutil.rmtree(tmp)
        for rank in (0, 1):
            got = snap.get(rank, [])
            full = final.get(rank, [])
            n = len(got)
            if [describe(e) for e in got] != [describe(e) for e in full[:n]]:
                fail("snapshot %d rank %d: its %d events are not the final trace's first %d"
                     % (k, rank, n, n))
                continue
            sends = sum(1 for e in got if type(e).__name__ == "MpiSend")
            allred = sum(1 for e in got if type(e).__name__ == "Enter"
                         and region_name(e) == "MPI_Allreduce")
            if sends != 10 * k * (k + 1) // 2 or allred != k:
                fail("snapshot %d rank %d: %d MpiSend and %d Allreduce, expected %d and %d"
                     % (k, rank, sends, allred, 10 * k * (k + 1) // 2, k))
            want = "MPI_Barrier"  # (MPI_Pcontrol itself has no records)
            nxt = full[n] if n < len(full) else None
            if nxt is None or type(nxt).__name__ != "Enter" or region_name(nxt) != want:
                fail("snapshot %d rank %d: the next event of the final trace is %s, expected "
                     "Enter %s" % (k, rank, describe(nxt) if nxt else None, want))
            print("%s: snapshot %d rank %d: %d events on disk at the flush (%d MpiSend, %d "
                  "Allreduce), of %d in the end" % (how, k, rank, n, sends, allred, len(full)))
    if failures:
        sys.exit(1)


main()
