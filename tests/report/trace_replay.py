"""The ideal-network replay that a trace of tests/report/planted.c implies,
computed here from the trace's own timestamps with the model of
docs/analysis.md ("Replay"): a second, independent implementation for
check_planted.py. The expected ideal run time follows from what was
recorded (each rank's computation between its MPI calls, as long as it
really took), not from the program's sleeps, so it holds however the
machine's load stretched them or delayed the messages.

The model: every rank starts at its first Enter and keeps the length of its
computation between calls; an MPI call takes no time of its own; a send
posts its message when entered; a call that completes receives leaves when
each message was posted (no latency, infinite bandwidth); Barrier and the
N x N collectives leave when the last member entered, a 1-to-N member when
the root entered, an N-to-1 root when every member entered (the others at
once). Messages match in order per (sender, receiver, tag), collectives are
the k-th of their kind on each rank. Only what planted.c does: one thread
per rank, everything on MPI_COMM_WORLD.

replay(anchor) -> dict with runtime_ns, ideal_ns (both from the first Enter
of any rank), useful_max_ns, late_deliveries (receives that completed more
than 2 ms after both the receive and its message's send were entered).
Must run with /usr/bin/python3 (python3-otf2).
"""
import collections
import sys

import otf2

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/tests/trace")
from otf2_check import Failures  # noqa: E402,F401  (fixes python3-otf2's InterComm)

BARRIER_NXN = {"MPI_Barrier", "MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv",
               "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter",
               "MPI_Reduce_scatter_block"}
ONE_TO_N = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv"}
N_TO_ONE = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv"}


def read(anchor):
    """Per rank: its first Enter, last Leave and MPI calls in order."""
    ranks = {}
    with otf2.reader.open(anchor) as trace:
        res = trace.definitions.clock_properties.timer_resolution
        for loc, ev in trace.events:
            rank = int(loc._ref) & 0xffffffff
            r = ranks.setdefault(rank, {"first": None, "last": None, "calls": [], "open": None})
            name = type(ev).__name__
            if name == "Enter":
                if r["first"] is None or ev.time < r["first"]:
                    r["first"] = ev.time
                if ev.region.name.startswith("MPI_") and r["open"] is None:
                    r["open"] = {"fn": ev.region.name, "enter": ev.time, "leave": None,
                                 "sends": [], "recvs": [], "root": None, "coll": False}
            elif name == "Leave":
                if r["last"] is None or ev.time > r["last"]:
                    r["last"] = ev.time
                c = r["open"]
                if c is not None and ev.region.name == c["fn"]:
                    c["leave"] = ev.time
                    r["calls"].append(c)
                    r["open"] = None
            elif r["open"] is not None and name in ("MpiSend", "MpiIsend"):
                r["open"]["sends"].append((ev.receiver, ev.msg_tag))
            elif r["open"] is not None and name in ("MpiRecv", "MpiIrecv"):
                r["open"]["recvs"].append((ev.sender, ev.msg_tag))
            elif r["open"] is not None and name == "MpiCollectiveEnd":
                r["open"]["coll"] = True
                root = ev.root
                r["open"]["root"] = None if root is None or root >= 2**31 else int(root)
    return res, ranks


def replay(anchor):
    res, ranks = read(anchor)
    ns = lambda ticks: ticks * 1e9 / res  # noqa: E731
    # Messages: the k-th send of a channel goes with its k-th receive.
    seq = collections.Counter()
    send_key = {}  # (rank, call, j) -> channel key
    for rank, r in ranks.items():
        for i, c in enumerate(r["calls"]):
            for j, (dst, tag) in enumerate(c["sends"]):
                ch = (rank, dst, tag)
                send_key[(rank, i, j)] = ch + (seq[ch],)
                seq[ch] += 1
    rseq = collections.Counter()
    recv_key = {}
    for rank, r in ranks.items():
        for i, c in enumerate(r["calls"]):
            for j, (src, tag) in enumerate(c["recvs"]):
                ch = (src, rank, tag)
                recv_key[(rank, i, j)] = ch + (rseq[ch],)
                rseq[ch] += 1
    # Collectives: the k-th of a kind on each rank is one instance.
    inst_of = {}
    members = collections.defaultdict(set)
    kinds = collections.defaultdict(collections.Counter)
    for rank, r in ranks.items():
        for i, c in enumerate(r["calls"]):
            if c["coll"]:
                k = kinds[rank][c["fn"]]
                kinds[rank][c["fn"]] += 1
                inst_of[(rank, i)] = (c["fn"], k)
                members[(c["fn"], k)].add(rank)

    # Late deliveries, from the recorded times (for the caller's judgement).
    send_enter = {}
    for (rank, i, j), key in send_key.items():
        send_enter[key] = ranks[rank]["calls"][i]["enter"]
    late = 0
    for (rank, i, j), key in recv_key.items():
        c = ranks[rank]["calls"][i]
        if key in send_enter:
            ready = max(c["enter"], send_enter[key])
            if c["leave"] > ready and ns(c["leave"] - ready) > 2e6:
                late += 1

    post = {}       # channel key -> replayed post time
    entered = {}    # (instance) -> {rank: replayed enter}
    state = {rank: {"k": 0, "t": r["first"], "enter": None} for rank, r in ranks.items()}
    progress = True
    while progress:
        progress = False
        for rank, r in ranks.items():
            s = state[rank]
            cs = r["calls"]
            while s["k"] < len(cs):
                i, c = s["k"], cs[s["k"]]
                if s["enter"] is None:
                    prev = cs[i - 1]["leave"] if i else r["first"]
                    s["enter"] = s["t"] + (c["enter"] - prev)
                    for j in range(len(c["sends"])):
                        post[send_key[(rank, i, j)]] = s["enter"]
                    if (rank, i) in inst_of:
                        entered.setdefault(inst_of[(rank, i)], {})[rank] = s["enter"]
                    progress = True
                leave = s["enter"]
                blocked = False
                for j in range(len(c["recvs"])):
                    key = recv_key[(rank, i, j)]
                    if key not in post:
                        blocked = True
                        break
                    leave = max(leave, post[key])
                if not blocked and (rank, i) in inst_of:
                    inst = inst_of[(rank, i)]
                    got = entered.get(inst, {})
                    fn = c["fn"]
                    root = c["root"] if c["root"] is not None else 0
                    if fn in ONE_TO_N and rank != root:
                        need = [root]
                    elif fn in N_TO_ONE and rank != root:
                        need = []
                    else:
                        need = sorted(members[inst])
                    if any(m not in got for m in need):
                        blocked = True
                    else:
                        for m in need:
                            leave = max(leave, got[m])
                if blocked:
                    break
                s["t"], s["enter"], s["k"] = leave, None, s["k"] + 1
                progress = True
    t0 = min(r["first"] for r in ranks.values())
    ends, useful = [], []
    for rank, r in ranks.items():
        s, cs = state[rank], r["calls"]
        last = cs[-1]["leave"] if cs else r["first"]
        end = max(r["last"], last)
        ends.append(s["t"] + (end - last) if s["k"] == len(cs) else None)
        u, prev = 0, r["first"]
        for c in cs:
            u += max(0, c["enter"] - prev)
            prev = c["leave"]
        useful.append(u + max(0, end - prev))
    if any(e is None for e in ends):
        raise SystemExit("trace_replay: a rank's replay waits for ever (unmatched message)")
    real_end = max(max(r["last"], r["calls"][-1]["leave"] if r["calls"] else r["first"])
                   for r in ranks.values())
    return {"runtime_ns": ns(real_end - t0), "ideal_ns": ns(max(ends) - t0),
            "useful_max_ns": ns(max(useful)), "late_deliveries": late}
