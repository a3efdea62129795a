#!/usr/bin/python3
"""Renders `mpiscope report --html` in headless Chromium and checks the page.

    check_html.py <output dir> <mpiscope> [--no-trace] [--full]

- `mpiscope report --html DIR` writes DIR/report.html, self-contained: no
  external script, style sheet, font, image or frame, no URL but the SVG
  namespace;
- Chromium (Debian's /usr/bin/chromium, a fresh profile, no network
  features) loads it; in the DOM it dumps after the page's script ran,
  every plot (an <svg class="plot"> with the expected id) has a rendered
  width and height above zero and shapes in it;
- its screenshot (kept as DIR/report.png) is 1200 px wide and shows each
  plot's colours: the MPI red and computation green of the time per rank,
  the heatmap blue and, with a trace, the wait-state orange;
- clicking is not simulated, but the tables carry the sortable class and
  numeric sort keys;
- Chromium's log has no console message from the page (errors, CSP
  violations); at 1100 px no table is wider than its section and the page
  does not scroll sideways; screenshots at 1100 and 1600 px are kept as
  DIR/report-1100.png and DIR/report-1600.png;
- the sections the data call for are there (summary, per-rank table with
  every rank and its host, time per rank, imbalance with its legend,
  functions, call sites, the call paths' flame view (when the call sites
  hold 1 ms or more), message sizes, matrix with its colour scale; I/O,
  user regions and findings when the run has them, findings first in the
  navigation bar and the first section after the summary); the summary's
  wall time is profile.json's (not another number of the line); the header
  has the command line. --full: the run must have I/O, user regions and
  check findings (tests/report/html_page.c).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from PIL import Image

failures = []


def fail(msg):
    failures.append(msg)
    print("check_html: " + msg, file=sys.stderr)


CHROMIUM = ["/usr/bin/chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]
WIDTHS = (1100, 1600)  # the narrow page the issue names, and a wide one


def chromium(args, url):
    ud = tempfile.mkdtemp(prefix="msc-chromium-")
    try:
        if not any(a.startswith("--window-size") for a in args):
            args = args + ["--window-size=1600,5200"]
        p = subprocess.run(CHROMIUM + ["--user-data-dir=" + ud] + args + [url],
                           capture_output=True, text=True, timeout=90)
        # Messages the page logged (console.*, uncaught errors, CSP reports).
        for line in p.stderr.splitlines():
            if ":CONSOLE" in line and "report.html" in line:
                fail(f"console message from the page: {line.strip()[:300]}")
        return p
    finally:
        shutil.rmtree(ud, ignore_errors=True)


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel: 3) of a PNG, as RGB.
    Pillow decodes it (python3-pil): a Python decoder took about 10 s for
    the two screenshots of one page."""
    with Image.open(path) as im:
        w, h = im.size
        data = im.convert("RGB").tobytes()
    stride = w * 3
    return w, h, [data[y * stride:(y + 1) * stride] for y in range(h)], 3


def main():
    out, cli = sys.argv[1], sys.argv[2]
    with_trace = "--no-trace" not in sys.argv
    p = subprocess.run([cli, "report", "--html", out], capture_output=True, text=True, timeout=120)
    html = os.path.join(out, "report.html")
    if p.returncode != 0 or not os.path.exists(html):
        fail(f"mpiscope report --html exited {p.returncode}: {p.stderr}")
        return
    with open(html, encoding="utf-8") as f:
        page = f.read()
    for pat, what in ((r"<script[^>]+src", "an external script"), (r"<link\b", "a <link>"),
                      (r"@import|url\(", "a CSS import or url()"), (r"<iframe|<img\b", "a frame or image"),
                      (r"@font-face", "a font")):
        if re.search(pat, page, re.I):
            fail(f"report.html has {what}")
    urls = set(re.findall(r"(?:https?|ftp)://[^\s\"'<>]*", page)) - {"http://www.w3.org/2000/svg"}
    if urls:
        fail(f"report.html names URLs: {sorted(urls)[:5]}")
    want = ["plot-rank-time", "plot-imbalance", "plot-functions", "plot-histogram", "plot-matrix"]
    # The flame view of the call sites (tests/python checks its numbers).
    prof_path = os.path.join(out, "profile.json")
    sites = json.load(open(prof_path)).get("callsites", []) if os.path.exists(prof_path) else []
    if sum(s.get("time_ns", 0) for s in sites) >= 10**6:
        want.append("flame-svg")
    elif 'id="flame-svg"' in page:
        want.append("flame-svg")
    if with_trace:
        want += ["plot-waitstates", "plot-waitstates-ranks"]
    elif "plot-waitstates" in page:
        fail("a run without a trace has a wait-state plot")
    if page.count('class="sortable"') < 2:
        fail("fewer than two sortable tables")
    # Sampled MPI_T variables (Open MPI's default set): one row per variable
    # and rank, with the profile's values.
    prof = os.path.join(out, "profile.json")
    pv = json.load(open(prof)).get("pvars") if os.path.exists(prof) else None
    if pv and pv.get("variables"):
        sec = re.search(r'<section id="mpit">(.*?)</section>', page, re.S)
        rows = sum(len(v["per_rank"]) for v in pv["variables"])
        if not sec:
            fail("no MPI_T section although profile.json has sampled variables")
        elif sec.group(1).count("<tr>") != rows + 1:
            fail(f"MPI_T section has {sec.group(1).count('<tr>') - 1} rows, expected {rows}")
        else:
            for v in pv["variables"]:
                if v["name"] not in sec.group(1):
                    fail(f"MPI_T section does not name {v['name']}")
            print(f"check_html: MPI_T section: {rows} rows")

    check_sections(out, page, with_trace, "--full" in sys.argv)
    if os.environ.get("MSC_TEST_BROWSER") == "0":
        # The sanitizer passes (scripts/test.sh): the page is made by the
        # instrumented tool; rendering it again in Chromium runs none of it.
        print("check_html: the page was made and its text checked; the browser checks are "
              "left to the normal pass (MSC_TEST_BROWSER=0)")
        return
    url = "file://" + os.path.abspath(html)
    # One DOM, at 1100 px, serves the width checks and the plots' (each
    # start of Chromium costs about 4 s).
    d = chromium(["--dump-dom", "--window-size=1100,5200"], url)
    narrow = d.stdout
    m = re.search(r'<body[^>]*>', narrow)
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(0))) if m else {}
    print(f"check_html: at 1100 px: {attrs.get('data-overflowing-tables')} overflowing tables, "
          f"page {attrs.get('data-scroll-width')} px wide in a {attrs.get('data-view-width')} px view")
    if attrs.get("data-overflowing-tables") != "0":
        fail(f"at 1100 px, {attrs.get('data-overflowing-tables')} table(s) are wider than their section")
    if not attrs.get("data-scroll-width") or int(attrs["data-scroll-width"]) > int(attrs.get("data-view-width", 0)):
        fail(f"at 1100 px the page scrolls sideways: {attrs}")
    dom = narrow
    if d.returncode != 0 or "<svg" not in dom:
        fail(f"chromium --dump-dom failed ({d.returncode}): {d.stderr[-500:]}")
        return
    m = re.search(r'<body[^>]*data-plots="(\d+)"', dom)
    if not m or int(m.group(1)) != len(want):
        fail(f"the page's script counted {m.group(1) if m else 'no'} plots, expected {len(want)}")
    for pid in want:
        tag = re.search(r'<svg[^>]*\bid="%s"[^>]*>' % pid, dom)
        if not tag:
            fail(f"no plot {pid} in the rendered page")
            continue
        attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', tag.group(0)))
        wd, ht, shapes = (int(attrs.get(k, "0")) for k in ("data-width", "data-height", "data-shapes"))
        print(f"check_html: {pid}: {wd} x {ht} px, {shapes} rectangles")
        if wd <= 0 or ht <= 0 or shapes <= 0:
            fail(f"plot {pid} is rendered {wd} x {ht} px with {shapes} rectangles")

    for width in WIDTHS:
        shot = os.path.join(out, f"report-{width}.png")
        s = chromium(["--screenshot=" + shot, f"--window-size={width},5200"], url)
        if s.returncode != 0 or not os.path.exists(shot):
            fail(f"chromium --screenshot failed ({s.returncode}): {s.stderr[-500:]}")
            return
        w, h, rows, bpp = png_pixels(shot)
        print(f"check_html: screenshot {shot}: {w} x {h}")
        if w != width:
            fail(f"screenshot is {w} px wide, not {width}")
    colours = {"MPI red": (0xe1, 0x57, 0x59), "computation green": (0x59, 0xa1, 0x4f)}
    if with_trace:
        colours["wait-state orange"] = (0xf2, 0x8e, 0x2b)
    counts = dict.fromkeys(colours, 0)
    blue = 0
    for row in rows[::2]:
        for x in range(0, w * bpp, 2 * bpp):
            px = (row[x], row[x + 1], row[x + 2])
            for k, c in colours.items():
                if px == c:
                    counts[k] += 1
            if px[2] > 150 and px[0] < 150 and px[2] - px[0] > 60:
                blue += 1
    counts["heatmap and bar blue"] = blue
    for k, n in counts.items():
        print(f"check_html: {k}: {n} sampled pixels")
        if n < 100:
            fail(f"the screenshot shows almost no {k} ({n} sampled pixels)")


def check_sections(out, page, with_trace, full):
    """Sections, their order, the navigation bar, legends, the header."""
    prof = json.load(open(os.path.join(out, "profile.json")))
    ids = re.findall(r'<section id="([\w-]+)"', page)
    want = ["summary", "rank-table", "ranks", "imbalance", "functions", "callsites", "histogram", "matrix"]
    if sum(s.get("time_ns", 0) for s in prof.get("callsites", [])) >= 10**6:
        want.append("flame")
    has_io = bool(prof.get("io", {}).get("files"))
    has_vt = os.path.exists(os.path.join(out, "profile-vt.json"))
    has_checks = os.path.exists(os.path.join(out, "checks.json"))
    if full and not (has_io and has_vt and has_checks):
        fail(f"--full: the run lacks I/O ({has_io}), user regions ({has_vt}) or checks ({has_checks})")
    want += ["io"] * has_io + ["regions"] * has_vt + ["checks"] * has_checks + ["waitstates"] * with_trace
    for sid in want:
        if sid not in ids:
            fail(f"no section {sid}; sections: {ids}")
    print(f"check_html: sections {ids}")
    nav = re.search(r"<nav>(.*?)</nav>", page, re.S).group(1)
    for sid in ids:
        if sid != "summary" and f'href="#{sid}"' not in nav:
            fail(f"section {sid} is not in the navigation bar")
    if has_checks:
        n = json.load(open(os.path.join(out, "checks.json")))["count"]
        first = re.search(r'<a href="#([\w-]+)"[^>]*>([^<]*)</a>', nav)
        if not first or first.group(1) != "checks" or first.group(2) != f"findings ({n})":
            fail(f"the first link of the navigation bar is not 'findings ({n})': {first.group(0) if first else nav}")
        if ids[:2] != ["summary", "checks"]:
            fail(f"the findings are not the first section after the summary: {ids}")
    for legend in ("legend-imbalance", "legend-matrix"):
        if f'id="{legend}"' not in page:
            fail(f"no {legend}")
    # The summary's wall time: the longest rank's, as profile.json has it.
    wall = prof["summary"]["wall_ns_max"] / 1e9
    shown = re.search(r"wall time <b>([^<]*)</b>", page)
    unit = {"s": 1, "ms": 1e-3, "µs": 1e-6}
    if not shown:
        fail("no wall time in the summary")
    else:
        v, u = shown.group(1).split()
        if abs(float(v) * unit[u] - wall) > 0.0011 * max(1, wall) * (1 if u == "s" else 1e-3):
            fail(f"the summary's wall time is {shown.group(1)}, profile.json says {wall:.6f} s")
    # Least and most MPI time per rank: profile.json's, each its own number
    # (the old page printed the wall time as the most).
    unit_s = {"s": 1, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
    mm = re.search(r"least ([\d.]+) (\S+) on rank (\d+), most ([\d.]+) (\S+) on rank (\d+)", page)
    if not mm:
        fail("the summary has no 'least ... on rank N, most ... on rank M'")
    else:
        sm = prof["summary"]
        for v, u, at, key in ((mm.group(1), mm.group(2), mm.group(3), "mpi_ns_rank_min"),
                              (mm.group(4), mm.group(5), mm.group(6), "mpi_ns_rank_max")):
            got, want = float(v) * unit_s.get(u, 0), sm[key] / 1e9
            if abs(got - want) > 0.002 * want + 1e-9 or int(at) != sm[key + "_at"]:
                fail(f"the summary says {v} {u} on rank {at} for {key}, profile.json "
                     f"{want:.6f} s on rank {sm[key + '_at']}")
    # The per-rank table: every rank with its host.
    sec = re.search(r'<section id="rank-table">(.*?)</section>', page, re.S)
    rows = re.findall(r"<tr><td class=\"n\" data-v=\"(\d+)\">\d+</td><td>([^<]*)</td>", sec.group(1) if sec else "")
    want_rows = [(str(r["rank"]), r["host"]) for r in prof["per_rank"]]
    if rows != want_rows:
        fail(f"per-rank table rows {rows}, expected {want_rows}")
    cmd = prof.get("run", {}).get("command", "")
    if cmd and cmd.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;") not in page:
        fail(f"the header does not show the command line {cmd!r}")


if __name__ == "__main__":
    main()
    if failures:
        print(f"check_html: {len(failures)} problems", file=sys.stderr)
        sys.exit(1)
    print("check_html: ok")
