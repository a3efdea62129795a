/* Local argument checks that need no state beyond the object registry:
 * NULL pointers where the standard requires an address, null handles,
 * negative counts in datatype constructors, predefined operations applied
 * to datatypes the standard's table (section 5.9.2, optable.c) does not
 * allow, MPI_REPLACE/MPI_NO_OP outside the accumulate functions, and
 * MPI_IN_PLACE where a collective does not take it. chk_args_enter runs
 * from the enter hook, before the PMPI call (the MPI library may abort on
 * any of these under MPI_ERRORS_ARE_FATAL: the finding must be out first);
 * it reads the call record only (no allocation, table lookups, one scan of
 * a blocklength array) and never changes an argument.
 *
 * Which arguments are read comes from the roles in
 * tools/wrapgen/functions.txt (a field is valid only when its role bit is
 * set). The checks stay silent wherever the standard makes an argument
 * insignificant or allows a sentinel:
 *  - a NULL buffer is MPI_BOTTOM in both MPIs, legal with a datatype of
 *    absolute addresses: only a datatype whose data starts at the buffer's
 *    address (true lower bound 0) and has bytes makes NULL an error;
 *  - MPI_STATUS_IGNORE is NULL in Open MPI (the wrapper has substituted it
 *    already): a NULL status is found in MPICH only;
 *  - arguments that only the root reads (gather's receive side, scatter's
 *    send side, a rooted reduction's receive buffer), send arguments next
 *    to MPI_IN_PLACE, and everything of an intercommunicator's collective
 *    (MPI_ROOT, MPI_PROC_NULL as roots) are not checked;
 *  - MPI_FILE_NULL is the file of MPI_File_set/get_errhandler's default.
 * The existing checks of check.c (communicator, count, datatype and root
 * of point-to-point and collective calls) are not repeated here.
 */
#include <string.h>
#include <strings.h>

#include "check.h"

static bool has(const msc_call_t *c, unsigned long long role)
{
    return (msc_fn_roles[c->fn] & role) != 0;
}

static const char *name(const msc_call_t *c)
{
    return msc_fn_name[c->fn];
}

static void null_pointer(msc_call_t *c, const char *what, const char *advice)
{
    chk_report("LOCAL:ARG:NULL_POINTER", c->fn, c->site,
               "%s was called with NULL as its %s. %s", name(c), what, advice);
}

static void null_handle(msc_call_t *c, const char *null, const char *what)
{
    chk_report("LOCAL:ARG:NULL_HANDLE", c->fn, c->site,
               "%s was called with %s as its %s. A null handle names no object; pass a valid "
               "one (a handle left behind by a free call is null too).",
               name(c), null, what);
}

/* A buffer of `n` elements of `t` at NULL: an error unless the type's
 * data lies at absolute addresses (MPI_BOTTOM) or has no bytes. */
static void check_buf(msc_call_t *c, const void *buf, MPI_Count n, MPI_Datatype t,
                      const char *what)
{
    if (buf || n <= 0 || t == MPI_DATATYPE_NULL) return;
    const chk_tinfo_t *ti = chk_tinfo(t);
    if (ti->state == CHK_FREED || !ti->ok || ti->size <= 0 || ti->tlb != 0) return;
    chk_report("LOCAL:ARG:NULL_POINTER", c->fn, c->site,
               "%s was called with NULL as its %s while the count is %lld. A buffer of one or "
               "more elements needs a valid address; NULL is MPI_BOTTOM, legal only with a "
               "datatype whose displacements are absolute addresses (MPI_Get_address).",
               name(c), what, (long long)n);
}

/* A datatype argument of a call the other checks do not cover
 * (constructors, queries, commits). */
static void check_type_handle(msc_call_t *c, MPI_Datatype t, const char *what)
{
    if (CHK_ZERO(t)) {
        null_handle(c, "a handle of value 0 (NULL)", what);
        return;
    }
    if (t == MPI_DATATYPE_NULL) {
        null_handle(c, "MPI_DATATYPE_NULL", what);
        return;
    }
    if (chk_tinfo(t)->state == CHK_FREED)
        chk_report("LOCAL:ARG:FREED_HANDLE", c->fn, c->site,
                   "%s was called with a %s that was already freed (MPI_Type_free). A freed "
                   "datatype must not be used again; free it after its last use.",
                   name(c), what);
}

static void negative(msc_call_t *c, const char *what, long long v)
{
    chk_report("LOCAL:ARG:NEGATIVE_COUNT", c->fn, c->site,
               "%s was called with a negative %s (%lld). Counts and block lengths of a "
               "datatype constructor must be zero or more.",
               name(c), what, v);
}

static MPI_Count count_at(const msc_call_t *c, const void *counts, MPI_Count i)
{
    return c->counts_are_mpi_count ? ((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

/* Datatype constructors: count, blocklength(s), old type. */
static void check_constructor(msc_call_t *c)
{
    if (has(c, MSC_ROLE_COUNT) && c->count < 0) negative(c, "count", (long long)c->count);
    if (has(c, MSC_ROLE_RCOUNT) && c->rcount < 0) negative(c, "blocklength", (long long)c->rcount);
    if (has(c, MSC_ROLE_COUNTS) && has(c, MSC_ROLE_COUNT) && c->count > 0) {
        if (!c->counts) {
            null_pointer(c, "array of block lengths",
                         "The constructor reads count block lengths from it.");
        } else {
            for (MPI_Count i = 0; i < c->count; i++) {
                MPI_Count b = count_at(c, c->counts, i);
                if (b < 0) {
                    char what[64];
                    snprintf(what, sizeof what, "block length (array_of_blocklengths[%lld])",
                             (long long)i);
                    negative(c, what, (long long)b);
                    break;
                }
            }
        }
    }
    if (has(c, MSC_ROLE_TYPE)) check_type_handle(c, c->type, "old datatype");
}

/* --- operations ----------------------------------------------------------- */

static void check_op(msc_call_t *c, bool accumulate)
{
    MPI_Op op = c->op;
    if (CHK_ZERO(op)) {
        if (accumulate) null_handle(c, "a handle of value 0 (NULL)", "operation");
        return; /* collectives: check.c */
    }
    if (op == MPI_OP_NULL) {
        if (accumulate) null_handle(c, "MPI_OP_NULL", "operation");
        return; /* collectives: check.c */
    }
    if (!accumulate && (op == MPI_REPLACE || op == MPI_NO_OP)) {
        chk_report("LOCAL:ARG:OP_NOT_ALLOWED", c->fn, c->site,
                   "%s was called with %s, an operation only the accumulate functions "
                   "(MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op and their request "
                   "forms) accept (MPI-3.1 sections 5.9.2 and 11.3.4). Use a reduction "
                   "operation here, or MPI_Bcast/MPI_Scatter to distribute values.",
                   name(c), chk_op_name(op));
        return;
    }
    if (!has(c, MSC_ROLE_TYPE) || c->type == MPI_DATATYPE_NULL) return;
    if (chk_op_allows(op, c->type) != 0) return;
    char tname[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    PMPI_Type_get_name(c->type, tname, &len);
    chk_report("LOCAL:ARG:OP_DATATYPE", c->fn, c->site,
               "%s was called with %s on datatype %s, a combination the standard does not "
               "define (MPI-3.1 section 5.9.2): %s applies to %s only. The result is "
               "undefined or the call fails; use a datatype of the right group, or an "
               "operation of your own (MPI_Op_create).",
               name(c), chk_op_name(op), len > 0 ? tname : "(unnamed)", chk_op_name(op),
               chk_op_allowed_text(op));
}

/* --- collectives ------------------------------------------------------------ */

static void check_coll(msc_call_t *c)
{
    if (!has(c, MSC_ROLE_COMM) || c->comm == MPI_COMM_NULL || CHK_ZERO(c->comm)) return;
    const chk_cinfo_t *ci = chk_cinfo(c->comm);
    if (ci->state == CHK_FREED || ci->inter) return;
    int me = ci->rank;
    if (me < 0) PMPI_Comm_rank(c->comm, &me);
    unsigned form = chk_coll_form(c->fn); /* by name, nonblocking forms too */
    bool gather = form & CHK_CF_GATHER, scatter = form & CHK_CF_SCATTER;
    bool bcast = form & CHK_CF_BCAST, neighbor = form & CHK_CF_NEIGHBOR;
    bool rooted = has(c, MSC_ROLE_ROOT);
    if (rooted && (c->root < 0 || c->root >= ci->size)) return; /* check.c's finding */
    bool root_or_all = !rooted || c->root == me;
    bool reduce = has(c, MSC_ROLE_OP);

    /* MPI_IN_PLACE as the send buffer: never for a broadcast or the
     * neighbourhood collectives, only at the root of a gather or rooted
     * reduction, never for a scatter (its MPI_IN_PLACE is the root's
     * receive buffer). */
    if (has(c, MSC_ROLE_BUF) && c->buf == MPI_IN_PLACE &&
        (bcast || neighbor || ((gather || reduce) && !root_or_all) || (scatter && root_or_all)))
        chk_report("LOCAL:ARG:IN_PLACE", c->fn, c->site,
                   "%s was called with MPI_IN_PLACE as its send buffer%s. %s",
                   name(c), rooted && !root_or_all ? " at a rank that is not the root" : "",
                   bcast ? "A broadcast has one buffer; pass it."
                   : neighbor ? "The neighbourhood collectives do not take MPI_IN_PLACE."
                   : scatter ? "A scatter's root may pass MPI_IN_PLACE as its receive buffer, "
                               "not as its send buffer."
                             : "Only the root may pass MPI_IN_PLACE (its own contribution is "
                               "then taken from the receive buffer); other ranks pass their "
                               "data.");

    /* The send side, where significant. */
    bool send_sig = has(c, MSC_ROLE_BUF) && c->buf != MPI_IN_PLACE && !(scatter && !root_or_all);
    if (send_sig && has(c, MSC_ROLE_COUNTS) && !c->counts && !neighbor)
        null_pointer(c, "array of send counts", "Every rank's count is read from it.");
    if (send_sig && has(c, MSC_ROLE_TYPE)) {
        if (has(c, MSC_ROLE_COUNT))
            check_buf(c, c->buf, c->count, c->type, "send buffer");
        else if (reduce && has(c, MSC_ROLE_RCOUNT)) /* Reduce_scatter_block */
            check_buf(c, c->buf, c->rcount * ci->size, c->type, "send buffer");
    }

    /* The receive side, where significant. */
    bool exscan0 = (form & CHK_CF_EXSCAN) && me == 0; /* undefined there */
    bool recv_sig = has(c, MSC_ROLE_RBUF) && c->rbuf != MPI_IN_PLACE &&
                    !((gather || reduce) && !root_or_all) && !exscan0;
    bool recv_counts_sig = has(c, MSC_ROLE_RCOUNTS) && !(gather && !root_or_all) && !neighbor;
    if (recv_counts_sig && !c->rcounts)
        null_pointer(c, "array of receive counts", "The counts are read from it.");
    if (recv_sig) {
        if (has(c, MSC_ROLE_RCOUNT) && has(c, MSC_ROLE_RTYPE))
            check_buf(c, c->rbuf, c->rcount, c->rtype, "receive buffer");
        else if (reduce && has(c, MSC_ROLE_RCOUNT) && has(c, MSC_ROLE_TYPE))
            check_buf(c, c->rbuf, c->rcount, c->type, "receive buffer");
        else if (reduce && has(c, MSC_ROLE_COUNT) && has(c, MSC_ROLE_TYPE))
            check_buf(c, c->rbuf, c->count, c->type, "receive buffer");
    }
    if (reduce) check_op(c, false);
}

/* --- every call ---------------------------------------------------------- */

static void check_pointers(msc_call_t *c)
{
    switch (c->kind) {
    case MSC_KIND_SEND:
    case MSC_KIND_ISEND:
    case MSC_KIND_SEND_INIT:
        if (c->peer != MPI_PROC_NULL) check_buf(c, c->buf, c->count, c->type, "send buffer");
        break;
    case MSC_KIND_RECV:
    case MSC_KIND_IRECV:
    case MSC_KIND_RECV_INIT:
        if (c->peer != MPI_PROC_NULL) check_buf(c, c->rbuf, c->rcount, c->rtype, "receive buffer");
        break;
    case MSC_KIND_SENDRECV:
    case MSC_KIND_ISENDRECV:
        if (c->peer != MPI_PROC_NULL) check_buf(c, c->buf, c->count, c->type, "send buffer");
        if (c->rpeer != MPI_PROC_NULL && c->rbuf != c->buf)
            check_buf(c, c->rbuf, c->rcount, c->rtype, "receive buffer");
        break;
    /* One-sided: the origin buffer that is read or written, and an
     * accumulate's result buffer (MPI_NO_OP reads no origin). */
    case MSC_KIND_RMA_PUT:
    case MSC_KIND_RMA_RPUT:
        if (c->peer != MPI_PROC_NULL) check_buf(c, c->buf, c->count, c->type, "origin buffer");
        break;
    case MSC_KIND_RMA_GET:
    case MSC_KIND_RMA_RGET:
        if (c->peer != MPI_PROC_NULL) check_buf(c, c->rbuf, c->rcount, c->rtype, "origin buffer");
        break;
    case MSC_KIND_RMA_ACC:
    case MSC_KIND_RMA_RACC:
        if (c->peer == MPI_PROC_NULL) break;
        if (has(c, MSC_ROLE_COUNT) && c->op != MPI_NO_OP)
            check_buf(c, c->buf, c->count, c->type, "origin buffer");
        if (has(c, MSC_ROLE_RCOUNT)) check_buf(c, c->rbuf, c->rcount, c->rtype, "result buffer");
        break;
    default:
        break;
    }
    /* A Fortran argument is never a NULL pointer: the record's pointers of a
     * Fortran call are ours, some filled only after the call (the indices of
     * Waitsome/Testsome, statuses and requests when memory ran out). */
    if (c->lang != MSC_LANG_C) return;
    unsigned long long r = msc_fn_roles[c->fn];
    if ((r & (MSC_ROLE_REQUEST | MSC_ROLE_REQIO)) && !c->request)
        null_pointer(c, "request pointer", "Pass the address of an MPI_Request variable.");
    if ((r & MSC_ROLE_FLAG) && !c->flag)
        null_pointer(c, "flag pointer", "Pass the address of an int that receives the flag.");
    if ((r & MSC_ROLE_INDEX) && !c->index)
        null_pointer(c, "index pointer", "Pass the address of an int that receives the index.");
    if ((r & MSC_ROLE_OUTCOUNT) && !c->outcount)
        null_pointer(c, "outcount pointer",
                     "Pass the address of an int that receives the number completed.");
    if ((r & MSC_ROLE_INDICES) && c->nreq > 0 && !c->indices)
        null_pointer(c, "array of indices", "It must have room for incount indices.");
    if ((r & MSC_ROLE_REQS) && c->nreq > 0 && !c->requests)
        null_pointer(c, "array of requests", "It must hold count requests.");
    if ((r & MSC_ROLE_STATUS) && !c->status)
        null_pointer(c, "status pointer",
                     "Pass the address of an MPI_Status, or MPI_STATUS_IGNORE (which is not "
                     "NULL in this MPI).");
    if ((r & MSC_ROLE_NEWCOMM) && !c->newcomm)
        null_pointer(c, "communicator pointer",
                     "Pass the address of an MPI_Comm variable.");
    if ((r & MSC_ROLE_OUT) && !c->out)
        null_pointer(c, "output argument", "The standard requires the address of a variable "
                                           "that receives the result.");
}

static void check_handles(msc_call_t *c)
{
    unsigned long long r = msc_fn_roles[c->fn];
    switch (c->kind) {
    case MSC_KIND_OTHER:
    case MSC_KIND_COMM:
    case MSC_KIND_ICOMM:
    case MSC_KIND_COMM_FREE:
    case MSC_KIND_HANDLE_NEW:
        /* Point-to-point and collective calls: check.c's check_comm. */
        if ((r & (MSC_ROLE_COMM | MSC_ROLE_COMMIO)) && c->comm == MPI_COMM_NULL)
            null_handle(c, "MPI_COMM_NULL", "communicator");
        else if ((r & (MSC_ROLE_COMM | MSC_ROLE_COMMIO)) && CHK_ZERO(c->comm))
            null_handle(c, "a handle of value 0 (NULL)", "communicator");
        break;
    default:
        break;
    }
    if ((r & MSC_ROLE_WIN) && c->win == MPI_WIN_NULL) null_handle(c, "MPI_WIN_NULL", "window");
    if ((r & MSC_ROLE_FILE) && c->file == MPI_FILE_NULL && !strstr(name(c), "_errhandler"))
        null_handle(c, "MPI_FILE_NULL", "file");
    if ((r & MSC_ROLE_GROUP) && c->group == MPI_GROUP_NULL)
        null_handle(c, "MPI_GROUP_NULL", "group");
    if (c->kind == MSC_KIND_OTHER && (r & MSC_ROLE_TYPE)) check_type_handle(c, c->type, "datatype");
    if (c->kind == MSC_KIND_TYPE_COMMIT && c->obj) {
        MPI_Datatype t;
        memcpy(&t, c->obj, sizeof t);
        check_type_handle(c, t, "datatype");
    }
    if (c->kind == MSC_KIND_START && c->request && c->req_in == MPI_REQUEST_NULL)
        null_handle(c, "MPI_REQUEST_NULL", "request (MPI_Start needs a persistent request)");
    if (c->kind == MSC_KIND_STARTALL && c->reqs_in)
        for (int i = 0; i < c->nreq; i++)
            if (c->reqs_in[i] == MPI_REQUEST_NULL) {
                null_handle(c, "MPI_REQUEST_NULL", "request (MPI_Startall needs persistent requests)");
                break;
            }
}

void chk_args_enter(msc_call_t *c)
{
    if (c->kind == MSC_KIND_HANDLE_NEW && c->obj_class == MSC_OBJ_DATATYPE) check_constructor(c);
    check_pointers(c);
    check_handles(c);
    switch (c->kind) {
    case MSC_KIND_COLL:
    case MSC_KIND_ICOLL:
    case MSC_KIND_COLL_INIT:
        check_coll(c);
        break;
    case MSC_KIND_RMA_ACC:
    case MSC_KIND_RMA_RACC:
        if (has(c, MSC_ROLE_OP)) check_op(c, true);
        break;
    default:
        break;
    }
}
