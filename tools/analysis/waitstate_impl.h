/* Private to the wait-state analysis: what phase 1 (waitstate.c, reading)
 * leaves for phase 2 (waitstate_match.c, matching and classifying), see
 * waitstate.c for the design. A context holds the records of the locations
 * its part read; the others stay empty. */
#ifndef MSC_CLI_WAITSTATE_IMPL_H
#define MSC_CLI_WAITSTATE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"
#include "waitstate.h"

/* What an MPI region does, from its name. */
enum { K_OTHER, K_RECV, K_SEND, K_SENDRECV, K_WAIT, K_TEST };

/* 24 bytes: phase 1 writes one per MPI call; what phase 2 finds out about
 * a call is kept apart (waitstate_match.c). */
typedef struct {
    uint64_t enter, leave; /* ticks */
    uint32_t region, site;
} ws_call_t;

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
    double t0, read_s;
    bool oom, progress;
    size_t done, todo;
};

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
