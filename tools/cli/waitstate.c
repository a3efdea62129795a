/* Wait-state analysis of an OTF2 trace: how long ranks wait, and why, in
 * the patterns of Scalasca (Late Sender and its wrong-order case, Late
 * Receiver, Wait at Barrier, Wait at N×N, Late Broadcast, Early Reduce,
 * Barrier and N×N Completion), per rank and per call site.
 *
 * Design. Two phases, neither of which needs the events in global time
 * order, so every location is read on its own with OTF2's local event
 * reader (no merge heap: the read is as fast as OTF2 reads):
 *
 * 1. Read (trace_reader.c). For each location, one compact record per MPI call (enter,
 *    leave, region, call site), per message end (communicator, peer as a
 *    world rank, tag, the call it belongs to) and per blocking collective
 *    (communicator, operation, root, call). A call site is the call path:
 *    the enclosing user regions and the MPI region, plus the file and line
 *    when the Enter event carries a SOURCE_CODE_LOCATION attribute.
 *    Timestamps are OTF2's, with the clock offsets of the local
 *    definitions applied by the reader.
 * 2. Match and classify. Sends are chained per channel (communicator,
 *    sender, receiver, tag) in the sender's order; each receive takes the
 *    first unmatched send of its channel (MPI's non-overtaking rule). A
 *    collective instance is the k-th collective on a communicator on each
 *    member. Then each call gets its waiting time:
 *    - Late Sender: a blocking receive (Recv, Sendrecv, Wait forms, Mrecv)
 *      entered before its message's send call was entered:
 *      min(send.enter, recv.leave) - recv.enter; one value per call (the
 *      largest, for a Waitall of several messages). Wrong order: a message
 *      that this location receives later had been sent before the receive
 *      began.
 *    - Late Receiver: a blocking send (Send, Ssend, Bsend, Rsend,
 *      Sendrecv) entered before the receive: min(recv.enter, send.leave) -
 *      send.enter. An eager send returns at once, so it scores ~0.
 *    - Wait at Barrier / Wait at N×N: min(last enter, leave) - enter.
 *    - Barrier / N×N Completion: leave - first leave.
 *    - Late Broadcast (Bcast, Scatter(v)): a non-root entered before the
 *      root: min(root.enter, leave) - enter.
 *    - Early Reduce (Reduce, Gather(v)): the root entered before the first
 *      other member: min(first other enter, leave) - root.enter.
 *
 * Memory: 24 bytes per MPI call and 16 per message end while reading, and
 * 24 more per call in phase 2.
 *
 * Under MPI (analyze/mpiscope_analyze.c) phase 1 is split: each analysis
 * process reads whole ranks' locations (ws_read with its part), packs what
 * it recorded (ws_part_export), and process 0 merges the parts
 * (ws_merge_begin/_end, which renumber the call-site nodes) and runs phase 2 on the same records the
 * serial analysis would have: the results are identical.
 */
#include "waitstate.h"

#include <malloc.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "trace_reader.h"
#include "../../src/core/json_out.h"

const char *const ws_pattern_id[WS_NPATTERNS] = {
    "late_sender",     "late_sender_wrong_order", "late_receiver",
    "wait_barrier",    "wait_nxn",                "late_broadcast",
    "early_reduce",    "barrier_completion",      "nxn_completion"};
const char *const ws_pattern_title[WS_NPATTERNS] = {
    "Late Sender",     "Late Sender, wrong order", "Late Receiver",
    "Wait at Barrier", "Wait at NxN",           "Late Broadcast",
    "Early Reduce",    "Barrier Completion",    "NxN Completion"};

/* What an MPI region does, from its name. */
enum { K_OTHER, K_RECV, K_SEND, K_SENDRECV, K_WAIT, K_TEST };

/* 24 bytes: phase 1 writes one per MPI call, and the analysis under MPI
 * sends them; what phase 2 finds out about a call is in ws_wait_t. */
typedef struct {
    uint64_t enter, leave; /* ticks */
    uint32_t region, site;
} ws_call_t;

typedef struct {
    uint64_t ls, lr;       /* Late Sender, Late Receiver waiting (ticks) */
    uint32_t flags;        /* F_* */
} ws_wait_t;
enum { F_WRONG_ORDER = 1, F_LS_DONE = 2, F_LR_DONE = 4 };

typedef struct {
    uint32_t comm;
    int32_t peer; /* world rank of the other end */
    uint32_t tag;
    uint32_t call;
} ws_msg_t;

typedef struct {
    uint32_t comm, op;
    int32_t root; /* world rank, or -1 */
    uint32_t call;
} ws_coll_t;

#define VEC(T) struct { T *v; size_t n, cap; }
/* Appends x; on allocation failure marks c->oom and runs `fail`. */
#define PUSH(c, vec, x, fail)                                                          \
    do {                                                                               \
        if ((vec).n == (vec).cap) {                                                    \
            size_t nc_ = (vec).cap ? 2 * (vec).cap : 64;                               \
            void *p_ = realloc((vec).v, nc_ * sizeof *(vec).v);                        \
            if (!p_) {                                                                 \
                (c)->oom = true;                                                       \
                fail;                                                                  \
            }                                                                          \
            (vec).v = p_;                                                              \
            (vec).cap = nc_;                                                           \
        }                                                                              \
        (vec).v[(vec).n++] = (x);                                                      \
    } while (0)

typedef struct {
    uint32_t region, site;
    int64_t call; /* index in calls, or -1 for a user region */
} ws_frame_t;

typedef struct {
    int rank;
    uint64_t mpi_ns;       /* time in its MPI calls */
    VEC(ws_call_t) calls;
    VEC(ws_msg_t) sends;
    VEC(ws_msg_t) recvs;
    VEC(ws_coll_t) colls;
    VEC(ws_frame_t) stack;
} ws_loc_t;

typedef struct {
    uint32_t parent, region, scl;
} ws_node_t;

typedef struct {
    uint64_t mpi_ns, calls; /* of the MPI calls at a node, summed while reading */
} ws_nsum_t;

#define WS_SITE_CACHE 1024
typedef struct {
    uint32_t parent, region, scl, site;
} ws_sc_t;

struct ws_ctx {
    ws_sc_t site_cache[WS_SITE_CACHE];
    msc_trace_t *t;
    uint8_t *region_kind; /* by region ref */
    ws_loc_t *locs;       /* one per location of t, in its order */
    size_t nlocs;
    int ranks;
    /* call sites: hash-consed (parent, region, scl) */
    VEC(ws_node_t) nodes;
    VEC(ws_nsum_t) nsum;  /* per node */
    double tick_ns;       /* ns per tick */
    uint32_t *node_hash;
    size_t node_hash_cap;
    ws_loc_t *cur;
    uint32_t *merge_map;  /* ws_merge_begin to _end: the part's nodes -> ours */
    uint32_t *merge_locs; /* the part's locations */
    size_t merge_n, merge_nodes;
    uint64_t events;
    double t0, read_s;
    bool oom, progress;
    size_t done, todo;
};

static int region_kind(const char *n)
{
    if (!strcmp(n, "MPI_Recv") || !strcmp(n, "MPI_Mrecv")) return K_RECV;
    if (!strcmp(n, "MPI_Send") || !strcmp(n, "MPI_Ssend") || !strcmp(n, "MPI_Bsend") ||
        !strcmp(n, "MPI_Rsend"))
        return K_SEND;
    if (!strcmp(n, "MPI_Sendrecv") || !strcmp(n, "MPI_Sendrecv_replace")) return K_SENDRECV;
    if (!strncmp(n, "MPI_Wait", 8)) return K_WAIT;
    if (!strncmp(n, "MPI_Test", 8)) return K_TEST;
    return K_OTHER;
}

/* ---- call sites ---------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* The node (parent, region, scl), created on first use; UINT32_MAX when out
 * of memory. */
static uint32_t site_of(ws_ctx_t *c, uint32_t parent, uint32_t region, uint32_t scl)
{
    if (c->nodes.n * 2 >= c->node_hash_cap) {
        size_t cap = c->node_hash_cap ? 2 * c->node_hash_cap : 1024;
        uint32_t *h = malloc(cap * sizeof *h);
        if (!h) {
            c->oom = true;
            return UINT32_MAX;
        }
        memset(h, 0xff, cap * sizeof *h);
        for (size_t i = 0; i < c->nodes.n; i++) {
            ws_node_t *n = &c->nodes.v[i];
            uint64_t k = mix(((uint64_t)n->parent << 32 | n->region) ^ mix(n->scl)) & (cap - 1);
            while (h[k] != UINT32_MAX) k = (k + 1) & (cap - 1);
            h[k] = (uint32_t)i;
        }
        free(c->node_hash);
        c->node_hash = h;
        c->node_hash_cap = cap;
    }
    size_t cap = c->node_hash_cap;
    uint64_t k = mix(((uint64_t)parent << 32 | region) ^ mix(scl)) & (cap - 1);
    while (c->node_hash[k] != UINT32_MAX) {
        ws_node_t *n = &c->nodes.v[c->node_hash[k]];
        if (n->parent == parent && n->region == region && n->scl == scl) return c->node_hash[k];
        k = (k + 1) & (cap - 1);
    }
    PUSH(c, c->nsum, ((ws_nsum_t){0, 0}), return UINT32_MAX);
    PUSH(c, c->nodes, ((ws_node_t){parent, region, scl}), c->nsum.n--; return UINT32_MAX);
    c->node_hash[k] = (uint32_t)(c->nodes.n - 1);
    return (uint32_t)(c->nodes.n - 1);
}

/* Ticks to ns, rounded; exact (no floating point) for a nanosecond clock. */
static inline uint64_t to_ns(double tick_ns, uint64_t ticks)
{
    return tick_ns == 1.0 ? ticks : (uint64_t)((double)ticks * tick_ns + 0.5);
}

/* ---- events -------------------------------------------------------------- */

/* One line, rewritten in place: only when stderr is a terminal (the caller
 * decides), and erased when the analysis ends. */
static void progress_line(bool on, const char *what, size_t a, size_t b, uint64_t ev)
{
    if (!on) return;
    fprintf(stderr, "\rmpiscope: wait states: %s %zu of %zu (%.1f M events)\033[K", what, a, b,
            (double)ev / 1e6);
    fflush(stderr);
}

/* Shrinks a VEC to its length (the reservation was a guess). */
#define FIT(vec)                                                                       \
    do {                                                                               \
        if ((vec).cap > (vec).n && (vec).n) {                                          \
            void *p_ = realloc((vec).v, (vec).n * sizeof *(vec).v);                    \
            if (p_) (vec).v = p_, (vec).cap = (vec).n;                                 \
        }                                                                              \
    } while (0)

/* A location is read: its stack goes, its arrays shrink to what they hold,
 * so that event counts in the definitions (not trusted) cost nothing. */
static void done_location(ws_loc_t *l)
{
    free(l->stack.v);
    l->stack.v = NULL;
    l->stack.n = l->stack.cap = 0;
    FIT(l->calls);
    FIT(l->sends);
    FIT(l->recvs);
}

/* Room for `n` elements at once (a hint: failure is not an error). Large
 * arrays are aligned to 2 MiB and offered transparent huge pages: one page
 * fault per 2 MiB instead of per 4 KiB is a tenth of the reading time. */
static void reserve(void **v, size_t *cap, size_t n, size_t elem)
{
    if (*cap || !n) return;
    if (n > ((size_t)1 << 20)) n = (size_t)1 << 20; /* beyond: the arrays grow */
    size_t bytes = n * elem;
    const size_t huge = (size_t)2 << 20;
    void *p;
    if (bytes >= 2 * huge) {
        bytes = (bytes + huge - 1) & ~(huge - 1);
        p = aligned_alloc(huge, bytes);
        if (p) madvise(p, bytes, MADV_HUGEPAGE);
        n = bytes / elem;
    } else {
        p = malloc(bytes);
    }
    if (p) *v = p, *cap = n;
}

static void ev_location(void *u, size_t i)
{
    ws_ctx_t *c = u;
    if (c->cur) done_location(c->cur);
    c->cur = &c->locs[i];
    progress_line(c->progress, "reading location", ++c->done, c->todo, c->events);
    /* The definition's event count sizes the arrays once: an MPI call is at
     * least 2 events, a message end 3 with its call. Pages never written
     * cost nothing. */
    uint64_t ev = c->t->loc[i].events;
    ws_loc_t *l = c->cur;
    reserve((void **)&l->calls.v, &l->calls.cap, ev / 2 + 1, sizeof *l->calls.v);
    reserve((void **)&l->sends.v, &l->sends.cap, ev / 3 + 1, sizeof *l->sends.v);
    reserve((void **)&l->recvs.v, &l->recvs.cap, ev / 3 + 1, sizeof *l->recvs.v);
}

static void ev_enter(void *u, uint64_t t, uint32_t region, uint32_t scl)
{
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    uint32_t parent = l->stack.n ? l->stack.v[l->stack.n - 1].site : UINT32_MAX;
    /* Most Enters repeat a recent (parent, region): a direct-mapped cache
     * in front of the hash table. */
    uint32_t slot = (parent * 2654435761u ^ region * 40503u ^ scl) & (WS_SITE_CACHE - 1);
    ws_sc_t *e = &c->site_cache[slot];
    uint32_t site;
    if (e->site != UINT32_MAX && e->parent == parent && e->region == region && e->scl == scl) {
        site = e->site;
    } else {
        site = site_of(c, parent, region, scl);
        if (site == UINT32_MAX) return;
        *e = (ws_sc_t){parent, region, scl, site};
    }
    int64_t call = -1;
    if (msc_trace_region_is_mpi(c->t, region)) {
        call = (int64_t)l->calls.n;
        PUSH(c, l->calls, ((ws_call_t){.enter = t, .leave = t, .region = region, .site = site}),
             return);
        c->nsum.v[site].calls++;
    }
    PUSH(c, l->stack, ((ws_frame_t){region, site, call}), return);
}

static void ev_leave(void *u, uint64_t t, uint32_t region)
{
    (void)region;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    if (!l->stack.n) return;
    ws_frame_t *f = &l->stack.v[--l->stack.n];
    if (f->call < 0) return;
    /* The call's time is summed here, while it is in cache: phase 2 then
     * visits only the calls that took part in a message or collective. */
    ws_call_t *cl = &l->calls.v[f->call];
    cl->leave = t;
    uint64_t d = to_ns(c->tick_ns, t - cl->enter);
    l->mpi_ns += d;
    c->nsum.v[cl->site].mpi_ns += d;
}

static uint32_t open_call(ws_loc_t *l)
{
    for (size_t i = l->stack.n; i-- > 0;)
        if (l->stack.v[i].call >= 0) return (uint32_t)l->stack.v[i].call;
    return UINT32_MAX;
}

static void ev_msg(void *u, uint64_t t, bool send, uint32_t peer, uint32_t comm, uint32_t tag,
                   uint64_t bytes)
{
    (void)t, (void)bytes;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    uint32_t call = open_call(l);
    int32_t w = msc_trace_world(c->t, comm, l->rank, peer);
    if (call == UINT32_MAX || w < 0) return;
    ws_msg_t m = {comm, w, tag, call};
    if (send)
        PUSH(c, l->sends, m, return);
    else
        PUSH(c, l->recvs, m, return);
}

static void ev_coll_end(void *u, uint64_t t, uint32_t op, uint32_t comm, uint32_t root)
{
    (void)t;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    uint32_t call = open_call(l);
    if (call == UINT32_MAX || !msc_trace_is_intra(c->t, comm))
        return; /* intercommunicator collectives are not analysed */
    int32_t r = root == OTF2_UNDEFINED_UINT32 ? -1 : msc_trace_world(c->t, comm, l->rank, root);
    PUSH(c, l->colls, ((ws_coll_t){comm, op, r, call}), return);
}

/* ---- phase 2 ------------------------------------------------------------- */

typedef struct {
    uint32_t comm, tag;
    int32_t src, dst;
    int64_t head, tail; /* send chain (global send index) */
} ws_chan_t;

typedef struct {
    ws_chan_t *t;
    size_t cap, n;
} ws_chans_t;

static uint64_t chan_hash(uint32_t comm, int32_t src, int32_t dst, uint32_t tag)
{
    return mix(((uint64_t)comm << 32 | tag) ^ mix((uint64_t)(uint32_t)src << 32 | (uint32_t)dst));
}

static ws_chan_t *chan_get(ws_chans_t *h, uint32_t comm, int32_t src, int32_t dst, uint32_t tag,
                           bool create)
{
    if (create && h->n * 2 >= h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        ws_chan_t *t = calloc(cap, sizeof *t);
        if (!t) abort();
        for (size_t i = 0; i < cap; i++) t[i].head = -2;
        for (size_t i = 0; i < h->cap; i++) {
            if (h->t[i].head == -2) continue;
            ws_chan_t *o = &h->t[i];
            size_t k = chan_hash(o->comm, o->src, o->dst, o->tag) & (cap - 1);
            while (t[k].head != -2) k = (k + 1) & (cap - 1);
            t[k] = *o;
        }
        free(h->t);
        h->t = t;
        h->cap = cap;
    }
    if (!h->cap) return NULL;
    size_t k = chan_hash(comm, src, dst, tag) & (h->cap - 1);
    while (h->t[k].head != -2) {
        ws_chan_t *x = &h->t[k];
        if (x->comm == comm && x->src == src && x->dst == dst && x->tag == tag) return x;
        k = (k + 1) & (h->cap - 1);
    }
    if (!create) return NULL;
    h->n++;
    h->t[k] = (ws_chan_t){comm, tag, src, dst, -1, -1};
    return &h->t[k];
}

static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

typedef struct {
    uint64_t max_enter, min_leave, root_enter, first_other;
    uint32_t op;
    int32_t root;
} ws_inst_t;

typedef struct {
    uint32_t comm, seq, inst;
} ws_ikey_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void free_ctx(ws_ctx_t *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        free(l->calls.v), free(l->sends.v), free(l->recvs.v), free(l->colls.v), free(l->stack.v);
    }
    free(c->locs);
    free(c->region_kind);
    free(c->nodes.v);
    free(c->nsum.v);
    free(c->node_hash);
    free(c->merge_map), free(c->merge_locs);
    msc_trace_close(c->t);
    free(c);
}

static int cmp_site(const void *a, const void *b)
{
    const ws_site_t *x = a, *y = b;
    uint64_t tx = 0, ty = 0;
    for (int p = 0; p < WS_NPATTERNS; p++)
        if (p != WS_LATE_SENDER_WO) tx += x->ns[p], ty += y->ns[p];
    if (tx != ty) return tx > ty ? -1 : 1;
    if (x->mpi_ns != y->mpi_ns) return x->mpi_ns > y->mpi_ns ? -1 : 1;
    int s = strcmp(x->name, y->name);
    if (s) return s;
    /* Distinct nodes with the same name: an order that does not depend on
     * node numbering, so the analysis under MPI sorts as this one does. */
    if (x->calls != y->calls) return x->calls > y->calls ? -1 : 1;
    return memcmp(x->ns, y->ns, sizeof x->ns);
}

static char *site_string(ws_ctx_t *c, uint32_t node, ws_site_t *s)
{
    ws_node_t *n = &c->nodes.v[node];
    const char *fn = msc_trace_region_name(c->t, n->region);
    char path[1024] = "";
    /* Enclosing regions, outermost first. */
    uint32_t chain[64];
    int depth = 0;
    for (uint32_t p = n->parent; p != UINT32_MAX && depth < 64; p = c->nodes.v[p].parent)
        chain[depth++] = p;
    size_t off = 0;
    for (int i = depth - 1; i >= 0 && off < sizeof path - 1; i--) {
        int w = snprintf(path + off, sizeof path - off, "%s%s", off ? " > " : "",
                         msc_trace_region_name(c->t, c->nodes.v[chain[i]].region));
        if (w > 0) off += (size_t)w;
    }
    s->function = strdup(fn);
    s->path = strdup(path);
    const char *file = "";
    uint32_t line = 0;
    if (n->scl != UINT32_MAX && n->scl < c->t->nscl) {
        file = msc_trace_string(c->t, c->t->scl_file[n->scl]);
        line = c->t->scl_line[n->scl];
    }
    s->file = strdup(file);
    s->line = line;
    char buf[1400];
    int w = snprintf(buf, sizeof buf, "%s", fn);
    if (*file && w > 0 && (size_t)w < sizeof buf)
        w += snprintf(buf + w, sizeof buf - (size_t)w, " @ %s:%u", file, line);
    if (*path && w > 0 && (size_t)w < sizeof buf)
        snprintf(buf + w, sizeof buf - (size_t)w, " in %s", path);
    return strdup(buf);
}

static bool is_nxn(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
        return true;
    default:
        return false;
    }
}

static bool is_1ton(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_BCAST || op == OTF2_COLLECTIVE_OP_SCATTER ||
           op == OTF2_COLLECTIVE_OP_SCATTERV;
}

static bool is_nto1(uint32_t op)
{
    return op == OTF2_COLLECTIVE_OP_REDUCE || op == OTF2_COLLECTIVE_OP_GATHER ||
           op == OTF2_COLLECTIVE_OP_GATHERV;
}


/* Phase 1 for the locations of part `part` of `nparts`: whole ranks, in
 * contiguous blocks (all locations of a rank in one part, so the order of
 * a rank's sends on a channel is the serial one). */
ws_ctx_t *ws_read(const char *anchor, int part, int nparts, bool progress, char *err,
                  size_t errlen)
{
    double t0 = now_s();
    /* OTF2 allocates, fills and frees a buffer of each location's event
     * file; by default glibc hands such blocks back to the kernel and the
     * next location faults every page in again (a fifth of the reading
     * time). Keeping them in the heap reuses them. Process-wide, which is
     * right for the `mpiscope` program and the analysis program. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    msc_trace_t *t = msc_trace_open(anchor, err, errlen);
    if (!t) return NULL;
    ws_ctx_t *c = calloc(1, sizeof *c);
    bool *want = calloc(t->nloc ? t->nloc : 1, sizeof *want);
    if (c) c->t = t;
    if (!c || !want || !(c->locs = calloc(t->nloc ? t->nloc : 1, sizeof *c->locs)) ||
        !(c->region_kind = malloc(t->nregion ? t->nregion : 1))) {
        snprintf(err, errlen, "out of memory");
        if (c) free_ctx(c); else msc_trace_close(t);
        free(want);
        return NULL;
    }
    c->t0 = t0;
    c->tick_ns = 1e9 / (double)t->resolution;
    c->progress = progress;
    c->nlocs = t->nloc;
    c->ranks = t->ranks;
    for (int i = 0; i < WS_SITE_CACHE; i++) c->site_cache[i].site = UINT32_MAX;
    for (size_t i = 0; i < t->nregion; i++)
        c->region_kind[i] = (uint8_t)region_kind(msc_trace_region_name(t, (uint32_t)i));
    if (nparts < 1) nparts = 1;
    for (size_t i = 0; i < t->nloc; i++) {
        c->locs[i].rank = t->loc[i].rank;
        want[i] = ws_part_owns(c, i, part, nparts);
        c->todo += want[i];
    }
    static const msc_trace_cbs_t cbs = {.location = ev_location, .enter = ev_enter,
                                        .leave = ev_leave, .msg = ev_msg,
                                        .coll_end = ev_coll_end};
    int rc = msc_trace_read(t, want, &cbs, c, &c->events, err, errlen);
    free(want);
    if (c->cur) done_location(c->cur);
    if (rc == 0 && c->oom) {
        snprintf(err, errlen, "out of memory reading %s", anchor);
        rc = -1;
    }
    if (rc != 0) {
        if (progress) fprintf(stderr, "\r\033[K");
        free_ctx(c);
        return NULL;
    }
    c->read_s = now_s() - t0;
    return c;
}

uint64_t ws_ctx_events(const ws_ctx_t *c) { return c->events; }

/* ---- parts of phase 1, for the analysis under MPI ------------------------- */

/* A part travels as a header and then, per location it holds, its four
 * arrays sent straight from (and received straight into) the arrays
 * themselves: no packing copy. Header (native byte order: the processes
 * run on one kind of machine):
 *   u64 magic, events, nnodes, nlocs; nnodes × ws_node_t, padded to 8;
 *   nnodes × ws_nsum_t; nlocs × {u64 index, ncalls, nsends, nrecvs, ncolls,
 *   mpi_ns}. */
#define WS_PACK_MAGIC 0x6d73637773706b32ULL /* "msc wspk2" */
#define WS_PAD8(n) (((n) + 7) & ~(size_t)7)

bool ws_part_owns(const ws_ctx_t *c, size_t loc, int part, int nparts)
{
    long lo = (long)c->ranks * part / nparts, hi = (long)c->ranks * (part + 1) / nparts;
    return c->locs[loc].rank >= lo && c->locs[loc].rank < hi;
}

size_t ws_ctx_locations(const ws_ctx_t *c) { return c->nlocs; }

/* The four arrays of a location as segments. */
static size_t loc_segs(ws_loc_t *l, ws_seg_t *seg)
{
    seg[0] = (ws_seg_t){l->calls.v, l->calls.n * sizeof *l->calls.v};
    seg[1] = (ws_seg_t){l->sends.v, l->sends.n * sizeof *l->sends.v};
    seg[2] = (ws_seg_t){l->recvs.v, l->recvs.n * sizeof *l->recvs.v};
    seg[3] = (ws_seg_t){l->colls.v, l->colls.n * sizeof *l->colls.v};
    return 4;
}

int ws_part_export(ws_ctx_t *c, const bool *mine, void **header, size_t *hlen, ws_seg_t **segs,
                   size_t *nsegs)
{
    uint64_t nl = 0;
    for (size_t i = 0; i < c->nlocs; i++) nl += mine[i];
    size_t nn = c->nodes.n;
    size_t len = 32 + WS_PAD8(nn * sizeof(ws_node_t)) + nn * sizeof(ws_nsum_t) + nl * 48;
    char *h = calloc(1, len);
    ws_seg_t *sg = malloc((nl ? nl : 1) * 4 * sizeof *sg);
    if (!h || !sg) {
        free(h), free(sg);
        return -1;
    }
    uint64_t top[4] = {WS_PACK_MAGIC, c->events, nn, nl};
    memcpy(h, top, sizeof top);
    char *p = h + 32;
    if (nn) memcpy(p, c->nodes.v, nn * sizeof(ws_node_t));
    p += WS_PAD8(nn * sizeof(ws_node_t));
    if (nn) memcpy(p, c->nsum.v, nn * sizeof(ws_nsum_t));
    p += nn * sizeof(ws_nsum_t);
    size_t ns = 0;
    for (size_t i = 0; i < c->nlocs; i++) {
        if (!mine[i]) continue;
        ws_loc_t *l = &c->locs[i];
        uint64_t k[6] = {i, l->calls.n, l->sends.n, l->recvs.n, l->colls.n, l->mpi_ns};
        memcpy(p, k, sizeof k);
        p += sizeof k;
        ns += loc_segs(l, sg + ns);
    }
    *header = h, *hlen = len, *segs = sg, *nsegs = ns;
    return 0;
}

/* A refused part: the locations it was to fill stay empty (what they
 * received, if anything, never reaches phase 2). */
static void forget_merge(ws_ctx_t *c)
{
    for (size_t j = 0; j < c->merge_n; j++) {
        ws_loc_t *l = &c->locs[c->merge_locs[j]];
        l->calls.n = l->sends.n = l->recvs.n = l->colls.n = 0;
        l->mpi_ns = 0;
    }
    free(c->merge_map), free(c->merge_locs);
    c->merge_map = NULL, c->merge_locs = NULL, c->merge_n = 0;
}

int ws_merge_begin(ws_ctx_t *c, const void *header, size_t hlen, ws_seg_t **segs,
                   size_t *nsegs, char *err, size_t errlen)
{
    const char *p = header, *end = p + hlen;
    uint64_t top[4];
    free(c->merge_map);
    c->merge_map = NULL;
    free(c->merge_locs);
    c->merge_locs = NULL;
    c->merge_n = 0;
    if (hlen < sizeof top) goto bad;
    memcpy(top, p, sizeof top);
    p += sizeof top;
    uint64_t nn = top[2], nl = top[3];
    if (top[0] != WS_PACK_MAGIC || nn > (1u << 30) || nl > c->nlocs ||
        (uint64_t)(end - p) != WS_PAD8(nn * sizeof(ws_node_t)) + nn * sizeof(ws_nsum_t) + nl * 48)
        goto bad;
    /* Renumber the sender's nodes into ours: parents come before children. */
    uint32_t *map = malloc((nn ? nn : 1) * sizeof *map);
    uint32_t *locs = malloc((nl ? nl : 1) * sizeof *locs);
    ws_seg_t *sg = malloc((nl ? nl : 1) * 4 * sizeof *sg);
    c->merge_map = map, c->merge_locs = locs, c->merge_nodes = nn;
    if (!map || !locs || !sg) {
        free(sg);
        goto oom;
    }
    for (uint64_t i = 0; i < nn; i++) {
        ws_node_t nd;
        memcpy(&nd, p + i * sizeof nd, sizeof nd);
        if (nd.parent != UINT32_MAX && nd.parent >= i) {
            free(sg);
            goto bad;
        }
        uint32_t parent = nd.parent == UINT32_MAX ? UINT32_MAX : map[nd.parent];
        if ((map[i] = site_of(c, parent, nd.region, nd.scl)) == UINT32_MAX) {
            free(sg);
            goto oom;
        }
    }
    p += WS_PAD8(nn * sizeof(ws_node_t));
    for (uint64_t i = 0; i < nn; i++, p += sizeof(ws_nsum_t)) {
        ws_nsum_t ns;
        memcpy(&ns, p, sizeof ns);
        c->nsum.v[map[i]].mpi_ns += ns.mpi_ns;
        c->nsum.v[map[i]].calls += ns.calls;
    }
    size_t n = 0;
    for (uint64_t j = 0; j < nl; j++, p += 48) {
        uint64_t k[6];
        memcpy(k, p, sizeof k);
        if (k[0] >= c->nlocs || k[1] > (1ULL << 40) || k[2] > (1ULL << 40) ||
            k[3] > (1ULL << 40) || k[4] > (1ULL << 40)) {
            free(sg);
            goto bad;
        }
        ws_loc_t *l = &c->locs[k[0]];
        free(l->calls.v), free(l->sends.v), free(l->recvs.v), free(l->colls.v);
        l->calls.v = malloc(k[1] ? k[1] * sizeof *l->calls.v : 1);
        l->sends.v = malloc(k[2] ? k[2] * sizeof *l->sends.v : 1);
        l->recvs.v = malloc(k[3] ? k[3] * sizeof *l->recvs.v : 1);
        l->colls.v = malloc(k[4] ? k[4] * sizeof *l->colls.v : 1);
        l->calls.n = l->calls.cap = k[1], l->sends.n = l->sends.cap = k[2];
        l->recvs.n = l->recvs.cap = k[3], l->colls.n = l->colls.cap = k[4];
        l->mpi_ns = k[5];
        locs[c->merge_n++] = (uint32_t)k[0];
        if (!l->calls.v || !l->sends.v || !l->recvs.v || !l->colls.v) {
            l->calls.n = l->sends.n = l->recvs.n = l->colls.n = 0;
            free(sg);
            goto oom;
        }
        n += loc_segs(l, sg + n);
    }
    *segs = sg, *nsegs = n;
    c->events += top[1];
    return 0;
bad:
    snprintf(err, errlen, "a part of the analysis is malformed");
    forget_merge(c);
    return -1;
oom:
    snprintf(err, errlen, "out of memory merging the analysis");
    forget_merge(c);
    return -1;
}

int ws_merge_end(ws_ctx_t *c, char *err, size_t errlen)
{
    int rc = 0;
    for (size_t j = 0; j < c->merge_n && rc == 0; j++) {
        ws_loc_t *l = &c->locs[c->merge_locs[j]];
        for (size_t i = 0; i < l->calls.n && rc == 0; i++) {
            ws_call_t *cl = &l->calls.v[i];
            if (cl->site >= c->merge_nodes || cl->region >= c->t->nregion)
                rc = -1;
            else
                cl->site = c->merge_map[cl->site];
        }
        /* Records refer to their own location's calls. */
        for (size_t i = 0; i < l->sends.n; i++) rc |= l->sends.v[i].call >= l->calls.n ? -1 : 0;
        for (size_t i = 0; i < l->recvs.n; i++) rc |= l->recvs.v[i].call >= l->calls.n ? -1 : 0;
        for (size_t i = 0; i < l->colls.n; i++)
            rc |= l->colls.v[i].call >= l->calls.n || l->colls.v[i].comm >= c->t->ncomm ? -1 : 0;
    }
    if (rc != 0) {
        /* Nothing of a malformed part may reach phase 2. */
        snprintf(err, errlen, "a part of the analysis is malformed");
        forget_merge(c);
        return -1;
    }
    free(c->merge_map), free(c->merge_locs);
    c->merge_map = NULL, c->merge_locs = NULL, c->merge_n = 0;
    return 0;
}

void ws_ctx_free(ws_ctx_t *c) { free_ctx(c); }

ws_result_t *ws_analyze(const char *anchor, bool progress, char *err, size_t errlen)
{
    ws_ctx_t *c = ws_read(anchor, 0, 1, progress, err, errlen);
    return c ? ws_finish(c, 1) : NULL;
}

/* Phase 2 on everything read into c (here or merged from other parts). */
ws_result_t *ws_finish(ws_ctx_t *c, int processes)
{
    double t1 = now_s();
    progress_line(c->progress, "matching messages, locations", c->nlocs, c->nlocs, c->events);
    ws_result_t *r = calloc(1, sizeof *r);
    if (!r) {
        free_ctx(c);
        return NULL;
    }
    r->processes = processes;
    r->ranks = c->ranks;
    r->locations = c->nlocs;
    r->events = c->events;
    r->read_s = c->read_s;

    /* Phase 2's findings per call: zero pages until written. */
    ws_wait_t **wt = calloc(c->nlocs ? c->nlocs : 1, sizeof *wt);
    if (!wt) abort();
    for (size_t i = 0; i < c->nlocs; i++)
        if (!(wt[i] = calloc(c->locs[i].calls.n ? c->locs[i].calls.n : 1, sizeof **wt))) abort();
    /* Sends chained per channel, in each sender's order. */
    size_t nsends = 0;
    for (size_t i = 0; i < c->nlocs; i++) nsends += c->locs[i].sends.n;
    int64_t *next = malloc((nsends ? nsends : 1) * sizeof *next);
    uint32_t *send_loc = malloc((nsends ? nsends : 1) * sizeof *send_loc);
    ws_msg_t **send_rec = malloc((nsends ? nsends : 1) * sizeof *send_rec);
    ws_chans_t ch = {0};
    size_t g = 0;
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        ws_chan_t *x = NULL; /* the last channel: messages come in runs on one */
        size_t xcap = 0;
        for (size_t k = 0; k < l->sends.n; k++, g++) {
            ws_msg_t *m = &l->sends.v[k];
            if (!x || xcap != ch.cap || x->comm != m->comm || x->dst != m->peer ||
                x->tag != m->tag || x->src != l->rank) {
                x = chan_get(&ch, m->comm, l->rank, m->peer, m->tag, true);
                xcap = ch.cap;
            }
            next[g] = -1;
            send_loc[g] = (uint32_t)i;
            send_rec[g] = m;
            if (x->tail >= 0)
                next[x->tail] = (int64_t)g;
            else
                x->head = (int64_t)g;
            x->tail = (int64_t)g;
        }
    }
    /* Receives take the first unmatched send of their channel. */
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        uint64_t *sent_at = malloc((l->recvs.n ? l->recvs.n : 1) * sizeof *sent_at);
        ws_chan_t *x = NULL;
        for (size_t k = 0; k < l->recvs.n; k++) {
            ws_msg_t *m = &l->recvs.v[k];
            sent_at[k] = UINT64_MAX;
            if (!x || x->comm != m->comm || x->src != m->peer || x->tag != m->tag ||
                x->dst != l->rank)
                x = chan_get(&ch, m->comm, m->peer, l->rank, m->tag, false);
            if (!x || x->head < 0) {
                r->unmatched++;
                continue;
            }
            int64_t s = x->head;
            x->head = next[s];
            if (x->head < 0) x->tail = -1;
            r->messages++;
            ws_loc_t *sl = &c->locs[send_loc[s]];
            ws_call_t *sc = &sl->calls.v[send_rec[s]->call];
            ws_call_t *rc = &l->calls.v[m->call];
            ws_wait_t *sw = &wt[send_loc[s]][send_rec[s]->call], *rw = &wt[i][m->call];
            sent_at[k] = sc->enter;
            int rk = c->region_kind[rc->region], sk = c->region_kind[sc->region];
            if ((rk == K_RECV || rk == K_SENDRECV || rk == K_WAIT) && sc->enter > rc->enter) {
                uint64_t w = min64(sc->enter, rc->leave) - rc->enter;
                if (w > rw->ls) rw->ls = w;
            }
            if ((sk == K_SEND || sk == K_SENDRECV) && rc->enter > sc->enter) {
                uint64_t w = min64(rc->enter, sc->leave) - sc->enter;
                if (w > sw->lr) sw->lr = w;
            }
        }
        /* Wrong order: a message received by a later call had been sent
         * before this receive began. */
        uint64_t min_after = UINT64_MAX, min_cur = UINT64_MAX;
        uint32_t cur_call = UINT32_MAX;
        for (size_t k = l->recvs.n; k-- > 0;) {
            uint32_t call = l->recvs.v[k].call;
            if (call != cur_call) {
                min_after = min64(min_after, min_cur);
                min_cur = UINT64_MAX;
                cur_call = call;
            }
            min_cur = min64(min_cur, sent_at[k]);
            ws_wait_t *rw = &wt[i][call];
            if (rw->ls && min_after < l->calls.v[call].enter) rw->flags |= F_WRONG_ORDER;
        }
        free(sent_at);
    }
    for (size_t i = 0; i < ch.cap; i++)
        for (int64_t s = ch.t[i].head; ch.t[i].head != -2 && s >= 0; s = next[s]) r->unmatched++;
    free(ch.t);
    free(next);
    free(send_loc);
    free(send_rec);

    /* Collective instances: the k-th collective on a communicator. */
    size_t nmemb = 0;
    for (size_t i = 0; i < c->nlocs; i++) nmemb += c->locs[i].colls.n;
    uint32_t *memb_inst = malloc((nmemb ? nmemb : 1) * sizeof *memb_inst);
    VEC(ws_inst_t) inst = {0};
    {
        size_t cap = 1024;
        while (cap < 2 * nmemb) cap *= 2;
        ws_ikey_t *h = malloc(cap * sizeof *h);
        for (size_t i = 0; i < cap; i++) h[i].inst = UINT32_MAX;
        uint32_t *seq = calloc(c->t->ncomm + 1, sizeof *seq);
        size_t mi = 0;
        for (size_t i = 0; i < c->nlocs; i++) {
            ws_loc_t *l = &c->locs[i];
            memset(seq, 0, (c->t->ncomm + 1) * sizeof *seq);
            for (size_t k = 0; k < l->colls.n; k++, mi++) {
                ws_coll_t *co = &l->colls.v[k];
                uint32_t sq = seq[co->comm]++;
                size_t hk = mix((uint64_t)co->comm << 32 | sq) & (cap - 1);
                while (h[hk].inst != UINT32_MAX && (h[hk].comm != co->comm || h[hk].seq != sq))
                    hk = (hk + 1) & (cap - 1);
                if (h[hk].inst == UINT32_MAX) {
                    h[hk] = (ws_ikey_t){co->comm, sq, (uint32_t)inst.n};
                    PUSH(c, inst, ((ws_inst_t){0, UINT64_MAX, UINT64_MAX, UINT64_MAX, co->op, co->root}), abort());
                }
                uint32_t id = h[hk].inst;
                memb_inst[mi] = id;
                ws_inst_t *in = &inst.v[id];
                ws_call_t *cl = &l->calls.v[co->call];
                if (cl->enter > in->max_enter) in->max_enter = cl->enter;
                if (cl->leave < in->min_leave) in->min_leave = cl->leave;
                if (l->rank == co->root)
                    in->root_enter = cl->enter;
                else
                    in->first_other = min64(in->first_other, cl->enter);
            }
        }
        free(seq);
        free(h);
    }
    r->collectives = inst.n;

    /* Totals per pattern, rank and site. */
    double tick_ns = c->tick_ns;
#define NS(x) to_ns(tick_ns, (x))
    r->rank_ns = calloc((size_t)(r->ranks ? r->ranks : 1) * WS_NPATTERNS, sizeof *r->rank_ns);
    r->rank_mpi_ns = calloc((size_t)(r->ranks ? r->ranks : 1), sizeof *r->rank_mpi_ns);
    size_t nn = c->nodes.n;
    uint64_t *site_ns = calloc((nn ? nn : 1) * (WS_NPATTERNS + 2), sizeof *site_ns);
    size_t mi = 0;
    for (size_t s = 0; s < nn; s++) {
        site_ns[s * (WS_NPATTERNS + 2) + WS_NPATTERNS] = c->nsum.v[s].mpi_ns;
        site_ns[s * (WS_NPATTERNS + 2) + WS_NPATTERNS + 1] = c->nsum.v[s].calls;
    }
    for (size_t i = 0; i < c->nlocs; i++) {
        ws_loc_t *l = &c->locs[i];
        int rank = l->rank;
        uint64_t *rn = &r->rank_ns[(size_t)rank * WS_NPATTERNS];
        r->mpi_ns += l->mpi_ns;
        r->rank_mpi_ns[rank] += l->mpi_ns;
#define ADD(p, call, ticks)                                                                     \
    do {                                                                                       \
        uint64_t ns_ = NS(ticks);                                                              \
        r->ns[p] += ns_;                                                                       \
        r->instances[p]++;                                                                     \
        rn[p] += ns_;                                                                          \
        site_ns[(size_t)(call)->site * (WS_NPATTERNS + 2) + (p)] += ns_;                       \
    } while (0)
        /* Only calls with a message end can have a Late Sender or Receiver;
         * each counts once, however many messages it completed. */
        for (size_t k = 0; k < l->recvs.n; k++) {
            ws_call_t *cl = &l->calls.v[l->recvs.v[k].call];
            ws_wait_t *w = &wt[i][l->recvs.v[k].call];
            if (!w->ls || (w->flags & F_LS_DONE)) continue;
            w->flags |= F_LS_DONE;
            ADD(WS_LATE_SENDER, cl, w->ls);
            if (w->flags & F_WRONG_ORDER) ADD(WS_LATE_SENDER_WO, cl, w->ls);
        }
        for (size_t k = 0; k < l->sends.n; k++) {
            ws_call_t *cl = &l->calls.v[l->sends.v[k].call];
            ws_wait_t *w = &wt[i][l->sends.v[k].call];
            if (!w->lr || (w->flags & F_LR_DONE)) continue;
            w->flags |= F_LR_DONE;
            /* A Sendrecv waits for both ends at once: a Late Sender wins. */
            if (!(w->ls && c->region_kind[cl->region] == K_SENDRECV))
                ADD(WS_LATE_RECEIVER, cl, w->lr);
        }
        for (size_t k = 0; k < l->colls.n; k++, mi++) {
            ws_coll_t *co = &l->colls.v[k];
            ws_inst_t *in = &inst.v[memb_inst[mi]];
            ws_call_t *cl = &l->calls.v[co->call];
            bool barrier = co->op == OTF2_COLLECTIVE_OP_BARRIER;
            if (barrier || is_nxn(co->op)) {
                if (in->max_enter > cl->enter)
                    ADD(barrier ? WS_WAIT_BARRIER : WS_WAIT_NXN, cl,
                        min64(in->max_enter, cl->leave) - cl->enter);
                /* After the first member left; never overlapping the wait. */
                uint64_t from = in->min_leave;
                if (from < min64(in->max_enter, cl->leave)) from = min64(in->max_enter, cl->leave);
                if (from < cl->enter) from = cl->enter;
                if (cl->leave > from)
                    ADD(barrier ? WS_BARRIER_COMPLETION : WS_NXN_COMPLETION, cl, cl->leave - from);
            } else if (is_1ton(co->op)) {
                if (l->rank != in->root && in->root_enter != UINT64_MAX &&
                    in->root_enter > cl->enter)
                    ADD(WS_LATE_BCAST, cl, min64(in->root_enter, cl->leave) - cl->enter);
            } else if (is_nto1(co->op)) {
                if (l->rank == in->root && in->first_other != UINT64_MAX &&
                    in->first_other > cl->enter)
                    ADD(WS_EARLY_REDUCE, cl, min64(in->first_other, cl->leave) - cl->enter);
            }
        }
#undef ADD
    }
    free(memb_inst);
    free(inst.v);
    for (size_t i = 0; i < c->nlocs; i++) free(wt[i]);
    free(wt);
    /* Sites: every MPI call path, the ones with waiting time first. */
    r->sites = calloc(nn ? nn : 1, sizeof *r->sites);
    for (size_t s = 0; s < nn; s++) {
        uint64_t *v = &site_ns[s * (WS_NPATTERNS + 2)];
        if (!v[WS_NPATTERNS + 1]) continue;
        ws_site_t *o = &r->sites[r->nsites++];
        memcpy(o->ns, v, sizeof o->ns);
        o->mpi_ns = v[WS_NPATTERNS];
        o->calls = v[WS_NPATTERNS + 1];
        o->name = site_string(c, (uint32_t)s, o);
    }
    free(site_ns);
    if (r->nsites > 1) qsort(r->sites, (size_t)r->nsites, sizeof *r->sites, cmp_site);
    r->match_s = now_s() - t1;
    if (c->progress) fprintf(stderr, "\r\033[K");
    free_ctx(c);
    return r;
}

void ws_free(ws_result_t *r)
{
    if (!r) return;
    for (int i = 0; i < r->nsites; i++) {
        free(r->sites[i].name), free(r->sites[i].function), free(r->sites[i].path);
        free(r->sites[i].file);
    }
    free(r->sites);
    free(r->rank_ns);
    free(r->rank_mpi_ns);
    free(r);
}

int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel)
{
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"tool\": \"mpiscope\",\n  \"kind\": \"waitstates\",\n");
    fprintf(f, "  \"trace\": ");
    msc_json_put_string(f, trace_rel);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"locations\": %llu,\n  \"events\": %llu,\n", r->ranks,
            (unsigned long long)r->locations, (unsigned long long)r->events);
    fprintf(f, "  \"messages\": %llu,\n  \"unmatched\": %llu,\n  \"collectives\": %llu,\n",
            (unsigned long long)r->messages, (unsigned long long)r->unmatched,
            (unsigned long long)r->collectives);
    fprintf(f, "  \"analysis\": {\"processes\": %d, \"read_s\": %.6f, \"match_s\": %.6f},\n",
            r->processes > 0 ? r->processes : 1, r->read_s, r->match_s);
    fprintf(f, "  \"mpi_ns\": %llu,\n  \"patterns\": [", (unsigned long long)r->mpi_ns);
    for (int p = 0; p < WS_NPATTERNS; p++) {
        const char *t = ws_pattern_title[p];
        while (*t == ' ') t++;
        fprintf(f, "%s\n    {\"id\": \"%s\", \"title\": ", p ? "," : "", ws_pattern_id[p]);
        msc_json_put_string(f, t);
        fprintf(f, ", \"part_of\": %s, \"time_ns\": %llu, \"instances\": %llu}",
                p == WS_LATE_SENDER_WO ? "\"late_sender\"" : "null", (unsigned long long)r->ns[p],
                (unsigned long long)r->instances[p]);
    }
    fprintf(f, "\n  ],\n  \"per_rank\": [");
    for (int k = 0; k < r->ranks; k++) {
        fprintf(f, "%s\n    {\"rank\": %d, \"mpi_ns\": %llu", k ? "," : "", k,
                (unsigned long long)r->rank_mpi_ns[k]);
        for (int p = 0; p < WS_NPATTERNS; p++)
            fprintf(f, ", \"%s\": %llu", ws_pattern_id[p],
                    (unsigned long long)r->rank_ns[(size_t)k * WS_NPATTERNS + p]);
        fputc('}', f);
    }
    fprintf(f, "\n  ],\n  \"callsites\": [");
    for (int i = 0; i < r->nsites; i++) {
        const ws_site_t *s = &r->sites[i];
        fprintf(f, "%s\n    {\"site\": ", i ? "," : "");
        msc_json_put_string(f, s->name);
        fprintf(f, ", \"function\": ");
        msc_json_put_string(f, s->function);
        fprintf(f, ", \"path\": ");
        msc_json_put_string(f, s->path);
        fprintf(f, ", \"file\": ");
        msc_json_put_string(f, s->file);
        fprintf(f, ", \"line\": %u, \"calls\": %llu, \"mpi_ns\": %llu", s->line,
                (unsigned long long)s->calls, (unsigned long long)s->mpi_ns);
        for (int p = 0; p < WS_NPATTERNS; p++)
            fprintf(f, ", \"%s\": %llu", ws_pattern_id[p], (unsigned long long)s->ns[p]);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}
