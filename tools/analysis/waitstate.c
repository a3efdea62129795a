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
 * Memory: 16 bytes per MPI call and 12 per message end (8 more for its
 * communicator and tag until matched) while reading, and 8 more per call in
 * phase 2, with 32 per send in transit and 16 once matched; lengths that
 * do not fit the records' 32-bit fields go to exact side tables
 * (waitstate_impl.h, docs/analysis.md "Memory").
 *
 * Under MPI (mpi/mpiscope_analyze.c) both phases are split the way
 * Scalasca's replay splits them: each analysis process reads whole ranks'
 * locations (ws_read with its part) and matches and classifies them
 * (ws_finish, waitstate_match.c); each send travels to the process that
 * owns its receiver, which answers with the receive's start when the
 * receiver was late; collective instances are combined by reductions; the
 * call sites meet on process 0. The serial analysis is the same code with
 * one part, so the results are identical.
 */
#include "waitstate_impl.h"

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

uint64_t ws_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

uint32_t ws_site_of(ws_ctx_t *c, uint32_t parent, uint32_t region, uint32_t scl)
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
            uint64_t k = ws_mix(((uint64_t)n->parent << 32 | n->region) ^ ws_mix(n->scl)) & (cap - 1);
            while (h[k] != UINT32_MAX) k = (k + 1) & (cap - 1);
            h[k] = (uint32_t)i;
        }
        ws_mfree(c->node_hash);
        c->node_hash = h;
        c->node_hash_cap = cap;
    }
    size_t cap = c->node_hash_cap;
    uint64_t k = ws_mix(((uint64_t)parent << 32 | region) ^ ws_mix(scl)) & (cap - 1);
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

/* ---- helpers ---------------------------------------------------------- */

double ws_now_s(void)
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
        ws_mfree(l->calls.v), ws_mfree(l->sends.v), ws_mfree(l->recvs.v), ws_mfree(l->colls.v), ws_mfree(l->stack.v);
        ws_mfree(l->gaps.v), ws_mfree(l->longs.v), ws_mfree(l->glongs.v), ws_mfree(l->send_ct.v), ws_mfree(l->recv_ct.v);
    }
    ws_mfree(c->locs);
    ws_mfree(c->region_kind);
    ws_mfree(c->nodes.v);
    ws_mfree(c->nsum.v);
    ws_mfree(c->node_hash);
    msc_trace_close(c->t);
    ws_mfree(c);
}

/* ---- events -------------------------------------------------------------- */

/* One line, rewritten in place: only when stderr is a terminal (the caller
 * decides). */
void ws_progress_line(bool on, const char *what, size_t a, size_t b, uint64_t ev)
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
            void *p_ = ws_mrealloc((vec).v, (vec).n * sizeof *(vec).v);                    \
            if (p_) (vec).v = p_, (vec).cap = (vec).n;                                 \
        } else if (!(vec).n) {                                                         \
            ws_mfree((vec).v);                                                             \
            (vec).v = NULL, (vec).cap = 0;                                             \
        }                                                                              \
    } while (0)

static int cmp_long(const void *a, const void *b)
{
    uint32_t x = ((const ws_long_t *)a)->call, y = ((const ws_long_t *)b)->call;
    return x < y ? -1 : x > y;
}

/* A location is read: its stack goes, its arrays shrink to what they hold,
 * so that event counts in the definitions (not trusted) cost nothing. */
static void done_location(ws_loc_t *l)
{
    ws_mfree(l->stack.v);
    l->stack.v = NULL;
    l->stack.n = l->stack.cap = 0;
    FIT(l->calls);
    FIT(l->sends);
    FIT(l->recvs);
    FIT(l->send_ct);
    FIT(l->recv_ct);
    FIT(l->colls);
    FIT(l->gaps);
    FIT(l->longs);
    FIT(l->glongs);
    /* Nested MPI calls leave inner first: longs sorted by call. */
    for (size_t k = 1; k < l->longs.n; k++)
        if (l->longs.v[k - 1].call > l->longs.v[k].call) {
            qsort(l->longs.v, l->longs.n, sizeof *l->longs.v, cmp_long);
            break;
        }
}

uint64_t ws_long_find(const ws_long_t *v, size_t n, uint32_t call)
{
    size_t a = 0, b = n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        if (v[m].call < call) a = m + 1;
        else b = m;
    }
    if (a < n && v[a].call == call) return (uint64_t)v[a].leave_hi << 32 | v[a].leave_lo;
    return 0; /* not reached: every WS_LONG has its entry */
}

void *ws_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < 2 * huge) return malloc(bytes ? bytes : 1);
    bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = aligned_alloc(huge, bytes);
    if (p) madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

/* Room for `n` elements at once (a hint: failure is not an error), in
 * huge pages when large (ws_alloc). */
static void reserve(void **v, size_t *cap, size_t n, size_t elem)
{
    if (*cap || !n) return;
    if (n > ((size_t)1 << 20)) n = (size_t)1 << 20; /* beyond: the arrays grow */
    size_t bytes = n * elem;
    const size_t huge = (size_t)2 << 20;
    if (bytes >= 2 * huge) bytes = (bytes + huge - 1) & ~(huge - 1);
    void *p = ws_big_alloc(bytes);
    if (p) *v = p, *cap = bytes / elem;
}

static void ev_location(void *u, size_t i)
{
    ws_ctx_t *c = u;
    if (c->cur) {
        /* what the last location held, a quarter more */
        ws_loc_t *k = c->cur;
        uint64_t e = 2 * (uint64_t)k->calls.n;
        if (3 * (uint64_t)k->sends.n > e) e = 3 * (uint64_t)k->sends.n;
        if (3 * (uint64_t)k->recvs.n > e) e = 3 * (uint64_t)k->recvs.n;
        if (4 * (uint64_t)k->gaps.n > e) e = 4 * (uint64_t)k->gaps.n;
        c->prev_ev = e + e / 4;
        done_location(c->cur);
    }
    c->cur = &c->locs[i];
    ws_progress_line(c->progress, "reading location", ++c->done, c->todo, c->events);
    /* The definition's event count sizes the arrays once: an MPI call is at
     * least 2 events, a message end 3 with its call, a user region 2 (and
     * may leave a gap record). Pages never written cost nothing, and
     * done_location shrinks the arrays to what they hold. A trace without
     * the counts (0) is sized like the location before it: the arrays
     * grow by doubling, a copy each time, only where that was too small. */
    uint64_t ev = c->t->loc[i].events;
    if (!ev) ev = c->prev_ev;
    ws_loc_t *l = c->cur;
    l->t_first = UINT64_MAX;
    reserve((void **)&l->calls.v, &l->calls.cap, ev / 2 + 1, sizeof *l->calls.v);
    reserve((void **)&l->sends.v, &l->sends.cap, ev / 3 + 1, sizeof *l->sends.v);
    reserve((void **)&l->recvs.v, &l->recvs.cap, ev / 3 + 1, sizeof *l->recvs.v);
    reserve((void **)&l->send_ct.v, &l->send_ct.cap, ev / 3 + 1, sizeof *l->send_ct.v);
    reserve((void **)&l->recv_ct.v, &l->recv_ct.cap, ev / 3 + 1, sizeof *l->recv_ct.v);
    reserve((void **)&l->gaps.v, &l->gaps.cap, ev / 4 + 1, sizeof *l->gaps.v);
}

static void ev_enter(void *u, uint64_t t, uint32_t region, uint32_t scl)
{
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    if (t < l->t_first) l->t_first = t;
    uint32_t parent = l->stack.n ? l->stack.v[l->stack.n - 1].site : UINT32_MAX;
    /* Most Enters repeat a recent (parent, region): a direct-mapped cache
     * in front of the hash table. */
    uint32_t slot = (parent * 2654435761u ^ region * 40503u ^ scl) & (WS_SITE_CACHE - 1);
    ws_sc_t *e = &c->site_cache[slot];
    uint32_t site;
    if (e->site != UINT32_MAX && e->parent == parent && e->region == region && e->scl == scl) {
        site = e->site;
    } else {
        site = ws_site_of(c, parent, region, scl);
        if (site == UINT32_MAX) return;
        *e = (ws_sc_t){parent, region, scl, site};
    }
    int64_t call = -1;
    if (msc_trace_region_is_mpi(c->t, region)) {
        call = (int64_t)l->calls.n;
        PUSH(c, l->calls, ((ws_call_t){.enter = t, .dur = 0, .site = site}),
             return);
        c->nsum.v[site].calls++;
        ws_spill_step();
    }
    PUSH(c, l->stack, ((ws_frame_t){region, site, call, t, l->calls.n}), return);
}

static void ev_leave(void *u, uint64_t t, uint32_t region)
{
    (void)region;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    if (!l->stack.n) return;
    if (t > l->t_last) l->t_last = t;
    ws_frame_t *f = &l->stack.v[--l->stack.n];
    if (f->call < 0) {
        /* A user region with no MPI call inside: the computation between two
         * calls was in it (the longest of the gap is kept), for the
         * critical path and the delay analysis (critpath.c). */
        if (f->ncalls == l->calls.n) {
            uint64_t len = t - f->enter;
            ws_gap_t g = {(uint32_t)l->calls.n, f->site, len < WS_LONG ? (uint32_t)len : WS_LONG};
            ws_long_t gl = {g.call, (uint32_t)len, (uint32_t)(len >> 32)};
            ws_gap_t *last = l->gaps.n ? &l->gaps.v[l->gaps.n - 1] : NULL;
            if (last && last->call == g.call) {
                if (len > ws_region_len(l, last)) {
                    /* only a longer one replaces it: a long one stays long */
                    if (last->len == WS_LONG) l->glongs.v[l->glongs.n - 1] = gl;
                    else if (g.len == WS_LONG) PUSH(c, l->glongs, gl, return);
                    *last = g;
                }
            } else {
                PUSH(c, l->gaps, g, return);
                if (g.len == WS_LONG) PUSH(c, l->glongs, gl, return);
            }
        }
        return;
    }
    /* The call's time is summed here, while it is in cache: phase 2 then
     * visits only the calls that took part in a message or collective. */
    ws_call_t *cl = &l->calls.v[f->call];
    uint64_t dt = t - cl->enter; /* a leave before the enter wraps: kept exactly below */
    if (dt < WS_LONG) {
        cl->dur = (uint32_t)dt;
    } else {
        cl->dur = WS_LONG;
        PUSH(c, l->longs, ((ws_long_t){(uint32_t)f->call, (uint32_t)t, (uint32_t)(t >> 32)}),
             return);
    }
    uint64_t d = ws_to_ns(c->tick_ns, dt);
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
    (void)t;
    ws_ctx_t *c = u;
    ws_loc_t *l = c->cur;
    uint32_t call = open_call(l);
    int32_t w = msc_trace_world(c->t, comm, l->rank, peer);
    if (call == UINT32_MAX || w < 0) return;
    ws_msg_t m = {call, w, bytes >= UINT32_MAX ? UINT32_MAX : (uint32_t)bytes};
    ws_ct_t ct = {comm, tag};
    if (send) {
        PUSH(c, l->sends, m, return);
        PUSH(c, l->send_ct, ct, return);
    } else {
        PUSH(c, l->recvs, m, return);
        PUSH(c, l->recv_ct, ct, return);
    }
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

/* Phase 1 for the locations of part `part` of `nparts`: whole ranks, in
 * contiguous blocks (all locations of a rank in one part, so the order of
 * a rank's sends on a channel is the serial one). */
ws_ctx_t *ws_read(const char *anchor, int part, int nparts, bool progress, char *err,
                  size_t errlen)
{
    double t0 = ws_now_s();
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
        ws_mfree(want);
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
    c->part = part, c->nparts = nparts;
    for (size_t i = 0; i < t->nloc; i++) {
        c->locs[i].rank = t->loc[i].rank;
        want[i] = ws_part_owns(c, i, part, nparts);
        c->todo += want[i];
    }
    static const msc_trace_cbs_t cbs = {.location = ev_location, .enter = ev_enter,
                                        .leave = ev_leave, .msg = ev_msg,
                                        .coll_end = ev_coll_end};
    int rc = msc_trace_read(t, want, &cbs, c, &c->events, err, errlen);
    c->unreadable = t->unreadable;
    ws_mfree(want);
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
    c->read_s = ws_now_s() - t0;
    return c;
}

uint64_t ws_ctx_events(const ws_ctx_t *c) { return c->events; }

bool ws_part_owns(const ws_ctx_t *c, size_t loc, int part, int nparts)
{
    long lo = (long)c->ranks * part / nparts, hi = (long)c->ranks * (part + 1) / nparts;
    return c->locs[loc].rank >= lo && c->locs[loc].rank < hi;
}

void ws_ctx_free(ws_ctx_t *c) { free_ctx(c); }

ws_result_t *ws_analyze(const char *anchor, bool progress, char *err, size_t errlen)
{
    ws_ctx_t *c = ws_read(anchor, 0, 1, progress, err, errlen);
    return c ? ws_finish(c, NULL) : NULL;
}

void ws_free(ws_result_t *r)
{
    if (!r) return;
    for (int i = 0; i < r->nsites; i++) {
        ws_mfree(r->sites[i].name), ws_mfree(r->sites[i].function), ws_mfree(r->sites[i].path);
        ws_mfree(r->sites[i].file);
    }
    ws_mfree(r->sites);
    ws_mfree(r->rank_ns);
    ws_mfree(r->rank_mpi_ns);
    ws_mfree(r->rank_useful_ns), ws_mfree(r->rank_ideal_end_ns);
    ws_mfree(r->rank_whatif_end_ns), ws_mfree(r->rank_whatif_mpi_ns);
    ws_mfree(r->rank_cp_comp_ns), ws_mfree(r->rank_cp_mpi_ns);
    for (int i = 0; i < r->ncp_sites; i++) ws_mfree(r->cp_sites[i].name);
    ws_mfree(r->cp_sites);
    for (int i = 0; i < r->ncauses; i++) ws_mfree(r->causes[i].name);
    ws_mfree(r->causes);
    ws_mfree(r->timeline);
    ws_mfree(r);
}

/* ---- the engine's interface (analysis.h) ---------------------------------------- */

msc_an_ctx_t *msc_an_read(const char *anchor, int part, int nparts, const msc_an_opts_t *o,
                          char *err, size_t errlen)
{
    ws_ctx_t *c = ws_read(anchor, part, nparts, o && o->progress, err, errlen);
    if (c && o) c->opts = *o;
    return c;
}

msc_an_result_t *msc_an_finish(msc_an_ctx_t *c, const msc_an_net_t *net)
{
    return ws_finish(c, net);
}

msc_an_result_t *msc_an_analyze(const char *anchor, const msc_an_opts_t *o, char *err,
                                size_t errlen)
{
    ws_ctx_t *c = msc_an_read(anchor, 0, 1, o, err, errlen);
    return c ? ws_finish(c, NULL) : NULL;
}

void msc_an_free(msc_an_result_t *r) { ws_free(r); }
void msc_an_ctx_free(msc_an_ctx_t *c) { ws_ctx_free(c); }
void msc_an_set_read_time(msc_an_result_t *r, double seconds) { r->read_s = seconds; }

int msc_an_write_json(FILE *f, const msc_an_result_t *r, const char *trace_rel)
{
    return ws_write_json(f, r, trace_rel);
}

int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel)
{
    fprintf(f, "{\n  \"schema_version\": 1,\n  \"tool\": \"mpiscope\",\n  \"kind\": \"waitstates\",\n");
    fprintf(f, "  \"trace\": ");
    msc_json_put_string(f, trace_rel);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"locations\": %llu,\n  \"events\": %llu,\n", r->ranks,
            (unsigned long long)r->locations, (unsigned long long)r->events);
    if (r->unreadable)
        fprintf(f, "  \"unreadable_locations\": %llu,\n", (unsigned long long)r->unreadable);
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
        if (r->rank_useful_ns)
            fprintf(f, ", \"useful_ns\": %llu, \"ideal_end_ns\": %llu",
                    (unsigned long long)r->rank_useful_ns[k],
                    (unsigned long long)r->rank_ideal_end_ns[k]);
        if (r->rank_whatif_end_ns)
            fprintf(f, ", \"whatif_end_ns\": %llu, \"whatif_mpi_ns\": %llu",
                    (unsigned long long)r->rank_whatif_end_ns[k],
                    (unsigned long long)r->rank_whatif_mpi_ns[k]);
        if (r->rank_cp_comp_ns)
            fprintf(f, ", \"critical_computation_ns\": %llu, \"critical_mpi_ns\": %llu",
                    (unsigned long long)r->rank_cp_comp_ns[k],
                    (unsigned long long)r->rank_cp_mpi_ns[k]);
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
    fprintf(f, "\n  ]");
    if (r->rank_useful_ns) ws_write_json_analyses(f, r);
    fprintf(f, "\n}\n");
    return ferror(f) ? -1 : 0;
}
