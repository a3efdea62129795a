"""Call paths from profile.json's call sites.

The rule is the same as `mpiscope export --folded` (tools/cli/export_folded.c),
so that the folded stacks, the Hatchet tree and this module agree:

* a site's frames are listed innermost first in profile.json; a path lists
  them outermost first and ends with the MPI function;
* a frame is named by its symbol, else ``<module>+<offset>``, else
  ``<file>:<line>``, else ``??``; a ``;`` in a name becomes ``:``;
* frames outside ``main`` (the C library's start-up) are left out: a stack
  that reaches ``main`` is whole;
* so is one with fewer frames than the recorded depth (the unwinder reached
  the bottom of the stack);
* any other stack was cut at the recorded depth, and its path starts with
  the frame ``[cut at depth N]``, under which every such stack is rooted.
"""

CUT_FORMAT = "[cut at depth {}]"


def frame_name(frame):
    """The name of one frame of a call site (a dict of profile.json)."""
    name = frame.get("symbol") or ""
    if not name and frame.get("offset"):
        name = "{}+{}".format(frame.get("module", ""), frame["offset"])
    if not name and frame.get("file"):
        name = "{}:{}".format(frame["file"], frame.get("line", 0))
    if not name:
        name = "??"
    return name.replace(";", ":")


def site_path(site, depth):
    """The call path of a call site, outermost first, ending with the MPI
    function: a tuple of strings. ``depth`` is profile.json's
    ``callsite_depth``."""
    frames = list(site.get("frames", []))
    names = [frame_name(f) for f in reversed(frames)]
    main = None
    for i, f in enumerate(reversed(frames)):
        if f.get("symbol") == "main":
            main = i
            break
    if main is not None:
        names = names[main:]
    elif len(frames) >= depth:
        names = [CUT_FORMAT.format(depth)] + names
    return tuple(names) + (site["function"],)


def folded(profile, unit_ns=1000):
    """The folded stacks of a profile (the parsed profile.json) as a dict
    ``{"main;solve;MPI_Allreduce": weight}``: MPI time summed per path, in
    units of ``unit_ns`` (microseconds by default), rounded to the nearest
    integer; paths whose weight rounds to 0 are left out. The same numbers as
    ``mpiscope export --folded``."""
    depth = profile.get("callsite_depth", 0)
    ns = {}
    for site in profile.get("callsites", []):
        key = ";".join(site_path(site, depth))
        ns[key] = ns.get(key, 0) + site["time_ns"]
    out = {}
    for key, v in ns.items():
        w = (v + unit_ns // 2) // unit_ns
        if w > 0:
            out[key] = w
    return out
