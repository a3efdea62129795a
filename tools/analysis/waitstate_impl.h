/* Private to the wait-state analysis: what phase 1 (waitstate.c, reading)
 * leaves for phase 2 (waitstate_match.c, matching and classifying), see
 * waitstate.c for the design. A context holds the records of the locations
 * its part read; the others stay empty. */
#ifndef MSC_CLI_WAITSTATE_IMPL_H
#define MSC_CLI_WAITSTATE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spill.h"
#include "trace_reader.h"
#include "waitstate.h"

/* What an MPI region does, from its name. */
enum { K_OTHER, K_RECV, K_SEND, K_SENDRECV, K_WAIT, K_TEST };

/* 16 bytes: phase 1 writes one per MPI call; what phase 2 finds out about
 * a call is kept apart (waitstate_match.c). The region is the call site's
 * (ws_call_region); the leave is enter + dur (ws_leave), or, when dur is
 * WS_LONG (a call of 2^32 ticks or more, or a leave before the enter in a
 * damaged trace), in the location's `longs`. */
typedef struct {
    uint64_t enter;        /* ticks */
    uint32_t dur;          /* leave - enter (ticks), or WS_LONG */
    uint32_t site;         /* call-site node */
} ws_call_t;
#define WS_LONG UINT32_MAX

/* A value kept apart, keyed by call (12 bytes): the leave of a call whose
 * dur is WS_LONG, or the region length of a gap whose len is WS_LONG. */
typedef struct {
    uint32_t call;
    uint32_t leave_lo, leave_hi; /* the value (a leave, or a length for glongs) */
} ws_long_t;

/* 12 bytes per message end, and 8 more (ws_chan_t: communicator and tag)
 * until the messages are matched. */
typedef struct {
    uint32_t call;
    int32_t peer; /* world rank of the other end */
    uint32_t bytes; /* message size, UINT32_MAX from 4 GiB on (the what-if replay's transfer time) */
} ws_msg_t;
typedef struct {
    uint32_t comm, tag;
} ws_ct_t;

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
            void *p_ = ws_mrealloc((vec).v, nc_ * sizeof *(vec).v);                      \
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
    int64_t call;    /* index in calls, or -1 for a user region */
    uint64_t enter;  /* ticks */
    uint64_t ncalls; /* calls of the location when the frame was entered */
} ws_frame_t;

/* A user (VT_) region entered and left between two MPI calls: the
 * computation before call `call` took place in it (the longest such region
 * of that gap is kept). 12 bytes, only where user regions are used. */
typedef struct {
    uint32_t call, node;
    uint32_t len; /* ticks in the region, WS_LONG: in the location's glongs (ws_region_len) */
} ws_gap_t;

typedef struct {
    int rank;
    uint64_t mpi_ns;       /* time in its MPI calls */
    VEC(ws_call_t) calls;
    VEC(ws_msg_t) sends;
    VEC(ws_msg_t) recvs;
    VEC(ws_ct_t) send_ct;  /* per send, per receive: freed once matched */
    VEC(ws_ct_t) recv_ct;
    VEC(ws_coll_t) colls;
    VEC(ws_frame_t) stack;
    VEC(ws_gap_t) gaps;    /* sorted by call */
    VEC(ws_long_t) longs;  /* sorted by call (ws_call_t) */
    VEC(ws_long_t) glongs; /* sorted by call: gaps' region lengths from WS_LONG on */
    uint64_t t_first, t_last; /* first Enter and last Leave of any region (ticks) */
} ws_loc_t;

/* A call-site node: the call path (parent node, region, source location). */
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
    int part, nparts;     /* which locations were read (ws_part_owns) */
    /* call sites: hash-consed (parent, region, scl) */
    VEC(ws_node_t) nodes;
    VEC(ws_nsum_t) nsum;  /* per node */
    double tick_ns;       /* ns per tick */
    uint32_t *node_hash;
    size_t node_hash_cap;
    ws_loc_t *cur;
    uint64_t events;
    uint64_t unreadable; /* locations msc_trace_read could not read whole */
    double t0, read_s;
    bool oom, progress;
    size_t done, todo;
    uint64_t prev_ev;     /* events that would size the last location's arrays */
    msc_an_opts_t opts;   /* what the passes after the wait states do */
};

/* ---- what matching leaves for the passes (waitstate_match.c) ---------------- */

/* What the wait-state pass finds out about a call: 8 bytes. A waiting time
 * of WS_LS_BIG (WS_LR_BIG) ticks or more is WS_LS_BIG (WS_LR_BIG) here and
 * exact in the pass's table of long waits: read them with ws_ls and ws_lr,
 * raise them with ws_wait_max. */
typedef struct {
    uint32_t ls;           /* Late Sender waiting (ticks) */
    uint32_t lr : 29;      /* Late Receiver waiting (ticks) */
    uint32_t flags : 3;    /* F_* */
} ws_wait_t;
#define WS_LS_BIG UINT32_MAX
#define WS_LR_BIG ((1u << 29) - 1)
typedef struct {
    uint64_t key, val;     /* key 0: empty */
} ws_wlong_t;
enum { F_WRONG_ORDER = 1, F_LS_DONE = 2, F_LR_DONE = 4 };

/* A send that arrived at the part of its receiver (32 bytes), kept for the
 * passes: index g in the part's arrival order. */
typedef struct {
    uint32_t comm, tag;
    int32_t src, dst;      /* world ranks */
    uint64_t enter;        /* of the send call (ticks) */
    uint32_t loc, call;    /* the send call, on the sender's part */
} ws_xsend_t;

/* A stretch of the critical path on one location: [from, to) in ticks,
 * computation and MPI alike (consecutive ones on a location are merged). */
typedef struct {
    uint64_t from, to;
    uint32_t loc;
} ws_cpseg_t;
enum { WS_CP_SEGS = 20000 };

/* What the passes keep of an arrived send once matched (16 bytes). */
typedef struct {
    uint64_t enter;        /* of the send call (ticks) */
    uint32_t loc, call;    /* the send call, on the sender's part */
} ws_sent_t;

#define WS_NONE32 UINT32_MAX
#define WS_NONE64 ((uint64_t)INT64_MAX) /* reductions take values below 2^63 */

/* The matches every pass shares. Per message: 16 bytes (in), 4 (g_loc),
 * 4 on the receive (recv_g) and 4 on the send (send_j); per collective
 * instance 8 words; per call the wait-state findings (24 bytes). */
typedef struct {
    int np, me;
    int *owner;            /* world rank -> part */
    ws_sent_t *in;         /* sends that arrived here, by g */
    uint64_t nin;
    uint32_t *g_loc;       /* receiving location of g, WS_NONE32 if no receive took it */
    uint64_t *rdispl;      /* first g of the sends from each part */
    uint32_t **recv_g;     /* per location, per receive record: its g, or WS_NONE32 */
    uint32_t **send_j;     /* per location, per send record: its index in the block to its
                            * receiver's part, or WS_NONE32 (no receiver rank) */
    ws_wait_t **wt;        /* per location, per call */
    /* collective instances (the k-th on a communicator) */
    uint64_t ninst;
    uint64_t *agg;         /* [n] latest enter; [3n] first leave, root's enter, first other's */
    uint64_t *members;     /* [n] members that recorded the instance */
    uint64_t *last;        /* [n] (location << 32 | call) of the latest member */
    uint64_t *root;        /* [n] (location << 32 | call) of the root, WS_NONE64 if none */
    uint32_t **memb;       /* per location, per collective record: its instance */
    uint64_t t0, t_end;    /* first MPI call entered, last one left (ticks, all parts) */
    uint64_t *gap_tot;     /* [3 * nodes] computation per gap code (ticks; the ideal replay
                            * sums it, the critical path's imbalance uses it) */
    ws_wlong_t *wl;        /* long waits: open addressing by (location, call, which) */
    size_t wl_n, wl_cap;
    /* The critical path's stretches on this part's locations, latest first
     * (critpath.c records them for the timeline only, at most WS_CP_SEGS). */
    ws_cpseg_t *cp_seg;
    size_t cp_nseg, cp_capseg;
    uint64_t cp_total;     /* stretches walked here, kept or not */
} ws_pass_t;

/* Long waits (see ws_wait_t): the exact value of `which` (0 Late Sender,
 * 1 Late Receiver) of call k of location i; raising one (ws_wait_max). */
uint64_t ws_wait_long(const ws_pass_t *p, size_t i, uint32_t k, int which);
void ws_wait_long_set(ws_pass_t *p, size_t i, uint32_t k, int which, uint64_t v);
static inline uint64_t ws_ls(const ws_pass_t *p, size_t i, uint32_t k)
{
    uint32_t v = p->wt[i][k].ls;
    return v != WS_LS_BIG ? v : ws_wait_long(p, i, k, 0);
}
static inline uint64_t ws_lr(const ws_pass_t *p, size_t i, uint32_t k)
{
    uint32_t v = p->wt[i][k].lr;
    return v != WS_LR_BIG ? v : ws_wait_long(p, i, k, 1);
}
/* Raises a waiting time to w if w is larger. */
static inline void ws_wait_max(ws_pass_t *p, size_t i, uint32_t k, int which, uint64_t w)
{
    ws_wait_t *x = &p->wt[i][k];
    if (w <= (which ? ws_lr(p, i, k) : ws_ls(p, i, k))) return;
    if (which == 0 && w < WS_LS_BIG) x->ls = (uint32_t)w;
    else if (which == 1 && w < WS_LR_BIG) x->lr = (uint32_t)w;
    else ws_wait_long_set(p, i, k, which, w);
}

/* Exchanges of the passes: one part needs none. */
static inline bool ws_alone(const ws_net_t *n) { return !n || n->nparts <= 1; }
/* The all-to-all of net, or with one part the records themselves. Takes
 * `send` (malloc'd) and returns what arrived (malloc'd). */
void *ws_exchange(const ws_net_t *n, void *send, const uint64_t *scount, size_t size,
                  uint64_t *rcount);
void ws_reduce(const ws_net_t *n, uint64_t *v, size_t len, ws_reduce_t op);
void *ws_xmalloc(size_t n);
void *ws_xcalloc(size_t n, size_t size);
/* The same for the per-event arrays: they may live in the spill file
 * (spill.c); free them with ws_mfree. */
void *ws_bigx_malloc(size_t n);
void *ws_bigx_calloc(size_t n, size_t size);
/* "MPI_Recv @ f.c:3 in a > b" for node `node`; fills s's other strings if s. */
char *ws_site_string(ws_ctx_t *c, uint32_t node, ws_site_t *s);
/* Gathers text from every part to part 0 (NULL elsewhere), NUL-terminated. */
char *ws_gather_text(const ws_net_t *net, const char *text, size_t len);

/* The value of `call` in a sorted table of long values. */
uint64_t ws_long_find(const ws_long_t *v, size_t n, uint32_t call);
static inline uint64_t ws_leave_long(const ws_loc_t *l, uint32_t call)
{
    return ws_long_find(l->longs.v, l->longs.n, call);
}
/* The ticks in the user region of gap `g` of location l. */
static inline uint64_t ws_region_len(const ws_loc_t *l, const ws_gap_t *g)
{
    return g->len != WS_LONG ? g->len : ws_long_find(l->glongs.v, l->glongs.n, g->call);
}
/* The leave of call `cl` of location l (ticks). */
static inline uint64_t ws_leave(const ws_loc_t *l, const ws_call_t *cl)
{
    return cl->dur != WS_LONG ? cl->enter + cl->dur
                              : ws_leave_long(l, (uint32_t)(cl - l->calls.v));
}
/* The MPI region of call `cl`. */
static inline uint32_t ws_call_region(const ws_ctx_t *c, const ws_call_t *cl)
{
    return c->nodes.v[cl->site].region;
}

/* A location's span: from its first event to its last (at least its MPI
 * calls'). Only for locations with calls. */
static inline uint64_t ws_loc_begin(const ws_loc_t *l)
{
    return l->t_first < l->calls.v[0].enter ? l->t_first : l->calls.v[0].enter;
}
static inline uint64_t ws_loc_end(const ws_loc_t *l)
{
    uint64_t e = ws_leave(l, &l->calls.v[l->calls.n - 1]);
    return l->t_last > e ? l->t_last : e;
}
/* The computation before call k (k = calls.n: after the last call), ticks. */
static inline uint64_t ws_gap_len(const ws_loc_t *l, uint64_t k)
{
    uint64_t a = k ? ws_leave(l, &l->calls.v[k - 1]) : ws_loc_begin(l);
    uint64_t b = k < l->calls.n ? l->calls.v[k].enter : ws_loc_end(l);
    return b > a ? b - a : 0;
}

/* The site of the computation before call k of l (k = calls.n: after the
 * last call): the code of a node and how the computation relates to it
 * (critpath.c); *region_len (if not NULL) the ticks spent in a user region
 * of the gap, 0 if none. */
#define WS_GAP_BEFORE 0x80000000u /* before the MPI call of that node */
#define WS_GAP_AFTER 0x40000000u  /* after it: the last call of the location */
#define WS_GAP_NODE(code) ((code) & 0x3fffffffu)
#define WS_GAP_KIND(code) ((code) >> 30) /* 0 in the region, 1 after, 2 before */
uint32_t ws_gap_code(const ws_loc_t *l, uint64_t k, uint64_t *region_len);

/* Kinds of collective operation (OTF2's): N×N, one to N, N to one. */
bool ws_is_nxn(uint32_t op);
bool ws_is_1ton(uint32_t op);
bool ws_is_nto1(uint32_t op);

/* The passes after the wait states (replay.c, critpath.c). */
void ws_pass_replay(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r);
void ws_pass_critpath(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r);
void ws_pass_timeline(ws_ctx_t *c, ws_pass_t *p, const ws_net_t *net, ws_result_t *r);
/* The sections those passes add to waitstates.json (analysis_json.c). */
void ws_write_json_analyses(FILE *f, const ws_result_t *r);

/* The node (parent, region, scl), created on first use; UINT32_MAX when out
 * of memory. */
uint32_t ws_site_of(ws_ctx_t *c, uint32_t parent, uint32_t region, uint32_t scl);
uint64_t ws_mix(uint64_t x);
/* `bytes` of memory; from 4 MiB on aligned to 2 MiB and offered
 * transparent huge pages: one page fault per 2 MiB instead of per 4 KiB
 * (fresh memory is the dearest part of reading and matching). NULL when
 * out of memory; free() frees it. */
void *ws_alloc(size_t bytes);
double ws_now_s(void);
/* The progress line on stderr (only if `on`), erased at the end. */
void ws_progress_line(bool on, const char *what, size_t a, size_t b, uint64_t ev);

static inline uint64_t ws_min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Ticks to ns, rounded; exact (no floating point) for a nanosecond clock. */
static inline uint64_t ws_to_ns(double tick_ns, uint64_t ticks)
{
    return tick_ns == 1.0 ? ticks : (uint64_t)((double)ticks * tick_ns + 0.5);
}

#endif
