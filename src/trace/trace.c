/* The trace module: every recorded MPI call as OTF2 events.
 *
 * One OTF2 archive per run (<outdir>/trace/traces.otf2), one location per
 * rank and per thread that calls MPI, each with its own event writer created
 * on the thread's first traced call, so the hot path takes no lock. All the
 * records of a call are written from the leave hook, where both timestamps
 * are known: Enter at t_enter, the message or collective records, Leave at
 * t_leave. Regions are the MPI functions with their function id as reference
 * (the same on every rank); communicators get local references (defs.c) that
 * are unified at MPI_Finalize, when clock offsets against rank 0 (sync.c) are
 * written for readers to correct the timestamps.
 *
 * Memory is bounded: each location's event buffer may hold MPISCOPE_BUFFER
 * bytes in chunks; when the memory callback refuses a new chunk, OTF2 writes
 * the full chunks to disk and records a BufferFlush event around the time it
 * took. A failed write (full disk, vanished directory) is reported once, the
 * archive is marked incomplete (property MPISCOPE::TRACE_COMPLETE=false) and
 * the program carries on.
 */
#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/OTF2_Pthread_Locks.h>
#include <otf2/otf2.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/clock.h"
#include "../core/log.h"
#include "../core/module.h"
#include "../core/requests.h"
#include "impl.h"
#include "trace.h"

typedef struct {
    OTF2_EvtWriter *w;
    uint64_t loc;
    MPI_Comm mprobe_comm;    /* communicator of the last matched probe (for MPI_Mrecv) */
} trc_thread_t;

typedef struct {
    void **chunks;
    size_t n, cap;
} pool_t;

int64_t trc_skew;
static int slot = -1;
static OTF2_Archive *archive;
static _Atomic bool active, failed;
static _Atomic uint64_t flushes;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static trc_thread_t **threads;
static int nthreads, capthreads;
static size_t evt_chunks;                    /* chunks per location */
static int64_t sync_time[2], sync_offset[2];
static double sync_dev[2];
static unsigned char coll_op[MSC_FN_COUNT];  /* OTF2_CollectiveOp + 1; 0: none */
static unsigned char coll_rooted[MSC_FN_COUNT];
static unsigned char coll_neighbor[MSC_FN_COUNT];

/* Byte counts of pending nonblocking collectives, by request id. */
enum { ICOLL_SLOTS = 4096 };
static struct {
    uint64_t id, sent, recvd;
} icoll[ICOLL_SLOTS];
static pthread_mutex_t icoll_lock = PTHREAD_MUTEX_INITIALIZER;

bool msc_trace_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed);
}

/* --- OTF2 callbacks ------------------------------------------------------ */

static void fail(const char *what)
{
    if (!atomic_exchange(&failed, true))
        msc_warn("trace: %s; the trace will be marked incomplete and the program carries on",
                 what);
}

static OTF2_ErrorCode on_error(void *ud, const char *file, uint64_t line, const char *function,
                               OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt ? fmt : "", va);
    char what[700];
    snprintf(what, sizeof what, "OTF2 error %s (%s)", OTF2_Error_GetName(code), msg);
    fail(what);
    return code;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller;
    if (!final && type == OTF2_FILETYPE_EVENTS) atomic_fetch_add(&flushes, 1);
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)ud, (void)type, (void)loc;
    return trc_ts(msc_now_ns());
}

static void *mem_alloc(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void **data,
                       uint64_t size)
{
    (void)ud, (void)loc;
    pool_t *p = *data;
    if (!p) {
        p = calloc(1, sizeof *p);
        if (!p) return NULL;
        *data = p;
    }
    size_t cap = type == OTF2_FILETYPE_EVENTS ? evt_chunks : SIZE_MAX;
    if (p->n >= cap) return NULL; /* the budget is spent: OTF2 flushes to disk */
    if (p->n == p->cap) {
        size_t ncap = p->cap ? 2 * p->cap : 16;
        void **c = realloc(p->chunks, ncap * sizeof *c);
        if (!c) return NULL;
        p->chunks = c;
        p->cap = ncap;
    }
    void *m = malloc(size);
    if (m) p->chunks[p->n++] = m;
    return m;
}

static void mem_free_all(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void **data,
                         bool final)
{
    (void)ud, (void)type, (void)loc;
    pool_t *p = *data;
    if (!p) return;
    for (size_t i = 0; i < p->n; i++) free(p->chunks[i]);
    p->n = 0;
    if (final) {
        free(p->chunks);
        free(p);
        *data = NULL;
    }
}

static const OTF2_FlushCallbacks flush_cb = {pre_flush, post_flush};
static const OTF2_MemoryCallbacks mem_cb = {mem_alloc, mem_free_all};

/* --- Locations ------------------------------------------------------------ */

static trc_thread_t *thread_open(msc_thread_t *th)
{
    if (!archive || !th) return NULL;
    trc_thread_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->loc = (uint64_t)msc_g.world_rank | ((uint64_t)th->index << 32);
    t->mprobe_comm = MPI_COMM_NULL;
    t->w = OTF2_Archive_GetEvtWriter(archive, t->loc);
    pthread_mutex_lock(&threads_lock);
    if (t->w && nthreads == capthreads) {
        int cap = capthreads ? 2 * capthreads : 8;
        trc_thread_t **p = realloc(threads, (size_t)cap * sizeof *p);
        if (p) threads = p, capthreads = cap;
    }
    bool ok = t->w && nthreads < capthreads;
    if (ok) threads[nthreads++] = t;
    pthread_mutex_unlock(&threads_lock);
    if (!ok) {
        free(t);
        fail("cannot create an event writer for a thread");
        return NULL;
    }
    th->module_data[slot] = t;
    return t;
}

static inline trc_thread_t *thread_of(msc_thread_t *th)
{
    trc_thread_t *t = th->module_data[slot];
    return MSC_LIKELY(t != NULL) ? t : thread_open(th);
}

/* --- Collectives ------------------------------------------------------------ */

static void coll_tables(void)
{
    static const struct {
        const char *name;
        OTF2_CollectiveOp op;
        bool rooted;
    } ops[] = {
        {"Barrier", OTF2_COLLECTIVE_OP_BARRIER, 0},
        {"Bcast", OTF2_COLLECTIVE_OP_BCAST, 1},
        {"Gather", OTF2_COLLECTIVE_OP_GATHER, 1},
        {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV, 1},
        {"Scatter", OTF2_COLLECTIVE_OP_SCATTER, 1},
        {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV, 1},
        {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER, 0},
        {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV, 0},
        {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL, 0},
        {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV, 0},
        {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW, 0},
        {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE, 0},
        {"Reduce", OTF2_COLLECTIVE_OP_REDUCE, 1},
        {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER, 0},
        {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, 0},
        {"Scan", OTF2_COLLECTIVE_OP_SCAN, 0},
        {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN, 0},
    };
    for (int fn = 0; fn < MSC_FN_COUNT; fn++) {
        int kind = msc_fn_kind[fn];
        if (kind != MSC_KIND_COLL && kind != MSC_KIND_ICOLL) continue;
        char base[64];
        const char *n = msc_fn_name[fn] + 4; /* after "MPI_" */
        if (kind == MSC_KIND_ICOLL && n[0] == 'I') n++;
        if (strncmp(n, "Neighbor_", 9) == 0) n += 9, coll_neighbor[fn] = 1;
        snprintf(base, sizeof base, "%s", n);
        size_t len = strlen(base);
        if (len > 2 && strcmp(base + len - 2, "_c") == 0) base[len - 2] = 0;
        base[0] = (char)(base[0] >= 'a' ? base[0] - 32 : base[0]);
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (strcmp(base, ops[i].name) == 0) {
                coll_op[fn] = (unsigned char)(ops[i].op + 1);
                coll_rooted[fn] = ops[i].rooted;
            }
    }
}

static int64_t sum_counts(const msc_call_t *c, const void *counts, int n)
{
    int64_t s = 0;
    if (!counts) return 0;
    for (int i = 0; i < n; i++)
        s += c->counts_are_mpi_count ? (int64_t)((const MPI_Count *)counts)[i]
                                     : (int64_t)((const int *)counts)[i];
    return s;
}

static int64_t one_count(const msc_call_t *c, const void *counts, int i)
{
    if (!counts) return 0;
    return c->counts_are_mpi_count ? (int64_t)((const MPI_Count *)counts)[i]
                                   : (int64_t)((const int *)counts)[i];
}

/* Bytes this process sends from its send buffer and receives into its
 * receive buffer in collective `c` (docs/trace.md has the rule per op). */
static void coll_bytes(const msc_call_t *c, const trc_comm_t *cm, uint64_t *sent,
                       uint64_t *recvd)
{
    int64_t s = 0, r = 0;
    int op = coll_op[c->fn] - 1;
    int n = cm->rsize ? cm->rsize : cm->size;
    bool inter = cm->rsize != 0;
    bool rooted = coll_rooted[c->fn];
    bool root = rooted && (inter ? c->root == MPI_ROOT : c->root == cm->rank);
    bool leaf = !rooted || !inter || (c->root != MPI_ROOT && c->root != MPI_PROC_NULL);
    bool in_place = c->buf == MPI_IN_PLACE;
    if (coll_neighbor[c->fn]) op = -1; /* neighbourhoods: sizes not derived */
    switch (op) {
    case OTF2_COLLECTIVE_OP_BCAST:
        if (root) s = msc_type_bytes(c->type, c->count);
        else if (leaf) r = msc_type_bytes(c->type, c->count);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE:
        if (leaf && !(root && in_place) && !(inter && root)) s = msc_type_bytes(c->type, c->count);
        if (root) r = msc_type_bytes(c->type, c->count);
        break;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
        s = r = msc_type_bytes(c->type, c->count);
        break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        r = msc_type_bytes(c->type, c->rcount);
        s = r * n;
        break;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
        s = msc_type_bytes(c->type, sum_counts(c, c->rcounts, cm->size));
        r = msc_type_bytes(c->type, one_count(c, c->rcounts, cm->rank));
        break;
    case OTF2_COLLECTIVE_OP_GATHER:
        if (leaf && !in_place) s = msc_type_bytes(c->type, c->count);
        if (root) r = msc_type_bytes(c->rtype, c->rcount) * n;
        break;
    case OTF2_COLLECTIVE_OP_GATHERV:
        if (leaf && !in_place) s = msc_type_bytes(c->type, c->count);
        if (root) r = msc_type_bytes(c->rtype, sum_counts(c, c->rcounts, n));
        break;
    case OTF2_COLLECTIVE_OP_SCATTER:
        if (root) s = msc_type_bytes(c->type, c->count) * n;
        if (leaf && c->rbuf != MPI_IN_PLACE) r = msc_type_bytes(c->rtype, c->rcount);
        break;
    case OTF2_COLLECTIVE_OP_SCATTERV:
        if (root) s = msc_type_bytes(c->type, sum_counts(c, c->counts, n));
        if (leaf && c->rbuf != MPI_IN_PLACE) r = msc_type_bytes(c->rtype, c->rcount);
        break;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
        if (!in_place) s = msc_type_bytes(c->type, c->count);
        r = msc_type_bytes(c->rtype, c->rcount) * n;
        break;
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
        if (!in_place) s = msc_type_bytes(c->type, c->count);
        r = msc_type_bytes(c->rtype, sum_counts(c, c->rcounts, n));
        break;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
        r = msc_type_bytes(c->rtype, c->rcount) * n;
        s = in_place ? r : msc_type_bytes(c->type, c->count) * n;
        break;
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
        r = msc_type_bytes(c->rtype, sum_counts(c, c->rcounts, n));
        s = in_place ? r : msc_type_bytes(c->type, sum_counts(c, c->counts, n));
        break;
    default: /* Barrier; Alltoallw and neighbourhood collectives: not derived */
        break;
    }
    *sent = (uint64_t)(s > 0 ? s : 0);
    *recvd = (uint64_t)(r > 0 ? r : 0);
}

static uint32_t coll_root(const msc_call_t *c, const trc_comm_t *cm)
{
    if (!coll_rooted[c->fn] || cm->rsize || c->root < 0) return OTF2_UNDEFINED_UINT32;
    return (uint32_t)c->root;
}

/* --- Requests ------------------------------------------------------------- */

static bool is_send(msc_kind_t k)
{
    return k == MSC_KIND_ISEND || k == MSC_KIND_SEND_INIT;
}

static bool is_recv(msc_kind_t k)
{
    return k == MSC_KIND_IRECV || k == MSC_KIND_RECV_INIT || k == MSC_KIND_IMRECV;
}

/* A request whose post was recorded (and so whose end must be). */
static bool traced(const msc_req_info_t *in)
{
    if (!in->id || in->peer == MPI_PROC_NULL) return false;
    if (in->persistent && !in->active) return false;
    return is_send(in->kind) || is_recv(in->kind) || in->kind == MSC_KIND_ICOLL;
}

static void completed(trc_thread_t *t, const msc_done_t *d, uint64_t tl)
{
    const msc_req_info_t *in = &d->info;
    if (!traced(in)) return;
    if (d->cancelled) {
        OTF2_EvtWriter_MpiRequestCancelled(t->w, NULL, tl, in->id);
    } else if (is_send(in->kind)) {
        OTF2_EvtWriter_MpiIsendComplete(t->w, NULL, tl, in->id);
    } else if (is_recv(in->kind)) {
        MPI_Comm comm = in->comm == MPI_COMM_NULL ? t->mprobe_comm : in->comm;
        int src = d->status ? d->status->MPI_SOURCE : in->peer;
        int tag = d->status ? d->status->MPI_TAG : in->tag;
        OTF2_EvtWriter_MpiIrecv(t->w, NULL, tl, (uint32_t)src, trc_comm(comm)->ref,
                                (uint32_t)tag, (uint64_t)d->bytes, in->id);
    } else {
        uint64_t s = 0, r = 0;
        pthread_mutex_lock(&icoll_lock);
        if (icoll[in->id % ICOLL_SLOTS].id == in->id) {
            s = icoll[in->id % ICOLL_SLOTS].sent;
            r = icoll[in->id % ICOLL_SLOTS].recvd;
            icoll[in->id % ICOLL_SLOTS].id = 0;
        }
        pthread_mutex_unlock(&icoll_lock);
        const trc_comm_t *cm = trc_comm(in->comm);
        uint32_t root = coll_rooted[in->fn] && !cm->rsize && in->root >= 0
                            ? (uint32_t)in->root : OTF2_UNDEFINED_UINT32;
        OTF2_EvtWriter_NonBlockingCollectiveComplete(t->w, NULL, tl,
                                                     (OTF2_CollectiveOp)(coll_op[in->fn] - 1),
                                                     cm->ref, root, s, r, in->id);
    }
}

/* A request that was tested and is still pending. */
static void tested(trc_thread_t *t, MPI_Request r, uint64_t tl)
{
    msc_req_info_t in;
    if (r == MPI_REQUEST_NULL || !msc_requests_find(r, &in) || !traced(&in)) return;
    OTF2_EvtWriter_MpiRequestTest(t->w, NULL, tl, in.id);
}

static void started(trc_thread_t *t, MPI_Request r, uint64_t te)
{
    msc_req_info_t in;
    if (r == MPI_REQUEST_NULL || !msc_requests_find(r, &in) || !traced(&in)) return;
    if (is_send(in.kind))
        OTF2_EvtWriter_MpiIsend(t->w, NULL, te, (uint32_t)in.peer, trc_comm(in.comm)->ref,
                                (uint32_t)in.tag, (uint64_t)in.bytes, in.id);
    else
        OTF2_EvtWriter_MpiIrecvRequest(t->w, NULL, te, in.id);
}

static void completions(trc_thread_t *t, msc_call_t *c, uint64_t tl)
{
    for (int i = 0; i < c->ndone; i++) completed(t, &c->done[i], tl);
    switch (c->kind) {
    case MSC_KIND_TEST:
        if (!*c->flag) tested(t, c->req_in, tl);
        break;
    case MSC_KIND_TESTANY:
    case MSC_KIND_TESTALL:
        if (!*c->flag && c->reqs_in)
            for (int i = 0; i < c->nreq; i++) tested(t, c->reqs_in[i], tl);
        break;
    case MSC_KIND_TESTSOME:
        if (!c->reqs_in || *c->outcount == MPI_UNDEFINED) break;
        for (int i = 0; i < c->nreq; i++) {
            bool done = false;
            for (int k = 0; k < *c->outcount && !done; k++) done = c->indices[k] == i;
            if (!done) tested(t, c->reqs_in[i], tl);
        }
        break;
    default:
        break;
    }
}

/* --- The hook ------------------------------------------------------------- */

/* Bytes received: MPI_Get_count in bytes is the cheap path in both MPIs
 * (MPI_Get_elements_x walks the type map); a count that does not fit an int
 * (MPI_UNDEFINED) falls back to it. */
static int64_t recv_bytes(MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) return n > 0 ? n : 0;
    MPI_Count x = 0;
    return PMPI_Get_elements_x(st, MPI_BYTE, &x) == MPI_SUCCESS && x > 0 ? (int64_t)x : 0;
}

static void records(trc_thread_t *t, msc_call_t *c, uint64_t te, uint64_t tl)
{
    OTF2_EvtWriter *w = t->w;
    switch (c->kind) {
    case MSC_KIND_SEND:
        if (c->peer != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiSend(w, NULL, te, (uint32_t)c->peer, trc_comm(c->comm)->ref,
                                   (uint32_t)c->tag, (uint64_t)msc_type_bytes(c->type, c->count));
        break;
    case MSC_KIND_RECV:
    case MSC_KIND_MRECV:
        if (c->status->MPI_SOURCE != MPI_PROC_NULL) {
            MPI_Comm comm = c->kind == MSC_KIND_RECV ? c->comm : t->mprobe_comm;
            OTF2_EvtWriter_MpiRecv(w, NULL, tl, (uint32_t)c->status->MPI_SOURCE,
                                   trc_comm(comm)->ref, (uint32_t)c->status->MPI_TAG,
                                   (uint64_t)recv_bytes(c->status));
        }
        break;
    case MSC_KIND_SENDRECV:
        if (c->peer != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiSend(w, NULL, te, (uint32_t)c->peer, trc_comm(c->comm)->ref,
                                   (uint32_t)c->tag, (uint64_t)msc_type_bytes(c->type, c->count));
        if (c->status->MPI_SOURCE != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiRecv(w, NULL, tl, (uint32_t)c->status->MPI_SOURCE,
                                   trc_comm(c->comm)->ref, (uint32_t)c->status->MPI_TAG,
                                   (uint64_t)recv_bytes(c->status));
        break;
    case MSC_KIND_PROBE:
        if (c->fn == MSC_FN_MPI_Mprobe || (c->fn == MSC_FN_MPI_Improbe && *c->flag))
            t->mprobe_comm = c->comm;
        break;
    case MSC_KIND_ISEND:
        if (c->req_id && c->peer != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiIsend(w, NULL, te, (uint32_t)c->peer, trc_comm(c->comm)->ref,
                                    (uint32_t)c->tag, (uint64_t)msc_type_bytes(c->type, c->count),
                                    c->req_id);
        break;
    case MSC_KIND_IRECV:
        if (c->req_id && c->peer != MPI_PROC_NULL)
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, te, c->req_id);
        break;
    case MSC_KIND_IMRECV:
        if (c->req_id) OTF2_EvtWriter_MpiIrecvRequest(w, NULL, te, c->req_id);
        break;
    case MSC_KIND_START:
        started(t, c->req_in, te);
        break;
    case MSC_KIND_STARTALL:
        if (c->reqs_in)
            for (int i = 0; i < c->nreq; i++) started(t, c->reqs_in[i], te);
        break;
    case MSC_KIND_WAIT: case MSC_KIND_TEST: case MSC_KIND_WAITANY: case MSC_KIND_TESTANY:
    case MSC_KIND_WAITALL: case MSC_KIND_TESTALL: case MSC_KIND_WAITSOME: case MSC_KIND_TESTSOME:
        completions(t, c, tl);
        break;
    case MSC_KIND_COLL:
        if (coll_op[c->fn]) {
            const trc_comm_t *cm = trc_comm(c->comm);
            uint64_t s, r;
            coll_bytes(c, cm, &s, &r);
            OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, te);
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, tl, (OTF2_CollectiveOp)(coll_op[c->fn] - 1),
                                            cm->ref, coll_root(c, cm), s, r);
        }
        break;
    case MSC_KIND_ICOLL:
        if (coll_op[c->fn] && c->req_id) {
            uint64_t s, r;
            coll_bytes(c, trc_comm(c->comm), &s, &r);
            pthread_mutex_lock(&icoll_lock);
            icoll[c->req_id % ICOLL_SLOTS].id = c->req_id;
            icoll[c->req_id % ICOLL_SLOTS].sent = s;
            icoll[c->req_id % ICOLL_SLOTS].recvd = r;
            pthread_mutex_unlock(&icoll_lock);
            OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, te, c->req_id);
        }
        break;
    case MSC_KIND_COMM:
        if (c->newcomm) trc_comm_created(*c->newcomm);
        break;
    case MSC_KIND_COMM_FREE:
        trc_comm_freed(c->comm);
        break;
    default:
        break;
    }
}

static void on_leave(msc_call_t *c)
{
    trc_thread_t *t = thread_of(c->thread);
    if (MSC_UNLIKELY(!t)) return;
    uint64_t te = trc_ts(c->t_enter), tl = trc_ts(c->t_leave);
    OTF2_EvtWriter_Enter(t->w, NULL, te, (OTF2_RegionRef)c->fn);
    if (c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS) records(t, c, te, tl);
    OTF2_EvtWriter_Leave(t->w, NULL, tl, (OTF2_RegionRef)c->fn);
}

/* --- Internal API for other modules (trace.h) ----------------------------- */

static trc_thread_t *api_thread(void)
{
    if (!msc_trace_active() || !msc_recording_on()) return NULL;
    msc_thread_t *th = msc_tls.thread ? msc_tls.thread : msc_thread_attach();
    return th ? thread_of(th) : NULL;
}

void msc_trace_enter(uint32_t region, uint64_t t_ns)
{
    trc_thread_t *t = api_thread();
    if (t && region != UINT32_MAX) OTF2_EvtWriter_Enter(t->w, NULL, trc_ts(t_ns), region);
}

void msc_trace_leave(uint32_t region, uint64_t t_ns)
{
    trc_thread_t *t = api_thread();
    if (t && region != UINT32_MAX) OTF2_EvtWriter_Leave(t->w, NULL, trc_ts(t_ns), region);
}

void msc_trace_metric(uint32_t metric, uint64_t t_ns, OTF2_MetricValue value)
{
    trc_thread_t *t = api_thread();
    if (!t || metric == UINT32_MAX) return;
    OTF2_Type type = trc_metric_type(metric);
    OTF2_EvtWriter_Metric(t->w, NULL, trc_ts(t_ns), metric, 1, &type, &value);
}

/* --- Life cycle ----------------------------------------------------------- */

static int trace_init(int s)
{
    slot = s;
    trc_skew = -(int64_t)msc_g.settings.v[MSC_SET_TEST_CLOCK_SKEW].num * 1000 * msc_g.world_rank;
    if (!msc_g.outdir[0]) {
        msc_warn_once("trace-dir", "trace: no output directory; no trace is written");
        return 1;
    }
    coll_tables();
    uint64_t budget = (uint64_t)msc_g.settings.v[MSC_SET_TRACE_BUFFER].num;
    uint64_t chunk = OTF2_CHUNK_SIZE_EVENTS_DEFAULT;
    while (chunk > OTF2_CHUNK_SIZE_MIN && chunk * 4 > budget) chunk /= 2;
    evt_chunks = budget / chunk < 2 ? 2 : (size_t)(budget / chunk);
    OTF2_Error_RegisterCallback(on_error, NULL);

    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/trace", msc_g.outdir);
    archive = OTF2_Archive_Open(path, "traces", OTF2_FILEMODE_WRITE, chunk,
                                OTF2_CHUNK_SIZE_DEFINITIONS_DEFAULT, OTF2_SUBSTRATE_POSIX,
                                OTF2_COMPRESSION_NONE);
    int ok = archive != NULL;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, msc_g.comm);
    if (!ok) {
        msc_warn_once("trace-open", "trace: cannot create the archive in %s; no trace is written",
                      path);
        if (archive) OTF2_Archive_Close(archive);
        archive = NULL;
        return 1;
    }
    OTF2_Archive_SetFlushCallbacks(archive, &flush_cb, NULL);
    OTF2_Archive_SetMemoryCallbacks(archive, &mem_cb, NULL);
    OTF2_MPI_Archive_SetCollectiveCallbacks(archive, msc_g.comm, MPI_COMM_NULL);
    OTF2_Pthread_Archive_SetLockingCallbacks(archive, NULL);
    OTF2_Archive_OpenEvtFiles(archive);
    trc_defs_init();
    trc_clock_sync(&sync_time[0], &sync_offset[0], &sync_dev[0]);
    atomic_store(&active, true);
    /* The main thread's location first: it stands for the rank in the
     * communicator definitions. */
    if (!thread_open(msc_tls.thread)) atomic_store(&active, false);
    return 0;
}

static void trace_pcontrol(int level)
{
    trc_thread_t *t = msc_trace_active() ? thread_of(msc_tls.thread) : NULL;
    if (!t) return;
    if (level == 0 || level == 1)
        OTF2_EvtWriter_MeasurementOnOff(t->w, NULL, trc_ts(msc_now_ns()),
                                        level ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF);
}

static void trace_finalize(void)
{
    atomic_store(&active, false);
    trc_clock_sync(&sync_time[1], &sync_offset[1], &sync_dev[1]);
    trc_loc_t *locs = calloc((size_t)nthreads + 1, sizeof *locs);
    int nlocs = 0;
    for (int i = 0; i < nthreads; i++) {
        uint64_t n = 0;
        OTF2_EvtWriter_GetNumberOfEvents(threads[i]->w, &n);
        locs[nlocs].id = threads[i]->loc;
        locs[nlocs++].events = n;
        OTF2_Archive_CloseEvtWriter(archive, threads[i]->w);
        threads[i]->w = NULL;
    }
    OTF2_Archive_CloseEvtFiles(archive);
    int complete = !atomic_load(&failed);
    PMPI_Allreduce(MPI_IN_PLACE, &complete, 1, MPI_INT, MPI_LAND, msc_g.comm);
    trc_defs_write(archive, locs, nlocs, sync_time, sync_offset, sync_dev, complete);
    if (OTF2_Archive_Close(archive) != OTF2_SUCCESS) complete = 0;
    archive = NULL;
    free(locs);
    uint64_t fl = atomic_load(&flushes);
    if (fl && msc_g.world_rank == 0)
        msc_warn("trace: the event buffer of rank 0 was flushed to disk %llu times during the "
                 "run (MPISCOPE_TRACE_BUFFER)", (unsigned long long)fl);
    if (!complete && msc_g.world_rank == 0)
        msc_warn("trace: the trace in %s/trace is incomplete", msc_g.outdir);
}

static const msc_module_t trace_module = {
    .abi = MSC_MODULE_ABI,
    .name = "trace",
    .mode = "trace",
    .init = trace_init,
    .enter = NULL,
    .leave = on_leave,
    .pcontrol = trace_pcontrol,
    .finalize = trace_finalize,
};

__attribute__((constructor)) static void trace_register(void)
{
    msc_module_register(&trace_module);
}
