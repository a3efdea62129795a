#!/usr/bin/env python3
"""wrapgen: generates mpiscope's MPI wrappers from the installed MPI.

Inputs, all taken from the MPI being built against:
  --header   mpi.h preprocessed by that MPI's compiler wrapper (-E -P)
  --macros   the same header's macro definitions (-E -dM), to find functions
             that mpi.h defines as macros (their calls never reach a symbol)
  --symbols  the dynamic symbols the MPI libraries export (nm -D --defined-only)
  --facts    functions.txt: the kind and argument roles of each function
  --legacy   legacy.txt: MPI-2.2 prototypes of functions removed in MPI-3.0,
             used where mpi.h no longer declares them

Outputs, into --outdir (the build tree; never committed):
  msc_functions.h/.c  function ids, names and kinds shared by all wrappers
  wrappers_c.c        one wrapper per C function (templates below)
  coverage.txt        every PMPI_ function: wrapped, or skipped and why

A function is wrapped when mpi.h (or, for a function removed in MPI-3.0,
legacy.txt) declares PMPI_name and the library exports it. A legacy function
gets its declarations written into wrappers_c.c, after an #undef of the
macro with which mpi.h may forbid its use (Open MPI's _Static_assert). Anything the generator does not understand stops the build with a
message that names the function.
"""

import argparse
import fnmatch
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdecl  # noqa: E402
import fortran  # noqa: E402

KINDS = ["OTHER", "LIFECYCLE", "HANDWRITTEN", "SEND", "RECV", "SENDRECV", "ISEND", "IRECV", "SEND_INIT",
         "RECV_INIT", "PROBE", "MRECV", "IMRECV", "WAIT", "TEST", "WAITANY", "TESTANY",
         "WAITALL", "TESTALL", "WAITSOME", "TESTSOME", "START", "STARTALL", "REQUEST_FREE",
         "CANCEL", "COLL", "ICOLL", "COMM", "COMM_FREE", "ABORT", "HANDLE_NEW", "HANDLE_FREE",
         "TYPE_COMMIT", "RMA_PUT", "RMA_GET", "RMA_ACC", "RMA_FENCE", "RMA_LOCK", "RMA_UNLOCK",
         "RMA_PSCW", "IO_READ", "IO_WRITE", "IO_IREAD", "IO_IWRITE", "RMA_RPUT", "RMA_RGET",
         "RMA_RACC", "RMA_SYNC", "COLL_INIT", "IO_END", "ICOMM", "ISENDRECV", "PREADY",
         "PARRIVED"]

ROLES = {"buf", "rbuf", "count", "rcount", "type", "rtype", "peer", "tag", "rpeer", "rtag",
         "root", "op", "comm", "counts", "rcounts", "status", "request", "reqio", "n", "reqs",
         "statuses", "flag", "index", "outcount", "indices", "newcomm", "commio", "obj",
         "win", "file", "offset", "out", "group", "tdisp", "tcount", "ttype", "types",
         "rtypes", "parts", "args", "displs", "rdispls", "part", "parthi", "nparts",
         "partlist", "reqval"}
MAX_ARGS = 10  # role args: the call's first arguments, as integers (call.h: msc_call_t.arg)


# Role obj: the address of an MPI handle (made, committed or freed by the
# call); its C type says which class of object it is.
OBJ_CLASSES = {"MPI_Comm": "COMM", "MPI_Group": "GROUP", "MPI_Datatype": "DATATYPE",
               "MPI_Op": "OP", "MPI_Win": "WIN", "MPI_File": "FILE", "MPI_Info": "INFO",
               "MPI_Errhandler": "ERRHANDLER"}

# Hand-written in src/intercept/lifecycle.c: they drive the tool's state.
HAND_WRITTEN = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Pcontrol"}

SKIPPED = {
    "MPI_Wtime": "timer: applications build their own timers from it; recording it would "
                 "distort exactly what it measures",
    "MPI_Wtick": "timer resolution query, see MPI_Wtime",
}


class GenError(Exception):
    pass


class Function:
    def __init__(self, proto, kind, roles):
        self.proto = proto
        self.name = proto.name
        self.kind = kind
        self.roles = roles        # role -> parameter name


def read_facts(path):
    """Returns {name or glob: (kind, roles)}. A HANDWRITTEN line names, instead
    of roles, the file that holds the hand-written wrappers: the generator
    writes none for those functions (its name may be a glob, e.g. MPI_T_*)."""
    facts = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) < 2:
                raise GenError(f"{path}:{lineno}: expected 'NAME KIND role=param ...'")
            name, kind = words[0], words[1]
            if kind not in KINDS:
                raise GenError(f"{path}:{lineno}: unknown kind {kind}")
            roles = {}
            if kind == "HANDWRITTEN":
                if len(words) != 3:
                    raise GenError(f"{path}:{lineno}: HANDWRITTEN takes the file that has them")
                facts[name] = (kind, {"file": words[2]})
                continue
            for w in words[2:]:
                role, _, param = w.partition("=")
                if role not in ROLES or not param:
                    raise GenError(f"{path}:{lineno}: bad role '{w}'")
                roles[role] = param
            if name in facts:
                raise GenError(f"{path}:{lineno}: {name} listed twice")
            facts[name] = (kind, roles)
    return facts


def read_symbols(path):
    syms = set()
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                syms.add(parts[-1].split("@")[0])
    return syms


def function_macros(path):
    names = set()
    with open(path) as f:
        for line in f:
            m = re.match(r"#define (MPI_\w+)\(", line)
            if m:
                names.add(m.group(1))
    return names


def facts_for(name, facts):
    if name in facts:
        return facts[name]
    if name.endswith("_c") and name[:-2] in facts:
        return facts[name[:-2]]
    for pattern, fact in facts.items():
        if fact[0] == "HANDWRITTEN" and fnmatch.fnmatchcase(name, pattern):
            return fact
    return ("OTHER", {})


def read_legacy(path, protos):
    """Adds to protos the legacy.txt prototypes that mpi.h does not declare;
    returns (every legacy name, the names added)."""
    with open(path) as f:
        text = "".join(line for line in f if not line.lstrip().startswith("#"))
    added = set()
    for name, proto in cdecl.parse(text).items():
        if name not in protos:
            protos[name] = proto
            added.add(name)
    return set(cdecl.parse(text)), added


def select(protos, symbols, macros, facts, legacy=frozenset(), added=frozenset()):
    """Returns (functions to wrap, hand-written names, coverage rows)."""
    wrap, hand, rows = [], [], []
    for name in sorted(set(protos) | {s[1:] for s in symbols if s.startswith("PMPI_")}):
        pname = "P" + name
        if name not in protos:
            rows.append((name, "skipped", "exported by the library but not declared in mpi.h"))
            continue
        if pname not in symbols and name in legacy:
            rows.append((name, "skipped", "removed in MPI-3.0 (tools/wrapgen/legacy.txt) and "
                         "not exported by the library"))
            continue
        if pname not in symbols:
            rows.append((name, "skipped", "declared in mpi.h but not exported by the library"))
            continue
        if name in HAND_WRITTEN:
            hand.append(name)
            rows.append((name, "wrapped", "hand-written (src/intercept/lifecycle.c)"))
            continue
        if name in SKIPPED:
            rows.append((name, "skipped", SKIPPED[name]))
            continue
        if name in macros and name not in added:
            rows.append((name, "skipped", "a function-like macro in mpi.h: calls never reach "
                         "the symbol"))
            continue
        proto = protos[name]
        kind, roles = facts_for(name, facts)
        if kind == "HANDWRITTEN":
            hand.append(name)
            rows.append((name, "wrapped", f"hand-written ({roles['file']})"))
            continue
        if proto.variadic:
            raise GenError(f"{name}: variadic, and no hand-written wrapper exists")
        resolved = {}
        for role, params in roles.items():
            if role == "args":  # args=all: no one parameter
                if params != "all":
                    raise GenError(f"{name}: role args takes 'all', not '{params}'")
                resolved[role] = "all"
                continue
            # "@N": the N-th parameter, for prototypes declared without names.
            found = [proto.params[int(x[1:])].name if x[1:].isdigit() and
                     int(x[1:]) < len(proto.params) else x
                     for x in params.split("|") if x.startswith("@") or proto.param(x)]
            found = [x for x in found if proto.param(x)]
            if not found:
                raise GenError(f"{name}: role {role} names parameter '{params}', which the "
                               f"prototype does not have: {[p.name for p in proto.params]}")
            resolved[role] = found[0]
        wrap.append(Function(proto, kind, resolved))
        rows.append((name, "wrapped", f"generated, kind {kind}" +
                     (", removed in MPI-3.0" if name in legacy else "") +
                     (" (prototype from legacy.txt)" if name in added else "")))
    return wrap, hand, rows


# --- C templates -----------------------------------------------------------

def role_lines(fn):
    """C statements that fill the call record from the arguments."""
    r, p = fn.roles, fn.proto
    out = []
    simple = {"buf": "buf", "rbuf": "rbuf", "type": "type", "rtype": "rtype", "peer": "peer",
              "tag": "tag", "rpeer": "rpeer", "rtag": "rtag", "root": "root", "op": "op",
              "comm": "comm", "request": "request", "flag": "flag", "index": "index",
              "outcount": "outcount", "indices": "indices", "newcomm": "newcomm",
              "win": "win", "file": "file", "offset": "offset", "group": "group",
              "types": "types", "rtypes": "rtypes", "part": "part", "parthi": "part_hi",
              "nparts": "nparts", "partlist": "partlist"}
    for role, param in r.items():
        if role in simple:
            val = f"(void *){param}" if role == "rbuf" and "const" in p.param(param).text \
                else param
            out.append(f"msc_c.{simple[role]} = {val};")
        elif role in ("count", "rcount", "tcount"):
            out.append(f"msc_c.{role} = (MPI_Count){param};")
        elif role == "out":
            out.append(f"msc_c.out = (void *){param};")
        elif role == "tdisp":
            out.append(f"msc_c.tdisp = (MPI_Aint){param};")
        elif role == "ttype":
            out.append(f"msc_c.ttype = {param};")
        elif role in ("counts", "rcounts"):
            out.append(f"msc_c.{role} = {param};")
            big = 1 if "MPI_Count" in p.param(param).text else 0
            out.append(f"msc_c.counts_are_mpi_count = {big};")
        elif role in ("displs", "rdispls"):
            out.append(f"msc_c.{role} = {param};")
            wide = 1 if "MPI_Aint" in p.param(param).text else 0
            out.append(f"msc_c.displs_are_aint = {wide};")
        elif role == "status":
            # What MSC_STATUS (wrap.h) does, spelled out: that macro's
            # parameter is named like the field, so it works only for
            # parameters named `status` (ROMIO's in MPICH have no name).
            out.append(f"if ({param} == MPI_STATUS_IGNORE) {param} = &msc_status;")
            out.append(f"msc_c.status = {param};")
        elif role == "reqval":   # a request handle passed by value
            out.append(f"msc_c.req_in = {param};")
        elif role == "reqio":
            out.append(f"msc_c.request = {param};")
            # NULL is erroneous; the checks say so before PMPI sees it.
            out.append(f"msc_c.req_in = {param} ? *{param} : MPI_REQUEST_NULL;")
        elif role == "obj":
            m = re.match(r"\s*(MPI_\w+)\s*\*\s*\w+\s*$", p.param(param).text)
            if not m or m.group(1) not in OBJ_CLASSES:
                raise GenError(f"{fn.name}: role obj needs a pointer to a handle, not "
                               f"'{p.param(param).text}'")
            out.append(f"msc_c.obj = (void *){param};")
            out.append(f"msc_c.obj_class = MSC_OBJ_{OBJ_CLASSES[m.group(1)]};")
        elif role == "commio":
            out.append(f"msc_c.newcomm = {param};")
            out.append(f"msc_c.comm = {param} ? *{param} : MPI_COMM_NULL;")
    if "args" in r:
        # Every argument as an integer, for checks of arguments no other
        # role names (src/check/topo.c reads them by position).
        for i, prm in enumerate(p.params[:MAX_ARGS]):
            out.append(f"msc_c.arg[{i}] = (intptr_t){prm.name};")
        out.append(f"msc_c.nargs = {min(len(p.params), MAX_ARGS)};")
    if "parts" in r:
        # Partitioned communication (MPI-4.0 §4): the message is all the
        # partitions, each `count` elements.
        which = "count" if "count" in r else "rcount" if "rcount" in r else None
        if not which:
            raise GenError(f"{fn.name}: role parts needs role count or rcount")
        out.append(f"msc_c.{which} *= (MPI_Count){r['parts']};")
        out.append(f"msc_c.parts = {r['parts']};")
    if "reqs" in r:
        n = r.get("n")
        if not n:
            raise GenError(f"{fn.name}: role reqs needs role n")
        st = f"&{r['statuses']}" if "statuses" in r else "NULL"
        out.append(f"msc_requests_in(&msc_c, {n}, {r['reqs']}, {st});")
    elif "statuses" in r or "n" in r:
        raise GenError(f"{fn.name}: roles n/statuses need role reqs")
    return out


# Functions whose PMPI call may run the application's own code (attribute
# copy and delete callbacks, error handlers), and, further down, reductions
# whose operation is the application's (user_op_param): the wrapper opens the
# gate around the PMPI call (msc_call_open, wrap.h), so that the MPI calls
# that code makes are recorded, nested in this one. Nothing else is opened:
# inside any other PMPI call an MPI_ call is the library calling itself
# (ROMIO, the Fortran and C++ layers) and stays unrecorded. Only C wrappers
# open: a Fortran binding may reach the C MPI_ function of the same call.
# Not opened: completion calls (a generalized request's query and free
# functions run inside MPI_Wait/Test, whose record uses the thread's scratch
# arrays, which a nested completion call would overwrite), nonblocking
# collectives (the operation runs at completion) and error handlers called
# by the library on a failing call (any function). MPI_Finalize: lifecycle.c.
CALLBACK_FUNCTIONS = {
    "MPI_Comm_free", "MPI_Comm_disconnect", "MPI_Comm_dup", "MPI_Comm_dup_with_info",
    "MPI_Comm_set_attr", "MPI_Comm_delete_attr", "MPI_Attr_put", "MPI_Attr_delete",
    "MPI_Type_free", "MPI_Type_dup", "MPI_Type_set_attr", "MPI_Type_delete_attr",
    "MPI_Win_free", "MPI_Win_set_attr", "MPI_Win_delete_attr",
    "MPI_Comm_call_errhandler", "MPI_Win_call_errhandler", "MPI_File_call_errhandler",
    "MPI_Session_call_errhandler",
}


def user_op_param(fn):
    """The MPI_Op parameter of a blocking reduction (or MPI_Reduce_local),
    whose operation may be the application's function; None otherwise."""
    if fn.kind == "COLL" and "op" in fn.roles:
        return fn.roles["op"]
    if fn.name in ("MPI_Reduce_local", "MPI_Reduce_local_c"):
        for x in fn.proto.params:
            if re.match(r"\s*MPI_Op\s+\w+\s*$", x.text):
                return x.name
    return None


def c_wrapper(fn):
    """The exported wrapper tests the gate and tail-calls either PMPI or the
    recording path, which lives in its own function so that the path taken
    when recording is off has no stack frame to set up. The recording path
    takes exactly the wrapper's parameters, so that both calls are jumps
    that leave the caller's arguments where they are; the call site (the
    wrapper's return address) travels in the thread's msc_tls.site. On
    x86-64 the wrapper is MSC_THUNK (wrap.h), those three steps in six
    instructions whatever the number of parameters: in C, GCC copies every
    argument passed on the stack before either jump."""
    p = fn.proto
    decl = ", ".join(x.text for x in p.params) or "void"
    args = ", ".join(x.name for x in p.params)
    call = f"P{p.name}({args})"
    rec = f"msc_rec_{p.name}"
    # An int return is an error code, except the handle conversions to
    # Fortran (MPI_Comm_c2f, ... return an MPI_Fint; MPI_Status_c2f and
    # MPI_Status_f2c do return error codes).
    is_int = p.ret == "int" and not (re.search(r"_(c2f|f2c)$", p.name) and "Status" not in p.name)
    lines = [f"#ifndef {p.name}",
             f"static __attribute__((noinline, used)) {p.ret} {rec}({decl})",
             "{",
             "    msc_call_t msc_c;",
             f"    if (!msc_call_begin(&msc_c, MSC_FN_{p.name}, MSC_KIND_{fn.kind}, MSC_LANG_C, "
             "msc_tls.site))",
             f"        return {call};"]
    if "status" in fn.roles:
        lines.append("    MPI_Status msc_status;")
    lines += ["    " + s for s in role_lines(fn)]
    lines.append("    msc_call_enter(&msc_c);")
    op = user_op_param(fn)
    if fn.name in CALLBACK_FUNCTIONS:
        lines.append("    msc_call_open(&msc_c);")
    elif op:
        lines.append(f"    if (msc_op_is_user({op})) msc_call_open(&msc_c);")
    lines.append(f"    {p.ret} msc_rc = {call};")
    if fn.name in CALLBACK_FUNCTIONS:
        lines.append("    msc_call_shut();")
    elif op:
        lines.append("    if (msc_c.opened) msc_call_shut();")
    lines += [
              f"    msc_call_done(&msc_c, {'msc_rc' if is_int else 'MPI_SUCCESS'}, "
              f"MSC_FN_{p.name}, MSC_KIND_{fn.kind});",
              "    return msc_rc;",
              "}",
              ""]
    thunk = fn.kind != "ABORT"
    if thunk:
        lines += ["#if MSC_ASM_THUNKS", f"MSC_THUNK({p.name});", "#else"]
    lines += [f"MSC_API {p.ret} {p.name}({decl})", "{"]
    if fn.kind == "ABORT":
        # Whatever the recording state: the rank is about to go down.
        lines.append("    msc_fatal_emergency(0);")
    lines += [f"    if (msc_gate_closed()) return {call};",
              "    msc_tls.site = MSC_CALLER();",
              f"    return {rec}({args});",
              "}"]
    if thunk:
        lines.append("#endif")
    lines += ["#endif", ""]
    return "\n".join(lines)


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def legacy_decls(wrap, legacy):
    """Declarations of the wrapped legacy functions, which mpi.h hides."""
    out = []
    for fn in wrap:
        if fn.name in legacy:
            decl = ", ".join(x.text for x in fn.proto.params) or "void"
            out += [f"#undef {fn.name}", f"#undef P{fn.name}",
                    f"{fn.proto.ret} {fn.name}({decl});",
                    f"{fn.proto.ret} P{fn.name}({decl});"]
    if out:
        out = ["/* Removed in MPI-3.0, still exported by this library: MPI-2.2 "
               "prototypes from tools/wrapgen/legacy.txt. */"] + out + [""]
    return out


def emit(outdir, mpi, wrap, hand, rows, generator, legacy=frozenset()):
    names = sorted([f.name for f in wrap] + hand)
    kinds = {f.name: f.kind for f in wrap}
    roles = {f.name: f.roles for f in wrap}
    role_list = sorted(ROLES)
    for h in hand:
        kinds[h] = "LIFECYCLE" if h in HAND_WRITTEN else "HANDWRITTEN"
    banner = (f"/* Generated by {generator} for {mpi} from its mpi.h and "
              "tools/wrapgen/functions.txt. Do not edit. */\n")

    h = [banner, "#ifndef MSC_FUNCTIONS_H", "#define MSC_FUNCTIONS_H", "",
         "typedef enum {"]
    h += [f"    MSC_KIND_{k}," for k in KINDS]
    h += ["    MSC_KIND_COUNT", "} msc_kind_t;", "", "typedef enum {"]
    h += [f"    MSC_FN_{n}," for n in names]
    h += ["    MSC_FN_COUNT", "} msc_fn_t;", "",
          "/* Bits of msc_fn_roles: which fields of the call record a function's",
          " * wrapper sets (the roles of its line in functions.txt). */"]
    h += [f"#define MSC_ROLE_{r.upper()} (1ull << {i})" for i, r in enumerate(role_list)]
    h += ["",
          "extern const char *const msc_fn_name[MSC_FN_COUNT];",
          "extern const unsigned long long msc_fn_roles[MSC_FN_COUNT];",
          "extern const unsigned char msc_fn_kind[MSC_FN_COUNT];",
          "extern const char *const msc_kind_name[MSC_KIND_COUNT];",
          "/* Function id of an MPI function name (\"MPI_Send\"), or -1. */",
          "int msc_fn_lookup(const char *name);", "", "#endif", ""]
    write(os.path.join(outdir, "msc_functions.h"), "\n".join(h))

    c = [banner, "#include \"msc_functions.h\"", "", "#include <stdlib.h>",
         "#include <string.h>", "",
         "const char *const msc_fn_name[MSC_FN_COUNT] = {"]
    c += [f"    \"{n}\"," for n in names]
    c += ["};", "", "const unsigned char msc_fn_kind[MSC_FN_COUNT] = {"]
    c += [f"    MSC_KIND_{kinds[n]}," for n in names]
    c += ["};", "", "const unsigned long long msc_fn_roles[MSC_FN_COUNT] = {"]
    for n in names:
        bits = " | ".join(f"MSC_ROLE_{r.upper()}" for r in sorted(roles.get(n, {})))
        c.append(f"    {bits or '0'},")
    c += ["};", "", "const char *const msc_kind_name[MSC_KIND_COUNT] = {"]
    c += [f"    \"{k}\"," for k in KINDS]
    c += ["};", "",
          "static int by_name(const void *key, const void *elem)",
          "{",
          "    return strcmp((const char *)key, *(const char *const *)elem);",
          "}", "",
          "int msc_fn_lookup(const char *name)",
          "{",
          "    const char *const *hit = bsearch(name, msc_fn_name, MSC_FN_COUNT, "
          "sizeof msc_fn_name[0], by_name);",
          "    return hit ? (int)(hit - msc_fn_name) : -1;",
          "}", ""]
    write(os.path.join(outdir, "msc_functions.c"), "\n".join(c))

    w = [banner.replace("Do not edit.", "Template: c_wrapper() in wrapgen.py. Do not edit."),
         "#include \"intercept/wrap.h\"", "",
         "/* Deprecated functions are wrapped like any other: programs still call them. */",
         "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"", "",
         "#define MSC_API __attribute__((visibility(\"default\")))", ""]
    w += legacy_decls(wrap, legacy)
    w += [c_wrapper(f) for f in wrap]
    write(os.path.join(outdir, "wrappers_c.c"), "\n".join(w))

    wrapped = sum(1 for r in rows if r[1] == "wrapped")
    rep = [f"# mpiscope wrapper coverage for {mpi}",
           f"# {len(rows)} PMPI_ functions: {wrapped} wrapped, {len(rows) - wrapped} skipped",
           "# function status reason"]
    rep += [f"{n} {s} {why}" for n, s, why in rows]
    write(os.path.join(outdir, "coverage.txt"), "\n".join(rep) + "\n")
    return wrapped, len(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mpi", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--macros", required=True)
    ap.add_argument("--symbols", required=True)
    ap.add_argument("--fortran-symbols", default=None,
                    help="symbols of the Fortran binding libraries (nm -D --defined-only)")
    ap.add_argument("--facts", required=True)
    ap.add_argument("--legacy", default=None,
                    help="legacy.txt: MPI-2.2 prototypes of functions removed in MPI-3.0")
    ap.add_argument("--outdir", required=True)
    a = ap.parse_args()
    try:
        protos = cdecl.parse(open(a.header).read())
        if len(protos) < 100:
            raise GenError(f"only {len(protos)} PMPI_ prototypes in {a.header}: not an mpi.h?")
        legacy, added = read_legacy(a.legacy, protos) if a.legacy else (set(), set())
        wrap, hand, rows = select(protos, read_symbols(a.symbols), function_macros(a.macros),
                                  read_facts(a.facts), legacy, added)
        missing = HAND_WRITTEN - set(hand)
        if missing:
            raise GenError(f"the library lacks {sorted(missing)}, which mpiscope needs")
        os.makedirs(a.outdir, exist_ok=True)
        wrapped, total = emit(a.outdir, a.mpi, wrap, hand, rows, "tools/wrapgen/wrapgen.py",
                               added)
        fsyms = read_symbols(a.fortran_symbols) if a.fortran_symbols else set()
        fortran.emit(a.outdir, a.mpi, wrap, fsyms, "tools/wrapgen/fortran.py")
    except (cdecl.ParseError, GenError, OSError) as e:
        print(f"wrapgen: {a.mpi}: error: {e}", file=sys.stderr)
        return 1
    print(f"wrapgen: {a.mpi}: {wrapped} of {total} PMPI_ functions wrapped "
          f"(coverage: {os.path.join(a.outdir, 'coverage.txt')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
