#!/usr/bin/python3
"""The HTML report's timeline in headless Chromium.

    check_timeline.py <output dir> <mpiscope> <gen_trace | ->

- `mpiscope report --html DIR` has the timeline section with its data; in
  the DOM Chromium dumps after the page's script ran, the canvas says which
  level it drew (a number of columns over the run), how many rectangles and
  message lines, and the body says the script finished (data-timeline);
  zoomed into 2 % of the run (location #tl=A,B) it draws a finer level, and
  into 0.05 % the exact calls;
- no console message of an error or an uncaught exception;
- two screenshots of the timeline alone (#...,solo), the whole run and the
  zoom, kept as DIR/timeline-all.png and DIR/timeline-zoom.png, 1200 px wide,
  show the computation green, an MPI function's colour and the wait-state red;
- the page of a synthetic trace of 3.66 M events (gen_trace 8 90000) stays
  under 3 MB and is drawn (its drawing time is printed, not asserted).
"""
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
    return dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(0))) if m else None


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


def colours(png):
    w, h, rows, bpp = png_pixels(png)
    seen = set()
    for y in range(0, h, 2):
        r = rows[y]
        for x in range(0, w * bpp, bpp * 2):
            seen.add((r[x], r[x + 1], r[x + 2]))
    return w, seen


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
    levels = []
    for view, name in (("0,1", "all"), ("0.45,0.47", "zoom")):
        dom = load(html, view)
        c = canvas(dom)
        if not c or 'data-timeline="drawn"' not in dom:
            fail(f"{name}: the timeline was not drawn")
            continue
        print(f"check_timeline: {name}: level {c['level']}, {c['rects']} rectangles, "
              f"{c['lines']} message lines, {c['ms']} ms")
        if not int(c["rects"]) > 0:
            fail(f"{name}: nothing drawn")
        levels.append(c["level"])
        if name == "all" and not int(c["lines"]) > 0:
            fail("all: no message line")
        shot = os.path.join(out, f"timeline-{name}.png")
        s = chromium(["--screenshot=" + shot, "--window-size=1200,520"], "file://" +
                     os.path.abspath(html) + "#tl=" + view + ",solo")
        if s.returncode != 0 or not os.path.exists(shot):
            fail(f"{name}: no screenshot")
            continue
        w, seen = colours(shot)
        if w != 1200:
            fail(f"{name}: screenshot {w} px wide")
        for rgb, what in (((0xa6, 0xd4, 0x9f), "computation green"),
                          ((0xd6, 0x27, 0x28), "wait-state red")):
            if rgb not in seen:
                fail(f"{name}: no {what} in the screenshot")
        pal = {(0x4e, 0x79, 0xa7), (0xf2, 0x8e, 0x2b), (0xb0, 0x7a, 0xa1), (0x76, 0xb7, 0xb2),
               (0xed, 0xc9, 0x48)}
        if not pal & seen:
            fail(f"{name}: no MPI function's colour in the screenshot")
    if len(levels) == 2 and levels[1] != "exact" and (levels[0] == "exact" or int(levels[1]) <= int(levels[0])):
        fail(f"zooming in did not draw a finer level: {levels}")
    # 0.05 % of the run: finer than the deepest level, the exact calls (few here).
    c = canvas(load(html, "0.45,0.4505")) or {}
    print(f"check_timeline: deep zoom: level {c.get('level')}")
    if c.get("level") != "exact":
        fail(f"deep zoom drew {c.get('level')}, not the exact calls")

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
        dom = load(os.path.join(big, "report.html"), "0,1")
        c = canvas(dom) or {}
        print(f"check_timeline: 3.66 M events: page {size} bytes, level {c.get('level')}, "
              f"drawn in {c.get('ms')} ms")
        if size > 3 << 20:
            fail(f"large trace: the page has {size} bytes")
        if not c or 'data-timeline="drawn"' not in dom:
            fail("large trace: the timeline was not drawn")


if __name__ == "__main__":
    main()
    print("check_timeline: " + ("FAIL" if failures else "all passed"))
    sys.exit(1 if failures else 0)
