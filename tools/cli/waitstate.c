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
 * Memory: about 48 bytes per MPI call and 16 per message end.
 *
 * Under MPI (analyze/mpiscope_analyze.c) phase 1 is split: each analysis
 * process reads whole ranks' locations (ws_read with its part), packs what
 * it recorded (ws_pack), and process 0 merges the parts (ws_merge, which
 * renumbers the call-site nodes) and runs phase 2 on the same records the
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

typedef struct {
    uint64_t enter, leave; /* ticks */
    uint64_t ls, lr;       /* Late Sender, Late Receiver waiting (ticks) */
    uint32_t region, site;
    uint32_t flags;        /* F_* */
} ws_call_t;
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

static void free_stack(ws_loc_t *l)
{
    free(l->stack.v);
    l->stack.v = NULL;
    l->stack.n = l->stack.cap = 0;
}

/* Room for `n` elements at once (a hint: failure is not an error). Large
 * arrays are aligned to 2 MiB and offered transparent huge pages: one page
 * fault per 2 MiB instead of per 4 KiB is a tenth of the reading time. */
static void reserve(void **v, size_t *cap, size_t n, size_t elem)
{
    if (*cap || !n) return;
    if (n > ((size_t)1 << 24)) n = (size_t)1 << 24;
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
    if (c->cur) free_stack(c->cur);
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
    if (c->cur) free_stack(c->cur);
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

/* Pack layout (native byte order: all processes run on one kind of machine):
 *   u64 magic, u64 events, u64 nnodes, nnodes × ws_node_t, nnodes × ws_nsum_t,
 *   u64 number of locations, then per location read here:
 *   u64 index, ncalls, nsends, nrecvs, ncolls, mpi_ns, then the four arrays. */
#define WS_PACK_MAGIC 0x6d73637773706b31ULL /* "msc wspk1" */

static bool put(char **p, size_t *len, size_t *cap, const void *x, size_t n)
{
    if (*len + n > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (nc < *len + n) nc *= 2;
        char *q = realloc(*p, nc);
        if (!q) return false;
        *p = q, *cap = nc;
    }
    if (n) memcpy(*p + *len, x, n);
    *len += n;
    return true;
}

int ws_pack(const ws_ctx_t *c, const bool *mine, void **buf, size_t *len)
{
    char *p = NULL;
    size_t n = 0, cap = 0;
    uint64_t h[3] = {WS_PACK_MAGIC, c->events, c->nodes.n};
    bool ok = put(&p, &n, &cap, h, sizeof h) &&
              put(&p, &n, &cap, c->nodes.v, c->nodes.n * sizeof *c->nodes.v) &&
              put(&p, &n, &cap, c->nsum.v, c->nsum.n * sizeof *c->nsum.v);
    uint64_t count = 0;
    for (size_t i = 0; i < c->nlocs; i++) count += mine[i];
    ok = ok && put(&p, &n, &cap, &count, sizeof count);
    for (size_t i = 0; i < c->nlocs && ok; i++) {
        if (!mine[i]) continue;
        const ws_loc_t *l = &c->locs[i];
        uint64_t k[6] = {i, l->calls.n, l->sends.n, l->recvs.n, l->colls.n, l->mpi_ns};
        ok = put(&p, &n, &cap, k, sizeof k) &&
             put(&p, &n, &cap, l->calls.v, l->calls.n * sizeof *l->calls.v) &&
             put(&p, &n, &cap, l->sends.v, l->sends.n * sizeof *l->sends.v) &&
             put(&p, &n, &cap, l->recvs.v, l->recvs.n * sizeof *l->recvs.v) &&
             put(&p, &n, &cap, l->colls.v, l->colls.n * sizeof *l->colls.v);
    }
    if (!ok) {
        free(p);
        return -1;
    }
    *buf = p, *len = n;
    return 0;
}

bool ws_part_owns(const ws_ctx_t *c, size_t loc, int part, int nparts)
{
    long lo = (long)c->ranks * part / nparts, hi = (long)c->ranks * (part + 1) / nparts;
    return c->locs[loc].rank >= lo && c->locs[loc].rank < hi;
}

size_t ws_ctx_locations(const ws_ctx_t *c) { return c->nlocs; }

/* Copies n elements of `elem` bytes from the pack into a fresh array. */
static bool take(const char **p, const char *end, void **dst, size_t *dn, size_t *dcap,
                 uint64_t n, size_t elem)
{
    if (n > (uint64_t)(end - *p) / elem) return false;
    void *v = malloc(n ? n * elem : 1);
    if (!v) return false;
    memcpy(v, *p, n * elem);
    *p += n * elem;
    *dst = v, *dn = n, *dcap = n;
    return true;
}

int ws_merge(ws_ctx_t *c, const void *buf, size_t len, char *err, size_t errlen)
{
    const char *p = buf, *end = p + len;
    uint64_t h[3];
    if (len < sizeof h + 8) goto bad;
    memcpy(h, p, sizeof h);
    p += sizeof h;
    if (h[0] != WS_PACK_MAGIC ||
        h[2] > (uint64_t)(end - p) / (sizeof(ws_node_t) + sizeof(ws_nsum_t)))
        goto bad;
    /* Renumber the sender's nodes into ours: parents come before children. */
    uint32_t *map = malloc((h[2] ? h[2] : 1) * sizeof *map);
    if (!map) goto oom;
    for (uint64_t i = 0; i < h[2]; i++) {
        ws_node_t nd;
        memcpy(&nd, p + i * sizeof nd, sizeof nd);
        uint32_t parent = nd.parent == UINT32_MAX ? UINT32_MAX
                          : nd.parent < i        ? map[nd.parent]
                                                 : UINT32_MAX - 1;
        if (parent == UINT32_MAX - 1 || (map[i] = site_of(c, parent, nd.region, nd.scl)) ==
                                            UINT32_MAX) {
            free(map);
            if (c->oom) goto oom;
            goto bad;
        }
    }
    p += h[2] * sizeof(ws_node_t);
    for (uint64_t i = 0; i < h[2]; i++, p += sizeof(ws_nsum_t)) {
        ws_nsum_t ns;
        memcpy(&ns, p, sizeof ns);
        c->nsum.v[map[i]].mpi_ns += ns.mpi_ns;
        c->nsum.v[map[i]].calls += ns.calls;
    }
    uint64_t count;
    if ((size_t)(end - p) < sizeof count) goto bad_map;
    memcpy(&count, p, sizeof count);
    p += sizeof count;
    for (uint64_t j = 0; j < count; j++) {
        uint64_t k[6];
        if ((size_t)(end - p) < sizeof k) goto bad_map;
        memcpy(k, p, sizeof k);
        p += sizeof k;
        if (k[0] >= c->nlocs) goto bad_map;
        ws_loc_t *l = &c->locs[k[0]];
        free(l->calls.v), free(l->sends.v), free(l->recvs.v), free(l->colls.v);
        l->calls.v = NULL, l->sends.v = l->recvs.v = NULL, l->colls.v = NULL;
        l->calls.n = l->sends.n = l->recvs.n = l->colls.n = 0;
        l->calls.cap = l->sends.cap = l->recvs.cap = l->colls.cap = 0;
        l->mpi_ns = k[5];
        if (!take(&p, end, (void **)&l->calls.v, &l->calls.n, &l->calls.cap, k[1],
                  sizeof *l->calls.v) ||
            !take(&p, end, (void **)&l->sends.v, &l->sends.n, &l->sends.cap, k[2],
                  sizeof *l->sends.v) ||
            !take(&p, end, (void **)&l->recvs.v, &l->recvs.n, &l->recvs.cap, k[3],
                  sizeof *l->recvs.v) ||
            !take(&p, end, (void **)&l->colls.v, &l->colls.n, &l->colls.cap, k[4],
                  sizeof *l->colls.v))
            goto bad_map;
        for (size_t i = 0; i < l->calls.n; i++) {
            ws_call_t *cl = &l->calls.v[i];
            if (cl->site >= h[2] || cl->region >= c->t->nregion) goto bad_map;
            cl->site = map[cl->site];
        }
        /* Records refer to their own location's calls. */
        for (size_t i = 0; i < l->sends.n; i++)
            if (l->sends.v[i].call >= l->calls.n) goto bad_map;
        for (size_t i = 0; i < l->recvs.n; i++)
            if (l->recvs.v[i].call >= l->calls.n) goto bad_map;
        for (size_t i = 0; i < l->colls.n; i++)
            if (l->colls.v[i].call >= l->calls.n || l->colls.v[i].comm >= c->t->ncomm)
                goto bad_map;
    }
    free(map);
    c->events += h[1];
    return 0;
bad_map:
    free(map);
bad:
    snprintf(err, errlen, "a part of the analysis is malformed");
    return -1;
oom:
    snprintf(err, errlen, "out of memory merging the analysis");
    return -1;
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
            sent_at[k] = sc->enter;
            int rk = c->region_kind[rc->region], sk = c->region_kind[sc->region];
            if ((rk == K_RECV || rk == K_SENDRECV || rk == K_WAIT) && sc->enter > rc->enter) {
                uint64_t w = min64(sc->enter, rc->leave) - rc->enter;
                if (w > rc->ls) rc->ls = w;
            }
            if ((sk == K_SEND || sk == K_SENDRECV) && rc->enter > sc->enter) {
                uint64_t w = min64(rc->enter, sc->leave) - sc->enter;
                if (w > sc->lr) sc->lr = w;
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
            ws_call_t *rc = &l->calls.v[call];
            if (rc->ls && min_after < rc->enter) rc->flags |= F_WRONG_ORDER;
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
            if (!cl->ls || (cl->flags & F_LS_DONE)) continue;
            cl->flags |= F_LS_DONE;
            ADD(WS_LATE_SENDER, cl, cl->ls);
            if (cl->flags & F_WRONG_ORDER) ADD(WS_LATE_SENDER_WO, cl, cl->ls);
        }
        for (size_t k = 0; k < l->sends.n; k++) {
            ws_call_t *cl = &l->calls.v[l->sends.v[k].call];
            if (!cl->lr || (cl->flags & F_LR_DONE)) continue;
            cl->flags |= F_LR_DONE;
            /* A Sendrecv waits for both ends at once: a Late Sender wins. */
            if (!(cl->ls && c->region_kind[cl->region] == K_SENDRECV))
                ADD(WS_LATE_RECEIVER, cl, cl->lr);
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

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel)
{
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"tool\": \"mpiscope\",\n  \"kind\": \"waitstates\",\n");
    fprintf(f, "  \"trace\": ");
    jstr(f, trace_rel);
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
        jstr(f, t);
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
        jstr(f, s->name);
        fprintf(f, ", \"function\": ");
        jstr(f, s->function);
        fprintf(f, ", \"path\": ");
        jstr(f, s->path);
        fprintf(f, ", \"file\": ");
        jstr(f, s->file);
        fprintf(f, ", \"line\": %u, \"calls\": %llu, \"mpi_ns\": %llu", s->line,
                (unsigned long long)s->calls, (unsigned long long)s->mpi_ns);
        for (int p = 0; p < WS_NPATTERNS; p++)
            fprintf(f, ", \"%s\": %llu", ws_pattern_id[p], (unsigned long long)s->ns[p]);
        fputc('}', f);
    }
    fprintf(f, "\n  ]\n}\n");
    return ferror(f) ? -1 : 0;
}
