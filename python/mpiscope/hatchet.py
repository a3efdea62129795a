"""Converters to LLNL's Hatchet (a GraphFrame of one run's call paths) and
Thicket (several runs). Both are imported only when called: the package
itself needs pandas alone.

The tree is built from profile.json's call sites with the paths of
mpiscope.stacks: one node per frame (by symbol name) and a leaf per MPI
function under the frame that called it; stacks cut at the recorded depth
hang under one root named ``[cut at depth N]``. Metrics per node:

========== ==========================================================
time       MPI time of the calls made at this node (leaves only), ns
time (inc) MPI time of the calls in this node's subtree, ns
calls      calls made at this node (leaves), calls (inc) the subtree's
bytes_sent bytes sent at this node (leaves), bytes_sent (inc) subtree
bytes_recv bytes received, likewise
========== ==========================================================

Only MPI time is measured: a frame's exclusive time is 0, and its
inclusive time is the MPI time below it, not its run time.
"""

from . import stacks

_EXC = ("time", "calls", "bytes_sent", "bytes_recv")
_SRC = {"time": "time_ns", "calls": "calls", "bytes_sent": "bytes_sent", "bytes_recv": "bytes_recv"}


def _tree(profile):
    """The call tree of a profile as Hatchet's literal format (a list of
    root dicts)."""
    depth = profile.get("callsite_depth", 0)
    roots = {}
    for site in profile.get("callsites", []):
        path = stacks.site_path(site, depth)
        level = roots
        node = None
        for i, name in enumerate(path):
            if name not in level:
                leaf = i == len(path) - 1
                kind = "function"
                if leaf:
                    kind = "mpi"
                elif name.startswith("[cut at depth"):
                    kind = "cut"
                level[name] = {"name": name, "type": kind, "exc": dict.fromkeys(_EXC, 0),
                               "children": {}}
            node = level[name]
            level = node["children"]
        for m in _EXC:
            node["exc"][m] += site[_SRC[m]]

    def literal(node):
        children = [literal(c) for c in node["children"].values()]
        metrics = dict(node["exc"])
        for m in _EXC:
            metrics[m + " (inc)"] = node["exc"][m] + sum(c["metrics"][m + " (inc)"] for c in children)
        out = {"frame": {"name": node["name"], "type": node["type"]}, "metrics": metrics}
        if children:
            out["children"] = children
        return out

    return [literal(r) for r in roots.values()]


def graphframe(run):
    """A hatchet.GraphFrame of the run's call paths (``run``: a Run or a run
    directory). Needs MPISCOPE_CALLSITE_DEPTH > 1 for paths longer than one
    frame. ``gf.metadata`` is Run.metadata."""
    import hatchet as ht

    from .run import Run

    if not isinstance(run, Run):
        run = Run(run)
    if not run.profile.get("callsites"):
        raise ValueError("{}: no call sites in profile.json (MPISCOPE_CALLSITE_DEPTH=0?)".format(run.dir))
    gf = ht.GraphFrame.from_literal(_tree(run.profile))
    gf.metadata = run.metadata
    gf.default_metric = "time (inc)"
    return gf


def thicket(runs, names=None):
    """A thicket.Thicket of several runs (Runs, Run objects or run
    directories): the union of their call trees, one profile per run, the
    runs' metadata (ranks, mpi, summary) in ``tk.metadata``. ``names``:
    the profile labels, by default the run directories."""
    from thicket import Thicket

    from .run import Run

    runs = [r if isinstance(r, Run) else Run(r) for r in runs]
    if names is None:
        names = [r.dir for r in runs]
    tks = [Thicket.thicketize_graphframe(graphframe(r), n) for r, n in zip(runs, names)]
    if len(tks) == 1:
        return tks[0]
    return Thicket.concat_thickets(thickets=tks, axis="index", calltree="union", disable_tqdm=True)
