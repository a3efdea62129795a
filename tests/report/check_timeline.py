#!/usr/bin/python3
"""The HTML report's timeline in headless Chromium.

    check_timeline.py <output dir> <mpiscope> <gen_trace | ->

On the pipeline of tests/report/planted.c:
- `mpiscope report --html DIR` has the timeline with its data; at the whole
  run the canvas says which level it drew, rectangles, message lines and
  critical-path stretches; with a few ranks in a 900 px window the rows get
  48 px (the height available, at most 48);
- the critical path (the page's #tl-cppath) is contiguous in time from its
  start to its end and runs through every rank;
- a scripted hover (location #...,hover=F,ROW,click: the canvas's own mouse
  handlers) on rank 0's first MPI_Send, found in the page's data, shows in the
  tooltip and in the pinned line the rank, the function, the call site
  (planted.c and the send's line), its duration and "4 B to rank 1";
- keys: W W zoom into the middle quarter, then D pans by a quarter of it;
- 0.05 % of the run draws the exact calls; no console error;
- screenshots at three zoom levels (#...,solo), kept as DIR/timeline-all.png
  (computation, an MPI colour, wait-state red and the critical path's bar),
  timeline-wait.png (around rank 1's waiting receive) and timeline-hover.png
  (the tooltip);
- given gen_trace: the page of a synthetic trace of 3.66 M events
  (gen_trace 8 90000) stays under 3 MB and is drawn.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html import chromium, png_pixels  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("check_timeline: " + msg, file=sys.stderr)


def canvas(dom):
    m = re.search(r'<canvas id="tl-canvas"[^>]*>', dom)
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', m.group(0))) if m else None


def console_errors(stderr):
    return [l for l in stderr.splitlines()
            if "CONSOLE" in l and re.search(r"error|uncaught", l, re.I)]


def load(html, view, extra=()):
    url = "file://" + os.path.abspath(html) + "#tl=" + view
    d = chromium(["--dump-dom", "--enable-logging=stderr", "--v=0"] + list(extra), url)
    if d.returncode != 0:
        fail(f"chromium --dump-dom failed ({d.returncode}): {d.stderr[-300:]}")
    for e in console_errors(d.stderr):
        fail("console: " + e)
    return d.stdout


def exact_calls(page):
    """The exact calls in the page's data (E lines: 8 numbers per call), as
    [rank, thread, function, enter, leave, wait, site, peer, bytes, root]
    strings, from the data itself rather than what a view drew."""
    m = re.search(r'<script type="application/json" id="tl-data">(.*?)</script>', page, re.S)
    text = json.loads(m.group(1)) if m else ""
    fn, loc, calls = {}, {}, []
    for line in text.split("|"):
        f = line.split(" ")
        if f[0] == "F":
            fn[int(f[1])] = f[2]
        elif f[0] == "L":
            loc[f[1]] = (f[2], f[3])
    for line in text.split("|"):
        f = line.split(" ")
        if f[0] != "E":
            continue
        q, t = [int(v) for v in f[3].split(",")], int(f[2])
        for j in range(0, len(q) - 7, 8):
            t += q[j]
            calls.append([*loc[f[1]], fn.get(q[j + 2], "?"), str(t), str(t + q[j + 1]),
                          str(q[j + 3])] + [str(v) for v in q[j + 4:j + 8]])
    return calls


def tip_of_pre(dom, ident):
    m = re.search(r'<pre id="%s"[^>]*>(.*?)</pre>' % ident, dom, re.S)
    return m.group(1) if m else ""


def colours(png):
    w, h, rows, bpp = png_pixels(png)
    seen = set()
    for y in range(0, h, 2):
        r = rows[y]
        for x in range(0, w * bpp, bpp * 2):
            seen.add((r[x], r[x + 1], r[x + 2]))
    return w, seen


def tip_of(dom, ident):
    m = re.search(r'<(?:div|p) id="%s"[^>]*>(.*?)</(?:div|p)>' % ident, dom, re.S)
    return re.sub(r"<[^>]+>", " ", m.group(1)).replace("&middot;", " ") if m else ""


def shoot(html, view, name, out, want):
    """A screenshot of the timeline alone at a view; `want`: the colours it
    must show, as (rgb, what)."""
    shot = os.path.join(out, f"timeline-{name}.png")
    s = chromium(["--screenshot=" + shot, "--window-size=1200,700"], "file://" +
                 os.path.abspath(html) + "#tl=" + view + ",solo")
    if s.returncode != 0 or not os.path.exists(shot):
        fail(f"{name}: no screenshot")
        return
    w, seen = colours(shot)
    if w != 1200:
        fail(f"{name}: screenshot {w} px wide")
    for rgb, what in want:
        if rgb == "mpi":
            if not PAL & seen:
                fail(f"{name}: no MPI function's colour in the screenshot")
        elif rgb not in seen:
            fail(f"{name}: no {what} in the screenshot")


PAL = {(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b), (0xb0, 0x7a, 0xa1), (0x76, 0xb7, 0xb2),
       (0xed, 0xc9, 0x48)}
GREEN, RED, PATH, TIP = (0xa6, 0xd4, 0x9f), (0xd6, 0x27, 0x28), (0x11, 0x11, 0x11), (0xff, 0xff, 0xf0)


def main():
    out, cli, gen = sys.argv[1], sys.argv[2], sys.argv[3]
    p = subprocess.run([cli, "report", "--html", out], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"mpiscope report --html: rc {p.returncode}: {p.stderr}")
        return
    html = os.path.join(out, "report.html")
    page = open(html).read()
    if 'id="tl-data"' not in page:
        fail("no timeline data in the page")
        return
    if not exact_calls(page):
        fail("no exact calls in the page's data")
    if os.environ.get("MSC_TEST_BROWSER") == "0":
        # The sanitizer passes (scripts/test.sh): the page is made by the
        # instrumented tool; rendering it again in Chromium runs none of it.
        print("check_timeline: the page was made and its text checked; the browser checks are "
              "left to the normal pass (MSC_TEST_BROWSER=0)")
        large_trace(cli, gen, False)
        return
    # The whole run: drawn, rows as tall as the window allows (12-48 px).
    dom = load(html, "0,1", ["--window-size=1200,900"])
    c = canvas(dom)
    if not c or 'data-timeline="drawn"' not in dom:
        fail("all: the timeline was not drawn")
        return
    print(f"check_timeline: all: level {c['level']}, {c['rects']} rectangles, "
          f"{c['lines']} message lines, {c['cp']} critical-path stretches, rows "
          f"{c['row-height']} px, {c['ms']} ms")
    span = float(c["view"].split(",")[1])
    exact = exact_calls(page)
    ranks = sorted({int(x[0]) for x in exact})
    if not int(c["rects"]) > 0 or not int(c["lines"]) > 0:
        fail("all: no rectangle or no message line")
    # 900 px window, a few ranks: each row gets the most (48 px).
    if len(ranks) <= 8 and int(c["row-height"]) != 48:
        fail(f"all: rows of {c['row-height']} px for {len(ranks)} ranks, not 48")
    # The critical path of the pipeline: contiguous stretches from the start
    # of its first rank to the end of the last, through every rank.
    path = sorted(tuple(int(v) for v in l.split()) for l in tip_of_pre(dom, "tl-cppath").splitlines()
                  if l.strip())
    path.sort(key=lambda s: s[1])
    if not path or not int(c["cp"]) > 0:
        fail("all: no critical path drawn")
    else:
        gaps = [(x, y) for x, y in zip(path, path[1:]) if y[1] != x[2]]
        if gaps:
            fail(f"critical path not contiguous: {gaps[:3]}")
        if sorted({s[0] for s in path}) != ranks:
            fail(f"critical path through ranks {sorted({s[0] for s in path})}, not {ranks}")
        print(f"check_timeline: critical path: {len(path)} stretches, "
              f"{path[0][1]}-{path[-1][2]} ns over ranks {sorted({s[0] for s in path})}")
    # Hover (and click) on rank 0's first MPI_Send, in a view 5 times its
    # length: the tooltip and the pinned line name the function, the call
    # site (planted.c, the send's line), the duration, 4 bytes to rank 1.
    send = next((x for x in exact if x[0] == "0" and x[2] == "MPI_Send"), None)
    recv = next((x for x in exact if x[0] == "1" and x[2] == "MPI_Recv" and int(x[5]) > 0), None)
    if not send or not recv:
        fail(f"no MPI_Send of rank 0 or waiting MPI_Recv of rank 1 among the exact calls")
        return
    line = next(i for i, l in enumerate(open(os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "planted.c")), 1) if "MPI_Send(&x, 1, MPI_INT, rank + 1" in l)
    e, f = int(send[3]), int(send[4])
    d = max(f - e, 200)
    va, vb = max(0, e - 2 * d), min(span, f + 2 * d)
    fx = ((e + f) / 2 - va) / (vb - va)
    view = f"{va / span:.9f},{vb / span:.9f}"
    dom = load(html, f"{view},hover={fx:.6f},0,click", ["--window-size=1200,900"])
    tip, pinned = tip_of(dom, "tl-tip"), tip_of(dom, "tl-detail")
    print(f"check_timeline: hover: {tip!r}")
    # The duration as the page prints it (JavaScript's toFixed, which may
    # round a half the other way than Python): within half its last digit.
    dur = f - e
    for text, where in ((tip, "tooltip"), (pinned, "pinned line")):
        m = re.search(r"duration ([0-9.]+) (us|ms|s)\b", text)
        unit = {"us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)] if m else 0
        digits = len(m.group(1).split(".")[1]) if m and "." in m.group(1) else 0
        if not m or abs(float(m.group(1)) * unit - dur) > unit * 10 ** -digits / 2 + 1:
            fail(f"{where}: no duration of {dur} ns in {text!r}")
    for what in ("rank 0", "MPI_Send", f"planted.c:{line}", "4 B to rank 1"):
        if what not in tip:
            fail(f"hover: {what!r} not in the tooltip {tip!r}")
        if what not in pinned:
            fail(f"click: {what!r} not in the pinned line {pinned!r}")
    # Three zoom levels in screenshots: the whole run (critical path and
    # wait states), around rank 1's waiting receive, the send with its tooltip.
    w0, w1 = int(recv[3]), int(recv[3]) + int(recv[5])
    mid = f"{max(0, w0 - (w1 - w0)) / span:.9f},{min(span, w1 + (w1 - w0)) / span:.9f}"
    cm = canvas(load(html, mid)) or {}
    print(f"check_timeline: around the wait: level {cm.get('level')}")
    shoot(html, "0,1", "all", out, [(GREEN, "computation green"), ("mpi", ""), (RED, "wait-state red"),
                                    (PATH, "critical-path bar")])
    shoot(html, mid, "wait", out, [(GREEN, "computation green"), ("mpi", ""), (RED, "wait-state red")])
    shoot(html, f"{view},hover={fx:.6f},0", "hover", out, [("mpi", ""), (TIP, "tooltip")])
    # Keys: W twice zooms into the middle quarter, D then pans by a quarter of it.
    for keys, lo, hi in (("ww", 3 / 8, 5 / 8), ("wwd", 3 / 8 + 1 / 16, 5 / 8 + 1 / 16)):
        ck = canvas(load(html, "0,1,keys=" + keys)) or {}
        v = [float(x) for x in ck.get("view", "0,0").split(",")]
        if abs(v[0] - lo * span) > 2 or abs(v[1] - hi * span) > 2:
            fail(f"keys {keys}: view {v}, not {lo * span:.0f},{hi * span:.0f}")
    # 0.05 % of the run: finer than the deepest level, the exact calls (few here).
    c = canvas(load(html, "0.45,0.4505")) or {}
    print(f"check_timeline: deep zoom: level {c.get('level')}")
    if c.get("level") != "exact":
        fail(f"deep zoom drew {c.get('level')}, not the exact calls")

    large_trace(cli, gen, True)


def large_trace(cli, gen, browser):
    """A synthetic trace of 3.66 M events: its page stays under 3 MB and is
    drawn (in the browser)."""
    if gen == "-":  # the large trace is checked once, by the Open MPI test
        return
    with tempfile.TemporaryDirectory(prefix="msc-tl-") as big:
        subprocess.run([gen, os.path.join(big, "trace"), "8", "90000"], check=True,
                       capture_output=True)
        p = subprocess.run([cli, "report", "--html", big], capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"large trace: report --html rc {p.returncode}: {p.stderr}")
            return
        size = os.path.getsize(os.path.join(big, "report.html"))
        if size > 3 << 20:
            fail(f"large trace: the page has {size} bytes")
        if not browser:
            print(f"check_timeline: 3.66 M events: page {size} bytes")
            return
        dom = load(os.path.join(big, "report.html"), "0,1")
        c = canvas(dom) or {}
        print(f"check_timeline: 3.66 M events: page {size} bytes, level {c.get('level')}, "
              f"drawn in {c.get('ms')} ms")
        if not c or 'data-timeline="drawn"' not in dom:
            fail("large trace: the timeline was not drawn")


if __name__ == "__main__":
    main()
    print("check_timeline: " + ("FAIL" if failures else "all passed"))
    sys.exit(1 if failures else 0)
