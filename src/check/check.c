/* The check module (MPISCOPE_MODE=check): correctness checks in the
 * tradition of MARMOT and MUST. This file registers the module, reads its
 * settings and runs the local checks; the enter hook checks arguments
 * before the PMPI call (many invalid arguments make the MPI library abort
 * under MPI_ERRORS_ARE_FATAL, so a finding must be recorded first) and never
 * changes them: the call then proceeds exactly as the application made it.
 * The leave hook tracks objects and requests, reports failed calls, compares
 * send-buffer checksums at completion and hands receives to the
 * point-to-point type matching (global.c). Every finding names a class;
 * docs/checks.md lists them.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fatal.h"
#include "log.h"
#include "module.h"

chk_config_t chk_cfg;

/* Per-thread: the checksum of the send buffer taken at enter, for the
 * request the call is about to make. */
static CHK_TLS uint64_t pending_sum;
/* What the application's request variable held before a posting call (C
 * bindings: a Fortran wrapper's handle is its own until the call returns),
 * for post_request to name a pending request the call overwrites. The read
 * may see an uninitialised variable's garbage: it is only compared, and a
 * request is named overwritten only if its handle was written to that very
 * variable, and only at MPI_Finalize if nothing completed it (objects.c). */
static CHK_TLS MPI_Request pending_old;
static CHK_TLS bool pending_old_set;

static bool has(const msc_call_t *c, unsigned long long role)
{
    return (msc_fn_roles[c->fn] & role) != 0;
}

static int comm_size_of(MPI_Comm comm, bool remote)
{
    const chk_cinfo_t *ci = chk_cinfo(comm);
    return remote ? ci->rsize : ci->size;
}

/* Checks a communicator argument; false if unusable (no further checks). */
static bool check_comm(msc_call_t *c, MPI_Comm comm)
{
    if (CHK_ZERO(comm)) {
        chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
                   "%s was called with a communicator handle whose value is 0 (NULL). That "
                   "names no communicator in this MPI (nor is it MPI_COMM_NULL): the handle "
                   "variable was set to NULL or never set. Pass a valid communicator.",
                   msc_fn_name[c->fn]);
        return false;
    }
    if (comm == MPI_COMM_NULL) {
        chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
                   "%s was called with MPI_COMM_NULL as its communicator. MPI_COMM_NULL names no "
                   "communicator (it is what MPI_Comm_split gives ranks that passed "
                   "MPI_UNDEFINED, and what MPI_Comm_free leaves behind); pass a valid one, or "
                   "skip the call on ranks that are not members.",
                   msc_fn_name[c->fn]);
        return false;
    }
    if (chk_cinfo(comm)->state == CHK_FREED) {
        chk_report("LOCAL:ARG:FREED_HANDLE", c->fn, c->site,
                   "%s was called with a communicator that was already freed (MPI_Comm_free). A "
                   "freed handle must not be used; keep the communicator until its last use.",
                   msc_fn_name[c->fn]);
        return false;
    }
    return true;
}

static void check_type(msc_call_t *c, MPI_Datatype t, const char *which)
{
    if (CHK_ZERO(t)) {
        chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
                   "%s was called with a %sdatatype handle whose value is 0 (NULL). That names "
                   "no datatype in this MPI (nor is it MPI_DATATYPE_NULL): the handle variable "
                   "was set to NULL or never set. Pass the datatype of the buffer's elements.",
                   msc_fn_name[c->fn], which);
        return;
    }
    if (t == MPI_DATATYPE_NULL) {
        chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
                   "%s was called with MPI_DATATYPE_NULL as its %sdatatype. Pass the datatype of "
                   "the buffer's elements.",
                   msc_fn_name[c->fn], which);
        return;
    }
    const chk_tinfo_t *ti = chk_tinfo(t);
    if (ti->state == CHK_FREED) {
        chk_report("LOCAL:ARG:FREED_HANDLE", c->fn, c->site,
                   "%s was called with a %sdatatype that was already freed (MPI_Type_free). "
                   "Free a datatype only after its last use in a communication call.",
                   msc_fn_name[c->fn], which);
        return;
    }
    if (!ti->committed)
        chk_report("LOCAL:ARG:TYPE_NOT_COMMITTED", c->fn, c->site,
                   "%s was called with a derived %sdatatype that was never committed. A derived "
                   "datatype must be committed with MPI_Type_commit before it is used in "
                   "communication.",
                   msc_fn_name[c->fn], which);
}

static void check_count(msc_call_t *c, MPI_Count n, const char *which)
{
    if (n < 0)
        chk_report("LOCAL:ARG:NEGATIVE_COUNT", c->fn, c->site,
                   "%s was called with a negative %scount (%lld). Counts are numbers of "
                   "elements and must be zero or more; a negative count usually comes from an "
                   "uninitialised variable or a subtraction that went below zero.",
                   msc_fn_name[c->fn], which, (long long)n);
}

static void check_rank(msc_call_t *c, MPI_Comm comm, int r, bool recv, const char *which)
{
    if (r == MPI_PROC_NULL || (recv && r == MPI_ANY_SOURCE)) return;
    int n = comm_size_of(comm, true);
    if (n >= 0 && (r < 0 || r >= n))
        chk_report("LOCAL:ARG:RANK_OUT_OF_RANGE", c->fn, c->site,
                   "%s was called with %s %d, but the communicator has %d rank%s (0 to %d)%s. "
                   "Ranks are relative to the communicator passed; compute neighbours modulo the "
                   "size or use MPI_PROC_NULL at the edges.",
                   msc_fn_name[c->fn], which, r, n, n == 1 ? "" : "s", n - 1,
                   recv ? "; MPI_ANY_SOURCE and MPI_PROC_NULL are also allowed"
                        : "; MPI_PROC_NULL is also allowed");
}

static void check_tag(msc_call_t *c, int tag, bool recv)
{
    if (recv && tag == MPI_ANY_TAG) return;
    if (tag < 0 || tag > chk_cfg.tag_ub)
        chk_report("LOCAL:ARG:TAG_OUT_OF_RANGE", c->fn, c->site,
                   "%s was called with tag %d. Tags must lie between 0 and MPI_TAG_UB (%d here)%s.",
                   msc_fn_name[c->fn], tag, chk_cfg.tag_ub,
                   recv ? "; a receive may also use MPI_ANY_TAG" : "; MPI_ANY_TAG is for receives only");
}

static void check_not_in_place(msc_call_t *c, const void *buf)
{
    if (buf == MPI_IN_PLACE)
        chk_report("LOCAL:ARG:IN_PLACE", c->fn, c->site,
                   "%s was called with MPI_IN_PLACE as a buffer, which only some collective "
                   "operations accept (and then only in the argument the standard names). Pass "
                   "a real buffer.",
                   msc_fn_name[c->fn]);
}

/* Byte span [lo, hi) that `count` elements of `t` at `buf` touch. */
static bool span(const void *buf, MPI_Count count, MPI_Datatype t, uintptr_t *lo, uintptr_t *hi)
{
    if (!buf || count <= 0 || t == MPI_DATATYPE_NULL || buf == MPI_IN_PLACE) return false;
    const chk_tinfo_t *ti = chk_tinfo(t);
    if (!ti->ok) return false;
    *lo = (uintptr_t)buf + (uintptr_t)ti->tlb;
    *hi = *lo + (uintptr_t)((count - 1) * ti->extent + ti->textent);
    return true;
}

/* The bytes of a contiguous buffer (start, length); false for other
 * layouts, whose gaps may change legally. */
static bool contiguous(const void *buf, MPI_Count count, MPI_Datatype t,
                       const unsigned char **start, int64_t *n)
{
    if (!buf || buf == MPI_IN_PLACE || count <= 0 || t == MPI_DATATYPE_NULL) return false;
    const chk_tinfo_t *ti = chk_tinfo(t);
    if (!ti->contig) return false;
    *start = (const unsigned char *)buf + ti->tlb;
    *n = (int64_t)(ti->size * count);
    return true;
}

/* A buffer that runs past the end of the global or static object or the
 * heap block it starts in (an ELF symbol's size, globals.c; a block's,
 * objects_at.c), MPI reading (`writes`
 * false) or writing the bytes beyond: LOCAL:BUFFER:OVERFLOW. Every byte the
 * count elements of the type touch counts, gaps of derived types too (the
 * buffer is count consecutive elements, MPI-3.1 sections 3.2.2, 4.1). */
static void overflow_of(msc_call_t *c, const chk_object_t *g, uintptr_t lo, uintptr_t hi,
                        bool writes, const char *which)
{
    if (hi <= lo || lo < g->lo || hi <= g->hi) return;
    if (!chk_fresh("LOCAL:BUFFER:OVERFLOW", c->site)) return;
    char what[1024];
    chk_object_describe(g, what, sizeof what);
    chk_report("LOCAL:BUFFER:OVERFLOW", c->fn, c->site,
               "The %sbuffer of this %s, %llu bytes from byte %llu of %s, ends %llu byte%s "
               "past the end of it: MPI %s memory that is not the buffer's (MPI-3.1 section "
               "3.2.2: a buffer is count consecutive elements of its datatype). Pass a count "
               "that fits the object, or a larger object.",
               which, msc_fn_name[c->fn], (unsigned long long)(hi - lo),
               (unsigned long long)(lo - g->lo), what, (unsigned long long)(hi - g->hi),
               hi - g->hi == 1 ? "" : "s", writes ? "would write" : "would read");
}

/* A buffer whose first byte lies in no object but in a heap block the
 * program freed (and the allocator has not handed out again): MPI would
 * read or write memory that is no longer the program's. A count of zero
 * touches no byte and is no finding. LOCAL:BUFFER:FREED. */
static void freed_of(msc_call_t *c, uintptr_t lo, uintptr_t hi, bool writes, const char *which)
{
    chk_object_t g;
    if (hi <= lo || !chk_freed_find(lo, &g)) return;
    if (!chk_fresh("LOCAL:BUFFER:FREED", c->site)) return;
    char what[1024];
    chk_object_describe(&g, what, sizeof what);
    chk_report("LOCAL:BUFFER:FREED", c->fn, c->site,
               "The %sbuffer of this %s, %llu bytes from byte %llu of %s, is memory the "
               "program has given back: MPI %s memory that belongs to the allocator (or to "
               "whatever it hands it to next). A buffer must stay allocated until the call, "
               "and for a nonblocking call its completion, is over. Free it afterwards, or "
               "pass a live buffer.",
               which, msc_fn_name[c->fn], (unsigned long long)(hi - lo),
               (unsigned long long)(lo - g.lo), what, writes ? "would write" : "would read");
}

void chk_span_object(msc_call_t *c, uintptr_t lo, uintptr_t hi, bool writes, const char *which)
{
    chk_object_t g;
    if (hi <= lo) return;
    if (chk_object_find(lo, c->site, &g))
        overflow_of(c, &g, lo, hi, writes, which);
    else
        freed_of(c, lo, hi, writes, which);
}

/* The kind of number a predefined datatype describes -- 'i' signed and 'u'
 * unsigned integers, 'f' floating point -- and its size; 0 for the others,
 * which are not judged (bytes and characters view any memory, logicals,
 * complex, derived types). */
static char number_kind(MPI_Datatype t, int *size)
{
    /* Not static: Open MPI's handles are addresses, not constants here. */
    const struct {
        MPI_Datatype t;
        char kind;
    } kinds[] = {
        {MPI_INT, 'i'},           {MPI_LONG, 'i'},
        {MPI_SHORT, 'i'},         {MPI_LONG_LONG, 'i'},
        {MPI_UNSIGNED, 'u'},      {MPI_UNSIGNED_LONG, 'u'},
        {MPI_UNSIGNED_SHORT, 'u'}, {MPI_UNSIGNED_LONG_LONG, 'u'},
        {MPI_INT16_T, 'i'},       {MPI_INT32_T, 'i'},
        {MPI_INT64_T, 'i'},       {MPI_UINT16_T, 'u'},
        {MPI_UINT32_T, 'u'},      {MPI_UINT64_T, 'u'},
        {MPI_INTEGER, 'i'},       {MPI_FLOAT, 'f'},
        {MPI_DOUBLE, 'f'},        {MPI_LONG_DOUBLE, 'f'},
        {MPI_REAL, 'f'},          {MPI_DOUBLE_PRECISION, 'f'},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (kinds[i].t == t && t != MPI_DATATYPE_NULL)
            return PMPI_Type_size(t, size) == MPI_SUCCESS && *size > 0 ? kinds[i].kind : 0;
    return 0;
}

static const char *kind_name(char k)
{
    return k == 'i' ? "a signed integer" : k == 'u' ? "an unsigned integer" : "floating point";
}

static bool derived(MPI_Datatype t)
{
    int ni, na, nd, comb = MPI_COMBINER_NAMED;
    return t != MPI_DATATYPE_NULL && PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
           comb != MPI_COMBINER_NAMED;
}

/* An object whose elements are structures (DWARF's layout) against count
 * elements of t at buf: each basic element of the type map must fall on a
 * member of its own kind and size (layout.c). */
static void layout_of(msc_call_t *c, const chk_object_t *g, uintptr_t buf, MPI_Count count,
                      MPI_Datatype t, bool writes, const char *which)
{
    char why[512];
    if (buf < g->layout_lo || g->hi <= g->layout_lo ||
        chk_layout_match(g->layout, buf - g->layout_lo, g->hi - g->layout_lo, count, t, number_kind,
                         why, sizeof why))
        return;
    if (!chk_fresh("LOCAL:BUFFER:TYPE_MISMATCH", c->site)) return;
    char what[1024], tname[MPI_MAX_OBJECT_NAME] = "", via[320] = "";
    int len = 0;
    chk_object_describe(g, what, sizeof what);
    PMPI_Type_get_name(t, tname, &len);
    if (g->ptr_name)
        snprintf(via, sizeof via, ", which `%s` in %s points to as %s", g->ptr_name,
                 g->func ? g->func : "?", g->layout->name);
    chk_report("LOCAL:BUFFER:TYPE_MISMATCH", c->fn, c->site,
               "The %sbuffer of this %s is in %s%s, but the datatype %s does not fit the "
               "layout of %s: %s. MPI %s the memory as what it is not (MPI-3.1 sections 3.3.1 "
               "and 4.1: each basic element of the datatype must fall on a member of its own "
               "type). Build the datatype from the members' addresses (MPI_Get_address) and "
               "types.",
               which, msc_fn_name[c->fn], what, via, tname[0] ? tname : "passed", g->layout->name,
               why, writes ? "writes" : "reads");
}

/* A buffer in a variable whose declared element type (DWARF) is another
 * kind or size of number than the predefined datatype it is passed as, or
 * whose structures' layout the datatype's type map does not fit (MPI-3.1
 * section 3.3.1: the types of the buffer's elements must match the
 * datatype): LOCAL:BUFFER:TYPE_MISMATCH. */
static void declared_type_of(msc_call_t *c, chk_object_t *g, uintptr_t buf, MPI_Count count,
                             MPI_Datatype t, bool writes, const char *which)
{
    int size = 0;
    /* A heap block: its type from the pointer the caller reaches it by,
     * looked for only when the datatype is one the check judges. */
    if (!g->enc && !g->layout && g->alloc_site && !g->free_site &&
        (number_kind(t, &size) || derived(t)))
        chk_stack_pointee(buf, c->site, g);
    if (g->layout) {
        layout_of(c, g, buf, count, t, writes, which);
        return;
    }
    if (!g->enc) return;
    /* An array of numbers under a derived datatype: its type map laid over
     * a layout of one element of the declared type, repeating (an hvector
     * whose stride lands inside a float, a contiguous of MPI_INT over
     * longs or unsigned ints). */
    if (derived(t) && (g->enc == DW_ATE_signed || g->enc == DW_ATE_unsigned || g->enc == DW_ATE_float)) {
        _Alignas(chk_layout_t) unsigned char mem[sizeof(chk_layout_t) + sizeof(chk_leaf_t)];
        chk_layout_t *l = (chk_layout_t *)(void *)mem;
        char name[96];
        snprintf(name, sizeof name, "an array of %s", g->type ? g->type : "numbers");
        l->name = name, l->stride = g->size, l->n = 1;
        l->leaf[0] = (chk_leaf_t){0, 1, g->enc, g->size, g->type ? g->type : "?"};
        chk_object_t a = *g;
        a.layout = l;
        layout_of(c, &a, buf, count, t, writes, which);
        return;
    }
    char want = g->enc == DW_ATE_signed ? 'i' : g->enc == DW_ATE_unsigned ? 'u'
              : g->enc == DW_ATE_float  ? 'f' : 0;
    char kind = want ? number_kind(t, &size) : 0;
    if (!kind || (kind == want && size == g->size)) return;
    if (!chk_fresh("LOCAL:BUFFER:TYPE_MISMATCH", c->site)) return;
    char tname[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    PMPI_Type_get_name(t, tname, &len);
    if (g->ptr_name) {
        char what[1024];
        chk_object_describe(g, what, sizeof what);
        chk_report("LOCAL:BUFFER:TYPE_MISMATCH", c->fn, c->site,
                   "The %sbuffer of this %s is in %s, which `%s` in %s points to as elements "
                   "of type %s (%s, %d bytes), but is passed as %s (%s, %d bytes): MPI %s the "
                   "memory as what it is not (MPI-3.1 section 3.3.1: the buffer's elements must "
                   "be of the datatype's type). Pass the datatype of the elements (or convert "
                   "the data).",
                   which, msc_fn_name[c->fn], what, g->ptr_name, g->func ? g->func : "?",
                   g->type ? g->type : "?", kind_name(want), g->size, tname[0] ? tname : "the datatype",
                   kind_name(kind), size, writes ? "writes" : "reads");
        return;
    }
    chk_report("LOCAL:BUFFER:TYPE_MISMATCH", c->fn, c->site,
               "The %sbuffer of this %s is in `%s`, declared with elements of type %s "
               "(%s, %d bytes), but is passed as %s (%s, %d bytes): MPI %s the memory as what "
               "it is not (MPI-3.1 section 3.3.1: the buffer's elements must be of the "
               "datatype's type). Pass the datatype of the variable (or convert the data).",
               which, msc_fn_name[c->fn], g->name, g->type ? g->type : "?", kind_name(want),
               g->size, tname[0] ? tname : "the datatype", kind_name(kind), size,
               writes ? "writes" : "reads");
}

/* Both checks of one buffer, with one look-up of its object (a stack
 * buffer's costs a walk of the frames the first time at a call site). */
void chk_buffer_object(msc_call_t *c, const void *buf, MPI_Count count, MPI_Datatype t,
                       bool writes, const char *which)
{
    if (!buf || buf == MPI_IN_PLACE) return;
    uintptr_t lo, hi;
    bool spans = span(buf, count, t, &lo, &hi);
    chk_object_t g;
    if (!chk_object_find(spans ? lo : (uintptr_t)buf, c->site, &g)) {
        if (spans) freed_of(c, lo, hi, writes, which);
        return;
    }
    if (spans) overflow_of(c, &g, lo, hi, writes, which);
    if ((uintptr_t)buf >= g.lo && (uintptr_t)buf < g.hi)
        declared_type_of(c, &g, (uintptr_t)buf, count, t, writes, which);
}

static void check_extent(msc_call_t *c, const void *buf, MPI_Count count, MPI_Datatype t,
                         bool writes, const char *which)
{
    chk_buffer_object(c, buf, count, t, writes, which);
}

/* Byte span of a contiguous buffer; false for other layouts (their spans
 * interleave legally: two receives into different columns of one matrix). */
static bool cspan(const void *buf, MPI_Count count, MPI_Datatype t, uintptr_t *lo, uintptr_t *hi)
{
    const unsigned char *p;
    int64_t n;
    if (!contiguous(buf, count, t, &p, &n)) return false;
    *lo = (uintptr_t)p;
    *hi = *lo + (uintptr_t)n;
    return true;
}

/* Receive buffers: checksums of CHK_RSUM_MAX blocks (at least 64 bytes
 * each; of a large buffer, the first RSUM_SAMPLE bytes of each of 16 equal
 * parts), taken before the receive is posted. At completion the blocks that
 * lie wholly beyond the bytes received must be unchanged: MPI does not
 * write there, so a difference is the application's doing. */
enum { RSUM_SAMPLE = 4096 };

static int64_t rsum_len(const chk_req_t *q, int64_t off)
{
    int64_t len = q->rbytes - off < q->rblock ? q->rbytes - off : q->rblock;
    return len < RSUM_SAMPLE ? len : RSUM_SAMPLE;
}

static void recv_sums(chk_req_t *q, const void *buf, MPI_Count count, MPI_Datatype t)
{
    const unsigned char *p;
    int64_t n;
    q->nrsum = 0;
    if (!contiguous(buf, count, t, &p, &n)) return;
    n = chk_object_clamp(p, n); /* never past a global object (OVERFLOW reports it) */
    if (n <= 0) return;
    int64_t b = (n + CHK_RSUM_MAX - 1) / CHK_RSUM_MAX;
    if (b < 64) b = 64;
    q->rblock = b;
    q->rbytes = n;
    for (int64_t off = 0; off < n && q->nrsum < CHK_RSUM_MAX; off += b)
        q->rsum[q->nrsum++] = chk_checksum_block(p + off, rsum_len(q, off));
}

/* Per-thread: the receive-buffer checksums taken at enter, for the request
 * the call is about to make. */
static CHK_TLS chk_req_t pending_recv;

void chk_where(void *site, char *out, size_t n)
{
    chk_part_t p;
    memset(&p, 0, sizeof p);
    p.site = site;
    p.rank = msc_g.world_rank;
    chk_resolve(&p);
    if (p.line)
        snprintf(out, n, "%s:%d", p.file, p.line);
    else
        snprintf(out, n, "%s", p.file);
}

/* A span of this call's buffer (writes: MPI writes it) against the buffers
 * of the pending operations (self: the call's own request, skipped). */
static void check_pending_span(msc_call_t *c, uintptr_t lo, uintptr_t hi, bool writes,
                               MPI_Request self)
{
    chk_req_t q;
    if (hi <= lo || !chk_req_overlap(lo, hi, writes, self, &q)) return;
    if (!chk_fresh("LOCAL:BUFFER:PENDING_OVERLAP", c->site)) return; /* a repeat: counted */
    char at[CHK_WHERE + 16];
    chk_where(q.site, at, sizeof at);
    chk_report("LOCAL:BUFFER:PENDING_OVERLAP", c->fn, c->site,
               "The %s buffer of this %s overlaps the %s buffer of an %s that is still pending "
               "(posted at %s). %s Complete the pending operation first (MPI_Wait), or use "
               "separate buffers (MPI-3.1 sections 3.7.2 and 5.12: a buffer of a pending "
               "nonblocking operation must not be written, nor a buffer it writes accessed, "
               "until it completes).",
               writes ? "receive" : "send", msc_fn_name[c->fn], q.writes ? "receive" : "send",
               msc_fn_name[q.fn], at,
               writes && q.writes ? "Two operations write the same memory: which data ends up "
                                    "there depends on the order in which they complete."
               : writes           ? "This call may overwrite data that the pending operation "
                                    "has not read yet."
                                  : "The pending operation may overwrite the data before this "
                                    "call reads it.");
}

/* The same for `count` elements of `t` at `buf` (contiguous layouts only). */
static void check_pending_overlap(msc_call_t *c, const void *buf, MPI_Count count,
                                  MPI_Datatype t, bool writes, MPI_Request self)
{
    uintptr_t lo, hi;
    if (cspan(buf, count, t, &lo, &hi)) check_pending_span(c, lo, hi, writes, self);
}

/* The bytes a collective's send buffer (MPI reads it) and receive buffer
 * (MPI writes it) span at this rank, where the counts alone say (not the
 * v-, w- and neighbourhood forms) and the type is contiguous; {0, 0} where
 * unknown or not significant at this rank (MPI-3.1 chapter 5: a root's
 * receive arguments alone in a gather, its send arguments alone in a
 * scatter; a Bcast's buffer is read at the root, written elsewhere). */
static void coll_spans(msc_call_t *c, uintptr_t sspan[2], uintptr_t rspan[2])
{
    sspan[0] = sspan[1] = rspan[0] = rspan[1] = 0;
    if (c->comm == MPI_COMM_NULL || CHK_ZERO(c->comm)) return;
    unsigned form = chk_coll_form(c->fn);
    enum { SKIP = CHK_CF_NEIGHBOR | CHK_CF_GATHERV | CHK_CF_SCATTERV | CHK_CF_ALLGATHERV |
                  CHK_CF_ALLTOALLV | CHK_CF_ALLTOALLW | CHK_CF_RSCATTER };
    if (form & SKIP) return;
    const chk_cinfo_t *ci = chk_cinfo(c->comm);
    if (ci->inter) return;
    int n = ci->size, me = ci->rank;
    if (me < 0) PMPI_Comm_rank(c->comm, &me);
    const MPI_Count lim = (MPI_Count)1 << 32;
    if (n <= 0 || n > (1 << 24)) return;
    bool root = !has(c, MSC_ROLE_ROOT) || c->root == me;
    if (form & CHK_CF_BCAST) {
        if (has(c, MSC_ROLE_BUF) && c->count > 0 && c->count <= lim)
            cspan(c->buf, c->count, c->type, root ? &sspan[0] : &rspan[0],
                  root ? &sspan[1] : &rspan[1]);
        return;
    }
    /* Counts only where the call has them (a barrier's are not set). */
    MPI_Count count = has(c, MSC_ROLE_COUNT) ? c->count : 0;
    MPI_Count rcount = has(c, MSC_ROLE_RCOUNT) ? c->rcount : 0;
    if (count < 0 || count > lim || rcount < 0 || rcount > lim) return;
    MPI_Datatype st = c->type, rt = has(c, MSC_ROLE_RTYPE) ? c->rtype : c->type;
    MPI_Count sc, rc;
    bool scatter = form & CHK_CF_SCATTER, gather = form & CHK_CF_GATHER;
    if (has(c, MSC_ROLE_OP)) { /* one count for both, or MPI_Reduce_scatter_block's */
        sc = has(c, MSC_ROLE_COUNT) ? count : rcount * n;
        rc = has(c, MSC_ROLE_COUNT) ? count : rcount;
    } else {
        sc = count * (scatter ? n : 1);
        rc = rcount * (scatter ? 1 : n); /* gather, allgather, alltoall */
    }
    bool send = has(c, MSC_ROLE_BUF) && !(scatter && !root);
    bool recv = has(c, MSC_ROLE_RBUF) && !(gather && !root) &&
                !(has(c, MSC_ROLE_OP) && has(c, MSC_ROLE_ROOT) && !root) &&
                !((form & CHK_CF_EXSCAN) && me == 0);
    if (send && sc > 0 && sc <= lim) cspan(c->buf, sc, st, &sspan[0], &sspan[1]);
    if (recv && rc > 0 && rc <= lim) cspan(c->rbuf, rc, rt, &rspan[0], &rspan[1]);
}

/* A v- or w-collective's blocks (counts and displacements per rank of the
 * communicator, or per neighbour of its topology; MPI-3.1 sections 5.5 to
 * 5.8, 7.6): the bytes from the lowest block's first to the highest
 * block's last. v-forms displace by the datatype's extent, w-forms by
 * bytes with a datatype per block. For LOCAL:BUFFER:OVERFLOW only: the
 * gaps between blocks are not the buffer's, so the pending-overlap checks
 * (coll_spans) do not take this span. */
static MPI_Aint displ_at(const msc_call_t *c, const void *d, int i)
{
    return c->displs_are_aint ? ((const MPI_Aint *)d)[i] : ((const int *)d)[i];
}

static MPI_Count vcount_at(const msc_call_t *c, const void *a, int i)
{
    return c->counts_are_mpi_count ? ((const MPI_Count *)a)[i] : ((const int *)a)[i];
}

static bool blocks_span(const msc_call_t *c, const void *buf, const void *counts,
                        const void *displs, MPI_Datatype t, const MPI_Datatype *types, int n,
                        uintptr_t *lo, uintptr_t *hi)
{
    if (!buf || buf == MPI_IN_PLACE || !counts || !displs) return false;
    if (!types && t == MPI_DATATYPE_NULL) return false;
    const chk_tinfo_t *ti = types ? NULL : chk_tinfo(t);
    if (ti && (!ti->ok || ti->extent <= 0)) return false;
    bool any = false;
    int64_t l = 0, h = 0;
    for (int i = 0; i < n; i++) {
        MPI_Count k = vcount_at(c, counts, i);
        if (k <= 0 || k > ((MPI_Count)1 << 32)) continue;
        int64_t unit = types ? 1 : (int64_t)ti->extent; /* w-forms: bytes */
        if (types) {
            if (types[i] == MPI_DATATYPE_NULL) return false;
            ti = chk_tinfo(types[i]);
            if (!ti->ok || ti->extent < 0) return false;
        }
        int64_t a = (int64_t)displ_at(c, displs, i) * unit + (int64_t)ti->tlb;
        int64_t b = a + (int64_t)((k - 1) * ti->extent + ti->textent);
        if (!any || a < l) l = a;
        if (!any || b > h) h = b;
        any = true;
    }
    if (!any || (l < 0 && (uintptr_t)-l > (uintptr_t)buf)) return false;
    *lo = (uintptr_t)buf + (uintptr_t)l; /* below buf for a negative displacement */
    *hi = (uintptr_t)buf + (uintptr_t)h;
    return true;
}

/* The blocks of a v-collective's buffer span [lo, hi) around `buf`: the
 * object of the lowest block's first byte judges the span (OVERFLOW, or
 * FREED); a span that starts below the object `buf` itself points into,
 * where no object holds its first byte, starts before that object
 * (MPI-3.1 section 5.5: displacements are relative to the buffer's
 * address, negative ones included, and must stay in the buffer's memory). */
static void check_blocks_extent(msc_call_t *c, const void *buf, uintptr_t lo, uintptr_t hi,
                                bool writes, const char *which)
{
    chk_object_t g;
    if (lo >= (uintptr_t)buf || chk_object_find(lo, c->site, &g)) {
        chk_span_object(c, lo, hi, writes, which);
        return;
    }
    if (!chk_object_find((uintptr_t)buf, c->site, &g) || lo >= g.lo) return;
    if (!chk_fresh("LOCAL:BUFFER:OVERFLOW", c->site)) return;
    char what[1024];
    chk_object_describe(&g, what, sizeof what);
    chk_report("LOCAL:BUFFER:OVERFLOW", c->fn, c->site,
               "The %sbuffer of this %s starts %llu byte%s before %s, which it points into "
               "(a negative displacement): MPI %s memory that is not the buffer's (MPI-3.1 "
               "section 5.5: each block lies at its displacement from the buffer's address). "
               "Give displacements that keep every block inside the object.",
               which, msc_fn_name[c->fn], (unsigned long long)(g.lo - lo),
               g.lo - lo == 1 ? "" : "s", what, writes ? "would write" : "would read");
}

/* The neighbours a process receives from and sends to in the topology of
 * `comm` (MPI-3.1 section 7.6: a Cartesian topology's 2 x ndims, a graph's
 * neighbours both ways, a distributed graph's in- and out-degree). */
static bool nbr_degrees(MPI_Comm comm, int *in, int *out)
{
    int status = MPI_UNDEFINED, n = 0, me = 0, weighted = 0;
    if (PMPI_Topo_test(comm, &status) != MPI_SUCCESS) return false;
    switch (status) {
    case MPI_CART:
        if (PMPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return false;
        *in = *out = 2 * n;
        return true;
    case MPI_GRAPH:
        if (PMPI_Comm_rank(comm, &me) != MPI_SUCCESS ||
            PMPI_Graph_neighbors_count(comm, me, &n) != MPI_SUCCESS)
            return false;
        *in = *out = n;
        return true;
    case MPI_DIST_GRAPH:
        return PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted) == MPI_SUCCESS;
    default:
        return false;
    }
}

static void check_vcoll_extent(msc_call_t *c)
{
    unsigned form = chk_coll_form(c->fn);
    const unsigned blocks_out = CHK_CF_SCATTERV | CHK_CF_ALLTOALLV | CHK_CF_ALLTOALLW |
                                CHK_CF_NBR_A2AV | CHK_CF_NBR_A2AW;
    const unsigned blocks_in = CHK_CF_GATHERV | CHK_CF_ALLGATHERV | CHK_CF_ALLTOALLV |
                               CHK_CF_ALLTOALLW | CHK_CF_NBR_AGV | CHK_CF_NBR_A2AV |
                               CHK_CF_NBR_A2AW;
    if (!(form & (blocks_out | blocks_in)) || c->comm == MPI_COMM_NULL || CHK_ZERO(c->comm))
        return;
    const chk_cinfo_t *ci = chk_cinfo(c->comm);
    if (ci->inter) return;
    int nin = ci->size, nout = ci->size, me = ci->rank;
    if ((form & CHK_CF_NEIGHBOR) && !nbr_degrees(c->comm, &nin, &nout)) return;
    if (me < 0) PMPI_Comm_rank(c->comm, &me);
    if (nin < 0 || nout < 0 || nin > (1 << 24) || nout > (1 << 24)) return;
    bool root = !has(c, MSC_ROLE_ROOT) || c->root == me;
    bool w = form & (CHK_CF_ALLTOALLW | CHK_CF_NBR_A2AW);
    uintptr_t lo, hi;
    if (form & blocks_out) {
        /* w-forms from Fortran: the handle arrays are not converted (NULL). */
        if (root && (!w || c->types) &&
            blocks_span(c, c->buf, c->counts, c->displs, c->type, w ? c->types : NULL,
                                nout, &lo, &hi))
            check_blocks_extent(c, c->buf, lo, hi, false, "send ");
    } else if (has(c, MSC_ROLE_COUNT) && span(c->buf, c->count, c->type, &lo, &hi)) {
        chk_span_object(c, lo, hi, false, "send ");
    }
    if (form & blocks_in) {
        if (root && (!w || c->rtypes) &&
            blocks_span(c, c->rbuf, c->rcounts, c->rdispls, c->rtype, w ? c->rtypes : NULL, nin,
                        &lo, &hi))
            check_blocks_extent(c, c->rbuf, lo, hi, true, "receive ");
    } else if (has(c, MSC_ROLE_RCOUNT) && span(c->rbuf, c->rcount, c->rtype, &lo, &hi)) {
        chk_span_object(c, lo, hi, true, "receive ");
    }
}

/* Per-thread: a nonblocking collective's spans, from its enter to its request. */
static CHK_TLS uintptr_t icoll_span[4];

/* A collective's send and receive spans (coll_spans: where significant at
 * this rank) against their objects: OVERFLOW and TYPE_MISMATCH, one
 * look-up each. Where a datatype has no receive type of its own (a
 * broadcast, a reduction), the one datatype is both sides'. */
static void coll_objects(msc_call_t *c)
{
    MPI_Datatype rt = has(c, MSC_ROLE_RTYPE) ? c->rtype : c->type;
    for (int side = 0; side < 2; side++) {
        uintptr_t lo = icoll_span[2 * side], hi = icoll_span[2 * side + 1];
        chk_object_t g;
        const char *which = side ? "receive " : "send ";
        if (hi <= lo) continue;
        if (!chk_object_find(lo, c->site, &g)) {
            freed_of(c, lo, hi, side == 1, which);
            continue;
        }
        overflow_of(c, &g, lo, hi, side == 1, which);
        MPI_Datatype st = side ? rt : c->type;
        const chk_tinfo_t *ti = chk_tinfo(st);
        MPI_Count n = ti->ok && ti->extent > 0 && (MPI_Count)(hi - lo) >= ti->textent
                          ? ((MPI_Count)(hi - lo) - ti->textent) / ti->extent + 1
                          : 1;
        declared_type_of(c, &g, lo - (uintptr_t)ti->tlb, n, st, side == 1, which);
    }
}

static void check_p2p(msc_call_t *c)
{
    bool sr = c->kind == MSC_KIND_SENDRECV || c->kind == MSC_KIND_ISENDRECV;
    bool send = c->kind == MSC_KIND_SEND || c->kind == MSC_KIND_ISEND ||
                c->kind == MSC_KIND_SEND_INIT || sr;
    bool recv = c->kind == MSC_KIND_RECV || c->kind == MSC_KIND_IRECV ||
                c->kind == MSC_KIND_RECV_INIT || sr;
    if (has(c, MSC_ROLE_COMM) && !check_comm(c, c->comm)) return;
    if (send) {
        check_count(c, c->count, "");
        check_type(c, c->type, "");
        check_rank(c, c->comm, c->peer, false, "destination");
        check_tag(c, c->tag, false);
        check_not_in_place(c, c->buf);
        check_extent(c, c->buf, c->count, c->type, false, sr ? "send " : "");
    }
    if (recv) {
        check_count(c, c->rcount, sr ? "receive " : "");
        check_type(c, c->rtype, sr ? "receive " : "");
        check_rank(c, c->comm, sr ? c->rpeer : c->peer, true, "source");
        check_tag(c, sr ? c->rtag : c->tag, true);
        check_not_in_place(c, c->rbuf);
        check_extent(c, c->rbuf, c->rcount, c->rtype, true, sr ? "receive " : "");
    }
    if (c->kind == MSC_KIND_PROBE) {
        check_rank(c, c->comm, c->peer, true, "source");
        check_tag(c, c->tag, true);
    }
    /* MPI_Sendrecv's buffers must be disjoint, the same buffer included
     * (MPI-3.1 3.10); MPI_Sendrecv_replace's one buffer is both. */
    if (sr && !strstr(msc_fn_name[c->fn], "_replace")) {
        uintptr_t a0, a1, b0, b1;
        if (span(c->buf, c->count, c->type, &a0, &a1) &&
            span(c->rbuf, c->rcount, c->rtype, &b0, &b1) && a0 < b1 && b0 < a1)
            chk_report("LOCAL:BUFFER:OVERLAP", c->fn, c->site,
                       "%s was given send and receive buffers that overlap in memory. The "
                       "receive may overwrite data before it is sent; use separate buffers, "
                       "or MPI_Sendrecv_replace for one buffer.",
                       msc_fn_name[c->fn]);
    }
}

/* A collective's send and receive buffers may share memory only through
 * MPI_IN_PLACE (MPI-3.1 2.3: an OUT argument cannot be aliased with any
 * other argument; 5.2.1). Checked before the call: MPICH's copy of the
 * root's own block aborts the job on overlapping buffers. Only where both
 * buffers are significant at this rank (not at a rooted collective's other
 * ranks, not rank 0 of MPI_Exscan), for the forms whose buffers' lengths
 * follow from the counts alone (not the v- and w-forms, neighbourhood
 * collectives or MPI_Bcast), and for contiguous types only (the spans of
 * other layouts may interleave legally). The lengths are never overstated:
 * an all-to-all's send buffer is taken as one block. */
static void check_coll_overlap(msc_call_t *c, unsigned form, int n, int me)
{
    enum { SKIP = CHK_CF_BCAST | CHK_CF_NEIGHBOR | CHK_CF_GATHERV | CHK_CF_SCATTERV |
                  CHK_CF_ALLGATHERV | CHK_CF_ALLTOALLV | CHK_CF_ALLTOALLW | CHK_CF_RSCATTER };
    if ((form & SKIP) || !has(c, MSC_ROLE_BUF) || !has(c, MSC_ROLE_RBUF)) return;
    if (c->buf == MPI_IN_PLACE || c->rbuf == MPI_IN_PLACE) return;
    if (has(c, MSC_ROLE_ROOT) && c->root != me) return;
    if ((form & CHK_CF_EXSCAN) && me == 0) return;
    /* Bounds under which no product here or in cspan (bytes) can overflow. */
    const MPI_Count lim = (MPI_Count)1 << 32;
    if (c->count < 0 || c->count > lim || c->rcount < 0 || c->rcount > lim || n > (1 << 24))
        return;
    MPI_Datatype st = c->type, rt = has(c, MSC_ROLE_RTYPE) ? c->rtype : c->type;
    MPI_Count sc, rc;
    if (has(c, MSC_ROLE_OP)) { /* one count for both, or MPI_Reduce_scatter_block's */
        sc = has(c, MSC_ROLE_COUNT) ? c->count : c->rcount * n;
        rc = has(c, MSC_ROLE_COUNT) ? c->count : c->rcount;
    } else {
        sc = c->count * ((form & CHK_CF_SCATTER) ? n : 1);
        rc = c->rcount * ((form & CHK_CF_SCATTER) ? 1 : n); /* gather, allgather, alltoall */
    }
    if (sc <= 0 || rc <= 0 || sc > lim || rc > lim) return;
    uintptr_t a0, a1, b0, b1;
    if (!cspan(c->buf, sc, st, &a0, &a1) || !cspan(c->rbuf, rc, rt, &b0, &b1)) return;
    if (a0 < b1 && b0 < a1) {
        uintptr_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
        chk_report("LOCAL:BUFFER:OVERLAP", c->fn, c->site,
                   "%s was given send and receive buffers that overlap in memory (%llu bytes "
                   "in common). A collective's buffers may not share memory (MPI-3.1 2.3): "
                   "pass MPI_IN_PLACE as the send buffer to work in one buffer, or use "
                   "separate buffers.",
                   msc_fn_name[c->fn], (unsigned long long)(hi - lo));
    }
}

static void check_coll_args(msc_call_t *c)
{
    if (!check_comm(c, c->comm)) return;
    const chk_cinfo_t *ci = chk_cinfo(c->comm);
    int n = ci->size, inter = ci->inter, me = ci->rank;
    if (me < 0) PMPI_Comm_rank(c->comm, &me);
    if (has(c, MSC_ROLE_ROOT) && !inter && (c->root < 0 || c->root >= n)) {
        chk_report("LOCAL:ARG:ROOT_OUT_OF_RANGE", c->fn, c->site,
                   "%s was called with root %d, but the communicator has %d rank%s (0 to %d). "
                   "Every rank must pass the same valid root.",
                   msc_fn_name[c->fn], c->root, n, n == 1 ? "" : "s", n - 1);
        return;
    }
    /* Arguments the standard says are not significant (MPI 4.1 chapter 6)
     * are not checked: the send count and type next to MPI_IN_PLACE where a
     * receive block of its own describes the data (not in reductions, whose
     * one count and type describe both); the receive arguments at a gather's
     * non-root ranks and at a scatter's root that passes MPI_IN_PLACE as its
     * receive buffer; the send arguments at a scatter's non-root ranks. */
    bool root_or_all = !has(c, MSC_ROLE_ROOT) || c->root == me;
    unsigned form = chk_coll_form(c->fn);
    bool gather = form & CHK_CF_GATHER, scatter = form & CHK_CF_SCATTER;
    bool separate = has(c, MSC_ROLE_RCOUNT) || has(c, MSC_ROLE_RCOUNTS) || has(c, MSC_ROLE_RTYPE);
    bool send_sig = !(c->buf == MPI_IN_PLACE && separate && !has(c, MSC_ROLE_OP)) &&
                    !(scatter && !root_or_all);
    bool recv_sig = !(gather && !root_or_all) &&
                    !(scatter && root_or_all && c->rbuf == MPI_IN_PLACE);
    if (has(c, MSC_ROLE_COUNT) && send_sig) check_count(c, c->count, "");
    if (has(c, MSC_ROLE_RCOUNT) && recv_sig) check_count(c, c->rcount, "receive ");
    if (has(c, MSC_ROLE_TYPE) && send_sig) check_type(c, c->type, "");
    if (has(c, MSC_ROLE_RTYPE) && recv_sig && c->rbuf != MPI_IN_PLACE)
        check_type(c, c->rtype, "receive ");
    if (has(c, MSC_ROLE_OP) && CHK_ZERO(c->op))
        chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
                   "%s was called with an operation handle whose value is 0 (NULL). That names "
                   "no operation in this MPI (nor is it MPI_OP_NULL). Pass a predefined "
                   "operation (MPI_SUM, ...) or one made by MPI_Op_create.",
                   msc_fn_name[c->fn]);
    else if (has(c, MSC_ROLE_OP) && c->op == MPI_OP_NULL)
        chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
                   "%s was called with MPI_OP_NULL as its reduction operation. Pass a predefined "
                   "operation (MPI_SUM, ...) or one made by MPI_Op_create.",
                   msc_fn_name[c->fn]);
    /* MPI_IN_PLACE in the receive buffer is allowed only at a scatter's
     * root; in the send buffer where the standard says (all these take it
     * somewhere, except MPI_Bcast and the neighbourhood collectives, which
     * have one buffer or none). */
    if (has(c, MSC_ROLE_RBUF) && c->rbuf == MPI_IN_PLACE && !(scatter && root_or_all))
        check_not_in_place(c, c->rbuf);
    if (!inter) check_coll_overlap(c, form, n, me);
}

/* Handles differ in size (MPICH: an int for most, a pointer for files). */
static size_t handle_size(msc_obj_class_t cls)
{
    return cls == MSC_OBJ_DATATYPE ? sizeof(MPI_Datatype)
           : cls == MSC_OBJ_GROUP  ? sizeof(MPI_Group)
           : cls == MSC_OBJ_OP     ? sizeof(MPI_Op)
           : cls == MSC_OBJ_WIN    ? sizeof(MPI_Win)
           : cls == MSC_OBJ_FILE   ? sizeof(MPI_File)
                                   : sizeof(MPI_Comm);
}

static int fn_contents = -1, fn_contents_c = -1;
static pthread_once_t contents_once = PTHREAD_ONCE_INIT;
static void contents_fns(void)
{
    fn_contents = msc_fn_lookup("MPI_Type_get_contents");
    fn_contents_c = msc_fn_lookup("MPI_Type_get_contents_c");
}

/* MPI_Type_get_contents: each derived datatype it returns is one more
 * reference the application holds and frees (C bindings: role args). */
static void track_contents(msc_call_t *c)
{
    pthread_once(&contents_once, contents_fns);
    int at = (int)c->fn == fn_contents ? 6 : (int)c->fn == fn_contents_c ? 8 : -1;
    if (at < 0 || c->rc != MPI_SUCCESS || c->nargs <= at || !c->arg[at]) return;
    MPI_Datatype t = (MPI_Datatype)c->arg[0], *types = (MPI_Datatype *)c->arg[at];
    int ni, na, nd = 0, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return;
    for (int i = 0; i < nd && i < 1 << 20; i++)
        if (derived(types[i])) chk_obj_ref(MSC_OBJ_DATATYPE, &types[i], sizeof types[i]);
}

static void track_new_objects(msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS) return;
    if (c->kind == MSC_KIND_HANDLE_NEW && c->obj) {
        size_t size = handle_size(c->obj_class);
        if (c->obj_class == MSC_OBJ_GROUP) {
            MPI_Group g;
            memcpy(&g, c->obj, sizeof g);
            if (g == MPI_GROUP_EMPTY) return; /* predefined, never freed */
        }
        chk_obj_new(c->obj_class, c->obj, size, c->fn, c->site);
        /* MPI_Type_dup: the new type is committed when the old one is
         * (predefined types always are). */
        if (c->fn == MSC_FN_MPI_Type_dup && chk_type_committed(c->type)) {
            MPI_Datatype t;
            memcpy(&t, c->obj, sizeof t);
            chk_type_commit(t);
        }
    } else if (c->kind == MSC_KIND_COMM && c->newcomm) {
        chk_comm_made(c);
    }
}

/* HANDLE_FREE, COMM_FREE and TYPE_COMMIT act on the handle as it was
 * before the call: read in enter. */
static void enter_objects(msc_call_t *c)
{
    if (c->kind == MSC_KIND_HANDLE_FREE && c->obj && c->obj_class == MSC_OBJ_DATATYPE) {
        MPI_Datatype t;
        memcpy(&t, c->obj, sizeof t);
        if (chk_obj_state(MSC_OBJ_DATATYPE, &t, sizeof t) == CHK_FREED)
            chk_report("LOCAL:ARG:FREED_HANDLE", c->fn, c->site,
                       "MPI_Type_free was called for a datatype that was already freed.");
        chk_obj_free(MSC_OBJ_DATATYPE, &t, sizeof t);
    } else if (c->kind == MSC_KIND_HANDLE_FREE && c->obj) {
        chk_obj_free(c->obj_class, c->obj, handle_size(c->obj_class));
    } else if (c->kind == MSC_KIND_TYPE_COMMIT && c->obj) {
        MPI_Datatype t;
        memcpy(&t, c->obj, sizeof t);
        chk_type_commit(t);
    } else if (c->kind == MSC_KIND_COMM_FREE) {
        /* c->comm: the handle passed (the Fortran wrappers convert it
         * before the call; their newcomm is filled only after). */
        MPI_Comm comm = c->comm;
        if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF || comm == MPI_COMM_NULL) return;
        if (chk_obj_state(MSC_OBJ_COMM, &comm, sizeof comm) == CHK_FREED)
            chk_report("LOCAL:ARG:FREED_HANDLE", c->fn, c->site,
                       "%s was called for a communicator that was already freed.",
                       msc_fn_name[c->fn]);
        else if (c->fn == MSC_FN_MPI_Comm_free)
            chk_coll_comm_free(comm); /* collective: the logged collectives are compared */
        chk_comm_remove(comm);
    }
}

/* Calls that return without waiting for another process: the deadlock
 * watchdog need not hear of them. */
static bool never_waits(msc_kind_t k)
{
    switch (k) {
    case MSC_KIND_ISEND: case MSC_KIND_IRECV: case MSC_KIND_SEND_INIT: case MSC_KIND_RECV_INIT:
    case MSC_KIND_IMRECV: case MSC_KIND_TEST: case MSC_KIND_TESTANY: case MSC_KIND_TESTALL:
    case MSC_KIND_TESTSOME: case MSC_KIND_START: case MSC_KIND_STARTALL:
    case MSC_KIND_REQUEST_FREE: case MSC_KIND_CANCEL: case MSC_KIND_ICOLL:
    case MSC_KIND_TYPE_COMMIT: case MSC_KIND_RMA_PUT: case MSC_KIND_RMA_GET: case MSC_KIND_RMA_ACC:
    case MSC_KIND_RMA_RPUT: case MSC_KIND_RMA_RGET: case MSC_KIND_RMA_RACC:
    case MSC_KIND_IO_IREAD: case MSC_KIND_IO_IWRITE: case MSC_KIND_ICOMM:
    case MSC_KIND_ISENDRECV:
        return true;
    default:
        return false;
    }
}

/* MPI_Iprobe and MPI_Improbe return at once: polls, like the Test kinds. */
static bool nonblocking_probe(const msc_call_t *c)
{
    return c->kind == MSC_KIND_PROBE && (c->fn == MSC_FN_MPI_Iprobe || c->fn == MSC_FN_MPI_Improbe);
}

static bool is_poll(const msc_call_t *c)
{
    switch (c->kind) {
    case MSC_KIND_TEST: case MSC_KIND_TESTANY: case MSC_KIND_TESTALL: case MSC_KIND_TESTSOME:
        return true;
    default:
        return nonblocking_probe(c);
    }
}

/* Whether a poll found something (or failed: not a wait either). */
static bool poll_found(const msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS) return true;
    if (c->kind == MSC_KIND_TESTSOME) return !c->outcount || *c->outcount != 0;
    return !c->flag || *c->flag;
}

/* The calls whose checks use the shadow of their communicator (c->comm):
 * a shadow still being made is waited for before them (objects.c, "shadows
 * made lazily"); local calls (MPI_Comm_rank, attributes, names) never wait. */
static bool uses_shadow(msc_kind_t k)
{
    switch (k) {
    case MSC_KIND_SEND:
    case MSC_KIND_RECV:
    case MSC_KIND_SENDRECV:
    case MSC_KIND_ISEND:
    case MSC_KIND_IRECV:
    case MSC_KIND_ISENDRECV:
    case MSC_KIND_SEND_INIT:
    case MSC_KIND_RECV_INIT:
    case MSC_KIND_PROBE:
    case MSC_KIND_COLL:
    case MSC_KIND_ICOLL:
    case MSC_KIND_COLL_INIT:
    case MSC_KIND_COMM:
    case MSC_KIND_ICOMM:
    case MSC_KIND_COMM_FREE:
    case MSC_KIND_HANDLE_NEW: /* windows and files: over c->comm when set */
        return true;
    default:
        return false;
    }
}

static void chk_enter(msc_call_t *c)
{
    chk_object_mark(true);
    chk_thr_enter(c);
    chk_wd_poll_other(c);
    if (!never_waits(c->kind) && !nonblocking_probe(c)) chk_wd_enter(c);
    if (uses_shadow(c->kind)) chk_shadow_settle(c->comm);
    pending_sum = 0;
    pending_old_set = (msc_fn_roles[c->fn] & MSC_ROLE_REQUEST) && c->lang == MSC_LANG_C && c->request;
    if (pending_old_set) memcpy(&pending_old, c->request, sizeof pending_old);
    chk_args_enter(c); /* args.c: NULL pointers and handles, constructors, operations */
    if (msc_fn_roles[c->fn] & MSC_ROLE_ARGS) {
        chk_topo_enter(c);       /* topo.c: topology, split */
        chk_rma_memory_enter(c); /* rma.c: a window's memory */
    }
    switch (c->kind) {
    case MSC_KIND_PROBE:
    case MSC_KIND_RECV_INIT:
        check_p2p(c);
        break;
    case MSC_KIND_SEND:
    case MSC_KIND_ISEND:
        check_p2p(c);
        if (c->peer != MPI_PROC_NULL)
            check_pending_overlap(c, c->buf, c->count, c->type, false, MPI_REQUEST_NULL);
        if (c->kind == MSC_KIND_ISEND && c->peer != MPI_PROC_NULL)
            pending_sum = chk_checksum(c->buf, c->count, c->type);
        break;
    case MSC_KIND_SEND_INIT:
        check_p2p(c);
        /* Nonzero when the layout has no gaps: MPI_Start takes the buffer's
         * checksum again for each round. */
        if (c->peer != MPI_PROC_NULL) pending_sum = chk_checksum(c->buf, c->count, c->type);
        break;
    case MSC_KIND_RECV:
    case MSC_KIND_IRECV:
        check_p2p(c);
        if (c->peer != MPI_PROC_NULL)
            check_pending_overlap(c, c->rbuf, c->rcount, c->rtype, true, MPI_REQUEST_NULL);
        if (c->kind == MSC_KIND_IRECV && c->peer != MPI_PROC_NULL)
            recv_sums(&pending_recv, c->rbuf, c->rcount, c->rtype);
        else
            pending_recv.nrsum = 0;
        break;
    case MSC_KIND_SENDRECV:
    case MSC_KIND_ISENDRECV:
        check_p2p(c);
        if (c->peer != MPI_PROC_NULL)
            check_pending_overlap(c, c->buf, c->count, c->type, false, MPI_REQUEST_NULL);
        if (c->rpeer != MPI_PROC_NULL)
            check_pending_overlap(c, c->rbuf, c->rcount, c->rtype, true, MPI_REQUEST_NULL);
        break;
    case MSC_KIND_START:
    case MSC_KIND_STARTALL: {
        int n = c->kind == MSC_KIND_START ? 1 : c->reqs_in ? c->nreq : 0;
        for (int i = 0; i < n; i++) {
            MPI_Request r = c->kind == MSC_KIND_START ? c->req_in : c->reqs_in[i];
            chk_req_t q;
            if (!chk_req_get(r, &q) || q.hi <= q.lo) continue;
            check_pending_overlap(c, (const void *)q.lo, (MPI_Count)(q.hi - q.lo), MPI_BYTE,
                                  q.writes, r);
            /* A persistent send with a contiguous buffer: its checksum for
             * this round. */
            if (q.kind == MSC_KIND_SEND_INIT && q.checksum)
                chk_req_set_checksum(r, chk_checksum_span((const void *)q.lo,
                                                          (int64_t)(q.hi - q.lo)));
            /* A persistent receive: its buffer as it is now, at the start. */
            if (q.kind == MSC_KIND_RECV_INIT) {
                recv_sums(&pending_recv, (const void *)q.lo, (MPI_Count)(q.hi - q.lo), MPI_BYTE);
                chk_req_set_sums(r, &pending_recv);
            }
        }
        break;
    }
    case MSC_KIND_COLL:
    case MSC_KIND_ICOLL:
        check_coll_args(c);
        /* Its buffers against the pending operations' (a nonblocking one's
         * are kept for its request). */
        coll_spans(c, &icoll_span[0], &icoll_span[2]);
        coll_objects(c);
        check_vcoll_extent(c);
        if (c->kind == MSC_KIND_ICOLL || chk_req_spans_pending()) {
            check_pending_span(c, icoll_span[0], icoll_span[1], false, MPI_REQUEST_NULL);
            check_pending_span(c, icoll_span[2], icoll_span[3], true, MPI_REQUEST_NULL);
        }
        /* A nonblocking collective's send buffer, where MPI reads it and its
         * type has no gaps (coll_spans leaves out the v- and w-forms, whose
         * blocks have gaps between them): compared at the completion. */
        if (c->kind == MSC_KIND_ICOLL && icoll_span[1] > icoll_span[0] && chk_tinfo(c->type)->contig)
            pending_sum = chk_checksum_span((const void *)icoll_span[0],
                                            (int64_t)(icoll_span[1] - icoll_span[0]));
        if (c->comm != MPI_COMM_NULL && !CHK_ZERO(c->comm)) chk_coll_enter(c); /* ICOLL: logged, never waits */
        break;
    case MSC_KIND_COLL_INIT:
        check_coll_args(c);
        if (c->comm != MPI_COMM_NULL && !CHK_ZERO(c->comm)) chk_coll_enter(c); /* judged at init, logged */
        break;
    case MSC_KIND_HANDLE_FREE:
    case MSC_KIND_TYPE_COMMIT:
    case MSC_KIND_COMM_FREE:
        enter_objects(c);
        break;
    case MSC_KIND_IO_READ:
    case MSC_KIND_IO_IREAD:
        check_extent(c, c->rbuf, c->rcount, c->rtype, true, "");
        break;
    case MSC_KIND_IO_WRITE:
    case MSC_KIND_IO_IWRITE:
        check_extent(c, c->buf, c->count, c->type, false, "");
        break;
    default:
        break;
    }
    if (chk_state_wants(c, true)) chk_state_enter(c);
    chk_object_mark(false);
    chk_eh_enter(c); /* last: from here on, errors belong to the application's call */
}

static void post_request(msc_call_t *c, uint32_t ev)
{
    if (c->rc != MPI_SUCCESS || !c->request || *c->request == MPI_REQUEST_NULL) return;
    chk_req_t q;
    memset(&q, 0, sizeof q);
    q.rp_ev = ev;
    q.kind = c->kind;
    q.fn = c->fn;
    q.comm = c->comm;
    q.site = c->site;
    q.persistent = c->kind == MSC_KIND_SEND_INIT || c->kind == MSC_KIND_RECV_INIT;
    q.active = !q.persistent;
    if (c->kind == MSC_KIND_ISEND || c->kind == MSC_KIND_SEND_INIT) {
        q.peer = c->peer, q.tag = c->tag, q.buf = c->buf;
        q.checksum = pending_sum;
        q.sig = chk_sig(c->type, c->count);
        if (c->peer != MPI_PROC_NULL) cspan(c->buf, c->count, c->type, &q.lo, &q.hi);
    } else if (c->kind == MSC_KIND_ISENDRECV) {
        /* The request is the receive's (the send was checked when posted). */
        q.kind = MSC_KIND_IRECV;
        q.peer = c->rpeer, q.tag = c->rtag, q.buf = c->rbuf;
        q.sig = chk_sig(c->rtype, c->rcount);
        q.writes = true;
        if (c->rpeer != MPI_PROC_NULL) cspan(c->rbuf, c->rcount, c->rtype, &q.lo, &q.hi);
    } else if (c->kind == MSC_KIND_IRECV || c->kind == MSC_KIND_RECV_INIT) {
        q.peer = c->peer, q.tag = c->tag, q.buf = c->rbuf;
        q.sig = chk_sig(c->rtype, c->rcount);
        q.writes = true;
        if (c->peer != MPI_PROC_NULL) cspan(c->rbuf, c->rcount, c->rtype, &q.lo, &q.hi);
        if (c->kind == MSC_KIND_IRECV && pending_recv.nrsum) {
            q.nrsum = pending_recv.nrsum;
            q.rblock = pending_recv.rblock;
            q.rbytes = pending_recv.rbytes;
            memcpy(q.rsum, pending_recv.rsum, sizeof q.rsum);
        }
    } else if (c->kind == MSC_KIND_ICOLL) {
        /* Its receive buffer (written) and send buffer (read), as entered. */
        q.peer = MPI_ANY_SOURCE;
        q.lo = icoll_span[2], q.hi = icoll_span[3], q.writes = q.hi > q.lo;
        q.slo = icoll_span[0], q.shi = icoll_span[1];
        q.checksum = pending_sum;
    } else if (c->kind == MSC_KIND_IMRECV) {
        q.peer = MPI_ANY_SOURCE, q.tag = MPI_ANY_TAG, q.comm = MPI_COMM_NULL;
        q.sig = chk_sig(c->rtype, c->rcount);
    } else {
        q.peer = MPI_ANY_SOURCE;
    }
    q.bytes = q.sig.bytes;
    q.where = c->lang == MSC_LANG_C ? (const void *)c->request : NULL;
    chk_req_new(*c->request, &q);
    if (pending_old_set && pending_old != MPI_REQUEST_NULL && pending_old != *c->request)
        chk_req_overwritten(pending_old, c->request, c->fn, c->site);
}

/* A completed receive: blocks beyond the bytes received still as posted? */
static void recv_tail(msc_call_t *c, const chk_req_t *q, MPI_Status *st)
{
    int cancelled = 0, got = 0;
    if (PMPI_Test_cancelled(st, &cancelled) != MPI_SUCCESS || cancelled) return;
    if (PMPI_Get_count(st, MPI_BYTE, &got) != MPI_SUCCESS || got == MPI_UNDEFINED || got < 0)
        return;
    const unsigned char *p = (const unsigned char *)q->lo;
    int64_t first = (got + q->rblock - 1) / q->rblock;
    for (int64_t k = first; k < q->nrsum; k++) {
        int64_t off = k * q->rblock;
        int64_t len = rsum_len(q, off);
        if (len <= 0) break;
        if (chk_checksum_block(p + off, len) == q->rsum[k]) continue;
        chk_report("LOCAL:BUFFER:RECV_MODIFIED", q->fn, q->site,
                   "The receive buffer of this %s was written while the receive was pending: "
                   "bytes %lld to %lld, which the message (%d bytes) did not reach, changed "
                   "between the call and its completion in %s. Until the receive completes the "
                   "buffer belongs to MPI; data written there may be lost or mixed with the "
                   "message. Write to the buffer only after MPI_Wait/MPI_Test says the receive "
                   "is done.",
                   msc_fn_name[q->fn], (long long)off, (long long)(off + len - 1), got,
                   msc_fn_name[c->fn]);
        return;
    }
}

/* A request completed: checked, and its replay posting event returned
 * (CHK_RP_NONE: not known). */
static uint32_t completed(msc_call_t *c, MPI_Request r, MPI_Status *st)
{
    chk_req_t q;
    if (r == MPI_REQUEST_NULL || !chk_req_take(r, &q)) return CHK_RP_NONE;
    /* A completion call on an inactive persistent request (never started,
     * or its round completed already) returns at once and touches no
     * buffer (MPI-3.1 section 3.9): its buffer may change meanwhile. */
    if (q.persistent && !q.active) return CHK_RP_NONE;
    /* The caller's send buffer is still what it was when the operation was
     * posted (or a persistent send started) at the call that completes it;
     * the type is gone, the span known (a collective's send side apart). */
    uintptr_t slo = q.kind == MSC_KIND_ICOLL ? q.slo : q.lo;
    uintptr_t shi = q.kind == MSC_KIND_ICOLL ? q.shi : q.hi;
    if ((q.kind == MSC_KIND_ISEND || q.kind == MSC_KIND_SEND_INIT || q.kind == MSC_KIND_ICOLL) &&
        q.checksum && shi > slo &&
        chk_checksum_span((const void *)slo, (int64_t)(shi - slo)) != q.checksum)
        chk_report("LOCAL:BUFFER:SEND_MODIFIED", q.fn, q.site,
                   "The send buffer of this %s was changed before the %s completed "
                   "(checksums at the %s and at its completion in %s differ). Until the "
                   "request completes, MPI may still read the buffer (MPI-3.1 sections 3.7.2, "
                   "3.9 and 5.12): the receivers can get the old data, the new data or a mix. "
                   "Complete the request (MPI_Wait) before reusing the buffer, or use a "
                   "second buffer.",
                   msc_fn_name[q.fn], q.kind == MSC_KIND_ICOLL ? "operation" : "send",
                   q.kind == MSC_KIND_SEND_INIT ? "MPI_Start" : "call", msc_fn_name[c->fn]);
    MPI_Status fixed;
    if (q.kind == MSC_KIND_IRECV && msc_fn_kind[q.fn] == MSC_KIND_ISENDRECV)
        st = msc_isendrecv_status(st, &fixed, q.peer, q.tag, q.sig.bytes);
    if ((q.kind == MSC_KIND_IRECV || q.kind == MSC_KIND_RECV_INIT) && st)
        chk_p2p_recv_done(q.comm, st, q.sig, q.fn, q.site, q.post_seq, false, q.rp_ev);
    if ((q.kind == MSC_KIND_IRECV || q.kind == MSC_KIND_RECV_INIT) && q.nrsum && st)
        recv_tail(c, &q, st);
    return q.rp_ev;
}

/* The message a probe from MPI_ANY_SOURCE found on this thread (MPI_Probe,
 * or MPI_Iprobe that found one): its communicator, source and tag, and the
 * tag the probe asked for. The receive that then names that source takes
 * that message (MPI-3.1 section 3.8.1), so the wildcard was the probe's:
 * for the message races the receive is the probe's, posted from
 * MPI_ANY_SOURCE with the probe's tag, at the probe's call. Taken by the
 * next receive that matches it; the next probe replaces it. */
static CHK_TLS struct {
    bool set;
    MPI_Comm comm;
    int src, tag, ptag;
    msc_fn_t fn;
    void *site;
} probed;

static void probe_found(const msc_call_t *c)
{
    probed.set = false;
    if (c->rc != MPI_SUCCESS || c->peer != MPI_ANY_SOURCE || !c->status) return;
    if (c->fn != MSC_FN_MPI_Probe && !(c->fn == MSC_FN_MPI_Iprobe && c->flag && *c->flag)) return;
    if (c->status->MPI_SOURCE == MPI_PROC_NULL || c->status->MPI_SOURCE < 0) return;
    probed.set = true;
    probed.comm = c->comm;
    probed.src = c->status->MPI_SOURCE;
    probed.tag = c->status->MPI_TAG;
    probed.ptag = c->tag;
    probed.fn = c->fn;
    probed.site = c->site;
}

/* A receive's replay event, or none for MPI_PROC_NULL. */
static uint32_t recv_event(const msc_call_t *c, chk_rp_mode_t mode, int src, int tag)
{
    if (src == MPI_PROC_NULL) return CHK_RP_NONE;
    if (probed.set && src == probed.src && c->comm == probed.comm &&
        (tag == probed.tag || tag == MPI_ANY_TAG)) {
        probed.set = false;
        return chk_rp_recv(probed.fn, probed.site, mode, c->comm, MPI_ANY_SOURCE, probed.ptag);
    }
    return chk_rp_recv(c->fn, c->site, mode, c->comm, src, tag);
}

/* A persistent request started: its replay posting event. */
static uint32_t start_event(const msc_call_t *c, MPI_Request r)
{
    chk_req_t q;
    if (!chk_req_get(r, &q) || q.peer == MPI_PROC_NULL) return CHK_RP_NONE;
    if (q.kind == MSC_KIND_SEND_INIT)
        return chk_rp_send(c->fn, c->site,
                           q.fn == MSC_FN_MPI_Bsend_init ? CHK_RP_BUFFERED : CHK_RP_POST);
    if (q.kind == MSC_KIND_RECV_INIT)
        return chk_rp_recv(c->fn, c->site, CHK_RP_POST, q.comm, q.peer, q.tag);
    return CHK_RP_NONE;
}

/* MPI_ERR_IN_STATUS from MPI_Waitall/Testall: a request whose status says
 * MPI_ERR_PENDING neither completed nor failed, and is still the
 * application's to complete. */
static bool still_pending(const msc_call_t *c, int i)
{
    return c->rc == MPI_ERR_IN_STATUS && c->statuses && c->statuses[i].MPI_ERROR == MPI_ERR_PENDING;
}

/* The replay posting events of a -any/-some call's requests still pending
 * (before completed() takes the ones that finished): n, or -1 when more
 * than `max` or one not known (the completion is then taken as possible). */
static int pending_events(const msc_call_t *c, uint32_t *ev, int max)
{
    int n = 0;
    for (int i = 0; c->reqs_in && i < c->nreq; i++) {
        chk_req_t q;
        if (c->reqs_in[i] == MPI_REQUEST_NULL) continue;
        if (n == max || !chk_req_get(c->reqs_in[i], &q) || q.rp_ev == CHK_RP_NONE) return -1;
        ev[n++] = q.rp_ev;
    }
    return n;
}

enum { WAIT_EVENTS = 256 };

static void leave_requests(msc_call_t *c)
{
    /* Communicators of nonblocking constructors exist from now on. */
    for (int i = 0; i < c->ndone; i++)
        if (c->done[i].info.kind == MSC_KIND_ICOMM) chk_icomm_completed(&c->done[i]);
    /* What the replay learns of a completion: the posting events it waited
     * for, all of them (Wait, Waitall, a Test that completed) or any
     * (the -any and -some forms). */
    uint32_t ev[WAIT_EVENTS];
    int nev = 0;
    bool any = false, done = false;
    switch (c->kind) {
    case MSC_KIND_WAIT:
    case MSC_KIND_TEST:
        if (c->rc == MPI_SUCCESS && (c->kind == MSC_KIND_WAIT || *c->flag) &&
            c->req_in != MPI_REQUEST_NULL) {
            ev[nev++] = completed(c, c->req_in, c->status);
            done = true;
        }
        break;
    case MSC_KIND_WAITANY:
    case MSC_KIND_TESTANY:
        /* Indices are checked, not trusted (core/requests.c: MPICH's f08
         * layer hands one back out of range before mapping it). */
        if (c->rc == MPI_SUCCESS && (c->kind == MSC_KIND_WAITANY || *c->flag) && c->reqs_in &&
            *c->index >= 0 && *c->index < c->nreq) {
            any = done = true;
            nev = pending_events(c, ev, WAIT_EVENTS);
            completed(c, c->reqs_in[*c->index], c->status);
        }
        break;
    case MSC_KIND_WAITALL:
    case MSC_KIND_TESTALL:
        if ((c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS) &&
            (c->kind == MSC_KIND_WAITALL || *c->flag) && c->reqs_in) {
            done = true;
            for (int i = 0; i < c->nreq; i++)
                if (!still_pending(c, i)) {
                    uint32_t e = completed(c, c->reqs_in[i], c->statuses ? &c->statuses[i] : NULL);
                    if (c->reqs_in[i] == MPI_REQUEST_NULL) continue;
                    if (nev >= 0 && nev < WAIT_EVENTS) ev[nev++] = e;
                    else nev = -1;
                }
        }
        break;
    case MSC_KIND_WAITSOME:
    case MSC_KIND_TESTSOME:
        if ((c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS) && c->reqs_in &&
            *c->outcount != MPI_UNDEFINED && *c->outcount <= c->nreq) {
            any = true;
            done = *c->outcount > 0;
            if (done) nev = pending_events(c, ev, WAIT_EVENTS);
            for (int i = 0; i < *c->outcount; i++)
                if (c->indices[i] >= 0 && c->indices[i] < c->nreq)
                    completed(c, c->reqs_in[c->indices[i]], c->statuses ? &c->statuses[i] : NULL);
        }
        break;
    case MSC_KIND_START:
        if (c->rc == MPI_SUCCESS) {
            chk_req_set_active(c->req_in, true, start_event(c, c->req_in));
            chk_p2p_started(c->req_in);
        }
        break;
    case MSC_KIND_STARTALL:
        if (c->rc == MPI_SUCCESS && c->reqs_in)
            for (int i = 0; i < c->nreq; i++) {
                chk_req_set_active(c->reqs_in[i], true, start_event(c, c->reqs_in[i]));
                chk_p2p_started(c->reqs_in[i]);
            }
        break;
    case MSC_KIND_REQUEST_FREE:
        if (c->rc == MPI_SUCCESS) chk_req_forget(c->req_in);
        break;
    default:
        break;
    }
    if (done) chk_rp_wait(c->fn, c->site, ev, nev, any);
}

static void chk_leave(msc_call_t *c)
{
    chk_eh_leave(c);
    if ((c->kind == MSC_KIND_COLL || c->kind == MSC_KIND_ICOLL || c->kind == MSC_KIND_COLL_INIT) &&
        c->comm != MPI_COMM_NULL && !CHK_ZERO(c->comm))
        chk_coll_leave(c);
    if (chk_state_wants(c, false)) chk_state_leave(c);
    if (c->rc != MPI_SUCCESS && c->rc != MPI_ERR_IN_STATUS) {
        char msg[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        PMPI_Error_string(c->rc, msg, &len);
        chk_report("LOCAL:CALL:FAILED", c->fn, c->site,
                   "%s returned error code %d (%s). The program runs with MPI_ERRORS_RETURN on "
                   "this object, so the failure did not stop it; check the return codes of MPI "
                   "calls, and the arguments of this one.",
                   msc_fn_name[c->fn], c->rc, msg);
    }
    switch (c->kind) {
    case MSC_KIND_ISEND:
    case MSC_KIND_IRECV:
    case MSC_KIND_SEND_INIT:
    case MSC_KIND_RECV_INIT:
    case MSC_KIND_IMRECV:
    case MSC_KIND_ICOLL: {
        /* The replay's posting event (persistent ones: at each start). */
        uint32_t ev = CHK_RP_NONE;
        bool live = c->rc == MPI_SUCCESS && c->peer != MPI_PROC_NULL;
        if (c->kind == MSC_KIND_ICOLL)
            ev = chk_coll_take_ev();
        else if (c->kind == MSC_KIND_ISEND && live)
            ev = chk_rp_send(c->fn, c->site,
                             c->fn == MSC_FN_MPI_Ibsend ? CHK_RP_BUFFERED : CHK_RP_POST);
        else if (c->kind == MSC_KIND_IRECV && c->rc == MPI_SUCCESS)
            ev = recv_event(c, CHK_RP_POST, c->peer, c->tag);
        post_request(c, ev);
        if (c->kind == MSC_KIND_ISEND && c->rc == MPI_SUCCESS) chk_p2p_send_leave(c, ev);
        break;
    }
    case MSC_KIND_ICOMM:
        post_request(c, CHK_RP_NONE);
        chk_icomm_posted(c);
        break;
    case MSC_KIND_ISENDRECV:
        /* The replay sees the receive, posted and completed by the
         * request; the send is posted with it and never waited for
         * alone, so it completes in the replay as it may with buffering
         * (no cycle it could make is reported: none made up either). */
        if (c->rc == MPI_SUCCESS) {
            uint32_t s = c->peer == MPI_PROC_NULL ? CHK_RP_NONE
                                                  : chk_rp_send(c->fn, c->site, CHK_RP_BUFFERED);
            post_request(c, recv_event(c, CHK_RP_POST, c->rpeer, c->rtag));
            chk_p2p_send_leave(c, s);
        }
        break;
    case MSC_KIND_SEND:
        if (c->rc == MPI_SUCCESS)
            chk_p2p_send_leave(c, c->peer == MPI_PROC_NULL
                                      ? CHK_RP_NONE
                                      : chk_rp_send(c->fn, c->site,
                                                    c->fn == MSC_FN_MPI_Bsend ? CHK_RP_BUFFERED
                                                                               : CHK_RP_BLOCK));
        break;
    case MSC_KIND_SENDRECV:
        /* Both halves are posted at once and completed together: safe in
         * the replay whatever the order. */
        if (c->rc == MPI_SUCCESS) {
            uint32_t ev[2];
            int n = 0;
            uint32_t s = c->peer == MPI_PROC_NULL ? CHK_RP_NONE
                                                  : chk_rp_send(c->fn, c->site, CHK_RP_POST);
            uint32_t r = recv_event(c, CHK_RP_POST, c->rpeer, c->rtag);
            if (s != CHK_RP_NONE) ev[n++] = s;
            if (r != CHK_RP_NONE) ev[n++] = r;
            chk_rp_wait(c->fn, c->site, ev, n, false);
            chk_p2p_send_leave(c, s);
            chk_p2p_recv_done(c->comm, c->status, chk_sig(c->rtype, c->rcount), c->fn, c->site,
                              0, false, r);
        }
        break;
    case MSC_KIND_RECV:
        if (c->rc == MPI_SUCCESS)
            chk_p2p_recv_done(c->comm, c->status, chk_sig(c->rtype, c->rcount), c->fn, c->site,
                              0, false, recv_event(c, CHK_RP_BLOCK, c->peer, c->tag));
        break;
    case MSC_KIND_PROBE:
        probe_found(c);
        /* A matched probe takes the message out of matching: its sidecar
         * is taken now, in the same order; for the replay it is the
         * receive (MPI_Improbe is called until it succeeds). */
        if (c->rc == MPI_SUCCESS && (c->fn == MSC_FN_MPI_Mprobe || c->fn == MSC_FN_MPI_Improbe) &&
            (c->fn == MSC_FN_MPI_Mprobe || *c->flag))
            chk_p2p_recv_done(c->comm, c->status, (chk_sig_t){0, 0, 0}, c->fn, c->site, 0, true,
                              recv_event(c, CHK_RP_BLOCK, c->peer, c->tag));
        break;
    case MSC_KIND_RMA_FENCE:
    case MSC_KIND_RMA_PSCW:
    case MSC_KIND_RMA_LOCK:
    case MSC_KIND_RMA_UNLOCK:
        /* Ranks ordered by one-sided synchronization: not replayed. */
        chk_rp_unordered();
        leave_requests(c);
        break;
    case MSC_KIND_HANDLE_NEW:
    case MSC_KIND_COMM:
        if (c->fn == MSC_FN_MPI_Comm_spawn || c->fn == MSC_FN_MPI_Comm_spawn_multiple ||
            c->fn == MSC_FN_MPI_Comm_connect || c->fn == MSC_FN_MPI_Comm_accept ||
            c->fn == MSC_FN_MPI_Comm_join)
            chk_rp_disable("a connection to another world");
        track_new_objects(c);
        break;
    default:
        leave_requests(c);
        if (msc_fn_roles[c->fn] & MSC_ROLE_ARGS) track_contents(c);
        break;
    }
    chk_p2p_progress(c->t_leave);
    if (is_poll(c))
        chk_wd_poll(c, poll_found(c));
    else if (!never_waits(c->kind))
        chk_wd_leave();
    chk_thr_leave(c);
}

static int chk_init(int slot)
{
    chk_cfg.slot = slot;
    const msc_setting_value_t *v = msc_g.settings.v;
    chk_cfg.timeout_s = v[MSC_SET_CHECK_TIMEOUT].num;
    chk_cfg.max_repeats = v[MSC_SET_CHECK_MAX_REPEATS].num;
    chk_cfg.abort_first = v[MSC_SET_CHECK_ABORT].num;
    chk_cfg.sync_sends = v[MSC_SET_CHECK_SYNC_SENDS].num;
    chk_cfg.deadlock_exit = v[MSC_SET_CHECK_DEADLOCK_EXIT].num;
    chk_cfg.classes = v[MSC_SET_CHECK_CLASSES].str;
    int *ub = NULL, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    chk_cfg.tag_ub = flag && ub ? *ub : 32767;
    chk_findings_init();
    chk_optable_init();
    chk_topo_init();
    chk_objects_init();
    chk_eh_init();
    chk_outside_init();
    chk_thr_init();
    /* A spawned world's ranks match messages of its parent's, numbered in
     * another MPI_COMM_WORLD: not replayed (asked now, since
     * MPI_Comm_disconnect of the parent makes MPI_Comm_get_parent forget). */
    MPI_Comm parent = MPI_COMM_NULL;
    if (PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL)
        chk_rp_disable("a spawned world");
    chk_wd_start();
    return 0;
}

/* Messages nobody received: a probe on each live communicator. */
static void unreceived(void)
{
    chk_p2p_unreceived();
}

static void chk_finalize(void)
{
    chk_thr_finalize();
    chk_wd_finalizing(msc_tls.site); /* MPI_Finalize's caller (C and Fortran wrappers set it) */
    chk_shadow_settle_all();
    enum { MAXC = 4096 };
    chk_comm_t **comms = malloc(sizeof *comms * MAXC);
    if (comms) chk_coll_finalize(comms, chk_comm_entries(comms, MAXC));
    free(comms);
    unreceived();
    chk_rp_finalize(); /* every receive is paired by now */
    chk_shadow_finalize();
    chk_objects_leaks();
    chk_findings_finalize();
    chk_wd_stop();
    chk_eh_finalize();
    chk_objects_finalize();
}

/* The rank is going down without MPI_Finalize. Findings are on file
 * already; their counts are added, and an exit (rather than a signal or
 * MPI_Abort) is a finding of its own, at the last MPI call made. */
static void chk_emergency(int signum)
{
    /* An exit from inside an MPI call is the MPI library ending the
     * process (MPICH's internal errors call exit), not a missing
     * MPI_Finalize. */
    if (signum == MSC_FATAL_EXIT && !chk_eh_in_call()) {
        msc_fn_t fn;
        void *site;
        chk_eh_last_call(&fn, &site);
        chk_report("LOCAL:CALL:NO_FINALIZE", fn, site,
                   "This process exited (a return from main or a call of exit()) after MPI_Init "
                   "without calling MPI_Finalize; its last MPI call was %s, here. Every process "
                   "must call MPI_Finalize before it exits, or the other processes may hang in "
                   "it and the launcher treat the run as failed; call MPI_Finalize on every path "
                   "out of the program (or MPI_Abort to end the job on purpose).",
                   fn < MSC_FN_COUNT ? msc_fn_name[fn] : "none");
    }
    chk_findings_emergency();
}

static const msc_module_t chk_module = {
    .abi = MSC_MODULE_ABI,
    .name = "check",
    .mode = "check",
    .init = chk_init,
    .enter = chk_enter,
    .leave = chk_leave,
    .finalize = chk_finalize,
    .emergency = chk_emergency,
    .outer = true, /* the thread-level check before any other hook's MPI call */
};

MSC_CONSTRUCTOR static void chk_register(void)
{
    msc_module_register(&chk_module);
}
