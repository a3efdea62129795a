/* Request table implementation: 64 stripes chosen by a hash of the handle
 * (MPI_Request is a pointer in Open MPI and an int in MPICH, so the handle's
 * bytes are hashed), each a small chained hash table with its own mutex. The
 * entries come from one pool of exactly MPISCOPE_MAX_REQUESTS, with its own
 * lock (taken after a stripe's, held for a pointer swap), so the bound is the
 * setting whatever the handles hash to: per-stripe pools would drop requests
 * while the table still had room. A completion call locks one stripe per
 * completed request; nothing here runs for calls that involve no request.
 *
 * Most programs make their MPI calls from one thread, and there the locks
 * (two mutexes and two atomic counters per operation, each a locked
 * instruction) were most of the table's cost. So the whole table, pool and
 * counters included, is behind one msc_solo_t (solo.h): the first thread to
 * use it owns it and takes no lock, and the first use by any other thread
 * makes every thread take the locks above from then on.
 *
 * One handle can stand for many pending operations: the MPIs return a
 * shared, already complete request for sends that finish inline. Such a
 * handle's entries form a run in its bucket, oldest first, whose first entry
 * points at the newest (posting appends in O(1)); a completion of that
 * handle takes the oldest entry posted by the completing thread, so that
 * threads sharing the handle each complete their own operations, and any
 * number of them (up to the pool) are kept.
 */
#include "requests.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "solo.h"
#include "state.h"

enum { STRIPES = 64, BUCKETS = 256 };

typedef struct entry {
    struct entry *next;   /* the bucket's chain; the entries of one handle are adjacent, oldest first */
    struct entry *last;   /* in the first entry of a handle's run: the run's newest entry */
    MPI_Request key;
    msc_req_info_t info;
} entry_t;

typedef struct {
    pthread_mutex_t lock;
    entry_t *bucket[BUCKETS];
} stripe_t;

static stripe_t stripes[STRIPES];
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static entry_t *pool, *free_list;   /* MPISCOPE_MAX_REQUESTS entries; the returned ones */
/* Entries of the pool never handed out yet: pool[fresh..capacity). The pool
 * is calloc'ed and taken from in order, so start-up touches none of it (a
 * free list threaded through 65,536 entries faulted in every page of the
 * pool: 5-13 ms of MPI_Init). */
static int fresh, pool_capacity;
static _Atomic uint64_t dropped, pending, next_id = 1;
static bool ready;

/* The single-thread path (above). */
static msc_solo_t solo_lock = MSC_SOLO_INIT;

/* Counters written by the owner alone until the table is shared (plain
 * load and store), by every thread after (read-modify-write). */
static inline uint64_t count_add(_Atomic uint64_t *v, uint64_t d, bool solo)
{
    if (solo) {
        uint64_t x = atomic_load_explicit(v, memory_order_relaxed);
        atomic_store_explicit(v, x + d, memory_order_relaxed);
        return x;
    }
    return atomic_fetch_add_explicit(v, d, memory_order_relaxed);
}
static uint32_t (*comm_tag_fn)(MPI_Comm);

void msc_requests_comm_tag(uint32_t (*fn)(MPI_Comm))
{
    comm_tag_fn = fn;
}

static uint64_t hash(MPI_Request r)
{
    uint64_t k = 0;
    memcpy(&k, &r, sizeof r < sizeof k ? sizeof r : sizeof k);
    k ^= k >> 29;
    k *= 0x9e3779b97f4a7c15ull;
    return k ^ (k >> 32);
}

static bool same(MPI_Request a, MPI_Request b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

bool msc_requests_init(int capacity)
{
    if (ready) return true;
    if (capacity < 1) capacity = 1;
    pool = calloc((size_t)capacity, sizeof *pool);
    if (!pool) return false;
    pool_capacity = capacity;
    for (int s = 0; s < STRIPES; s++) pthread_mutex_init(&stripes[s].lock, NULL);
    msc_solo_init(&solo_lock);
    ready = true;
    return true;
}

static stripe_t *stripe_of(uint64_t h)
{
    return &stripes[h % STRIPES];
}

/* The link to the first entry of `r`'s run, or to the chain's end. */
static entry_t **slot_of(stripe_t *st, uint64_t h, MPI_Request r)
{
    entry_t **p = &st->bucket[(h / STRIPES) % BUCKETS];
    while (*p && !same((*p)->key, r)) p = &(*p)->last->next;
    return p;
}

/* An entry from the pool, or NULL when the table is full. */
static entry_t *take_entry(bool solo)
{
    if (!solo) pthread_mutex_lock(&pool_lock);
    entry_t *e = free_list;
    if (e)
        free_list = e->next;
    else if (fresh < pool_capacity)
        e = &pool[fresh++];
    if (!solo) pthread_mutex_unlock(&pool_lock);
    return e;
}

static void give_entry(entry_t *e, bool solo)
{
    if (!solo) pthread_mutex_lock(&pool_lock);
    e->next = free_list;
    free_list = e;
    if (!solo) pthread_mutex_unlock(&pool_lock);
    count_add(&pending, (uint64_t)-1, solo);
}

/* What a posting call's record says, worked out before the table is
 * entered (the library calls: the datatype's size, the module's
 * communicator tag), so that the entry is written in place with stores. */
typedef struct {
    const msc_call_t *c;
    MPI_Comm comm;
    MPI_Count count;
    MPI_Datatype type;
    int64_t bytes;
    uint32_t comm_tag;
    bool persistent;
} posting_t;

static const msc_req_info_t zero_info; /* the zero handles of the fields a kind leaves unset */

static inline __attribute__((always_inline)) void fill(msc_req_info_t *in, const posting_t *x,
                                                       uint64_t id);

/* Enters the posted operation under handle `r`, with a new id (returned). */
static uint64_t insert(MPI_Request r, const posting_t *x)
{
    uint64_t h = hash(r);
    stripe_t *st = stripe_of(h);
    bool solo = msc_solo_enter(&solo_lock);
    if (!solo) pthread_mutex_lock(&st->lock);
    uint64_t id = count_add(&next_id, 1, solo);
    entry_t **p = slot_of(st, h, r);
    entry_t *e = *p;
    if (e && (e->info.persistent || x->persistent)) {
        /* A persistent request's handle again: the old entry is stale (the
         * MPI freed it without our seeing it); the new operation takes it. */
        fill(&e->info, x, id);
        if (solo) msc_solo_leave(&solo_lock);
        else pthread_mutex_unlock(&st->lock);
        return id;
    }
    entry_t *fresh = take_entry(solo);
    if (fresh) {
        fresh->key = r;
        fill(&fresh->info, x, id);
        if (e) {
            /* A handle already in the table for an operation not yet
             * completed: both MPIs return one shared, already complete
             * request for a send that finished inline (Open MPI's
             * ompi_request_empty, MPICH's lightweight requests), so any
             * number of pending operations can have the same handle. Each
             * keeps its entry, in posting order, at the end of the run. */
            fresh->next = e->last->next;
            e->last->next = fresh;
            e->last = fresh;
        } else {
            fresh->next = NULL;
            fresh->last = fresh;
            *p = fresh;
        }
        count_add(&pending, 1, solo);
    }
    if (solo) msc_solo_leave(&solo_lock);
    else pthread_mutex_unlock(&st->lock);
    if (!fresh) atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
    return id;
}

/* Entries of a shared handle's run looked at for one of the completing
 * thread's own (beyond them, the oldest is taken). */
enum { RUN_SCAN = 256 };

/* Copies the entry of `r` into `out`; removes it when `what` is
 * LOOKUP_FREE, or LOOKUP_COMPLETE of a non-persistent request.
 * LOOKUP_START marks it active. Of a shared handle's run, a completion takes
 * the oldest operation posted by the completing thread `me` (threads that
 * share the handle each complete their own), else the oldest. */
enum { LOOKUP_COMPLETE, LOOKUP_START, LOOKUP_FREE, LOOKUP_PEEK };

static inline __attribute__((always_inline)) bool lookup(MPI_Request r, int what, int me,
                                                         msc_req_info_t *out)
{
    uint64_t h = hash(r);
    stripe_t *st = stripe_of(h);
    bool solo = msc_solo_enter(&solo_lock);
    if (!solo) pthread_mutex_lock(&st->lock);
    entry_t **p = slot_of(st, h, r);
    entry_t *head = *p, *e = head, *prev = NULL;
    if (head && (what == LOOKUP_COMPLETE || what == LOOKUP_FREE) && head->last != head && head->info.thread != me) {
        entry_t *q = head;
        for (int n = 0; q != head->last && n < RUN_SCAN; n++, q = q->next)
            if (q->next->info.thread == me) {
                prev = q;
                e = q->next;
                break;
            }
    }
    if (e) {
        bool remove = what == LOOKUP_FREE || (what == LOOKUP_COMPLETE && !e->info.persistent);
        if (what == LOOKUP_START) e->info.active = 1;
        if (out) *out = e->info;
        if (what == LOOKUP_COMPLETE) e->info.active = 0;
        if (remove) {
            if (!prev) { /* the run's first entry: the next one heads it */
                if (e->last != e) e->next->last = e->last;
                *p = e->next;
            } else {
                prev->next = e->next;
                if (head->last == e) head->last = prev;
            }
            give_entry(e, solo);
        }
    }
    if (solo) msc_solo_leave(&solo_lock);
    else pthread_mutex_unlock(&st->lock);
    return e != NULL;
}

/* Datatype sizes: PMPI_Type_size_x is a library call per posted operation
 * (and per collective), so each thread remembers the last few, until the
 * epoch moves (msc_types_forget). A type freed by one thread and its handle
 * reused by another in the moment before the free's wrapper bumps the epoch
 * could be sized wrong; nothing else can. */
static _Atomic uint64_t type_epoch = 1;

void msc_types_forget(void)
{
    atomic_fetch_add_explicit(&type_epoch, 1, memory_order_release);
}

static int64_t type_size(MPI_Datatype type)
{
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
    return (int64_t)size;
}

static inline __attribute__((always_inline)) int64_t type_bytes(MPI_Datatype type, MPI_Count count)
{
    if (type == MPI_DATATYPE_NULL || count <= 0) return 0;
    msc_thread_t *t = msc_tls.thread;
    if (MSC_UNLIKELY(!t)) return type_size(type) * (int64_t)count;
    uint64_t k = 0;
    memcpy(&k, &type, sizeof type < sizeof k ? sizeof type : sizeof k);
    unsigned i = (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 62);
    uint64_t epoch = atomic_load_explicit(&type_epoch, memory_order_acquire);
    if (MSC_LIKELY(t->type_epoch == epoch && memcmp(&t->type_key[i], &type, sizeof type) == 0))
        return t->type_size[i] * (int64_t)count;
    if (t->type_epoch != epoch) {
        for (int j = 0; j < 4; j++) t->type_key[j] = MPI_DATATYPE_NULL;
        t->type_epoch = epoch;
    }
    t->type_key[i] = type;
    t->type_size[i] = type_size(type);
    return t->type_size[i] * (int64_t)count;
}

int64_t msc_type_bytes(MPI_Datatype type, MPI_Count count)
{
    return type_bytes(type, count);
}


/* Writes every field of `in` (an entry reused from the pool keeps nothing
 * of its last request): what the posting call was, as msc_req_info_t
 * describes it per kind. */
static inline __attribute__((always_inline)) void fill(msc_req_info_t *in, const posting_t *x,
                                                       uint64_t id)
{
    const msc_call_t *c = x->c;
    msc_kind_t k = c->kind;
    in->id = id;
    in->fn = c->fn;
    in->kind = k;
    in->comm = x->comm;
    in->tag = c->tag;
    in->count = x->count;
    in->type = x->type;
    in->bytes = x->bytes;
    in->site = c->site;
    in->t_post = c->t_enter;
    in->comm_tag = x->comm_tag;
    in->thread = c->thread ? c->thread->index : -1;
    in->persistent = x->persistent;
    in->active = 0;
    if (MSC_LIKELY(k == MSC_KIND_ISEND || k == MSC_KIND_IRECV)) {
        /* the common case, without the tests below */
        in->peer = c->peer;
        in->root = MPI_UNDEFINED;
        in->counts_are_mpi_count = in->send_in_place = in->recv_in_place = 0;
        in->rcount = 0;
        in->rtype = zero_info.rtype;
        in->counts = in->rcounts = NULL;
        in->file = zero_info.file;
        in->newcomm_fortran = 0;
        in->newcomm_at = NULL;
        in->parts = 0;
        return;
    }
    if (k == MSC_KIND_ISENDRECV) {
        /* The request is the receive's (call.h): an MPI_Irecv to the modules. */
        in->kind = MSC_KIND_IRECV;
        in->tag = c->rtag;
    }
    bool p2p = k == MSC_KIND_SEND_INIT || k == MSC_KIND_RECV_INIT || k == MSC_KIND_IMRECV ||
               k == MSC_KIND_ISENDRECV;
    bool coll = k == MSC_KIND_ICOLL || k == MSC_KIND_COLL_INIT;
    bool icomm = k == MSC_KIND_ICOMM;
    in->peer = !p2p                    ? MPI_UNDEFINED
               : k == MSC_KIND_IMRECV    ? MPI_ANY_SOURCE
               : k == MSC_KIND_ISENDRECV ? c->rpeer
                                         : c->peer;
    in->root = coll ? c->root : MPI_UNDEFINED;
    in->counts_are_mpi_count = (uint8_t)(coll && c->counts_are_mpi_count != 0);
    in->send_in_place = coll && c->buf == MPI_IN_PLACE;
    in->recv_in_place = coll && c->rbuf == MPI_IN_PLACE;
    in->rcount = coll ? c->rcount : 0;
    in->rtype = coll ? c->rtype : zero_info.rtype;
    in->counts = coll ? c->counts : NULL;
    in->rcounts = coll ? c->rcounts : NULL;
    in->file = k == MSC_KIND_IO_IWRITE || k == MSC_KIND_IO_IREAD ? c->file : zero_info.file;
    in->newcomm_fortran = icomm && c->lang != MSC_LANG_C;
    in->newcomm_at = !icomm ? NULL : c->lang != MSC_LANG_C ? c->newcomm_f : (const void *)c->newcomm;
    in->parts = p2p && (msc_fn_roles[c->fn] & MSC_ROLE_PARTS) ? c->parts : 0;
}

static void post(msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS || !c->request || *c->request == MPI_REQUEST_NULL) return;
    msc_kind_t k = c->kind;
    /* Receives, reads and gets describe their operation by the receive
     * side's count and type; file operations and RMA have no communicator
     * (the modules know file, window and target from the call itself), a
     * matched receive not its own; a nonblocking communicator constructor
     * has no data. */
    bool rd = k == MSC_KIND_IRECV || k == MSC_KIND_RECV_INIT || k == MSC_KIND_IMRECV ||
              k == MSC_KIND_IO_IREAD || k == MSC_KIND_RMA_RGET || k == MSC_KIND_ISENDRECV;
    bool nocomm = k == MSC_KIND_IMRECV || k == MSC_KIND_IO_IREAD || k == MSC_KIND_IO_IWRITE ||
                  k == MSC_KIND_RMA_RPUT || k == MSC_KIND_RMA_RGET || k == MSC_KIND_RMA_RACC;
    bool coll = k == MSC_KIND_ICOLL || k == MSC_KIND_COLL_INIT;
    posting_t x = {
        .c = c,
        .comm = nocomm ? MPI_COMM_NULL : c->comm,
        .count = k == MSC_KIND_ICOMM ? 0 : rd ? c->rcount : c->count,
        .type = k == MSC_KIND_ICOMM ? zero_info.type : rd ? c->rtype : c->type,
        .persistent = k == MSC_KIND_SEND_INIT || k == MSC_KIND_RECV_INIT || k == MSC_KIND_COLL_INIT,
    };
    /* a persistent collective is known only from its record: no size here */
    if (!coll && k != MSC_KIND_ICOMM) x.bytes = type_bytes(x.type, x.count);
    if (comm_tag_fn && (x.comm != MPI_COMM_NULL || k == MSC_KIND_IMRECV))
        x.comm_tag = comm_tag_fn(x.comm);
    c->req_id = insert(*c->request, &x);
}

static bool done_room(msc_call_t *c, int n)
{
    msc_thread_t *t = c->thread;
    if (n <= t->scratch_done_n) return true;
    int want = n < 64 ? 64 : n;
    msc_done_t *d = realloc(t->scratch_done, (size_t)want * sizeof *d);
    if (!d) return false;
    t->scratch_done = d;
    t->scratch_done_n = want;
    return true;
}

/* A receive completed by an MPI_Isendrecv(_replace)'s request: its status
 * as the modules read it (requests.h: msc_isendrecv_status). */
static void isendrecv_status(msc_done_t *d)
{
    MPI_Status *s = msc_isendrecv_status(d->status, &d->fixed, d->info.peer, d->info.tag,
                                         d->info.bytes);
    if (s == d->status) return;
    d->status = s;
    d->bytes = d->info.bytes;
}

static void complete(msc_call_t *c, MPI_Request r, MPI_Status *status)
{
    if (r == MPI_REQUEST_NULL) return;
    msc_done_t *d = &c->done[c->ndone];
    /* Every field is set: the lookup copies the entry, or the info is zeroed. */
    if (!lookup(r, LOOKUP_COMPLETE, c->thread ? c->thread->index : -1, &d->info))
        memset(&d->info, 0, sizeof d->info);
    d->status = status;
    d->bytes = d->info.bytes;
    d->cancelled = false;
    d->newcomm = MPI_COMM_NULL;
    if (d->info.kind == MSC_KIND_ICOMM && d->info.newcomm_at)
        d->newcomm = d->info.newcomm_fortran
                         ? PMPI_Comm_f2c(*(const MPI_Fint *)d->info.newcomm_at)
                         : *(const MPI_Comm *)d->info.newcomm_at;
    if (status) {
        /* Open MPI 4.1's OMPIO leaves the cancelled field of a nonblocking
         * file operation's status unset: file operations are never taken
         * for cancelled. */
        bool file = d->info.kind == MSC_KIND_IO_IREAD || d->info.kind == MSC_KIND_IO_IWRITE;
        if (!file && msc_status_cancelled(status)) d->cancelled = true;
        bool recv = d->info.kind == MSC_KIND_IRECV || d->info.kind == MSC_KIND_RECV_INIT ||
                    d->info.kind == MSC_KIND_IMRECV || file; /* file operations: bytes done */
        if (recv) d->bytes = msc_status_bytes(status);
        if (msc_fn_kind[d->info.fn] == MSC_KIND_ISENDRECV) isendrecv_status(d);
    }
    c->ndone++;
}

void msc_requests_leave(msc_call_t *c)
{
    c->ndone = 0;
    if (!ready) return;
    switch (c->kind) {
    case MSC_KIND_ISEND:
    case MSC_KIND_IRECV:
    case MSC_KIND_SEND_INIT:
    case MSC_KIND_RECV_INIT:
    case MSC_KIND_IMRECV:
    case MSC_KIND_ICOLL:
    case MSC_KIND_COLL_INIT:
    case MSC_KIND_IO_IREAD:
    case MSC_KIND_IO_IWRITE:
    case MSC_KIND_RMA_RPUT:
    case MSC_KIND_RMA_RGET:
    case MSC_KIND_RMA_RACC:
    case MSC_KIND_ICOMM:
    case MSC_KIND_ISENDRECV:
        post(c);
        return;
    case MSC_KIND_START:
        if (c->rc == MPI_SUCCESS) lookup(c->req_in, LOOKUP_START, -1, NULL);
        return;
    case MSC_KIND_STARTALL:
        if (c->rc == MPI_SUCCESS && c->reqs_in)
            for (int i = 0; i < c->nreq; i++) lookup(c->reqs_in[i], LOOKUP_START, -1, NULL);
        return;
    case MSC_KIND_REQUEST_FREE:
        if (c->rc == MPI_SUCCESS)
            lookup(c->req_in, LOOKUP_FREE, c->thread ? c->thread->index : -1, NULL);
        return;
    default:
        break;
    }
    if (c->rc != MPI_SUCCESS && c->rc != MPI_ERR_IN_STATUS) return;
    int room = c->kind == MSC_KIND_WAIT || c->kind == MSC_KIND_TEST ? 1 : c->nreq;
    if (room <= 0 || !done_room(c, room)) return;
    c->done = c->thread->scratch_done;
    switch (c->kind) {
    case MSC_KIND_WAIT:
        complete(c, c->req_in, c->status);
        break;
    case MSC_KIND_TEST:
        if (*c->flag) complete(c, c->req_in, c->status);
        break;
    case MSC_KIND_WAITANY:
    case MSC_KIND_TESTANY:
        /* Indices are checked, not trusted: an MPI that returns one out of
         * range (MPICH 4.0.2's f08 layer, before the Fortran wrapper maps
         * it) must not make the tool read past its copy of the requests. */
        if ((c->kind == MSC_KIND_WAITANY || *c->flag) && *c->index >= 0 &&
            *c->index < c->nreq && c->reqs_in)
            complete(c, c->reqs_in[*c->index], c->status);
        break;
    case MSC_KIND_WAITALL:
    case MSC_KIND_TESTALL:
        if ((c->kind == MSC_KIND_WAITALL || *c->flag) && c->reqs_in)
            for (int i = 0; i < c->nreq; i++) {
                /* MPI_ERR_IN_STATUS: MPI_ERR_PENDING marks one still pending. */
                if (c->rc == MPI_ERR_IN_STATUS && c->statuses &&
                    c->statuses[i].MPI_ERROR == MPI_ERR_PENDING)
                    continue;
                complete(c, c->reqs_in[i], c->statuses ? &c->statuses[i] : NULL);
            }
        break;
    case MSC_KIND_WAITSOME:
    case MSC_KIND_TESTSOME:
        if (*c->outcount != MPI_UNDEFINED && *c->outcount <= c->nreq && c->reqs_in)
            for (int i = 0; i < *c->outcount; i++)
                if (c->indices[i] >= 0 && c->indices[i] < c->nreq)
                    complete(c, c->reqs_in[c->indices[i]],
                             c->statuses ? &c->statuses[i] : NULL);
        break;
    default:
        break;
    }
}

bool msc_requests_find(MPI_Request r, msc_req_info_t *out)
{
    return ready && r != MPI_REQUEST_NULL && lookup(r, LOOKUP_PEEK, -1, out);
}

uint64_t msc_requests_dropped(void)
{
    return atomic_load(&dropped);
}

uint64_t msc_requests_pending(void)
{
    return atomic_load(&pending);
}
