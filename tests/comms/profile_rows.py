"""What the comms checks read from a profile.json: one function's row as
(calls, bytes_sent, bytes_recv, {histogram bin: count}), compared with the
rows a program implies (check_partitioned.py, check_isendrecv.py)."""


def function_rows(prof):
    """{name: (calls, bytes_sent, bytes_recv, {bin: count})} of every function row."""
    return {f["name"]: (f["calls"], f["bytes_sent"], f["bytes_recv"],
                        {h["bin"]: h["count"] for h in f["histogram"]})
            for f in prof["functions"]}


def check_rows(prof, want, fail):
    """Calls fail(message) for each function of `want` whose row differs."""
    rows = function_rows(prof)
    for name, w in want.items():
        if rows.get(name) != w:
            fail(f"{name}: {rows.get(name)}, want {w}")
