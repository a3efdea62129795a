/* Private to the analysis engine. Wait-state analysis of an OTF2 trace
 * (Scalasca's patterns), see waitstate.c and docs/report.md. */
#ifndef MSC_CLI_WAITSTATE_H
#define MSC_CLI_WAITSTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    WS_LATE_SENDER,
    WS_LATE_SENDER_WO, /* part of WS_LATE_SENDER */
    WS_LATE_RECEIVER,
    WS_WAIT_BARRIER,
    WS_WAIT_NXN,
    WS_LATE_BCAST,
    WS_EARLY_REDUCE,
    WS_BARRIER_COMPLETION,
    WS_NXN_COMPLETION,
    WS_NPATTERNS
} ws_pattern_t;

/* JSON key and title of each pattern. */
extern const char *const ws_pattern_id[WS_NPATTERNS];
extern const char *const ws_pattern_title[WS_NPATTERNS];

typedef struct {
    char *name;       /* "MPI_Recv", with " @ file:line" and " in a > b" */
    char *function;   /* the MPI function */
    char *path;       /* enclosing user regions, outermost first ("" if none) */
    char *file;       /* "" if the trace has no source code location */
    uint32_t line;
    uint64_t ns[WS_NPATTERNS];
    uint64_t mpi_ns;  /* time in the calls of this site, all ranks */
    uint64_t calls;
} ws_site_t;

typedef struct {
    int ranks;
    uint64_t locations;
    uint64_t events;         /* events read */
    uint64_t messages;       /* matched point-to-point messages */
    uint64_t unmatched;      /* sends or receives without a partner */
    uint64_t collectives;    /* collective operations (instances) */
    double read_s, match_s;  /* seconds: reading, matching and patterns */
    uint64_t ns[WS_NPATTERNS];
    uint64_t instances[WS_NPATTERNS];
    uint64_t *rank_ns;       /* [rank * WS_NPATTERNS + pattern] */
    uint64_t *rank_mpi_ns;   /* [rank]: time in MPI calls */
    ws_site_t *sites;        /* sorted by waiting time, most first */
    int nsites;
    uint64_t mpi_ns;         /* time in MPI calls, all ranks */
    int processes;           /* analysis processes (1: this one alone) */
} ws_result_t;

typedef enum { WS_SUM, WS_MIN, WS_MAX } ws_reduce_t;

/* Analyses the archive `anchor` (…/traces.otf2) in this process. `progress`
 * prints progress lines on stderr. Returns NULL with a message in err. */
ws_result_t *ws_analyze(const char *anchor, bool progress, char *err, size_t errlen);
void ws_free(ws_result_t *r);

/* The two phases apart, for the analysis under MPI (tools/analysis/mpi/). ws_read
 * reads the locations of part `part` of `nparts` (whole ranks in
 * contiguous blocks; ws_part_owns says which). ws_finish matches and
 * classifies them, every part at once: the parts exchange what the others
 * need through `net` (NULL: one part, no exchange), and frees c. Every
 * part gets the totals; the call sites are merged on part 0 only. */
typedef struct ws_ctx ws_ctx_t;
typedef struct {
    int part, nparts;
    void *u;
    /* All-to-all: `send` holds scount[q] records of `size` bytes for each
     * part q in turn; *recv (malloc'd) receives rcount[q] records from
     * each part q in turn. */
    void (*alltoallv)(void *u, const void *send, const uint64_t *scount, size_t size,
                     void **recv, uint64_t *rcount);
    /* v[0..n) reduced element-wise over the parts, in place; for WS_MIN
     * and WS_MAX every value is below 2^63. An exchange that fails ends
     * the analysis (it cannot stay in step otherwise). */
    void (*allreduce)(void *u, uint64_t *v, size_t n, ws_reduce_t op);
    /* Part 0 receives the `len` bytes of every part: *all (malloc'd) holds
     * them in part order, lens[q] (nparts entries, malloc'd) their sizes;
     * on the other parts *all is NULL. */
    void (*gather)(void *u, const void *p, size_t len, void **all, uint64_t **lens);
} ws_net_t;
ws_ctx_t *ws_read(const char *anchor, int part, int nparts, bool progress, char *err,
                  size_t errlen);
bool ws_part_owns(const ws_ctx_t *c, size_t loc, int part, int nparts);
uint64_t ws_ctx_events(const ws_ctx_t *c);
ws_result_t *ws_finish(ws_ctx_t *c, const ws_net_t *net);
void ws_ctx_free(ws_ctx_t *c);

/* waitstates.json (schema in docs/report.md). Returns 0 or -1. */
int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel);

#endif
