#!/usr/bin/python3
"""Checks the selection and the size limit of `mpiscope export --chrome` on a
run of tests/report/waits.c.

    check_export_select.py <output dir> <ranks> <mpiscope>

The expected events are read from the trace by otf2-print, not by the
exporter's reader: the world rank of each location from its location
group's name ("MPI Rank N"), every Enter with its region and call site
(the SOURCE_CODE_LOCATION attribute, "file:line"), every send, receive and
metric event, each with its timestamp.

- --ranks (0,2-3 on 4 ranks, 1 on 2): exactly the Enter events of those
  ranks' locations are slices (same rank, name and call site, as a
  multiset), their sends and receives the flow starts and finishes, their
  metric events the counter values; only those ranks are processes;
- --from/--to, a window cut between events: exactly the Enters in it are
  slices (each closed by its E, nested), and the messages and metric
  values in it; both together: their intersection;
- every slice of the whole export carries its call site;
- --max-size 1K refuses: exit 2, the estimate and the limit on stderr,
  no output file (nor its .tmp); the estimate is within a factor 2 of the
  size the whole export then has; --force writes it;
- bad values exit 2 with a message naming the option, writing nothing.
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)
    print("check_export_select: " + msg, file=sys.stderr)


def otf2_events(anchor):
    """(offset, resolution, events): events are dicts with kind, rank, loc, t, name, site."""
    d = subprocess.run(["otf2-print", "-G", anchor], capture_output=True, text=True, timeout=120).stdout
    m = re.search(r"Ticks per Seconds: (\d+), Global Offset: (\d+)", d)
    res, off = int(m.group(1)), int(m.group(2))
    group_rank = {}
    for g, r in re.findall(r'^LOCATION_GROUP\s+(\d+)\s+Name: "MPI Rank (\d+)"', d, re.M):
        group_rank[g] = int(r)
    loc_rank = {}
    for loc, g in re.findall(r'^LOCATION\s+(\d+)\s+Name: .*Group: "[^"]*" <(\d+)>', d, re.M):
        loc_rank[loc] = group_rank[g]
    p = subprocess.run(["otf2-print", anchor], capture_output=True, text=True, timeout=120).stdout
    events = []
    last_site = {}
    for line in p.splitlines():
        if line.startswith(" ") and events and "SOURCE_CODE_LOCATION" in line and events[-1]["kind"] == "ENTER":
            s = re.search(r'SOURCE_CODE_LOCATION; "([^"]*)"', line)
            if s:
                e = events[-1]
                e["site"] = s.group(1)
                last_site[(e["loc"], e["name"])] = e["site"]
            continue
        f = line.split()
        if len(f) < 3 or not f[1].isdigit() or not f[2].isdigit():
            continue
        e = {"kind": f[0], "loc": f[1], "rank": loc_rank[f[1]], "t": int(f[2]) - off, "site": None}
        if f[0] == "ENTER":
            e["name"] = re.search(r'Region: "([^"]*)"', line).group(1)
            # An Enter without the attribute has its region's last one (trace format, docs/trace.md).
            e["site"] = last_site.get((e["loc"], e["name"]))
        events.append(e)
    return off, res, events


def export(cli, out, args, path):
    return subprocess.run([cli, "export", "--chrome", "-o", path] + args + [out],
                          capture_output=True, text=True, timeout=120)


def expected(events, ranks, lo, hi):
    sel = [e for e in events if e["rank"] in ranks and lo <= e["t"] < hi]
    slices = collections.Counter((e["rank"], e["name"], e["site"]) for e in sel if e["kind"] == "ENTER")
    sends = sum(1 for e in sel if e["kind"] in ("MPI_SEND", "MPI_ISEND"))
    recvs = sum(1 for e in sel if e["kind"] in ("MPI_RECV", "MPI_IRECV"))
    metrics = sum(1 for e in sel if e["kind"] == "METRIC")
    return slices, sends, recvs, metrics


def check_case(label, cli, out, tmp, args, events, ranks, lo, hi):
    path = os.path.join(tmp, label + ".json")
    p = export(cli, out, args, path)
    if p.returncode != 0 or not os.path.exists(path):
        fail(f"{label}: export {args} exited {p.returncode}: {p.stderr.strip()}")
        return None
    with open(path) as f:
        ev = json.load(f)["traceEvents"]
    got = collections.Counter()
    stacks = collections.defaultdict(list)
    ph = collections.Counter()
    for e in ev:
        ph[e["ph"]] += 1
        key = (e["pid"], e["tid"])
        if e["ph"] == "B":
            got[(e["pid"], e["name"], e.get("args", {}).get("site"))] += 1
            stacks[key].append(e["name"])
        elif e["ph"] == "E":
            if not stacks[key] or stacks[key].pop() != e["name"]:
                fail(f"{label}: E {e['name']} does not close the open slice on {key}")
    for key, st in stacks.items():
        if st:
            fail(f"{label}: slices left open on {key}: {st}")
    procs = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
    if procs != set(ranks):
        fail(f"{label}: processes {sorted(procs)}, expected {sorted(ranks)}")
    slices, sends, recvs, metrics = expected(events, ranks, lo, hi)
    if got != slices:
        fail(f"{label}: slices differ from otf2-print's Enters: extra {dict(got - slices)}, "
             f"missing {dict(slices - got)}")
    if (ph["s"], ph["f"], ph["C"]) != (sends, recvs, metrics):
        fail(f"{label}: flows s/f and counters {ph['s']}/{ph['f']}/{ph['C']}, "
             f"otf2-print has {sends}/{recvs}/{metrics}")
    print(f"check_export_select: {label}: {sum(got.values())} slices (expected {sum(slices.values())}), "
          f"{ph['s']}/{ph['f']} flows, {ph['C']} counters")
    return sum(got.values())


def cut(times, k):
    """A time between the k-th distinct event time and the next, in ticks."""
    ts = sorted(set(times))
    for i in range(k, len(ts) - 1):
        if ts[i + 1] - ts[i] >= 4:
            return (ts[i] + ts[i + 1]) // 2
    return None


def main():
    out, n, cli = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    anchor = os.path.join(out, "trace", "traces.otf2")
    off, res, events = otf2_events(anchor)
    allr = list(range(n))
    subset, subset_arg = ([0, 2, 3], "0,2-3") if n >= 4 else ([1], "1")
    enters = [e["t"] for e in events if e["kind"] == "ENTER"]
    lo, hi = cut(enters, len(enters) // 4), cut(enters, 3 * len(enters) // 4)
    if lo is None or hi is None or lo >= hi:
        fail("no window between events found")
        return
    win = ["--from", repr(lo / res), "--to", repr(hi / res)]
    tmp = tempfile.mkdtemp(prefix="msc-export-select-")
    total = check_case("all", cli, out, tmp, [], events, allr, 0, 1 << 62)
    nsub = check_case("ranks", cli, out, tmp, ["--ranks", subset_arg], events, subset, 0, 1 << 62)
    nwin = check_case("window", cli, out, tmp, win, events, allr, lo, hi)
    nboth = check_case("ranks+window", cli, out, tmp, ["--ranks", subset_arg] + win, events, subset, lo, hi)
    if None not in (total, nsub, nwin, nboth) and not (0 < nboth < nsub < total and 0 < nwin < total):
        fail(f"selections not smaller than the whole: {nboth} < {nsub}, {nwin} < {total} slices")
    # Every slice of the whole export has its call site.
    with open(os.path.join(tmp, "all.json")) as f:
        whole = [e for e in json.load(f)["traceEvents"] if e["ph"] == "B"]
    nosite = [e for e in whole if not re.fullmatch(r".*waits\.c:\d+", e.get("args", {}).get("site", ""))]
    if not whole or nosite:
        fail(f"{len(nosite)} of {len(whole)} slices without a waits.c:LINE call site: {nosite[:2]}")
    # The limit: refused with the estimate, nothing left behind; --force writes.
    path = os.path.join(tmp, "limited.json")
    p = export(cli, out, ["--max-size", "1K"], path)
    m = re.search(r"about .* \((\d+) bytes", p.stderr)
    if p.returncode != 2 or not m or "1.0 KiB" not in p.stderr:
        fail(f"--max-size 1K: exit {p.returncode} (2), stderr {p.stderr.strip()!r}")
    if os.path.exists(path) or os.path.exists(path + ".tmp"):
        fail("--max-size 1K left an output file behind")
    real = os.path.getsize(os.path.join(tmp, "all.json"))
    if m and not 0.5 <= int(m.group(1)) / real <= 2:
        fail(f"estimate {m.group(1)} bytes, the export is {real} bytes")
    p = export(cli, out, ["--max-size", "1K", "--force"], path)
    if p.returncode != 0 or os.path.getsize(path) != real:
        fail(f"--force: exit {p.returncode}, {os.path.getsize(path) if os.path.exists(path) else 0} "
             f"bytes (the whole export has {real})")
    if m:
        print(f"check_export_select: estimate {m.group(1)} bytes, written {real}")
    # Bad values: exit 2, a message naming the option, no output.
    bad = [["--ranks", "1-0"], ["--ranks", "a"], ["--ranks", "0,,1"], ["--ranks", "0-"],
           ["--ranks", str(n)], ["--ranks", f"0-{n}"], ["--from", "x"], ["--from", "-1"],
           ["--to", "nan"], ["--from", "2", "--to", "1"], ["--from", "1", "--to", "1"],
           ["--max-size", "0"], ["--max-size", "12Q"], ["--ranks"], ["--from", "1e6"]]
    for args in bad:
        path = os.path.join(tmp, "bad.json")
        p = export(cli, out, args, path)
        if p.returncode != 2 or args[0] not in p.stderr or os.path.exists(path):
            fail(f"{args}: exit {p.returncode} (2), stderr {p.stderr.strip()!r}")
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
    if failures:
        print(f"check_export_select: {len(failures)} problems", file=sys.stderr)
        sys.exit(1)
    print("check_export_select: ok")
