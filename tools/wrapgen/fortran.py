"""Fortran wrappers: mpif.h, `use mpi` and `use mpi_f08`, from the library's own symbols.

Why the Fortran entry points are wrapped at all: an MPI's Fortran bindings
need not reach the C functions that wrappers_c.c intercepts. Open MPI's
Fortran layers call PMPI_ directly; MPICH's mpi_f08 layer calls PMPI_ for
every function without a choice buffer (MPI_Init, MPI_Barrier, MPI_Waitall,
MPI_Pcontrol). So each Fortran symbol that the binding libraries export for
a wrapped function (and for MPI_Init, MPI_Init_thread, MPI_Finalize and
MPI_Pcontrol) gets a wrapper of the same name in libmpiscope, which calls the
library's Fortran profiling twin with exactly the arguments it received:
  mpi_send_, mpi_send__, mpi_send, MPI_SEND  ->  pmpi_send_ ... PMPI_SEND
  mpi_send_f08_ (Open MPI)                   ->  pmpi_send_f08_
  mpi_send_f08ts_ (MPICH)                    ->  pmpir_send_f08ts_
The library thus keeps every Fortran rule (sentinels, hidden character
lengths, optional ierror, status layouts); the wrapper only reads the
arguments to fill the call record with C values (src/intercept/fortran.h).
Where a twin itself calls the C MPI_ function (MPICH's pmpi_send_ does), that
inner call passes through the C wrapper unrecorded because the thread is
busy, so each call is counted once, with its Fortran language. A symbol
without a twin is skipped and the coverage report says so.

Arguments come from the C prototype: every parameter by reference, then
ierror when the C function returns int, then one hidden length (size_t) per
character parameter, in order. The exceptions are explicit (LIFECYCLE,
DROPPED, and functions of Fortran type, e.g. MPI_Aint_add); a prototype this
module cannot map stops the build with a message naming the function.

Shape, as in wrappers_c.c: each exported symbol tests the thread's gate and
tail-calls its twin when recording is off; otherwise it calls the recording
path of its C function (one per function, made of the roles in
functions.txt, shared by all the function's symbols), passing the twin, its
binding (language, sentinels, how buffers arrive) and its return address.
"""

import os
import re

# `use mpi_f08` linker names (MPI-3.1 17.1.5): _f08 for the mpi_f08 module,
# _f08ts when choice buffers are TYPE(*), DIMENSION(..) (assumed rank, so they
# arrive as array descriptors), _large for the MPI_Count forms (C: MPI_X_c).
F08_SUFFIXES = ("_f08_", "_f08ts_")
F08_LARGE_SUFFIXES = ("_f08_large_", "_f08ts_large_")

# Where each MPI keeps the Fortran sentinels, as (symbol, MPI_Fint offset). The
# first layout whose symbols the library exports is used; with none, the
# generator stops.
SENTINEL_LAYOUTS = [
    ("Open MPI: one set of variables for every binding (mpif-sentinels.h)", {
        "f77": {"bottom": ("mpi_fortran_bottom_", 0),
                "in_place": ("mpi_fortran_in_place_", 0),
                "status_ignore": ("mpi_fortran_status_ignore_", 0),
                "statuses_ignore": ("mpi_fortran_statuses_ignore_", 0)},
        "f08": {"bottom": ("mpi_fortran_bottom_", 0),
                "in_place": ("mpi_fortran_in_place_", 0),
                "status_ignore": ("mpi_fortran_status_ignore_", 0),
                "statuses_ignore": ("mpi_fortran_statuses_ignore_", 0)}}),
    ("MPICH: mpif.h's COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE and "
     "/MPIPRIV2/ MPI_STATUSES_IGNORE; the mpi_f08 module's BIND(C) objects", {
        "f77": {"bottom": ("mpipriv1_", 0),
                "in_place": ("mpipriv1_", 1),
                "status_ignore": ("mpipriv1_", 2),
                "statuses_ignore": ("mpipriv2_", 0)},
        "f08": {"bottom": ("MPIR_F08_MPI_BOTTOM", 0),
                "in_place": ("MPIR_F08_MPI_IN_PLACE", 0),
                "status_ignore": ("MPIR_F08_MPI_STATUS_IGNORE_OBJ", 0),
                "statuses_ignore": ("MPIR_F08_MPI_STATUSES_IGNORE_OBJ", 0)}}),
]

# The hand-written C wrappers' Fortran forms: (Fortran arguments, body).
# Their bodies call the steps of src/intercept/lifecycle.h. MPI_INIT* when MPI
# was initialized already and MPI_FINALIZE when it is not running are told to
# the check of calls outside MPI (LOCAL:CALL:INIT_TWICE, AFTER_FINALIZE) at
# the caller's line, and only the twin runs (MISPLACED).
MISPLACED = ["if (MSC_UNLIKELY(msc_lifecycle_misplaced(MSC_FN_{name}, MSC_CALLER()))) {{",
             "    unsigned msc_g0 = msc_f_misplaced_begin();",
             "    msc_pmpi({args});",
             "    msc_f_misplaced_end(msc_g0);",
             "    return;",
             "}}"]
LIFECYCLE = {
    "MPI_Init": (["ierror"],
                 ["msc_lifecycle_init_begin();",
                  "MPI_Fint msc_ierr = MPI_SUCCESS;",
                  "if (!ierror) ierror = &msc_ierr;",
                  "msc_pmpi(ierror);",
                  "msc_f_init_end(MSC_FN_MPI_Init, *ierror, NULL);"]),
    "MPI_Init_thread": (["required", "provided", "ierror"],
                        ["msc_lifecycle_init_begin();",
                         "MPI_Fint msc_ierr = MPI_SUCCESS;",
                         "if (!ierror) ierror = &msc_ierr;",
                         "msc_pmpi(required, provided, ierror);",
                         "msc_f_init_end(MSC_FN_MPI_Init_thread, *ierror, provided);"]),
    "MPI_Finalize": (["ierror"],
                     ["msc_lifecycle_finalize_begin(MSC_FN_MPI_Finalize, MSC_CALLER());",
                      "msc_pmpi(ierror);",
                      "msc_lifecycle_finalize_end();"]),
    "MPI_Pcontrol": (["level"],   # no ierror in either Fortran binding
                     ["int msc_outside = msc_f_pcontrol_begin(level);",
                      "msc_pmpi(level);",
                      "msc_f_pcontrol_end(msc_outside);"]),
}

# C parameters that the Fortran binding does not have: the command line of
# MPI_Info_create_env (MPI-4.0), which Fortran gets from the runtime.
DROPPED = {"MPI_Info_create_env": {"argc", "argv"}}

# C return types of functions that are Fortran functions (no ierror), e.g.
# MPI_Aint_add returns INTEGER(KIND=MPI_ADDRESS_KIND).
FORTRAN_FUNCTION_TYPES = {"double", "MPI_Aint", "MPI_Count", "MPI_Offset"}

# Roles whose record field is filled after the call, in this order.
_AFTER_ORDER = ("flag", "reqs", "index", "status", "request", "reqio", "newcomm", "commio",
                "obj")

# Handle classes of role obj: the record holds the address of a C handle,
# converted from the Fortran one before the call and again after it.
OBJ_F2C = {"MPI_Comm": "PMPI_Comm_f2c", "MPI_Group": "PMPI_Group_f2c",
           "MPI_Datatype": "PMPI_Type_f2c", "MPI_Op": "PMPI_Op_f2c", "MPI_Win": "PMPI_Win_f2c",
           "MPI_File": "PMPI_File_f2c", "MPI_Info": "PMPI_Info_f2c",
           "MPI_Errhandler": "PMPI_Errhandler_f2c"}


def _error(gen_error, msg):
    raise gen_error(msg)


def _generator(wrap):
    """wrapgen's namespace, found through its Function class: wrapgen runs as
    __main__, so importing it by name would load a second copy, whose
    GenError its main() would not catch."""
    return type(wrap[0]).__init__.__globals__


class FArg:
    def __init__(self, name, ctype):
        self.name = name      # identifier in the wrapper (the C parameter's name)
        self.ctype = ctype    # how the wrapper declares it: "void *", "MPI_Fint *", "size_t "


class Sig:
    """A Fortran entry point's arguments and result, derived from C."""

    def __init__(self, args, ret, has_ierror):
        self.args = args
        self.ret = ret                # "void" or the C type of a Fortran function
        self.has_ierror = has_ierror

    def decl(self):
        return ", ".join(f"{a.ctype}{a.name}" for a in self.args) or "void"

    def call(self):
        return ", ".join(a.name for a in self.args)


def signature(fn, gen_error):
    """The Fortran argument list of generated function `fn` (wrapgen.Function)."""
    p = fn.proto
    if p.variadic:
        _error(gen_error, f"{p.name}: variadic; its Fortran form is unknown")
    drop = DROPPED.get(p.name, set())
    args, lengths = [], []
    for prm in p.params:
        if prm.name in drop:
            continue
        if prm.name == "argc" or "MPI_Fint" in prm.text:
            _error(gen_error, f"{p.name}: parameter '{prm.text}' has no Fortran counterpart "
                   "that fortran.py knows (add the function to DROPPED, or teach it)")
        args.append(FArg(prm.name, "void *"))
        if re.search(r"\bchar\b", prm.text):
            lengths.append(FArg(f"msc_len_{prm.name}", "size_t "))
    unknown = drop - {x.name for x in p.params}
    if unknown:
        _error(gen_error, f"{p.name}: DROPPED names parameters {sorted(unknown)} that the "
               "prototype does not have")
    if p.ret == "int":
        args.append(FArg("ierror", "MPI_Fint *"))
        ret, has_ierror = "void", True
    elif p.ret in FORTRAN_FUNCTION_TYPES:
        ret, has_ierror = p.ret, False
    else:
        _error(gen_error, f"{p.name}: returns '{p.ret}'; its Fortran form is unknown")
    return Sig(args + lengths, ret, has_ierror)


# --- symbols ---------------------------------------------------------------

def f77_names(cname):
    """mpif.h / `use mpi` names as compilers mangle them: gfortran and most
    others (mpi_send_), g77 and -fsecond-underscore (mpi_send__),
    -fno-underscoring and IBM XL (mpi_send), Cray and Windows (MPI_SEND).
    Each also with _cptr: the specific procedures that take the base pointer
    as TYPE(C_PTR) (MPI_ALLOC_MEM_CPTR, MPI_WIN_ALLOCATE_CPTR, ...; MPI-3.1
    8.2), with the same arguments otherwise."""
    out = []
    for low, up in ((cname.lower(), cname.upper()), (cname.lower() + "_cptr",
                                                      cname.upper() + "_CPTR")):
        out += [low + "_", low + "__", low, up]
    return out


def f08_names(cname):
    if cname.endswith("_c"):
        return [cname[:-2].lower() + s for s in F08_LARGE_SUFFIXES]
    return [cname.lower() + s for s in F08_SUFFIXES]


def twins(sym):
    """Candidate profiling names of a Fortran symbol, in order of preference."""
    if sym.startswith("MPI_"):
        return ["P" + sym]
    out = ["p" + sym]
    if "_f08" in sym:
        out.append("pmpir_" + sym[len("mpi_"):])   # MPICH's mpi_f08 profiling names
    return out


def binding_of(sym, binding):
    """The msc_fbind_t of a symbol of `binding` ("f77" or "f08"): f08 symbols
    with _f08ts take their choice buffers as array descriptors."""
    return "f08ts" if binding == "f08" and "_f08ts" in sym else binding


def find_symbols(names, fsyms, gen_error):
    """{C name: {"f77"|"f08": [(symbol, twin or None, msc_fbind_t name)]}}; a symbol
    claimed twice is an error."""
    found, owner = {}, {}
    for cname in names:
        per = {"f77": [], "f08": []}
        for binding, cands in (("f77", f77_names(cname)), ("f08", f08_names(cname))):
            for sym in cands:
                if sym not in fsyms:
                    continue
                if sym in owner:
                    _error(gen_error, f"Fortran symbol {sym} matches both {owner[sym]} and {cname}")
                owner[sym] = cname
                twin = next((t for t in twins(sym) if t in fsyms), None)
                per[binding].append((sym, twin, binding_of(sym, binding)))
        found[cname] = per
    return found


def pick_sentinels(bindings, fsyms, gen_error):
    """{binding: {sentinel: (symbol, offset)}} for the bindings that have wrappers."""
    out = {}
    for b in bindings:
        for _why, layout in SENTINEL_LAYOUTS:
            if all(s in fsyms for s, _ in layout[b].values()):
                out[b] = layout[b]
                break
        else:
            _error(gen_error, f"no known layout of the {b} sentinels (MPI_IN_PLACE, MPI_BOTTOM, "
                   "MPI_STATUS(ES)_IGNORE) matches the Fortran libraries' symbols; add one to "
                   "SENTINEL_LAYOUTS in tools/wrapgen/fortran.py")
    return out


# --- C templates -----------------------------------------------------------

def role_code(fn, sig, gen_error):
    """(declarations, statements before the call, statements after it)."""
    r = fn.roles
    have = {a.name for a in sig.args}
    for role, param in r.items():
        if param not in have and role != "args":  # args=all names no one argument
            _error(gen_error, f"{fn.name}: role {role}={param} is not a Fortran argument")
    decl, before, after = [], [], {}

    def big(param):
        return "MPI_Count" in fn.proto.param(param).text

    for role, param in r.items():
        if role == "buf" and re.search(r"\bchar\b", fn.proto.param(param).text):
            # A CHARACTER argument (File_open's name): blank-padded, not
            # terminated; count carries its hidden length.
            before.append(f"msc_c.buf = {param};")
            before.append(f"msc_c.count = (MPI_Count)msc_len_{param};")
        elif role in ("buf", "rbuf"):
            cast = "(void *)" if role == "rbuf" else ""
            before.append(f"msc_c.{role} = {cast}msc_f_buf(msc_b, {param});")
        elif role in ("count", "rcount", "tcount"):
            conv = "msc_f_count" if big(param) else "msc_f_int"
            before.append(f"msc_c.{role} = {conv}({param});")
        elif role == "tdisp":    # INTEGER(KIND=MPI_ADDRESS_KIND)
            before.append(f"msc_c.tdisp = *(const MPI_Aint *){param};")
        elif role in ("peer", "tag", "rpeer", "rtag", "root", "part", "nparts"):
            before.append(f"msc_c.{role} = msc_f_int({param});")
        elif role == "parthi":
            before.append(f"msc_c.part_hi = msc_f_int({param});")
        elif role == "partlist":   # INTEGER array: MPI_Fint is int (msc_call_t.partlist)
            before.append(f"msc_c.partlist = (const int *){param};")
        elif role in ("type", "rtype", "ttype"):
            before.append(f"msc_c.{role} = msc_f_type({param});")
        elif role == "op":
            before.append(f"msc_c.op = msc_f_op({param});")
        elif role == "comm":
            before.append(f"msc_c.comm = msc_f_comm({param});")
        elif role == "win":
            before.append(f"msc_c.win = PMPI_Win_f2c(msc_f_int({param}));")
        elif role == "file":
            before.append(f"msc_c.file = PMPI_File_f2c(msc_f_int({param}));")
        elif role == "offset":   # INTEGER(KIND=MPI_OFFSET_KIND)
            before.append(f"msc_c.offset = *(const MPI_Offset *){param};")
        elif role in ("counts", "rcounts"):
            before.append(f"msc_c.{role} = {param};")
            before.append(f"msc_c.counts_are_mpi_count = {1 if big(param) else 0};")
        elif role in ("displs", "rdispls"):
            before.append(f"msc_c.{role} = {param};")
            wide = "MPI_Aint" in fn.proto.param(param).text
            before.append(f"msc_c.displs_are_aint = {1 if wide else 0};")
        elif role == "status":
            decl.append("MPI_Fint msc_fst[MSC_F_STATUS_SIZE] = {0};")
            decl.append("MPI_Status msc_st;")
            before.append(f"{param} = msc_f_status_in(msc_b, {param}, msc_fst);")
            before.append("msc_c.status = &msc_st;")
            after["status"] = f"msc_f_status_out({param}, &msc_st);"
        elif role == "reqval":   # a request handle the call only reads
            before.append(f"msc_c.req_in = msc_f_request({param});")
        elif role in ("request", "reqio"):
            decl.append("MPI_Request msc_req = MPI_REQUEST_NULL;")
            if role == "reqio":
                before.append(f"msc_c.req_in = msc_f_request({param});")
            before.append("msc_c.request = &msc_req;")
            after[role] = f"if (msc_rc == MPI_SUCCESS) msc_req = msc_f_request({param});"
        elif role in ("newcomm", "commio"):
            decl.append("MPI_Comm msc_newcomm = MPI_COMM_NULL;")
            if role == "commio":
                before.append(f"msc_c.comm = msc_f_comm({param});")
            before.append("msc_c.newcomm = &msc_newcomm;")
            # The application's own handle: a nonblocking constructor's is
            # read when its request completes (kind ICOMM), not now.
            before.append(f"msc_c.newcomm_f = {param};")
            after[role] = f"if (msc_rc == MPI_SUCCESS) msc_newcomm = msc_f_comm({param});"
        elif role == "flag":
            decl.append("int msc_flag = 0;")
            before.append("msc_c.flag = &msc_flag;")
            after["flag"] = f"msc_flag = msc_f_int({param}) != 0;"
        elif role == "index":
            decl.append("int msc_index = MPI_UNDEFINED;")
            before.append("msc_c.index = &msc_index;")
            after["index"] = f"msc_index = msc_f_index(&msc_c, {param});"
        elif role == "outcount":   # set by msc_f_requests_out
            decl.append("int msc_outcount = MPI_UNDEFINED;")
            before.append("msc_c.outcount = &msc_outcount;")
        elif role == "obj":
            m = re.match(r"\s*(MPI_\w+)\s*\*\s*\w+\s*$", fn.proto.param(param).text)
            if not m or m.group(1) not in OBJ_F2C:
                _error(gen_error, f"{fn.name}: role obj needs a pointer to a handle, not "
                       f"'{fn.proto.param(param).text}'")
            ctype, f2c = m.group(1), OBJ_F2C[m.group(1)]
            decl.append(f"{ctype} msc_obj = {f2c}(msc_f_int({param}));")
            before.append("msc_c.obj = &msc_obj;")
            before.append(f"msc_c.obj_class = MSC_OBJ_{ctype[len('MPI_'):].upper()};")
            after["obj"] = f"if (msc_rc == MPI_SUCCESS) msc_obj = {f2c}(msc_f_int({param}));"
        elif role == "group":
            before.append(f"msc_c.group = PMPI_Group_f2c(msc_f_int({param}));")
        elif role == "out":
            # A Fortran argument is never a NULL pointer.
            before.append(f"msc_c.out = (void *){param};")
        elif role in ("n", "reqs", "statuses", "indices", "parts"):
            pass
        elif role == "args":
            # Fortran arguments are addresses of INTEGERs and arrays of
            # them: not given (the checks that read them see none).
            before.append("msc_c.nargs = 0;")
        elif role in ("types", "rtypes"):
            # Arrays of Fortran handles: left NULL (converting each element
            # would need storage per call); the checks then give no verdict.
            pass
        else:
            _error(gen_error, f"{fn.name}: role {role} has no Fortran template")
    if "parts" in r:   # partitions multiply the count (wrapgen.py's role_lines)
        which = "count" if "count" in r else "rcount"
        before.append(f"msc_c.{which} *= (MPI_Count)msc_f_int({r['parts']});")
        before.append(f"msc_c.parts = msc_f_int({r['parts']});")
    if "reqs" in r:
        st = f"&{r['statuses']}" if "statuses" in r else "NULL"
        before.append(f"msc_f_requests_in(&msc_c, msc_b, msc_f_int({r['n']}), {r['reqs']}, {st});")
        after["reqs"] = (f"msc_f_requests_out(&msc_c, {r['reqs']}, "
                         f"{r.get('statuses', 'NULL')}, {r.get('outcount', 'NULL')}, "
                         f"{r.get('indices', 'NULL')});")
    elif "statuses" in r or "n" in r or "indices" in r:
        _error(gen_error, f"{fn.name}: roles n/statuses/indices need role reqs")
    return decl, before, [after[k] for k in _AFTER_ORDER if k in after]


def recording_path(fn, sig, gen_error):
    """The recording path of `fn`, shared by all its Fortran symbols: a
    function of its own, as in the C wrappers, so that the exported stubs
    are a gate test and two tail calls."""
    n = fn.name
    decl, before, after = role_code(fn, sig, gen_error)
    call = f"msc_pmpi({sig.call()})"
    bypass = f"{{ {call}; return; }}" if sig.ret == "void" else f"return {call};"
    lines = [f"typedef {sig.ret} msc_ft_{n}({sig.decl()});",
             f"static __attribute__((noinline)) {sig.ret} msc_frec_{n}(msc_ft_{n} *msc_pmpi, "
             "const msc_fbind_t *msc_b, void *msc_site,",
             f"        {sig.decl()})",
             "{",
             "    msc_call_t msc_c;",
             f"    if (!msc_call_begin(&msc_c, MSC_FN_{n}, MSC_KIND_{fn.kind}, msc_b->lang, "
             "msc_site))",
             f"        {bypass}"]
    lines += ["    " + s for s in decl]
    if sig.has_ierror:
        lines.append("    MPI_Fint msc_ierr = MPI_SUCCESS;   /* f08: ierror is optional */")
        lines.append("    if (!ierror) ierror = &msc_ierr;")
    lines += ["    " + s for s in before]
    lines.append("    msc_call_enter(&msc_c);")
    if sig.has_ierror:
        lines += [f"    {call};", "    int msc_rc = *ierror;"]
        lines += ["    " + s for s in after]
        lines += ["    msc_call_leave(&msc_c, msc_rc);"]
    else:
        if after:
            _error(gen_error, f"{n}: a Fortran function with output roles")
        lines += [f"    {sig.ret} msc_rv = {call};",
                  "    msc_call_leave(&msc_c, MPI_SUCCESS);",
                  "    return msc_rv;"]
    lines += ["}"]
    return lines


def stub(fn, sig, sym, twin, bind):
    """One exported Fortran symbol: gate test, then its twin or the recording path."""
    ret, call = sig.ret, sig.call()
    rec = f"msc_frec_{fn.name}({twin}, &msc_{bind}, MSC_CALLER(), {call})"
    if ret == "void":
        off, on = f"{{ {twin}({call}); return; }}", f"{rec};"
    else:
        off, on = f"return {twin}({call});", f"return {rec};"
    lines = [f"MSC_API {ret} {sym}({sig.decl()})", "{"]
    if fn.kind == "ABORT":
        # Whatever the recording state: the rank is about to go down.
        lines.append("    msc_fatal_emergency(0);")
    lines += [f"    if (msc_gate_closed()) {off}", f"    {on}", "}"]
    return lines


def lifecycle_stub(name, sym, twin):
    """MPI_Init*, MPI_Finalize, MPI_Pcontrol: the steps of lifecycle.h around the twin."""
    args, stmts = LIFECYCLE[name]
    if name == "MPI_Pcontrol" and "_f08" in sym:
        # The standard gives MPI_Pcontrol no ierror, but MPICH's f08 layer
        # passes an optional one and its twin (pmpir_pcontrol_f08_) stores
        # the result through it when it is not NULL: forward it, or the twin
        # writes through whatever the second argument register holds. A twin
        # that takes only the level (Open MPI) ignores it.
        args = ["level", "ierror"]
        stmts = [x.replace("msc_pmpi(level)", "msc_pmpi(level, ierror)") for x in stmts]
    decl = ", ".join(("MPI_Fint *" if a == "ierror" else "void *") + a for a in args)
    if name != "MPI_Pcontrol":
        stmts = [x.format(name=name, args=", ".join(args)) for x in MISPLACED] + stmts
    lines = [f"MSC_API void {sym}({decl})", "{"]
    lines += ["    " + x.replace("msc_pmpi(", f"{twin}(") for x in stmts]
    lines += ["}"]
    return lines, decl


def sentinel_c(bindings, layout):
    """Declarations of the sentinel symbols and one msc_fbind_t per binding."""
    syms = sorted({s for b in layout.values() for s, _ in b.values()})
    # Under names of our own: mpi.h may declare some of them with other types.
    out = [f"extern MPI_Fint msc_sym_{s}[] __asm__(\"{s}\");" for s in syms]
    out.append("")
    langs = {"f77": "MSC_LANG_F77", "f08": "MSC_LANG_F08", "f08ts": "MSC_LANG_F08"}
    for b in bindings:
        lay = layout["f77" if b == "f77" else "f08"]
        addr = {k: f"&msc_sym_{s}[{o}]" for k, (s, o) in lay.items()}
        out += [f"static const msc_fbind_t msc_{b} = {{",
                f"    .lang = {langs[b]},",
                f"    .desc = {1 if b == 'f08ts' else 0},",
                f"    .bottom = {addr['bottom']},",
                f"    .in_place = {addr['in_place']},",
                f"    .status_ignore = {addr['status_ignore']},",
                f"    .statuses_ignore = {addr['statuses_ignore']},",
                "};"]
    return out


def unclaimed_rows(fsyms, claimed):
    """Coverage rows for the Fortran MPI entry points (those with a profiling
    twin, so not data or predefined callbacks) that no wrapped C function
    claims: Fortran-only functions (MPI_Sizeof), functions that mpi.h removed
    or defines as macros, and those the C wrappers skip (MPI_Wtime)."""
    groups = {}
    for sym in sorted(fsyms - claimed):
        if not re.fullmatch(r"mpi_\w+|MPI_[A-Z0-9_]+", sym):
            continue
        if not any(t in fsyms for t in twins(sym)):
            continue
        base = re.sub(r"(_f08ts_large_|_f08_large_|_f08ts_|_f08_|__|_)$", "", sym.lower())
        groups.setdefault(base, []).append(sym)
    return [f"{base} fortran skipped {' '.join(syms)}: no wrapped C function of this name"
            for base, syms in sorted(groups.items())]


# --- output ----------------------------------------------------------------

def emit(outdir, mpi, wrap, fortran_symbols, generator):
    """Writes wrappers_fortran.c and appends the Fortran rows to coverage.txt."""
    wrapgen = _generator(wrap)
    gen_error = wrapgen["GenError"]
    fsyms = set(fortran_symbols)
    by_name = {f.name: f for f in wrap}
    names = sorted(by_name) + sorted(LIFECYCLE)
    found = find_symbols(names, fsyms, gen_error)

    out_fns, rows = [], []
    n_wrapped = {"f77": 0, "f08": 0}
    n_skipped = 0
    used_bindings = set()
    for cname in names:
        per = found[cname]
        todo = [(s, t, fb) for b in ("f77", "f08") for s, t, fb in per[b] if t]
        if not per["f77"] and not per["f08"]:
            rows.append(f"{cname} fortran skipped the Fortran libraries export no symbol for it")
            continue
        if todo:
            twins_used = sorted({t for _, t, _ in todo})
            if cname in LIFECYCLE:
                # Twins of one function may take different arguments (MPICH's
                # f08 MPI_Pcontrol has an ierror): one prototype per form.
                code, forms = [], {}
                for sym, twin, _ in todo:
                    lines, decl = lifecycle_stub(cname, sym, twin)
                    code += lines
                    forms.setdefault(decl, set()).add(twin)
                protos = []
                for k, (decl, tws) in enumerate(sorted(forms.items())):
                    protos += [f"typedef void msc_ft_{cname}_{k}({decl});",
                               f"msc_ft_{cname}_{k} {', '.join(sorted(tws))};"]
                out_fns += [f"/* {cname} */"] + protos + code + [""]
                used_bindings.update(fb for _, _, fb in todo)
            else:
                sig = signature(by_name[cname], gen_error)
                lines = recording_path(by_name[cname], sig, gen_error)
                proto, rec = lines[0], lines[1:]
                code = rec
                for sym, twin, bind in todo:
                    code += stub(by_name[cname], sig, sym, twin, bind)
                out_fns += [f"/* {cname} */", proto,
                            f"msc_ft_{cname} {', '.join(twins_used)};"] + code + [""]
                used_bindings.update(fb for _, _, fb in todo)
        for b in ("f77", "f08"):
            ok = [s for s, t, _ in per[b] if t]
            no = [s for s, t, _ in per[b] if not t]
            if ok:
                n_wrapped[b] += len(ok)
                rows.append(f"{cname} {b} wrapped {' '.join(ok)}")
            if no:
                n_skipped += len(no)
                rows.append(f"{cname} {b} skipped {' '.join(no)}: the library exports no "
                            f"profiling twin ({' or '.join(twins(no[0]))})")

    claimed = {s for per in found.values() for b in per.values() for s, _, _ in b}
    rows += unclaimed_rows(fsyms, claimed)

    layout = pick_sentinels({"f77" if b == "f77" else "f08" for b in used_bindings},
                            fsyms, gen_error)
    banner = (f"/* Generated by {generator} for {mpi} from its mpi.h, the symbols of its Fortran "
              "libraries and tools/wrapgen/functions.txt. Do not edit. */")
    out = [banner, "#include \"intercept/fortran.h\"", "",
           "/* Deprecated functions are wrapped like any other: programs still call them. */",
           "#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"", "",
           "#define MSC_API __attribute__((visibility(\"default\")))", ""]
    out += sentinel_c(sorted(used_bindings), layout) + [""]
    out += out_fns
    wrapgen["write"](os.path.join(outdir, "wrappers_fortran.c"), "\n".join(out) + "\n")

    total = n_wrapped["f77"] + n_wrapped["f08"]
    with open(os.path.join(outdir, "coverage.txt"), "a") as f:
        f.write(f"# Fortran symbols: {total} wrapped (mpif.h/use mpi {n_wrapped['f77']}, "
                f"use mpi_f08 {n_wrapped['f08']}), {n_skipped} skipped; f77 = mpif.h and "
                "`use mpi`, f08 = `use mpi_f08`\n")
        f.write("# function binding status symbols\n")
        f.write("\n".join(rows) + "\n")
    print(f"wrapgen: {mpi}: {total} Fortran symbols wrapped (mpif.h/use mpi "
          f"{n_wrapped['f77']}, use mpi_f08 {n_wrapped['f08']}), {n_skipped} without a "
          "profiling twin")
    return n_wrapped, n_skipped
