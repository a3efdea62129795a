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
 * The Enter of an MPI call carries the call site (the return address into
 * the application) as a SOURCE_CODE_LOCATION attribute, delta-encoded: only
 * when the site differs from the last one written for the same pair (the
 * previous MPI region entered on the location, this region), so that a loop
 * costs a few instructions per call and no bytes, even a loop that calls
 * MPI_Isend to the left and to the right. The addresses get local
 * references from a table in defs.c and become file and line at
 * MPI_Finalize.
 *
 * Memory is bounded: each location's event buffer may hold MPISCOPE_TRACE_BUFFER
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

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/clock.h"
#include "../core/log.h"
#include "../core/output.h"
#include "../core/module.h"
#include "../core/requests.h"
#include "impl.h"
#include "../core/fatal.h"
#include "trace.h"

/* One event record, as written or as held back in an unordered period. The
 * fields mean what the OTF2 writer call of `kind` takes, in order: a, b, c
 * are the 32-bit arguments, x, y, z the 64-bit ones. */
typedef enum {
    R_ENTER, R_LEAVE, R_SEND, R_RECV, R_ISEND, R_IRECV_REQUEST, R_ISEND_COMPLETE, R_IRECV,
    R_REQUEST_TEST, R_REQUEST_CANCELLED, R_COLL_BEGIN, R_COLL_END, R_NBC_REQUEST,
    R_NBC_COMPLETE, R_ONOFF, R_METRIC, R_COMMENT, R_RMA_WIN_CREATE, R_RMA_WIN_DESTROY, R_RMA_PUT,
    R_RMA_GET, R_RMA_ATOMIC, R_RMA_OP_COMPLETE, R_RMA_COLL_BEGIN, R_RMA_COLL_END,
    R_RMA_GROUP_SYNC, R_RMA_REQUEST_LOCK, R_RMA_RELEASE_LOCK, R_IO_CREATE, R_IO_DESTROY,
    R_IO_BEGIN, R_IO_ISSUED, R_IO_COMPLETE, R_RMA_OP_COMPLETE_NB, R_RMA_OP_TEST, R_RMA_SYNC,
    R_PARAM_UINT, /* a = parameter, x = value */
    R_MPI_ENTER /* an MPI call's Enter: a = function, x = call site */
} rec_kind_t;

enum { SITE_MEMO = 512 };
#define NO_FN ((uint32_t)MSC_FN_COUNT)
#define NO_KEY UINT32_MAX

static inline uint32_t site_key(uint32_t prev, uint32_t fn)
{
    return prev * ((uint32_t)MSC_FN_COUNT + 1) + fn;
}

static inline uint32_t site_slot(uint32_t key)
{
    return (key * 2654435761u) >> 23; /* 9 bits: SITE_MEMO */
}

typedef struct {
    uint32_t key;            /* site_key(prev, fn); NO_KEY: empty */
    const void *site;
} site_memo_t;

typedef struct {
    uint64_t t;              /* ns, archive time (trc_ts applied) */
    uint64_t seq;            /* order of logging: keeps equal times in order when sorted */
    uint32_t kind;           /* rec_kind_t */
    uint32_t a, b, c;
    uint32_t scl;            /* local source code location + 1; 0: none */
    uint64_t x, y, z;
} trc_rec_t;

typedef struct {
    OTF2_EvtWriter *w;
    uint64_t loc;
    MPI_Comm mprobe_comm;    /* communicator of the last matched probe (for MPI_Mrecv) */
    OTF2_AttributeList *attrs; /* for records with a source code location */
    int unordered;           /* depth of VT_begin_unordered periods */
    trc_rec_t *held;         /* records of the open unordered period, in logging order */
    size_t nheld, capheld;
    uint64_t seq;
    uint64_t rma_id;         /* matching ids of this location's RMA operations */
    uint64_t io_id;          /* matching ids of blocking file operations (with IO_BLOCKING) */
    uint64_t flushed;        /* events written by earlier writers of this location (flushes) */
    trc_segfile_t seg;       /* its files on disk: what earlier writers' flushes left */
    bool evt_cut;            /* a close of its writer failed: traces/<loc>.evt ends cut */
    unsigned flush_gen;      /* the flush generation this location has reached */
    MPI_Datatype last_type;  /* the last datatype sent, its size and the type generation */
    MPI_Count last_size;
    unsigned last_gen;
    /* The call-site delta (enter_at): the MPI region entered last (NO_FN:
     * none yet, or since a flush) and, per pair (that region, region) in a
     * direct-mapped memo, the site that readers hold for it. A pair not in
     * the memo gives its site again. */
    uint32_t prev_fn;
    site_memo_t memo[SITE_MEMO];
} trc_thread_t;

typedef struct {
    void **chunks;
    size_t n, cap;
} pool_t;

int64_t trc_skew;
static int slot = -1;
static OTF2_Archive *archive;
static _Atomic bool active, failed;
static char fail_reason[512];                /* the first failure of this rank */
static char traces_dir[PATH_MAX + 32];       /* <outdir>/trace/traces */
static int reserve_fd = -1;                  /* rank 0: trace/.reserve (see reserve_space) */
static _Atomic uint64_t flushes;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static trc_thread_t **threads;
static int nthreads, capthreads;
static size_t evt_chunks;                    /* chunks per location */
static uint64_t evt_chunk;                   /* bytes per event chunk */
static _Atomic unsigned flush_gen;           /* MPI_Pcontrol(2)/VT_flush calls so far */
static _Atomic unsigned type_gen = 1;        /* datatypes freed (or unseen while off) so far */
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

/* Handles of pending nonblocking file operations, by request id. */
static struct {
    uint64_t id;
    uint32_t handle;
} iofile[ICOLL_SLOTS];

/* Windows of pending request-based RMA operations (Rput...), by request id. */
static struct {
    uint64_t id;
    uint32_t win;
} rmareq[ICOLL_SLOTS];

/* Matching ids of request-based RMA operations: the request id with this
 * bit (blocking ones count per location from 1). */
#define RMA_REQUEST_ID (1ull << 62)

bool msc_trace_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed);
}

/* --- OTF2 callbacks ------------------------------------------------------ */

/* The first write error stops the rank's trace: every later flush is
 * refused (pre_flush), each thread drops its writer at its next call
 * (flush_gen sends it to thread_flush, which sees `failed`), and no new
 * writer is made, so nothing more goes through OTF2's files for events. */
static void fail(const char *what)
{
    if (!atomic_exchange(&failed, true)) {
        snprintf(fail_reason, sizeof fail_reason, "%.500s", what);
        atomic_fetch_add(&flush_gen, 1);
        msc_warn("trace: %s; this rank's trace stops here (marked incomplete) and the program "
                 "carries on", what);
    }
}

static OTF2_ErrorCode on_error(void *ud, const char *file, uint64_t line, const char *function,
                               OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)function;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt ? fmt : "", va);
    char what[700];
    snprintf(what, sizeof what, "OTF2 error %s: %s (%s)", OTF2_Error_GetName(code),
             OTF2_Error_GetDescription(code), msg);
    fail(what);
    return code;
}

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller;
    if (type == OTF2_FILETYPE_EVENTS && atomic_load(&failed)) return OTF2_NO_FLUSH;
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

/* Readers know no site yet (a new location, or a flushed piece that a
 * reader may start at). */
static void site_forget(trc_thread_t *t)
{
    t->prev_fn = NO_FN;
    for (int i = 0; i < SITE_MEMO; i++) t->memo[i].key = NO_KEY;
}

static trc_thread_t *thread_open(msc_thread_t *th)
{
    if (!archive || !th || atomic_load_explicit(&failed, memory_order_relaxed)) return NULL;
    trc_thread_t *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->loc = (uint64_t)msc_g.world_rank | ((uint64_t)th->index << 32);
    t->seg = (trc_segfile_t){.dir = traces_dir, .loc = t->loc, .chunk = evt_chunk};
    t->mprobe_comm = MPI_COMM_NULL;
    t->flush_gen = atomic_load(&flush_gen);
    site_forget(t);
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
    t->attrs = OTF2_AttributeList_New();
    th->module_data[slot] = t;
    return t;
}

static inline trc_thread_t *thread_of(msc_thread_t *th)
{
    trc_thread_t *t = th->module_data[slot];
    return MSC_LIKELY(t != NULL) ? t : thread_open(th);
}

/* --- Records -------------------------------------------------------------- */

/* Synchronization level of fences and PSCW calls: processes and memory. */
#define RMA_SYNC (OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY)

/* The location's attribute list holding SOURCE_CODE_LOCATION `scl` (a local
 * reference); the writer empties it again. */
static OTF2_AttributeList *scl_attr(trc_thread_t *t, uint32_t scl)
{
    OTF2_AttributeValue v;
    v.sourceCodeLocationRef = scl;
    OTF2_AttributeList_AddAttribute(t->attrs, TRC_ATTR_SCL, OTF2_TYPE_SOURCE_CODE_LOCATION, v);
    return t->attrs;
}

/* The Enter of MPI function `fn` called from `site`, with the attribute
 * only when the memo does not hold that site for the pair (previous MPI
 * region, fn): readers take an Enter of an MPI region without one to be at
 * the location last given for the same pair on the location
 * (docs/trace.md). The fast case is inlined in on_leave. */
static __attribute__((noinline)) void enter_at(trc_thread_t *t, uint32_t fn, const void *site,
                                               uint64_t te)
{
    OTF2_AttributeList *al = NULL;
    uint32_t key = site_key(t->prev_fn, fn);
    site_memo_t *m = &t->memo[site_slot(key)];
    if ((m->key != key || m->site != site) && t->attrs) {
        m->key = key, m->site = site;
        al = scl_attr(t, trc_site_scl(site));
    }
    t->prev_fn = fn;
    OTF2_EvtWriter_Enter(t->w, al, te, fn);
}

static void write_rec(trc_thread_t *t, const trc_rec_t *r)
{
    OTF2_EvtWriter *w = t->w;
    OTF2_AttributeList *al = NULL;
    if (r->scl && t->attrs) al = scl_attr(t, r->scl - 1);
    /* An MPI region entered through the API (VT_log_op) gives its location,
     * or none, explicitly, and the next MPI call's Enter gives its own. */
    if (r->kind == R_ENTER && r->a < (uint32_t)MSC_FN_COUNT && t->attrs) {
        if (!al) al = scl_attr(t, OTF2_UNDEFINED_SOURCE_CODE_LOCATION);
        uint32_t key = site_key(t->prev_fn, r->a);
        t->memo[site_slot(key)].key = NO_KEY; /* readers hold that location for the pair */
        t->prev_fn = r->a;
    }
    switch ((rec_kind_t)r->kind) {
    case R_ENTER: OTF2_EvtWriter_Enter(w, al, r->t, r->a); break;
    case R_MPI_ENTER: enter_at(t, r->a, (const void *)(uintptr_t)r->x, r->t); break;
    case R_LEAVE: OTF2_EvtWriter_Leave(w, al, r->t, r->a); break;
    case R_SEND: OTF2_EvtWriter_MpiSend(w, al, r->t, r->a, r->b, r->c, r->x); break;
    case R_RECV: OTF2_EvtWriter_MpiRecv(w, al, r->t, r->a, r->b, r->c, r->x); break;
    case R_ISEND: OTF2_EvtWriter_MpiIsend(w, al, r->t, r->a, r->b, r->c, r->x, r->y); break;
    case R_IRECV_REQUEST: OTF2_EvtWriter_MpiIrecvRequest(w, al, r->t, r->y); break;
    case R_ISEND_COMPLETE: OTF2_EvtWriter_MpiIsendComplete(w, al, r->t, r->y); break;
    case R_IRECV: OTF2_EvtWriter_MpiIrecv(w, al, r->t, r->a, r->b, r->c, r->x, r->y); break;
    case R_REQUEST_TEST: OTF2_EvtWriter_MpiRequestTest(w, al, r->t, r->y); break;
    case R_REQUEST_CANCELLED: OTF2_EvtWriter_MpiRequestCancelled(w, al, r->t, r->y); break;
    case R_COLL_BEGIN: OTF2_EvtWriter_MpiCollectiveBegin(w, al, r->t); break;
    case R_COLL_END:
        OTF2_EvtWriter_MpiCollectiveEnd(w, al, r->t, (OTF2_CollectiveOp)r->a, r->b, r->c, r->x,
                                        r->y);
        break;
    case R_NBC_REQUEST: OTF2_EvtWriter_NonBlockingCollectiveRequest(w, al, r->t, r->z); break;
    case R_NBC_COMPLETE:
        OTF2_EvtWriter_NonBlockingCollectiveComplete(w, al, r->t, (OTF2_CollectiveOp)r->a, r->b,
                                                     r->c, r->x, r->y, r->z);
        break;
    case R_ONOFF: OTF2_EvtWriter_MeasurementOnOff(w, al, r->t, (OTF2_MeasurementMode)r->a); break;
    case R_METRIC: {
        OTF2_Type type = (OTF2_Type)r->b;
        OTF2_MetricValue v;
        v.unsigned_int = r->x;
        OTF2_EvtWriter_Metric(w, al, r->t, r->a, 1, &type, &v);
        break;
    }
    case R_COMMENT: OTF2_EvtWriter_ParameterString(w, al, r->t, TRC_PARAM_COMMENT, r->a); break;
    case R_PARAM_UINT: OTF2_EvtWriter_ParameterUnsignedInt(w, al, r->t, r->a, r->x); break;
    case R_RMA_WIN_CREATE: OTF2_EvtWriter_RmaWinCreate(w, al, r->t, r->a); break;
    case R_RMA_WIN_DESTROY: OTF2_EvtWriter_RmaWinDestroy(w, al, r->t, r->a); break;
    case R_RMA_PUT: OTF2_EvtWriter_RmaPut(w, al, r->t, r->a, r->b, r->x, r->y); break;
    case R_RMA_GET: OTF2_EvtWriter_RmaGet(w, al, r->t, r->a, r->b, r->x, r->y); break;
    case R_RMA_ATOMIC:
        OTF2_EvtWriter_RmaAtomic(w, al, r->t, r->a, r->b, (OTF2_RmaAtomicType)r->c, r->x, r->y,
                                 r->z);
        break;
    case R_RMA_OP_COMPLETE: OTF2_EvtWriter_RmaOpCompleteBlocking(w, al, r->t, r->a, r->y); break;
    case R_RMA_COLL_BEGIN: OTF2_EvtWriter_RmaCollectiveBegin(w, al, r->t); break;
    case R_RMA_COLL_END:
        OTF2_EvtWriter_RmaCollectiveEnd(w, al, r->t, OTF2_COLLECTIVE_OP_BARRIER, RMA_SYNC, r->a,
                                        OTF2_UNDEFINED_UINT32, 0, 0);
        break;
    case R_RMA_GROUP_SYNC: OTF2_EvtWriter_RmaGroupSync(w, al, r->t, RMA_SYNC, r->a, r->b); break;
    case R_RMA_REQUEST_LOCK:
        OTF2_EvtWriter_RmaRequestLock(w, al, r->t, r->a, r->b, r->y, (OTF2_LockType)r->c);
        break;
    case R_RMA_RELEASE_LOCK: OTF2_EvtWriter_RmaReleaseLock(w, al, r->t, r->a, r->b, r->y); break;
    case R_IO_CREATE:
        OTF2_EvtWriter_IoCreateHandle(w, al, r->t, r->a, (OTF2_IoAccessMode)r->b,
                                      (OTF2_IoCreationFlag)r->c, (OTF2_IoStatusFlag)r->x);
        break;
    case R_IO_DESTROY: OTF2_EvtWriter_IoDestroyHandle(w, al, r->t, r->a); break;
    case R_IO_BEGIN:
        OTF2_EvtWriter_IoOperationBegin(w, al, r->t, r->a, (OTF2_IoOperationMode)r->b,
                                        (OTF2_IoOperationFlag)r->c, r->x, r->y);
        break;
    case R_IO_ISSUED: OTF2_EvtWriter_IoOperationIssued(w, al, r->t, r->a, r->y); break;
    case R_IO_COMPLETE: OTF2_EvtWriter_IoOperationComplete(w, al, r->t, r->a, r->x, r->y); break;
    case R_RMA_OP_COMPLETE_NB:
        OTF2_EvtWriter_RmaOpCompleteNonBlocking(w, al, r->t, r->a, r->y);
        break;
    case R_RMA_OP_TEST: OTF2_EvtWriter_RmaOpTest(w, al, r->t, r->a, r->y); break;
    case R_RMA_SYNC:
        OTF2_EvtWriter_RmaSync(w, al, r->t, r->a, r->b, OTF2_RMA_SYNC_TYPE_MEMORY);
        break;
    }
}

static void hold(trc_thread_t *t, const trc_rec_t *r)
{
    if (t->nheld == t->capheld) {
        size_t cap = t->capheld ? 2 * t->capheld : 256;
        trc_rec_t *p = realloc(t->held, cap * sizeof *p);
        if (!p) {
            fail("out of memory for the events of an unordered period");
            return;
        }
        t->held = p;
        t->capheld = cap;
    }
    t->held[t->nheld] = *r;
    t->held[t->nheld++].seq = t->seq++;
}

/* Every record goes through here: written at once, or held while the
 * thread is inside an unordered period. */
static inline void emit(trc_thread_t *t, const trc_rec_t *r)
{
    if (MSC_UNLIKELY(t->unordered > 0)) hold(t, r);
    else write_rec(t, r);
}

static int rec_cmp(const void *a, const void *b)
{
    const trc_rec_t *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Writes the held records in time order (equal times in logging order). */
static void release_held(trc_thread_t *t)
{
    if (!t->nheld) return;
    qsort(t->held, t->nheld, sizeof *t->held, rec_cmp);
    for (size_t i = 0; i < t->nheld; i++) write_rec(t, &t->held[i]);
    t->nheld = 0;
    free(t->held);
    t->held = NULL;
    t->capheld = 0;
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

static bool is_rma(msc_kind_t k)
{
    return k == MSC_KIND_RMA_RPUT || k == MSC_KIND_RMA_RGET || k == MSC_KIND_RMA_RACC;
}

static bool is_recv(msc_kind_t k)
{
    return k == MSC_KIND_IRECV || k == MSC_KIND_RECV_INIT || k == MSC_KIND_IMRECV;
}

/* A request whose post was recorded (and so whose end must be). */
/* A request's communicator tag (req_comm_tag below). */
#define TAG_NONE UINT32_MAX
#define TAG_INTER (1u << 31)
#define TAG_FOREIGN (UINT32_MAX - 1) /* to another world: not written (trc_comm_t) */

static bool traced(const msc_req_info_t *in)
{
    if (!in->id || in->peer == MPI_PROC_NULL || in->comm_tag == TAG_FOREIGN) return false;
    if (in->persistent && !in->active) return false;
    return is_send(in->kind) || is_recv(in->kind) || in->kind == MSC_KIND_ICOLL ||
           in->kind == MSC_KIND_IO_IREAD || in->kind == MSC_KIND_IO_IWRITE || is_rma(in->kind);
}

/* The window of pending request-based RMA operation `id` (forgotten if
 * `take`), or OTF2_UNDEFINED_RMA_WIN. */
static uint32_t rma_request_win(uint64_t id, bool take)
{
    uint32_t w = OTF2_UNDEFINED_RMA_WIN;
    pthread_mutex_lock(&icoll_lock);
    if (rmareq[id % ICOLL_SLOTS].id == id) {
        w = rmareq[id % ICOLL_SLOTS].win;
        if (take) rmareq[id % ICOLL_SLOTS].id = 0;
    }
    pthread_mutex_unlock(&icoll_lock);
    return w;
}

/* A request's communicator as the trace saw it when the request was posted
 * (msc_requests_comm_tag): the local reference, with TAG_INTER for an
 * intercommunicator; TAG_NONE for none. The communicator may have been
 * freed, and its handle reused, by the time the request completes. */

static uint32_t req_comm_tag(MPI_Comm comm)
{
    if (!msc_trace_active()) return TAG_NONE;
    if (comm == MPI_COMM_NULL) { /* MPI_Imrecv: the communicator of the last matched probe */
        msc_thread_t *th = msc_tls.thread;
        trc_thread_t *t = th ? th->module_data[slot] : NULL;
        if (!t || t->mprobe_comm == MPI_COMM_NULL) return TAG_NONE;
        comm = t->mprobe_comm;
    }
    const trc_comm_t *cm = trc_comm(comm);
    if (cm->ref == OTF2_UNDEFINED_COMM || (cm->ref & TAG_INTER)) return TAG_NONE;
    if (cm->foreign) return TAG_FOREIGN;
    return cm->ref | (cm->rsize ? TAG_INTER : 0);
}

static uint32_t tag_ref(uint32_t tag)
{
    return tag == TAG_NONE ? OTF2_UNDEFINED_COMM : tag & ~TAG_INTER;
}

static void completed(trc_thread_t *t, const msc_done_t *d, uint64_t tl)
{
    const msc_req_info_t *in = &d->info;
    if (in->kind == MSC_KIND_ICOMM) { /* a nonblocking constructor's communicator exists now */
        if (in->id) trc_comm_created(d->newcomm);
        return;
    }
    if (!traced(in)) return;
    if (is_rma(in->kind)) {
        uint32_t w = rma_request_win(in->id, true);
        if (w != OTF2_UNDEFINED_RMA_WIN)
            emit(t, &(trc_rec_t){.kind = R_RMA_OP_COMPLETE_NB, .t = tl, .a = w,
                                .y = RMA_REQUEST_ID | in->id});
    } else if (in->kind == MSC_KIND_IO_IREAD || in->kind == MSC_KIND_IO_IWRITE) {
        uint32_t h = OTF2_UNDEFINED_IO_HANDLE;
        pthread_mutex_lock(&icoll_lock);
        if (iofile[in->id % ICOLL_SLOTS].id == in->id) {
            h = iofile[in->id % ICOLL_SLOTS].handle;
            iofile[in->id % ICOLL_SLOTS].id = 0;
        }
        pthread_mutex_unlock(&icoll_lock);
        if (h != OTF2_UNDEFINED_IO_HANDLE)
            emit(t, &(trc_rec_t){.kind = R_IO_COMPLETE, .t = tl, .a = h,
                                .x = d->cancelled || d->bytes < 0 ? 0 : (uint64_t)d->bytes,
                                .y = in->id});
    } else if (d->cancelled) {
        emit(t, &(trc_rec_t){.kind = R_REQUEST_CANCELLED, .t = tl, .y = in->id});
    } else if (is_send(in->kind)) {
        emit(t, &(trc_rec_t){.kind = R_ISEND_COMPLETE, .t = tl, .y = in->id});
    } else if (is_recv(in->kind)) {
        int src = d->status ? d->status->MPI_SOURCE : in->peer;
        int tag = d->status ? d->status->MPI_TAG : in->tag;
        emit(t, &(trc_rec_t){.kind = R_IRECV, .t = tl, .a = (uint32_t)src,
                            .b = tag_ref(in->comm_tag), .c = (uint32_t)tag,
                            .x = (uint64_t)d->bytes, .y = in->id});
    } else {
        uint64_t s = 0, r = 0;
        pthread_mutex_lock(&icoll_lock);
        if (icoll[in->id % ICOLL_SLOTS].id == in->id) {
            s = icoll[in->id % ICOLL_SLOTS].sent;
            r = icoll[in->id % ICOLL_SLOTS].recvd;
            icoll[in->id % ICOLL_SLOTS].id = 0;
        }
        pthread_mutex_unlock(&icoll_lock);
        bool inter = in->comm_tag != TAG_NONE && (in->comm_tag & TAG_INTER);
        uint32_t root = coll_rooted[in->fn] && !inter && in->root >= 0
                            ? (uint32_t)in->root : OTF2_UNDEFINED_UINT32;
        emit(t, &(trc_rec_t){.kind = R_NBC_COMPLETE, .t = tl, .a = (uint32_t)(coll_op[in->fn] - 1),
                            .b = tag_ref(in->comm_tag), .c = root, .x = s, .y = r, .z = in->id});
    }
}

/* A request that was tested and is still pending. */
static void tested(trc_thread_t *t, MPI_Request r, uint64_t tl)
{
    msc_req_info_t in;
    if (r == MPI_REQUEST_NULL || !msc_requests_find(r, &in) || !traced(&in)) return;
    if (is_rma(in.kind)) {
        uint32_t w = rma_request_win(in.id, false);
        if (w != OTF2_UNDEFINED_RMA_WIN)
            emit(t, &(trc_rec_t){.kind = R_RMA_OP_TEST, .t = tl, .a = w,
                                .y = RMA_REQUEST_ID | in.id});
        return;
    }
    emit(t, &(trc_rec_t){.kind = R_REQUEST_TEST, .t = tl, .y = in.id});
}

static void started(trc_thread_t *t, MPI_Request r, uint64_t te)
{
    msc_req_info_t in;
    if (r == MPI_REQUEST_NULL || !msc_requests_find(r, &in) || !traced(&in)) return;
    if (is_send(in.kind))
        emit(t, &(trc_rec_t){.kind = R_ISEND, .t = te, .a = (uint32_t)in.peer,
                            .b = tag_ref(in.comm_tag), .c = (uint32_t)in.tag,
                            .x = (uint64_t)in.bytes, .y = in.id});
    else
        emit(t, &(trc_rec_t){.kind = R_IRECV_REQUEST, .t = te, .y = in.id});
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

/* --- One-sided communication -------------------------------------------- */

/* Puts, gets and atomics complete (as far as this process can tell) when
 * the call returns: RmaOpCompleteBlocking at t_leave, with a matching id
 * unique on the location. Locks are named by their target rank
 * (OTF2_UNDEFINED_UINT32 for lock_all); PSCW calls have no group
 * definition (OTF2_UNDEFINED_GROUP). */
static void rma_records(trc_thread_t *t, msc_call_t *c, uint64_t te, uint64_t tl)
{
    if (c->kind == MSC_KIND_HANDLE_NEW) {
        uint32_t w = trc_win_created(*(MPI_Win *)c->obj, c->comm);
        if (w != OTF2_UNDEFINED_RMA_WIN) emit(t, &(trc_rec_t){.kind = R_RMA_WIN_CREATE, .t = tl, .a = w});
        return;
    }
    if (c->kind == MSC_KIND_HANDLE_FREE) {
        uint32_t w = trc_win_freed();
        if (w != OTF2_UNDEFINED_RMA_WIN) emit(t, &(trc_rec_t){.kind = R_RMA_WIN_DESTROY, .t = tl, .a = w});
        return;
    }
    uint32_t w = trc_win(c->win);
    if (w == OTF2_UNDEFINED_RMA_WIN) return;
    uint32_t peer = (uint32_t)c->peer;
    switch (c->kind) {
    case MSC_KIND_RMA_PUT:
    case MSC_KIND_RMA_GET:
    case MSC_KIND_RMA_ACC:
    case MSC_KIND_RMA_RPUT:
    case MSC_KIND_RMA_RGET:
    case MSC_KIND_RMA_RACC: {
        if (c->peer == MPI_PROC_NULL) return;
        bool req = is_rma(c->kind);
        if (req && !c->req_id) return; /* not in the request table: its completion is unknown */
        uint64_t id = req ? RMA_REQUEST_ID | c->req_id : ++t->rma_id;
        if (req) {
            pthread_mutex_lock(&icoll_lock);
            rmareq[c->req_id % ICOLL_SLOTS].id = c->req_id;
            rmareq[c->req_id % ICOLL_SLOTS].win = w;
            pthread_mutex_unlock(&icoll_lock);
        }
        if (c->kind == MSC_KIND_RMA_PUT || c->kind == MSC_KIND_RMA_RPUT) {
            emit(t, &(trc_rec_t){.kind = R_RMA_PUT, .t = te, .a = w, .b = peer,
                                .x = (uint64_t)msc_type_bytes(c->type, c->count), .y = id});
        } else if (c->kind == MSC_KIND_RMA_GET || c->kind == MSC_KIND_RMA_RGET) {
            emit(t, &(trc_rec_t){.kind = R_RMA_GET, .t = te, .a = w, .b = peer,
                                .x = (uint64_t)msc_type_bytes(c->rtype, c->rcount), .y = id});
        } else {
            bool one = c->fn == MSC_FN_MPI_Fetch_and_op || c->fn == MSC_FN_MPI_Compare_and_swap;
            OTF2_RmaAtomicType type = OTF2_RMA_ATOMIC_TYPE_ACCUMULATE;
            bool acc = c->fn == MSC_FN_MPI_Accumulate || c->fn == MSC_FN_MPI_Raccumulate;
            bool getacc = c->fn == MSC_FN_MPI_Get_accumulate || c->fn == MSC_FN_MPI_Rget_accumulate;
            if (c->fn == MSC_FN_MPI_Compare_and_swap) type = OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP;
            else if (!acc) type = OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE;
            uint64_t sent = (uint64_t)msc_type_bytes(c->type, one ? 1 : c->count);
            uint64_t recvd = acc ? 0 : (uint64_t)msc_type_bytes(c->rtype, one ? 1 : c->rcount);
            if (getacc && c->op == MPI_NO_OP) sent = 0;
            emit(t, &(trc_rec_t){.kind = R_RMA_ATOMIC, .t = te, .a = w, .b = peer, .c = type,
                                .x = sent, .y = recvd, .z = id});
        }
        /* A request-based operation completes in the Wait/Test that says so. */
        if (!req) emit(t, &(trc_rec_t){.kind = R_RMA_OP_COMPLETE, .t = tl, .a = w, .y = id});
        break;
    }
    case MSC_KIND_RMA_SYNC: {
        bool one = c->fn == MSC_FN_MPI_Win_flush || c->fn == MSC_FN_MPI_Win_flush_local;
        emit(t, &(trc_rec_t){.kind = R_RMA_SYNC, .t = tl, .a = w,
                            .b = one ? peer : OTF2_UNDEFINED_UINT32});
        break;
    }
    case MSC_KIND_RMA_FENCE:
        emit(t, &(trc_rec_t){.kind = R_RMA_COLL_BEGIN, .t = te});
        emit(t, &(trc_rec_t){.kind = R_RMA_COLL_END, .t = tl, .a = w});
        break;
    case MSC_KIND_RMA_LOCK: {
        bool all = c->fn == MSC_FN_MPI_Win_lock_all;
        uint32_t remote = all ? OTF2_UNDEFINED_UINT32 : peer;
        uint32_t type = all || c->tag == MPI_LOCK_SHARED ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
        emit(t, &(trc_rec_t){.kind = R_RMA_REQUEST_LOCK, .t = te, .a = w, .b = remote, .c = type,
                            .y = remote});
        break;
    }
    case MSC_KIND_RMA_UNLOCK: {
        uint32_t remote = c->fn == MSC_FN_MPI_Win_unlock_all ? OTF2_UNDEFINED_UINT32 : peer;
        emit(t, &(trc_rec_t){.kind = R_RMA_RELEASE_LOCK, .t = tl, .a = w, .b = remote, .y = remote});
        break;
    }
    case MSC_KIND_RMA_PSCW:
        emit(t, &(trc_rec_t){.kind = R_RMA_GROUP_SYNC, .t = tl, .a = w, .b = OTF2_UNDEFINED_GROUP});
        break;
    default:
        break;
    }
}

/* --- MPI-IO ----------------------------------------------------------------- */

/* Matching ids of blocking operations have the top bit set; nonblocking ones
 * use the core's request id (which never has it), so the two never meet. */
#define IO_BLOCKING (1ull << 63)

static int64_t recv_bytes(MPI_Status *st);

static void io_records(trc_thread_t *t, msc_call_t *c, uint64_t te, uint64_t tl)
{
    if (c->kind == MSC_KIND_HANDLE_NEW) {
        MPI_File fh = *(MPI_File *)c->obj;
        /* A Fortran file name is blank-padded, not terminated: count is its length. */
        const char *name = c->buf;
        char fname[1024];
        if (c->lang != MSC_LANG_C) {
            size_t n = c->buf && c->count > 0 ? (size_t)c->count : 0;
            if (n >= sizeof fname) n = sizeof fname - 1;
            if (n) memcpy(fname, c->buf, n);
            while (n && fname[n - 1] == ' ') n--;
            fname[n] = 0;
            name = fname;
        }
        uint32_t h = trc_io_opened(fh, c->obj, name, c->comm);
        if (h == OTF2_UNDEFINED_IO_HANDLE) return;
        int am = c->tag;
        uint32_t mode = am & MPI_MODE_RDWR     ? OTF2_IO_ACCESS_MODE_READ_WRITE
                        : am & MPI_MODE_WRONLY ? OTF2_IO_ACCESS_MODE_WRITE_ONLY
                                               : OTF2_IO_ACCESS_MODE_READ_ONLY;
        uint32_t create = (am & MPI_MODE_CREATE ? OTF2_IO_CREATION_FLAG_CREATE : 0) |
                          (am & MPI_MODE_EXCL ? OTF2_IO_CREATION_FLAG_EXCLUSIVE : 0);
        uint64_t status = (am & MPI_MODE_APPEND ? OTF2_IO_STATUS_FLAG_APPEND : 0) |
                          (am & MPI_MODE_DELETE_ON_CLOSE ? OTF2_IO_STATUS_FLAG_DELETE_ON_CLOSE : 0);
        emit(t, &(trc_rec_t){.kind = R_IO_CREATE, .t = tl, .a = h, .b = mode, .c = create,
                            .x = status});
        return;
    }
    if (c->kind == MSC_KIND_HANDLE_FREE) {
        uint32_t h = trc_io_closed(c->obj);
        if (h != OTF2_UNDEFINED_IO_HANDLE) emit(t, &(trc_rec_t){.kind = R_IO_DESTROY, .t = te, .a = h});
        return;
    }
    uint32_t h = trc_io_handle(c->file);
    if (h == OTF2_UNDEFINED_IO_HANDLE) return;
    bool write = c->kind == MSC_KIND_IO_WRITE || c->kind == MSC_KIND_IO_IWRITE;
    uint32_t mode = write ? OTF2_IO_OPERATION_MODE_WRITE : OTF2_IO_OPERATION_MODE_READ;
    uint32_t flags = strstr(msc_fn_name[c->fn], "_all") ? OTF2_IO_OPERATION_FLAG_COLLECTIVE : 0;
    uint64_t req = (uint64_t)(write ? msc_type_bytes(c->type, c->count)
                                    : msc_type_bytes(c->rtype, c->rcount));
    if (c->kind == MSC_KIND_IO_READ || c->kind == MSC_KIND_IO_WRITE) {
        uint64_t id = IO_BLOCKING | ++t->io_id;
        emit(t, &(trc_rec_t){.kind = R_IO_BEGIN, .t = te, .a = h, .b = mode, .c = flags, .x = req,
                            .y = id});
        emit(t, &(trc_rec_t){.kind = R_IO_COMPLETE, .t = tl, .a = h,
                            .x = (uint64_t)recv_bytes(c->status), .y = id});
        return;
    }
    if (!c->req_id) return; /* not in the request table: its completion would be unknown */
    pthread_mutex_lock(&icoll_lock);
    iofile[c->req_id % ICOLL_SLOTS].id = c->req_id;
    iofile[c->req_id % ICOLL_SLOTS].handle = h;
    pthread_mutex_unlock(&icoll_lock);
    emit(t, &(trc_rec_t){.kind = R_IO_BEGIN, .t = te, .a = h, .b = mode,
                        .c = flags | OTF2_IO_OPERATION_FLAG_NON_BLOCKING, .x = req, .y = c->req_id});
    emit(t, &(trc_rec_t){.kind = R_IO_ISSUED, .t = tl, .a = h, .y = c->req_id});
}

/* --- The hook ------------------------------------------------------------- */

/* Bytes received: MPI_Get_count in bytes is the cheap path in both MPIs
 * (MPI_Get_elements_x walks the type map); a count that does not fit an int
 * (MPI_UNDEFINED) falls back to it. */
/* Bytes of `count` elements of `type` for a send record. PMPI_Type_size_x
 * costs a call per message, so each location keeps the last type's size.
 * A freed handle may come back as another type: every MPI_Type_free seen
 * bumps a generation that invalidates all locations' entries, and so does
 * recording coming back on (a free while off went unseen). */
static uint64_t send_bytes(trc_thread_t *t, MPI_Datatype type, MPI_Count count)
{
    unsigned gen = atomic_load_explicit(&type_gen, memory_order_acquire);
    if (MSC_UNLIKELY(type != t->last_type || gen != t->last_gen)) {
        MPI_Count size = 0;
        if (type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
            return 0;
        t->last_type = type, t->last_size = size, t->last_gen = gen;
    }
    return count > 0 ? (uint64_t)(t->last_size * count) : 0;
}

/* The events of MPI_Pready*, MPI_Parrived: per partition, its index and its
 * bytes (impl.h, TRC_PARAM_PARTITION), each partition being 1/parts of the
 * request's message. Nothing for a request the table does not know. */
static void partition(trc_thread_t *t, uint64_t ts, int part, int64_t bytes)
{
    emit(t, &(trc_rec_t){.kind = R_PARAM_UINT, .t = ts, .a = TRC_PARAM_PARTITION,
                        .x = (uint64_t)part});
    emit(t, &(trc_rec_t){.kind = R_PARAM_UINT, .t = ts, .a = TRC_PARAM_PARTITION_BYTES,
                        .x = (uint64_t)bytes});
}

static void partitions(trc_thread_t *t, const msc_call_t *c, uint64_t te, uint64_t tl)
{
    msc_req_info_t in;
    if (c->rc != MPI_SUCCESS || c->req_in == MPI_REQUEST_NULL || !msc_requests_find(c->req_in, &in) ||
        in.parts <= 0)
        return;
    int64_t each = in.bytes / in.parts;
    if (c->kind == MSC_KIND_PARRIVED) {
        partition(t, tl, c->part, c->flag && *c->flag ? each : 0);
    } else if (msc_fn_roles[c->fn] & MSC_ROLE_PARTLIST) { /* MPI_Pready_list */
        for (int i = 0; c->partlist && i < c->nparts; i++) partition(t, te, c->partlist[i], each);
    } else if (msc_fn_roles[c->fn] & MSC_ROLE_PARTHI) { /* MPI_Pready_range */
        for (int p = c->part; p <= c->part_hi && p >= 0; p++) partition(t, te, p, each);
    } else {
        partition(t, te, c->part, each);
    }
}

static int64_t recv_bytes(MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) return n > 0 ? n : 0;
    MPI_Count x = 0;
    return PMPI_Get_elements_x(st, MPI_BYTE, &x) == MPI_SUCCESS && x > 0 ? (int64_t)x : 0;
}

/* A message on an intercommunicator to another world has no receiver (or
 * sender) in this archive: its call is traced, not its message. */
static bool foreign_message(const msc_call_t *c)
{
    switch (c->kind) {
    case MSC_KIND_SEND: case MSC_KIND_RECV: case MSC_KIND_SENDRECV: case MSC_KIND_ISEND:
    case MSC_KIND_IRECV: case MSC_KIND_ISENDRECV:
        return c->comm != MPI_COMM_NULL && trc_comm(c->comm)->foreign;
    default:
        return false;
    }
}

static void records(trc_thread_t *t, msc_call_t *c, uint64_t te, uint64_t tl)
{
    if (MSC_UNLIKELY(foreign_message(c))) return;
    switch (c->kind) {
    case MSC_KIND_SEND:
        if (c->peer != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_SEND, .t = te, .a = (uint32_t)c->peer,
                                .b = trc_comm(c->comm)->ref, .c = (uint32_t)c->tag,
                                .x = send_bytes(t, c->type, c->count)});
        break;
    case MSC_KIND_RECV:
    case MSC_KIND_MRECV:
        if (c->status->MPI_SOURCE != MPI_PROC_NULL) {
            MPI_Comm comm = c->kind == MSC_KIND_RECV ? c->comm : t->mprobe_comm;
            emit(t, &(trc_rec_t){.kind = R_RECV, .t = tl, .a = (uint32_t)c->status->MPI_SOURCE,
                                .b = trc_comm(comm)->ref, .c = (uint32_t)c->status->MPI_TAG,
                                .x = (uint64_t)recv_bytes(c->status)});
        }
        break;
    case MSC_KIND_SENDRECV:
        if (c->peer != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_SEND, .t = te, .a = (uint32_t)c->peer,
                                .b = trc_comm(c->comm)->ref, .c = (uint32_t)c->tag,
                                .x = (uint64_t)msc_type_bytes(c->type, c->count)});
        if (c->status->MPI_SOURCE != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_RECV, .t = tl, .a = (uint32_t)c->status->MPI_SOURCE,
                                .b = trc_comm(c->comm)->ref, .c = (uint32_t)c->status->MPI_TAG,
                                .x = (uint64_t)recv_bytes(c->status)});
        break;
    case MSC_KIND_PROBE:
        if (c->fn == MSC_FN_MPI_Mprobe || (c->fn == MSC_FN_MPI_Improbe && *c->flag))
            t->mprobe_comm = c->comm;
        break;
    case MSC_KIND_ISEND:
        if (c->req_id && c->peer != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_ISEND, .t = te, .a = (uint32_t)c->peer,
                                .b = trc_comm(c->comm)->ref, .c = (uint32_t)c->tag,
                                .x = (uint64_t)msc_type_bytes(c->type, c->count), .y = c->req_id});
        break;
    case MSC_KIND_IRECV:
        if (c->req_id && c->peer != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_IRECV_REQUEST, .t = te, .y = c->req_id});
        break;
    case MSC_KIND_IMRECV:
        if (c->req_id) emit(t, &(trc_rec_t){.kind = R_IRECV_REQUEST, .t = te, .y = c->req_id});
        break;
    case MSC_KIND_ISENDRECV:
        /* The send as a send event when posted (OTF2 has no event for half
         * a request); the receive is the request's, as MPI_Irecv's. */
        if (c->peer != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_SEND, .t = te, .a = (uint32_t)c->peer,
                                .b = trc_comm(c->comm)->ref, .c = (uint32_t)c->tag,
                                .x = send_bytes(t, c->type, c->count)});
        if (c->req_id && c->rpeer != MPI_PROC_NULL)
            emit(t, &(trc_rec_t){.kind = R_IRECV_REQUEST, .t = te, .y = c->req_id});
        break;
    case MSC_KIND_START:
        started(t, c->req_in, te);
        break;
    case MSC_KIND_PREADY:
    case MSC_KIND_PARRIVED:
        partitions(t, c, te, tl);
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
            if (!c->opened) emit(t, &(trc_rec_t){.kind = R_COLL_BEGIN, .t = te}); /* on_nest */
            emit(t, &(trc_rec_t){.kind = R_COLL_END, .t = tl, .a = (uint32_t)(coll_op[c->fn] - 1),
                                .b = cm->ref, .c = coll_root(c, cm), .x = s, .y = r});
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
            emit(t, &(trc_rec_t){.kind = R_NBC_REQUEST, .t = te, .z = c->req_id});
        }
        break;
    case MSC_KIND_COMM:
        if (c->newcomm) trc_comm_created(*c->newcomm);
        break;
    case MSC_KIND_COMM_FREE:
        trc_comm_freed(c->comm);
        break;
    case MSC_KIND_HANDLE_NEW:
    case MSC_KIND_HANDLE_FREE:
        if (c->kind == MSC_KIND_HANDLE_FREE && c->obj_class == MSC_OBJ_DATATYPE)
            atomic_fetch_add_explicit(&type_gen, 1, memory_order_release);
        if (c->obj_class == MSC_OBJ_WIN) rma_records(t, c, te, tl);
        else if (c->obj_class == MSC_OBJ_FILE) io_records(t, c, te, tl);
        break;
    case MSC_KIND_IO_READ: case MSC_KIND_IO_WRITE: case MSC_KIND_IO_IREAD: case MSC_KIND_IO_IWRITE:
        io_records(t, c, te, tl);
        break;
    case MSC_KIND_RMA_PUT: case MSC_KIND_RMA_GET: case MSC_KIND_RMA_ACC: case MSC_KIND_RMA_FENCE:
    case MSC_KIND_RMA_LOCK: case MSC_KIND_RMA_UNLOCK: case MSC_KIND_RMA_PSCW:
    case MSC_KIND_RMA_RPUT: case MSC_KIND_RMA_RGET: case MSC_KIND_RMA_RACC: case MSC_KIND_RMA_SYNC:
        rma_records(t, c, te, tl);
        break;
    default:
        break;
    }
}

/* Puts everything this location has written so far on disk (segments.c):
 * the writer is closed, its file appended to <loc>.evt.flushed, and a new
 * writer takes over. Records held in an unordered period stay held. */
static void thread_flush(trc_thread_t *t)
{
    t->flush_gen = atomic_load(&flush_gen);
    if (!t->w || atomic_load(&failed)) return;
    uint64_t n = 0;
    OTF2_EvtWriter_GetNumberOfEvents(t->w, &n);
    OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(archive, t->w);
    t->w = NULL;
    t->flushed += n;
    /* A close that failed left its file cut; an append that failed left it
     * whole. Either way this location records nothing more, and no writer
     * is opened again (one would truncate the file). */
    t->evt_cut = rc != OTF2_SUCCESS;
    if (t->evt_cut || !trc_segment_flush(&t->seg)) {
        fail("cannot flush the event buffer to disk");
        return;
    }
    t->w = OTF2_Archive_GetEvtWriter(archive, t->loc);
    if (!t->w) fail("cannot open the event writer again after a flush");
    /* A reader may start at this piece: the next Enters give their call
     * sites again. */
    site_forget(t);
}

/* The Enter of a call whose PMPI call may record nested calls (module.h:
 * nest): written now, so that theirs follow it; on_leave then writes only
 * the rest. */
static MSC_HOT void write_enter(trc_thread_t *t, msc_call_t *c, uint64_t te)
{
    /* Enter and Leave straight to the writer outside unordered periods (the
     * record is passed by address: a by-value copy cost store-forwarding
     * stalls on every call). The Enter has an attribute only when the call
     * site is new for its pair (enter_at). Held Enters keep their site: the
     * delta is taken in the order they are written. */
    if (MSC_LIKELY(t->unordered == 0)) {
        uint32_t fn = (uint32_t)c->fn, key = site_key(t->prev_fn, fn);
        site_memo_t *m = &t->memo[site_slot(key)];
        if (MSC_LIKELY(m->key == key && m->site == c->site)) {
            t->prev_fn = fn;
            OTF2_EvtWriter_Enter(t->w, NULL, te, fn);
        } else {
            enter_at(t, fn, c->site, te);
        }
    } else {
        emit(t, &(trc_rec_t){.kind = R_MPI_ENTER, .t = te, .a = (uint32_t)c->fn,
                            .x = (uint64_t)(uintptr_t)c->site});
    }
}

static void on_nest(msc_call_t *c)
{
    trc_thread_t *t = thread_of(c->thread);
    if (!t) return;
    if (t->flush_gen != atomic_load_explicit(&flush_gen, memory_order_relaxed)) {
        thread_flush(t);
        if (atomic_load(&failed)) {
            c->thread->module_data[slot] = NULL;
            return;
        }
    }
    uint64_t te = trc_ts(c->t_enter);
    write_enter(t, c, te);
    if (c->kind == MSC_KIND_COLL && coll_op[c->fn]) emit(t, &(trc_rec_t){.kind = R_COLL_BEGIN, .t = te});
}

static void on_leave(msc_call_t *c)
{
    trc_thread_t *t = thread_of(c->thread);
    if (MSC_UNLIKELY(!t)) return;
    /* Another thread flushed: this one flushes its own location now. */
    if (MSC_UNLIKELY(t->flush_gen != atomic_load_explicit(&flush_gen, memory_order_relaxed))) {
        thread_flush(t);
        if (atomic_load(&failed)) { /* stopped: this thread records nothing more */
            c->thread->module_data[slot] = NULL;
            return;
        }
    }
    uint64_t te = trc_ts(c->t_enter), tl = trc_ts(c->t_leave);
    /* A call that recorded nested calls wrote its Enter before them (on_nest). */
    if (MSC_LIKELY(!c->opened)) write_enter(t, c, te);
    if (c->rc == MPI_SUCCESS || c->rc == MPI_ERR_IN_STATUS) records(t, c, te, tl);
    /* A write of this call failed (a flush to a full disk): the writer is
     * not used again. */
    if (MSC_UNLIKELY(atomic_load_explicit(&failed, memory_order_relaxed))) return;
    if (MSC_LIKELY(t->unordered == 0)) OTF2_EvtWriter_Leave(t->w, NULL, tl, (uint32_t)c->fn);
    else emit(t, &(trc_rec_t){.kind = R_LEAVE, .t = tl, .a = (uint32_t)c->fn});
}

/* --- Internal API for other modules (trace.h) ----------------------------- */

static trc_thread_t *api_thread(void)
{
    if (!msc_trace_active() || !msc_recording_on() || atomic_load(&failed)) return NULL;
    msc_thread_t *th = msc_tls.thread ? msc_tls.thread : msc_thread_attach();
    return th ? thread_of(th) : NULL;
}

static uint32_t scl_field(uint32_t scl)
{
    return scl == UINT32_MAX ? 0 : scl + 1;
}

void msc_trace_enter(uint32_t region, uint64_t t_ns)
{
    msc_trace_enter_scl(region, t_ns, UINT32_MAX);
}

void msc_trace_leave(uint32_t region, uint64_t t_ns)
{
    msc_trace_leave_scl(region, t_ns, UINT32_MAX);
}

void msc_trace_enter_scl(uint32_t region, uint64_t t_ns, uint32_t scl)
{
    trc_thread_t *t = api_thread();
    if (t && region != UINT32_MAX)
        emit(t, &(trc_rec_t){.kind = R_ENTER, .t = trc_ts(t_ns), .a = region, .scl = scl_field(scl)});
}

void msc_trace_leave_scl(uint32_t region, uint64_t t_ns, uint32_t scl)
{
    trc_thread_t *t = api_thread();
    if (t && region != UINT32_MAX)
        emit(t, &(trc_rec_t){.kind = R_LEAVE, .t = trc_ts(t_ns), .a = region, .scl = scl_field(scl)});
}

void msc_trace_metric(uint32_t metric, uint64_t t_ns, OTF2_MetricValue value)
{
    trc_thread_t *t = api_thread();
    if (!t || metric == UINT32_MAX) return;
    emit(t, &(trc_rec_t){.kind = R_METRIC, .t = trc_ts(t_ns), .a = metric,
                        .b = trc_metric_type(metric), .x = value.unsigned_int});
}

void msc_trace_send(MPI_Comm comm, int peer, int tag, uint64_t bytes, uint64_t t_ns, uint32_t scl)
{
    trc_thread_t *t = api_thread();
    if (t)
        emit(t, &(trc_rec_t){.kind = R_SEND, .t = trc_ts(t_ns), .a = (uint32_t)peer,
                            .b = trc_comm(comm)->ref, .c = (uint32_t)tag, .x = bytes,
                            .scl = scl_field(scl)});
}

void msc_trace_recv(MPI_Comm comm, int peer, int tag, uint64_t bytes, uint64_t t_ns, uint32_t scl)
{
    trc_thread_t *t = api_thread();
    if (t)
        emit(t, &(trc_rec_t){.kind = R_RECV, .t = trc_ts(t_ns), .a = (uint32_t)peer,
                            .b = trc_comm(comm)->ref, .c = (uint32_t)tag, .x = bytes,
                            .scl = scl_field(scl)});
}

void msc_trace_collective(uint32_t region, MPI_Comm comm, OTF2_CollectiveOp op, int root,
                          uint64_t sent, uint64_t recvd, uint64_t t_begin, uint64_t t_end,
                          uint32_t scl)
{
    trc_thread_t *t = api_thread();
    if (!t || region == UINT32_MAX) return;
    uint64_t tb = trc_ts(t_begin), te = trc_ts(t_end);
    uint32_t s = scl_field(scl);
    uint32_t r = root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root;
    emit(t, &(trc_rec_t){.kind = R_ENTER, .t = tb, .a = region, .scl = s});
    emit(t, &(trc_rec_t){.kind = R_COLL_BEGIN, .t = tb});
    emit(t, &(trc_rec_t){.kind = R_COLL_END, .t = te, .a = (uint32_t)op, .b = trc_comm(comm)->ref,
                        .c = r, .x = sent, .y = recvd});
    emit(t, &(trc_rec_t){.kind = R_LEAVE, .t = te, .a = region});
}

bool msc_trace_comm_def(MPI_Comm handle, int n, const int *world_ranks, int me)
{
    return msc_trace_active() && trc_comm_define_ranks(handle, n, world_ranks, me);
}

void msc_trace_thread_name(const char *name)
{
    if (!msc_trace_active() || !name) return;
    msc_thread_t *th = msc_tls.thread ? msc_tls.thread : msc_thread_attach();
    trc_thread_t *t = th ? thread_of(th) : NULL;
    if (t) trc_loc_name(t->loc, name);
}

void msc_trace_comment(const char *text, uint64_t t_ns)
{
    trc_thread_t *t = api_thread();
    if (!t || !text) return;
    uint32_t str = trc_comment_def(text);
    if (str != UINT32_MAX) emit(t, &(trc_rec_t){.kind = R_COMMENT, .t = trc_ts(t_ns), .a = str});
}

/* Records for other ranks' locations, sent to them at finalize. */
typedef struct {
    int owner;
    trc_rec_t r;
} foreign_t;
static pthread_mutex_t foreign_lock = PTHREAD_MUTEX_INITIALIZER;
static foreign_t *foreign;
static size_t nforeign, capforeign;
static _Atomic uint64_t foreign_seq;

static void add_foreign(int owner, trc_rec_t r)
{
    if (!api_thread() || owner < 0 || owner >= msc_g.world_size) return;
    r.scl = 0; /* a local reference of this rank */
    r.seq = atomic_fetch_add(&foreign_seq, 1);
    pthread_mutex_lock(&foreign_lock);
    if (nforeign == capforeign) {
        size_t cap = capforeign ? 2 * capforeign : 256;
        foreign_t *p = realloc(foreign, cap * sizeof *p);
        if (p) foreign = p, capforeign = cap;
    }
    if (nforeign < capforeign) foreign[nforeign++] = (foreign_t){owner, r};
    else fail("out of memory for the events logged for other ranks");
    pthread_mutex_unlock(&foreign_lock);
}

void msc_trace_send_for(int owner, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                        uint64_t t_ns, uint32_t scl)
{
    (void)scl;
    add_foreign(owner, (trc_rec_t){.kind = R_SEND, .t = trc_ts(t_ns), .a = (uint32_t)peer,
                                   .b = trc_comm(comm)->ref, .c = (uint32_t)tag, .x = bytes});
}

void msc_trace_recv_for(int owner, MPI_Comm comm, int peer, int tag, uint64_t bytes,
                        uint64_t t_ns, uint32_t scl)
{
    (void)scl;
    add_foreign(owner, (trc_rec_t){.kind = R_RECV, .t = trc_ts(t_ns), .a = (uint32_t)peer,
                                   .b = trc_comm(comm)->ref, .c = (uint32_t)tag, .x = bytes});
}

void msc_trace_collective_for(int owner, uint32_t region, MPI_Comm comm, OTF2_CollectiveOp op,
                              int root, uint64_t sent, uint64_t recvd, uint64_t t_begin,
                              uint64_t t_end, uint32_t scl)
{
    (void)scl;
    uint64_t tb = trc_ts(t_begin), te = trc_ts(t_end);
    bool reg = region < (uint32_t)MSC_FN_COUNT;
    if (reg) add_foreign(owner, (trc_rec_t){.kind = R_ENTER, .t = tb, .a = region});
    add_foreign(owner, (trc_rec_t){.kind = R_COLL_BEGIN, .t = tb});
    add_foreign(owner, (trc_rec_t){.kind = R_COLL_END, .t = te, .a = (uint32_t)op,
                                   .b = trc_comm(comm)->ref,
                                   .c = root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root,
                                   .x = sent, .y = recvd});
    if (reg) add_foreign(owner, (trc_rec_t){.kind = R_LEAVE, .t = te, .a = region});
}

/* This rank's clock offset to rank 0 at local time t, interpolated between
 * the two measurements as readers do (ns). */
static int64_t offset_at(uint64_t t)
{
    double span = (double)(sync_time[1] - sync_time[0]);
    if (span <= 0) return sync_offset[0];
    double f = ((double)t - (double)sync_time[0]) / span;
    return sync_offset[0] + (int64_t)(f * (double)(sync_offset[1] - sync_offset[0]));
}

/* Collective at finalize: every rank receives the records logged for it
 * and writes them, sorted, on its extra location. Only communicators with
 * the same local reference on every rank (world 0, self 1) reach here. */
static trc_thread_t *foreign_exchange(void)
{
    /* Usually no rank logged any (the VT_ API's *_for calls): one reduction
     * instead of an all-to-all of P counts per rank. */
    int any = nforeign > 0;
    PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_LOR, msc_g.comm);
    if (!any) return NULL;
    int size = msc_g.world_size;
    int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
    int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
    trc_rec_t *out = malloc((nforeign + 1) * sizeof *out);
    if (!sc || !rc || !sd || !rd || !out) {
        free(sc), free(rc), free(sd), free(rd), free(out);
        fail("out of memory at finalize");
        return NULL; /* (the exchange is skipped on this rank only if memory ran out) */
    }
    /* Times travel on rank 0's clock: the owner corrects them by its own offset. */
    for (size_t i = 0; i < nforeign; i++) {
        foreign[i].r.t += (uint64_t)offset_at(foreign[i].r.t);
        sc[foreign[i].owner] += (int)sizeof(trc_rec_t);
    }
    for (int r = 1; r < size; r++) sd[r] = sd[r - 1] + sc[r - 1];
    int *fill = calloc((size_t)size, sizeof *fill);
    for (size_t i = 0; fill && i < nforeign; i++) {
        int o = foreign[i].owner;
        memcpy((char *)out + sd[o] + fill[o], &foreign[i].r, sizeof(trc_rec_t));
        fill[o] += (int)sizeof(trc_rec_t);
    }
    free(fill);
    PMPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, msc_g.comm);
    long total = 0;
    for (int r = 0; r < size; r++) rd[r] = (int)total, total += rc[r];
    trc_rec_t *in = malloc((size_t)total + sizeof *in);
    PMPI_Alltoallv(out, sc, sd, MPI_BYTE, in, rc, rd, MPI_BYTE, msc_g.comm);
    free(sc), free(rc), free(sd), free(rd), free(out);
    free(foreign);
    foreign = NULL;
    nforeign = capforeign = 0;
    size_t n = (size_t)total / sizeof *in;
    trc_thread_t *t = NULL;
    if (n && in && !atomic_load(&failed)) {
        t = calloc(1, sizeof *t);
        if (t) {
            t->loc = (uint64_t)msc_g.world_rank | (TRC_LOC_FOREIGN << 32);
            t->w = OTF2_Archive_GetEvtWriter(archive, t->loc);
            if (t->w) {
                for (size_t i = 0; i < n; i++) in[i].t -= (uint64_t)offset_at(in[i].t);
                qsort(in, n, sizeof *in, rec_cmp);
                for (size_t i = 0; i < n; i++) write_rec(t, &in[i]);
            } else {
                free(t);
                t = NULL;
            }
        }
    }
    free(in);
    return t;
}

int msc_trace_unordered(int delta)
{
    trc_thread_t *t = api_thread();
    if (!t) return -1;
    t->unordered += delta;
    if (t->unordered <= 0) {
        t->unordered = 0;
        release_held(t);
    }
    return t->unordered;
}

/* --- Life cycle ----------------------------------------------------------- */

/* Room for the end of the run. The events can fill the file system during
 * the run; the definitions, the anchor file and the profile are written only
 * at MPI_Finalize, and a full disk would then lose the whole trace and the
 * profile too. So rank 0 holds back 128 KiB + 4 KiB per rank (at most
 * 64 MiB) in trace/.reserve while the events are written, and gives it
 * back once every rank has closed its event files. Best effort: without
 * room for it, there is no reserve. */
static char reserve_path[PATH_MAX + 32];

static void reserve_space(const char *dir)
{
    snprintf(reserve_path, sizeof reserve_path, "%s/.reserve", dir);
    off_t size = (128 + 4 * (off_t)msc_g.world_size) * 1024;
    if (size > ((off_t)64 << 20)) size = (off_t)64 << 20;
    int fd = open(reserve_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (posix_fallocate(fd, 0, size) != 0) {
        close(fd);
        unlink(reserve_path);
        return;
    }
    reserve_fd = fd;
}

/* (Also from the emergency hook: close and unlink are async-signal-safe.) */
static void release_reserve(void)
{
    if (reserve_fd < 0) return;
    close(reserve_fd);
    unlink(reserve_path);
    reserve_fd = -1;
}

/* Collective at finalize when some rank's trace stopped: rank 0 gets in
 * `out` how many ranks stopped and the first one's reason (for the
 * archive's MPISCOPE::INCOMPLETE_REASON and the report). */
static void gather_reason(char *out, size_t len)
{
    int me = atomic_load(&failed) ? msc_g.world_rank : INT_MAX, first = INT_MAX;
    int n = me != INT_MAX;
    PMPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, msc_g.comm);
    PMPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_INT, MPI_SUM, msc_g.comm);
    if (first == INT_MAX) return;
    char text[sizeof fail_reason] = "";
    if (first == 0 && msc_g.world_rank == 0)
        memcpy(text, fail_reason, sizeof text);
    else if (msc_g.world_rank == first)
        PMPI_Send(fail_reason, (int)sizeof fail_reason, MPI_CHAR, 0, 15, msc_g.comm);
    else if (msc_g.world_rank == 0)
        PMPI_Recv(text, (int)sizeof text, MPI_CHAR, first, 15, msc_g.comm, MPI_STATUS_IGNORE);
    text[sizeof text - 1] = 0;
    if (msc_g.world_rank == 0)
        snprintf(out, len, "%d of %d ranks stopped tracing after a write error; rank %d: %s", n,
                 msc_g.world_size, first, text);
}

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
    evt_chunk = chunk;
    OTF2_Error_RegisterCallback(on_error, NULL);

    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/trace", msc_g.outdir);
    snprintf(traces_dir, sizeof traces_dir, "%s/trace/traces", msc_g.outdir);
    /* The archive's directory must be new: OTF2 writes through a symlink
     * planted under its name or inside an existing trace/, and fails on a
     * previous run's trace. Rank 0 looks; every rank follows its answer. */
    struct stat st;
    int fresh = msc_g.world_rank != 0 || (lstat(path, &st) != 0 && errno == ENOENT);
    PMPI_Allreduce(MPI_IN_PLACE, &fresh, 1, MPI_INT, MPI_LAND, msc_g.comm);
    if (!fresh) {
        if (msc_g.world_rank == 0)
            msc_warn("trace: %s exists already (a previous run's trace, or a link); no trace "
                     "is written", path);
        return 1;
    }
    /* The directory must be writable: OTF2 fails late (in MPI_Finalize,
     * inside its definition writer) on a read-only or immutable directory.
     * Rank 0 tries to make a directory in it. */
    int can = 1, why = 0;
    if (msc_g.world_rank == 0) {
        char probe[PATH_MAX + 48];
        snprintf(probe, sizeof probe, "%s/.trace-probe-%ld", msc_g.outdir, (long)getpid());
        can = mkdir(probe, 0700) == 0;
        why = errno;
        if (can) rmdir(probe);
    }
    PMPI_Allreduce(MPI_IN_PLACE, &can, 1, MPI_INT, MPI_LAND, msc_g.comm);
    if (!can) {
        if (msc_g.world_rank == 0)
            msc_warn("trace: cannot write in %s (%s); no trace is written and the program "
                     "carries on", msc_g.outdir, strerror(why));
        return 1;
    }
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
    ok = OTF2_Archive_OpenEvtFiles(archive) == OTF2_SUCCESS && !atomic_load(&failed);
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, msc_g.comm);
    if (!ok) { /* (a failed archive is left alone: no OTF2 call on it) */
        if (msc_g.world_rank == 0)
            msc_warn("trace: cannot create the event files in %s; no trace is written", path);
        archive = NULL;
        return 1;
    }
    /* An output directory not shared by every node (src/core/output.c): OTF2
     * made the archive's directories on rank 0's node only (in
     * OpenEvtFiles); a rank on another node writes its events into its own
     * node's copy of them. */
    if (!msc_g.outdir_shared) {
        char sub[sizeof path + 16];
        snprintf(sub, sizeof sub, "%s/traces", path);
        if ((mkdir(path, 0755) != 0 && errno != EEXIST) || (mkdir(sub, 0755) != 0 && errno != EEXIST))
            msc_warn("trace: cannot create this node's copy of %s: %s", sub, strerror(errno));
    }
    /* OTF2 creates its files and directories with modes 0666 and 0777 less
     * the umask: closed to others while the run lasts, fixed at the end. */
    PMPI_Barrier(msc_g.comm);
    if (msc_g.world_rank == 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        reserve_space(path);
    }
    trc_defs_init();
    msc_requests_comm_tag(req_comm_tag);
    trc_clock_sync(&sync_time[0], &sync_offset[0], &sync_dev[0]);
    atomic_store(&active, true);
    /* The main thread's location first: it stands for the rank in the
     * communicator definitions. */
    if (!thread_open(msc_tls.thread)) atomic_store(&active, false);
    return 0;
}

void msc_trace_flush(void)
{
    if (!msc_trace_active()) return;
    msc_thread_t *th = msc_tls.thread ? msc_tls.thread : msc_thread_attach();
    trc_thread_t *t = th ? thread_of(th) : NULL;
    if (!t) return;
    atomic_fetch_add(&flush_gen, 1);
    thread_flush(t);
}

static void trace_pcontrol(int level)
{
    msc_thread_t *th = msc_tls.thread; /* registered by the core (module.h) */
    trc_thread_t *t = msc_trace_active() && th && !atomic_load(&failed) ? thread_of(th) : NULL;
    if (!t) return;
    if (level == 2) {
        atomic_fetch_add(&flush_gen, 1);
        thread_flush(t);
    }
    if (level == 1) atomic_fetch_add_explicit(&type_gen, 1, memory_order_release);
    if (level == 0 || level == 1)
        emit(t, &(trc_rec_t){.kind = R_ONOFF, .t = trc_ts(msc_now_ns()),
                            .a = level ? OTF2_MEASUREMENT_ON : OTF2_MEASUREMENT_OFF});
}

/* nftw callback: the archive's files and directories become writable by
 * the owner alone (the top directory, closed during the run, opens again). */
static int no_write_for_others(const char *path, const struct stat *st, int type, struct FTW *f)
{
    if (type == FTW_D || type == FTW_DP)
        chmod(path, f->level == 0 ? 0755 : (st->st_mode & 07777 & ~(mode_t)(S_IWGRP | S_IWOTH)));
    else if (type == FTW_F)
        chmod(path, st->st_mode & 07777 & ~(mode_t)(S_IWGRP | S_IWOTH));
    return 0;
}

/* The location's last writer closed and its files made one <loc>.evt. On a
 * rank whose trace stopped on a write error, what the files hold is made
 * what readers can read to its end (segments.c): whether <loc>.evt's end is
 * whole is known from the closes, never guessed from its bytes. */
static void close_location(trc_thread_t *t)
{
    bool closed = !t->evt_cut; /* <loc>.evt, if any, ends with a close's end */
    if (t->w) {
        /* After the error, a close writes nothing (pre_flush): the file
         * holds only what earlier flushes wrote, maybe cut. */
        bool before = atomic_load(&failed);
        OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(archive, t->w);
        closed = !before && rc == OTF2_SUCCESS && !atomic_load(&failed);
    }
    t->w = NULL;
    if (!atomic_load(&failed) && !trc_segment_finish(&t->seg))
        fail("cannot join the flushed events with the rest");
    if (atomic_load(&failed)) trc_segment_salvage(&t->seg, closed);
}

static void trace_finalize(void)
{
    atomic_store(&active, false);
    trc_clock_sync(&sync_time[1], &sync_offset[1], &sync_dev[1]);
    trc_thread_t *extra = foreign_exchange();
    trc_loc_t *locs = calloc((size_t)nthreads + 2, sizeof *locs);
    int nlocs = 0;
    for (int i = 0; i < nthreads; i++) {
        uint64_t n = 0;
        /* An unordered period still open at the end: its records, sorted. */
        threads[i]->unordered = 0;
        release_held(threads[i]);
        if (threads[i]->w) OTF2_EvtWriter_GetNumberOfEvents(threads[i]->w, &n);
        locs[nlocs].id = threads[i]->loc;
        locs[nlocs++].events = n + threads[i]->flushed;
        close_location(threads[i]);
        if (threads[i]->attrs) OTF2_AttributeList_Delete(threads[i]->attrs);
        threads[i]->attrs = NULL;
    }
    if (extra) { /* after the threads: the first location stands for the rank */
        uint64_t n = 0;
        OTF2_EvtWriter_GetNumberOfEvents(extra->w, &n);
        OTF2_Archive_CloseEvtWriter(archive, extra->w);
        free(extra);
        locs[nlocs].id = (uint64_t)msc_g.world_rank | (TRC_LOC_FOREIGN << 32);
        locs[nlocs++].events = n;
    }
    OTF2_Archive_CloseEvtFiles(archive);
    int complete = !atomic_load(&failed);
    PMPI_Allreduce(MPI_IN_PLACE, &complete, 1, MPI_INT, MPI_LAND, msc_g.comm);
    release_reserve(); /* every rank has closed its event files (the reduction) */
    char why[sizeof fail_reason + 128] = "";
    if (!complete) gather_reason(why, sizeof why);
    trc_defs_incomplete_reason(why);
    trc_defs_write(archive, locs, nlocs, sync_time, sync_offset, sync_dev, complete);
    if (OTF2_Archive_Close(archive) != OTF2_SUCCESS) complete = 0;
    else if (msc_g.world_rank == 0) msc_output_wrote();
    PMPI_Barrier(msc_g.comm);
    if (msc_g.world_rank == 0) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof path, "%s/trace", msc_g.outdir);
        nftw(path, no_write_for_others, 16, FTW_PHYS);
    }
    trc_parts_write();
    archive = NULL;
    /* A failed write (full disk) can leave the anchor file empty: a reader
     * would take the directory for a trace and fail on it. Rank 0 moves
     * such an archive out of the way once every rank has closed. */
    PMPI_Allreduce(MPI_IN_PLACE, &complete, 1, MPI_INT, MPI_LAND, msc_g.comm);
    bool moved = false;
    if (!complete && msc_g.world_rank == 0) {
        char anchor[PATH_MAX + 32], from[PATH_MAX + 16], to[PATH_MAX + 32];
        snprintf(anchor, sizeof anchor, "%s/trace/traces.otf2", msc_g.outdir);
        snprintf(from, sizeof from, "%s/trace", msc_g.outdir);
        snprintf(to, sizeof to, "%s/trace.unreadable", msc_g.outdir);
        struct stat st;
        if ((stat(anchor, &st) != 0 || st.st_size == 0) && rename(from, to) == 0) {
            moved = true;
            msc_warn("trace: the archive could not be written (see above); what there is was "
                     "moved to %s", to);
        }
    }
    free(locs);
    uint64_t fl = atomic_load(&flushes);
    if (fl && msc_g.world_rank == 0)
        msc_warn("trace: the event buffer of rank 0 was flushed to disk %llu times during the "
                 "run (MPISCOPE_TRACE_BUFFER)", (unsigned long long)fl);
    if (!complete && !moved && msc_g.world_rank == 0)
        msc_warn("trace: the trace in %s/trace is incomplete (MPISCOPE::TRACE_COMPLETE=false%s%s)",
                 msc_g.outdir, why[0] ? ": " : "", why);
}

/* --- A rank going down (emergency.c) ----------------------------------------- */

/* OTF2 allocates and takes its archive lock, so this is best effort; the
 * core runs the hook under its watchdog (msc_fatal_guarded), which abandons
 * a write that hangs. */
static void emergency_write(const char *why)
{
    /* No lock: the interrupted thread may hold threads_lock. A thread that
     * is still recording may lose its last records. */
    int n = nthreads;
    trc_loc_t *locs = calloc((size_t)n + 1, sizeof *locs);
    int nlocs = 0;
    for (int i = 0; locs && i < n; i++) {
        trc_thread_t *t = threads[i];
        if (!t) continue;
        uint64_t events = 0;
        if (t->w) {
            t->unordered = 0;
            release_held(t);
            OTF2_EvtWriter_GetNumberOfEvents(t->w, &events);
        }
        close_location(t);
        locs[nlocs].id = t->loc;
        locs[nlocs++].events = events + t->flushed;
    }
    uint64_t t0 = trc_ts(msc_g.t_init_begin), t1 = trc_ts(msc_now_ns());
    if (!locs || !trc_emergency_archive(why, locs, nlocs, t0, t1))
        msc_warn("trace: could not write this rank's partial trace to %s/trace/rank%d.incomplete",
                 msc_g.outdir, msc_g.world_rank);
    free(locs);
}

static void trace_emergency(int signum)
{
    release_reserve();
    if (!archive || !atomic_exchange(&active, false)) return;
    char why[64];
    msc_fatal_reason(signum, why, sizeof why);
    emergency_write(why);
}

static const msc_module_t trace_module = {
    .abi = MSC_MODULE_ABI,
    .name = "trace",
    .mode = "trace",
    .init = trace_init,
    .enter = NULL,
    .leave = on_leave,
    .nest = on_nest,
    .pcontrol = trace_pcontrol,
    .finalize = trace_finalize,
    .emergency = trace_emergency,
};

MSC_CONSTRUCTOR static void trace_register(void)
{
    msc_module_register(&trace_module);
}
