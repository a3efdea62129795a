"""One run's results as pandas DataFrames.

A run directory (what `mpiscope run` wrote, plus what `mpiscope report`
added) holds some of: profile.json, mpit.json, checks.json and, with a
trace, waitstates.json. `Run` reads each file when first asked for a table
that comes from it; a table whose file is absent is an empty DataFrame with
its columns, and `Run.has(name)` says whether the file was there. Columns
and units: docs/python.md. Times are integer nanoseconds (``*_ns``), sizes
integer bytes, as in the files.
"""

import json
import os

import pandas as pd

from . import stacks

PROFILE_SCHEMA = 1

FUNCTION_COLUMNS = [
    "name", "calls", "time_ns", "time_min_ns", "time_max_ns", "bytes_sent", "bytes_recv",
    "ranks", "rank_time_min_ns", "rank_time_min_at", "rank_time_max_ns", "rank_time_max_at",
    "rank_time_mean_ns",
]
CALLSITE_COLUMNS = [
    "function", "path", "depth", "cut", "symbol", "file", "line", "module", "offset",
    "calls", "time_ns", "time_min_ns", "time_max_ns", "bytes_sent", "bytes_recv", "ranks",
    "rank_time_min_ns", "rank_time_min_at", "rank_time_max_ns", "rank_time_max_at",
    "rank_time_mean_ns", "frames",
]
PER_RANK_COLUMNS = ["rank", "host", "wall_ns", "profiled_ns", "mpi_ns", "io_ns", "calls"]
PER_RANK_FUNCTION_COLUMNS = ["rank", "name", "calls", "time_ns", "bytes_sent", "bytes_recv"]
SIZE_COLUMNS = ["function", "bin", "lo", "hi", "count"]
MATRIX_COLUMNS = ["from", "to", "class", "messages", "bytes"]
IO_COLUMNS = [
    "name", "ranks", "opens", "reads_independent", "reads_collective", "writes_independent",
    "writes_collective", "bytes_read", "bytes_written", "read_time_ns", "write_time_ns",
    "meta_time_ns", "time_ns", "read_time_rank_max_ns", "write_time_rank_max_ns",
    "rank_time_min_ns", "rank_time_min_at", "rank_time_max_ns", "rank_time_max_at",
    "imbalance_pct",
]
IO_SIZE_COLUMNS = ["name", "direction", "bin", "lo", "hi", "count"]
MPIT_COLUMNS = ["name", "class", "bound_to", "rank", "samples", "start", "end", "min", "max"]
FINDING_COLUMNS = ["class", "count", "ranks", "rank", "call", "file", "line", "function",
                   "explanation"]
POP_COLUMNS = ["source", "metric", "value"]
TABLES = ("functions", "callsites", "per_rank", "per_rank_functions", "message_sizes", "matrix",
          "io", "io_sizes", "mpit", "findings", "waitstates", "waitstate_patterns",
          "waitstates_per_rank", "pop", "critical_path", "delay", "delay_patterns")


def _frame(rows, columns):
    """A DataFrame with these columns first (present even when there are no
    rows), then any others the rows have."""
    df = pd.DataFrame(rows)
    for c in columns:
        if c not in df.columns:
            df[c] = pd.Series(dtype="object")
    extra = [c for c in df.columns if c not in columns]
    return df[columns + extra]


def _read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Run:
    """The results of one run. ``Run(DIR)`` or ``mpiscope.load(DIR)``; DIR
    may also be a profile.json file (then only its tables)."""

    def __init__(self, path):
        path = os.fspath(path)
        if os.path.isfile(path):
            self.dir = os.path.dirname(os.path.abspath(path))
            self._profile_path = path
        elif os.path.isdir(path):
            self.dir = os.path.abspath(path)
            self._profile_path = os.path.join(self.dir, "profile.json")
        else:
            raise FileNotFoundError("no mpiscope results at '{}'".format(path))
        self._cache = {}
        if not self.has("profile") and not self.has("trace"):
            raise FileNotFoundError(
                "'{}' has neither profile.json nor a trace: not an mpiscope run".format(path))
        if self.has("profile"):
            v = self.profile.get("schema_version")
            if v != PROFILE_SCHEMA:
                raise ValueError("{}: schema_version {} (this package reads {})".format(
                    self._profile_path, v, PROFILE_SCHEMA))

    def __repr__(self):
        return "<mpiscope.Run {} ({} ranks, {})>".format(self.dir, self.ranks, self.mpi)

    # The files.

    def _path(self, name):
        if name == "profile":
            return self._profile_path
        if name == "trace":
            return os.path.join(self.dir, "trace", "traces.otf2")
        return os.path.join(self.dir, name + ".json")

    def has(self, name):
        """Whether the run has this file: "profile", "mpit", "checks",
        "waitstates" (written by `mpiscope report`) or "trace"."""
        return os.path.isfile(self._path(name))

    def _json(self, name):
        if name not in self._cache:
            self._cache[name] = _read_json(self._path(name)) if self.has(name) else None
        return self._cache[name]

    @property
    def profile(self):
        """profile.json as parsed (a dict), or {} without one."""
        return self._json("profile") or {}

    @property
    def waitstates_json(self):
        """waitstates.json as parsed, or {} (`mpiscope report DIR` writes it
        from the trace)."""
        return self._json("waitstates") or {}

    # Scalars.

    @property
    def ranks(self):
        return self.profile.get("ranks", self.waitstates_json.get("ranks"))

    @property
    def mpi(self):
        return self.profile.get("mpi")

    @property
    def program(self):
        return self.profile.get("program")

    @property
    def callsite_depth(self):
        return self.profile.get("callsite_depth", 0)

    @property
    def summary(self):
        """profile.json's summary (a dict: wall_ns_max, mpi_ns_total,
        mpi_pct, imbalance_pct, ...)."""
        return dict(self.profile.get("summary", {}))

    @property
    def metadata(self):
        """One flat dict describing the run (for Thicket's metadata table and
        load_many): program, mpi, ranks, world_size, callsite_depth, the
        summary's numbers, and the run's executable, start time, MPI library
        and mpiscope version when profile.json has them."""
        p = self.profile
        m = {"dir": self.dir, "program": p.get("program"), "mpi": p.get("mpi"),
             "ranks": p.get("ranks"), "world_size": p.get("world_size"),
             "callsite_depth": p.get("callsite_depth")}
        m.update(self.summary)
        run = p.get("run", {})
        for k in ("executable", "command", "start_time", "duration_ns", "mpi_library",
                  "mpi_version", "mpiscope_version"):
            if k in run:
                m[k] = run[k]
        return m

    # Tables of profile.json.

    def _table(self, key, build):
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    @property
    def functions(self):
        """One row per MPI function, merged over ranks."""
        return self._table("t:functions", lambda: _frame(
            [{k: v for k, v in f.items() if k != "histogram"}
             for f in self.profile.get("functions", [])], FUNCTION_COLUMNS))

    @property
    def callsites(self):
        """One row per call site: the function, its call path (``path``,
        "main;solve;MPI_Allreduce", see mpiscope.stacks), the frames recorded
        (``depth``), whether the stack was cut at the recorded depth, the
        innermost frame's symbol, file, line, module and offset, and the
        numbers."""
        def build():
            depth = self.callsite_depth
            rows = []
            for s in self.profile.get("callsites", []):
                path = stacks.site_path(s, depth)
                frames = s.get("frames", [])
                inner = frames[0] if frames else {}
                row = {k: v for k, v in s.items() if k not in ("frames",)}
                row.update({
                    "path": ";".join(path),
                    "depth": len(frames),
                    "cut": path[0] == stacks.CUT_FORMAT.format(depth),
                    "symbol": inner.get("symbol", ""),
                    "file": inner.get("file", ""),
                    "line": inner.get("line", 0),
                    "module": inner.get("module", ""),
                    "offset": inner.get("offset", ""),
                    "frames": frames,
                })
                rows.append(row)
            return _frame(rows, CALLSITE_COLUMNS)
        return self._table("t:callsites", build)

    @property
    def per_rank(self):
        """One row per rank: host, wall, profiled (wall less MPI_Pcontrol(0)
        regions), MPI and MPI-IO time, calls; plus ``app_ns`` (profiled less
        MPI) and ``mpi_pct``."""
        def build():
            df = _frame(self.profile.get("per_rank", []), PER_RANK_COLUMNS)
            if len(df):
                df["app_ns"] = df["profiled_ns"] - df["mpi_ns"]
                df["mpi_pct"] = 100.0 * df["mpi_ns"] / df["profiled_ns"].where(df["profiled_ns"] > 0)
            return df
        return self._table("t:per_rank", build)

    @property
    def per_rank_functions(self):
        """One row per rank and MPI function; empty unless the run had
        MPISCOPE_PROFILE_PER_RANK=1."""
        return self._table("t:per_rank_functions", lambda: _frame(
            [dict(f, rank=r["rank"]) for r in self.profile.get("per_rank_functions", [])
             for f in r.get("functions", [])], PER_RANK_FUNCTION_COLUMNS))

    @property
    def message_sizes(self):
        """The message-size histograms: one row per function and non-empty
        power-of-two bin (bin 0: 0 bytes; bin k: lo = 2^(k-1) to
        hi = 2^k - 1 bytes), ``count`` calls."""
        return self._table("t:message_sizes", lambda: _frame(
            [dict(h, function=f["name"]) for f in self.profile.get("functions", [])
             for h in f.get("histogram", [])], SIZE_COLUMNS))

    @property
    def matrix(self):
        """The communication matrix: one row per (from, to, class) with
        messages and bytes, world ranks; class "p2p" or "collective"."""
        return self._table("t:matrix", lambda: _frame(
            self.profile.get("matrix", {}).get("pairs", []), MATRIX_COLUMNS))

    @property
    def matrix_info(self):
        """The matrix's totals and limits (recorded, p2p, collective,
        omitted, ...) as a dict."""
        return {k: v for k, v in self.profile.get("matrix", {}).items() if k != "pairs"}

    @property
    def io(self):
        """MPI-IO: one row per file (Darshan-like counters, times in ns,
        bytes), ``other_files`` last when files were summed there."""
        def build():
            io = self.profile.get("io", {})
            files = list(io.get("files", []))
            if io.get("other_files"):
                files.append(dict(io["other_files"], name=io["other_files"].get("name", "(other files)")))
            return _frame([{k: v for k, v in f.items() if k not in ("read_sizes", "write_sizes")}
                           for f in files], IO_COLUMNS)
        return self._table("t:io", build)

    @property
    def io_sizes(self):
        """MPI-IO access sizes: one row per file, direction ("read" or
        "write") and non-empty power-of-two bin."""
        def build():
            rows = []
            for f in self.profile.get("io", {}).get("files", []):
                for direction in ("read", "write"):
                    for h in f.get(direction + "_sizes", []):
                        rows.append(dict(h, name=f["name"], direction=direction))
            return _frame(rows, IO_SIZE_COLUMNS)
        return self._table("t:io_sizes", build)

    # mpit.json.

    @property
    def mpit(self):
        """MPI_T performance variables sampled during the run (mpit.json, or
        profile.json's ``pvars``): one row per variable and rank, with the
        samples taken and the first, last, least and largest value."""
        def build():
            m = self._json("mpit") or {}
            pv = m.get("pvars") or self.profile.get("pvars") or {}
            rows = []
            for v in pv.get("variables", []):
                for r in v.get("per_rank", []):
                    rows.append(dict(r, name=v.get("name"), **{"class": v.get("class"),
                                                               "bound_to": v.get("bound_to")}))
            return _frame(rows, MPIT_COLUMNS)
        return self._table("t:mpit", build)

    # checks.json.

    @property
    def findings(self):
        """Correctness findings (checks.json, `mpiscope run --check`): one
        row per finding and site (a finding without sites has one row with
        empty site columns)."""
        def build():
            c = self._json("checks") or {}
            rows = []
            for f in c.get("findings", []):
                base = {k: v for k, v in f.items() if k != "sites"}
                sites = f.get("sites") or [{}]
                for s in sites:
                    rows.append(dict(base, **s))
            return _frame(rows, FINDING_COLUMNS)
        return self._table("t:findings", build)

    # waitstates.json (mpiscope report on a traced run).

    @property
    def waitstates(self):
        """Wait states per call site (waitstates.json ``callsites``): the
        site, its function, file and line, calls, MPI time and the time of
        each pattern (late_sender, late_receiver, wait_barrier, ...), ns."""
        return self._table("t:waitstates", lambda: _frame(
            self.waitstates_json.get("callsites", []),
            ["site", "function", "path", "file", "line", "calls", "mpi_ns"]))

    @property
    def waitstate_patterns(self):
        """One row per wait-state pattern: id, title, the pattern it is part
        of, time_ns summed over ranks, instances."""
        return self._table("t:patterns", lambda: _frame(
            self.waitstates_json.get("patterns", []),
            ["id", "title", "part_of", "time_ns", "instances"]))

    @property
    def waitstates_per_rank(self):
        """One row per rank: MPI time and each pattern's time, ns."""
        return self._table("t:ws_per_rank", lambda: _frame(
            self.waitstates_json.get("per_rank", []), ["rank", "mpi_ns"]))

    @property
    def pop(self):
        """POP's efficiencies, long form: one row per (source, metric,
        value), source "profile" (profile.json ``pop``) or "trace"
        (waitstates.json ``pop``). Efficiencies are fractions (0..1),
        times ns."""
        def build():
            rows = []
            for source, d in (("profile", self.profile.get("pop")),
                              ("trace", self.waitstates_json.get("pop"))):
                for k, v in (d or {}).items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool):
                        rows.append({"source": source, "metric": k, "value": v})
            return _frame(rows, POP_COLUMNS)
        return self._table("t:pop", build)

    @property
    def critical_path(self):
        """The critical path's sites (waitstates.json ``critical_path.sites``):
        site, kind ("computation" or "mpi"), ns on the path, and
        all_ranks_ns for computation. The path's totals are in
        ``critical_path_info``."""
        return self._table("t:critical_path", lambda: _frame(
            self.waitstates_json.get("critical_path", {}).get("sites", []),
            ["site", "kind", "ns"]))

    @property
    def critical_path_info(self):
        """The critical path's totals (length_ns, computation_ns, mpi_ns,
        start_rank, end_rank, hops, imbalance_ns, ...) as a dict."""
        cp = self.waitstates_json.get("critical_path", {})
        return {k: v for k, v in cp.items() if not isinstance(v, (list, dict))}

    @property
    def delay(self):
        """The delay analysis's root causes (waitstates.json ``delay.causes``):
        the pattern whose waiting the cause explains, the rank and site of the
        excess computation, ``ns`` of waiting it caused, ``longterm_ns`` the
        part propagated, and the largest share's interval ``start_ns`` to
        ``end_ns`` after the trace's start."""
        return self._table("t:delay", lambda: _frame(
            self.waitstates_json.get("delay", {}).get("causes", []),
            ["pattern", "rank", "site", "ns", "longterm_ns", "start_ns", "end_ns"]))

    @property
    def delay_patterns(self):
        """Per wait-state pattern: ``delay_ns`` traced to a cause,
        ``propagated_ns``, ``longterm_ns``."""
        return self._table("t:delay_patterns", lambda: _frame(
            self.waitstates_json.get("delay", {}).get("patterns", []),
            ["id", "delay_ns", "propagated_ns", "longterm_ns"]))

    def tables(self):
        """The names of the DataFrame tables (attributes of the run)."""
        return list(TABLES)

    def folded(self, unit_ns=1000):
        """Folded stacks (see mpiscope.stacks.folded)."""
        return stacks.folded(self.profile, unit_ns)


def load(path):
    """The results of one run (a directory of `mpiscope run`, or a
    profile.json)."""
    return Run(path)


class Runs:
    """Several runs (a scaling study). Iterating gives the Run objects, in
    order; ``runs[i]`` one of them. Every table of a run is also a table of
    Runs (``runs.functions``, ``runs.pop``, ...): the runs' rows stacked,
    with the columns ``run`` (position in the list) and ``ranks_run``."""

    def __init__(self, runs):
        self._runs = list(runs)

    def __iter__(self):
        return iter(self._runs)

    def __len__(self):
        return len(self._runs)

    def __getitem__(self, i):
        return self._runs[i]

    def __repr__(self):
        return "<mpiscope.Runs of {} runs: ranks {}>".format(len(self), [r.ranks for r in self])

    def table(self, name):
        """Table `name` of every run, stacked."""
        if name not in TABLES:
            raise KeyError("no table '{}'; the tables are {}".format(name, ", ".join(TABLES)))
        parts = []
        for i, r in enumerate(self._runs):
            df = getattr(r, name).copy()
            df.insert(0, "ranks_run", r.ranks)
            df.insert(0, "run", i)
            parts.append(df)
        return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()

    @property
    def metadata(self):
        """One row per run: Run.metadata."""
        return pd.DataFrame([r.metadata for r in self._runs])

    def __getattr__(self, name):
        if name in TABLES:
            return self.table(name)
        raise AttributeError(name)


def load_many(paths):
    """Several runs, in the order given (e.g. 2, 4, 8 ranks). Tables:
    ``runs.functions`` etc. stack the runs' rows with columns ``run`` and
    ``ranks_run``; ``runs.metadata`` has one row per run."""
    return Runs(Run(p) for p in paths)
