"""The wait states that a trace of tests/report/waits.c implies, computed
here from the trace's own timestamps with the definitions of docs/report.md
(a second, independent implementation for check_waits.py): the expected
values follow from what was recorded, not from the program's sleeps, so
they hold however the machine's load stretched or shrank the waiting.

waits(anchor) -> (totals, per_rank, per_function): {pattern id: ns},
{rank: {pattern id: ns}}, {(MPI function, pattern id): ns}. Only what
waits.c does: one thread per rank, everything on MPI_COMM_WORLD (world
ranks are communicator ranks), blocking point-to-point and collectives.
Must run with /usr/bin/python3 (python3-otf2).
"""
import collections
import sys

import otf2

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/tests/trace")
from otf2_check import Failures  # noqa: E402,F401  (fixes python3-otf2's InterComm)

RECV = {"MPI_Recv", "MPI_Mrecv"}
SEND = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend"}
BARRIER = {"MPI_Barrier"}
NXN = {"MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
       "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block"}
ONE_TO_N = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv"}
N_TO_ONE = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv"}


def waits(anchor):
    calls = collections.defaultdict(list)  # rank -> [call]
    with otf2.reader.open(anchor) as trace:
        open_call = {}
        for loc, ev in trace.events:
            rank = int(loc._ref) & 0xffffffff
            name = type(ev).__name__
            if name == "Enter" and ev.region.name.startswith("MPI_"):
                open_call[rank] = {"fn": ev.region.name, "enter": ev.time, "leave": None,
                                   "sends": [], "recvs": [], "root": None}
            elif name == "Leave" and rank in open_call and ev.region.name == open_call[rank]["fn"]:
                c = open_call.pop(rank)
                c["leave"] = ev.time
                calls[rank].append(c)
            elif name == "MpiSend" and rank in open_call:
                open_call[rank]["sends"].append((ev.receiver, ev.msg_tag))
            elif name == "MpiRecv" and rank in open_call:
                open_call[rank]["recvs"].append((ev.sender, ev.msg_tag))
            elif name == "MpiCollectiveEnd" and rank in open_call:
                root = ev.root
                open_call[rank]["root"] = None if root is None or root >= 2**31 else int(root)
    total = collections.Counter()
    per_rank = collections.defaultdict(collections.Counter)
    per_fn = collections.Counter()

    def add(rank, pid, ns, fn):
        if ns > 0:
            total[pid] += ns
            per_rank[rank][pid] += ns
            per_fn[(fn, pid)] += ns

    # Messages: the k-th send on a channel with the k-th receive on it.
    chan_send = collections.defaultdict(list)
    chan_recv = collections.defaultdict(list)
    for rank, cs in calls.items():
        for i, c in enumerate(cs):
            for dst, tag in c["sends"]:
                chan_send[(rank, dst, tag)].append((rank, i))
            for src, tag in c["recvs"]:
                chan_recv[(src, rank, tag)].append((rank, i))
    partner = {}  # (rank, call index, 's' | 'r') -> the other end's call
    for ch, ss in chan_send.items():
        for s, r in zip(ss, chan_recv.get(ch, [])):
            partner[(s, "s")] = calls[r[0]][r[1]]
            partner[(r, "r")] = calls[s[0]][s[1]]
    for rank, cs in calls.items():
        for i, c in enumerate(cs):
            if c["fn"] in RECV and (((rank, i), "r") in partner):
                s = partner[((rank, i), "r")]
                wait = min(s["enter"], c["leave"]) - c["enter"]
                add(rank, "late_sender", wait, c["fn"])
                later = any(((rank, j), "r") in partner and
                            partner[((rank, j), "r")]["enter"] < c["enter"]
                            for j in range(i + 1, len(cs)))
                if later:
                    add(rank, "late_sender_wrong_order", wait, c["fn"])
            if c["fn"] in SEND and (((rank, i), "s") in partner):
                r = partner[((rank, i), "s")]
                add(rank, "late_receiver", min(r["enter"], c["leave"]) - c["enter"], c["fn"])
    # Collectives: the k-th call of a kind on each rank is one instance.
    inst = collections.defaultdict(dict)  # (fn, k) -> rank -> call
    seen = collections.defaultdict(collections.Counter)
    for rank, cs in calls.items():
        for c in cs:
            if c["fn"] in BARRIER | NXN | ONE_TO_N | N_TO_ONE:
                k = seen[rank][c["fn"]]
                seen[rank][c["fn"]] += 1
                inst[(c["fn"], k)][rank] = c
    for (fn, _), members in inst.items():
        if fn in BARRIER or fn in NXN:
            last = max(c["enter"] for c in members.values())
            for rank, c in members.items():
                add(rank, "wait_barrier" if fn in BARRIER else "wait_nxn",
                    min(last, c["leave"]) - c["enter"], fn)
        else:
            root = next((c["root"] for c in members.values() if c["root"] is not None), 0)
            if root not in members:
                continue
            rc = members[root]
            if fn in ONE_TO_N:
                for rank, c in members.items():
                    if rank != root:
                        add(rank, "late_broadcast", min(rc["enter"], c["leave"]) - c["enter"], fn)
            else:
                others = [c["enter"] for rank, c in members.items() if rank != root]
                if others:
                    add(root, "early_reduce", min(min(others), rc["leave"]) - rc["enter"], fn)
    return total, per_rank, per_fn
