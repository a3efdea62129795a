/* Request table implementation: 64 stripes chosen by a hash of the handle
 * (MPI_Request is a pointer in Open MPI and an int in MPICH, so the handle's
 * bytes are hashed), each a small chained hash table with its own mutex. The
 * entries come from one pool of exactly MPISCOPE_MAX_REQUESTS, with its own
 * lock (taken after a stripe's, held for a pointer swap), so the bound is the
 * setting whatever the handles hash to: per-stripe pools would drop requests
 * while the table still had room. A completion call locks one stripe per
 * completed request; nothing here runs for calls that involve no request.
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
static entry_t *take_entry(void)
{
    pthread_mutex_lock(&pool_lock);
    entry_t *e = free_list;
    if (e)
        free_list = e->next;
    else if (fresh < pool_capacity)
        e = &pool[fresh++];
    pthread_mutex_unlock(&pool_lock);
    return e;
}

static void give_entry(entry_t *e)
{
    pthread_mutex_lock(&pool_lock);
    e->next = free_list;
    free_list = e;
    pthread_mutex_unlock(&pool_lock);
    atomic_fetch_sub_explicit(&pending, 1, memory_order_relaxed);
}

static void insert(MPI_Request r, const msc_req_info_t *info)
{
    uint64_t h = hash(r);
    stripe_t *st = stripe_of(h);
    pthread_mutex_lock(&st->lock);
    entry_t **p = slot_of(st, h, r);
    entry_t *e = *p;
    if (e && (e->info.persistent || info->persistent)) {
        /* A persistent request's handle again: the old entry is stale (the
         * MPI freed it without our seeing it); the new operation takes it. */
        e->info = *info;
        pthread_mutex_unlock(&st->lock);
        return;
    }
    entry_t *fresh = take_entry();
    if (fresh) {
        fresh->key = r;
        fresh->info = *info;
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
        atomic_fetch_add_explicit(&pending, 1, memory_order_relaxed);
    }
    pthread_mutex_unlock(&st->lock);
    if (!fresh) atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
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

static bool lookup(MPI_Request r, int what, int me, msc_req_info_t *out)
{
    uint64_t h = hash(r);
    stripe_t *st = stripe_of(h);
    pthread_mutex_lock(&st->lock);
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
            give_entry(e);
        }
    }
    pthread_mutex_unlock(&st->lock);
    return e != NULL;
}

int64_t msc_type_bytes(MPI_Datatype type, MPI_Count count)
{
    if (type == MPI_DATATYPE_NULL || count <= 0) return 0;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
    return (int64_t)(size * count);
}

static void post(msc_call_t *c)
{
    if (c->rc != MPI_SUCCESS || !c->request || *c->request == MPI_REQUEST_NULL) return;
    msc_req_info_t info = {
        .id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed),
        .fn = c->fn,
        .kind = c->kind,
        .comm = c->comm,
        .peer = c->peer,
        .tag = c->tag,
        .root = MPI_UNDEFINED,
        .site = c->site,
        .t_post = c->t_enter,
        .thread = c->thread ? c->thread->index : -1,
    };
    switch (c->kind) {
    case MSC_KIND_ISEND:
    case MSC_KIND_SEND_INIT:
        info.count = c->count;
        info.type = c->type;
        info.bytes = msc_type_bytes(c->type, c->count);
        break;
    case MSC_KIND_IRECV:
    case MSC_KIND_RECV_INIT:
    case MSC_KIND_IMRECV:
        info.count = c->rcount;
        info.type = c->rtype;
        info.bytes = msc_type_bytes(c->rtype, c->rcount);
        if (c->kind == MSC_KIND_IMRECV) info.peer = MPI_ANY_SOURCE, info.comm = MPI_COMM_NULL;
        break;
    case MSC_KIND_IO_IWRITE:
    case MSC_KIND_IO_IREAD: /* the modules know the file from the call itself */
        info.count = c->kind == MSC_KIND_IO_IWRITE ? c->count : c->rcount;
        info.type = c->kind == MSC_KIND_IO_IWRITE ? c->type : c->rtype;
        info.bytes = msc_type_bytes(info.type, info.count);
        info.comm = MPI_COMM_NULL;
        info.peer = MPI_UNDEFINED;
        info.file = c->file;
        break;
    case MSC_KIND_RMA_RPUT:
    case MSC_KIND_RMA_RGET:
    case MSC_KIND_RMA_RACC: /* the modules know window and target from the call itself */
        info.count = c->kind == MSC_KIND_RMA_RGET ? c->rcount : c->count;
        info.type = c->kind == MSC_KIND_RMA_RGET ? c->rtype : c->type;
        info.bytes = msc_type_bytes(info.type, info.count);
        info.comm = MPI_COMM_NULL;
        info.peer = MPI_UNDEFINED;
        break;
    case MSC_KIND_ICOMM: /* the new communicator is read at completion */
        info.root = MPI_UNDEFINED;
        info.peer = MPI_UNDEFINED;
        info.newcomm_fortran = c->lang != MSC_LANG_C;
        info.newcomm_at = info.newcomm_fortran ? c->newcomm_f : (const void *)c->newcomm;
        break;
    case MSC_KIND_ICOLL:
    case MSC_KIND_COLL_INIT: /* a persistent collective is known only from this */
        info.root = c->root;
        info.peer = MPI_UNDEFINED;
        info.count = c->count, info.type = c->type;
        info.rcount = c->rcount, info.rtype = c->rtype;
        info.counts = c->counts, info.rcounts = c->rcounts;
        info.counts_are_mpi_count = (uint8_t)(c->counts_are_mpi_count != 0);
        info.send_in_place = c->buf == MPI_IN_PLACE;
        info.recv_in_place = c->rbuf == MPI_IN_PLACE;
        break;
    default:
        info.root = c->root;
        info.peer = MPI_UNDEFINED;
        break;
    }
    info.persistent = c->kind == MSC_KIND_SEND_INIT || c->kind == MSC_KIND_RECV_INIT ||
                      c->kind == MSC_KIND_COLL_INIT;
    if (comm_tag_fn && (info.comm != MPI_COMM_NULL || c->kind == MSC_KIND_IMRECV))
        info.comm_tag = comm_tag_fn(info.comm);
    c->req_id = info.id;
    insert(*c->request, &info);
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

static void complete(msc_call_t *c, MPI_Request r, MPI_Status *status)
{
    if (r == MPI_REQUEST_NULL) return;
    msc_done_t *d = &c->done[c->ndone];
    memset(d, 0, sizeof *d);
    if (!lookup(r, LOOKUP_COMPLETE, c->thread ? c->thread->index : -1, &d->info)) d->info.id = 0;
    d->status = status;
    d->bytes = d->info.bytes;
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
        int flag = 0;
        if (!file && PMPI_Test_cancelled(status, &flag) == MPI_SUCCESS && flag) d->cancelled = true;
        bool recv = d->info.kind == MSC_KIND_IRECV || d->info.kind == MSC_KIND_RECV_INIT ||
                    d->info.kind == MSC_KIND_IMRECV || d->info.kind == MSC_KIND_IO_IREAD ||
                    d->info.kind == MSC_KIND_IO_IWRITE; /* file operations: bytes done */
        if (recv) {
            MPI_Count n = 0;
            d->bytes = PMPI_Get_elements_x(status, MPI_BYTE, &n) == MPI_SUCCESS && n > 0 ? n : 0;
        }
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
