/* The trace-analysis engine's interface (docs/analysis.md), used by the
 * `mpiscope` program (report, replay), the analysis under MPI
 * (mpi/mpiscope_analyze.c), the unit tests and the benchmark. Nothing else
 * of tools/analysis/ is meant to be included from outside it.
 *
 * Design, after Scalasca's PEARL: one engine reads the trace (each part its
 * whole ranks), matches messages and collective instances once, and then
 * runs its passes over the same records, in this order:
 *   1. wait states (forward: Scalasca's patterns, waitstate_match.c);
 *   2. replay on an ideal network, and on a modelled one when asked
 *      (forward, replay.c): POP's Serialization and Transfer Efficiency,
 *      the what-if prediction;
 *   3. delay (backward: the computation that caused each wait) and the
 *      critical path (backward from the end of the run), critpath.c.
 * One part or many: the parts exchange what the others need through
 * msc_an_net_t, and with one part there is no exchange at all, so the
 * analysis in one process and under MPI give the same result.
 */
#ifndef MSC_ANALYSIS_H
#define MSC_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { MSC_AN_SUM, MSC_AN_MIN, MSC_AN_MAX } msc_an_reduce_t;

/* How the parts of an analysis talk (mpi/ gives them MPI; the unit test
 * threads). NULL or nparts 1: one part, no exchange. */
typedef struct {
    int part, nparts;
    void *u;
    /* All-to-all: `send` holds scount[q] records of `size` bytes for each
     * part q in turn; *recv (malloc'd) receives rcount[q] records from
     * each part q in turn. */
    void (*alltoallv)(void *u, const void *send, const uint64_t *scount, size_t size,
                      void **recv, uint64_t *rcount);
    /* v[0..n) reduced element-wise over the parts, in place; for MIN and
     * MAX every value is below 2^63. An exchange that fails ends the
     * analysis (it cannot stay in step otherwise). */
    void (*allreduce)(void *u, uint64_t *v, size_t n, msc_an_reduce_t op);
    /* Part 0 receives the `len` bytes of every part: *all (malloc'd) holds
     * them in part order, lens[q] (nparts entries, malloc'd) their sizes;
     * on the other parts *all is NULL. */
    void (*gather)(void *u, const void *p, size_t len, void **all, uint64_t **lens);
} msc_an_net_t;

/* A change of the computation for the what-if replay: the time between
 * MPI calls of ranks [rank_lo, rank_hi] (all ranks: 0 and INT32_MAX), or
 * only inside the user (VT_) region `region` (NULL: any), times `factor`. */
typedef struct {
    int32_t rank_lo, rank_hi;
    const char *region;
    double factor;
} msc_an_scale_t;

typedef struct {
    bool progress;        /* a progress line on stderr */
    bool whatif;          /* replay on the network below too */
    double latency_s;     /* per message, and per step of a collective */
    double bandwidth_Bps; /* bytes per second; 0: infinite */
    const msc_an_scale_t *scale;
    size_t nscale;
    bool timeline;        /* the HTML timeline's data too (timeline.c) */
    bool window;          /* its exact calls in this window only (timeline_windows.c) */
    uint64_t window_from_ns, window_to_ns; /* after the run's start */
} msc_an_opts_t;

/* Parses one option (--latency, --bandwidth, --scale, --timeline 0|1, --window A:B; syntax in
 * analysis_opts.c) with its value into o: 1 if it was one, 0 if `opt` is
 * not one of them, -1 with a message in err for a bad value. */
int msc_an_parse_option(const char *opt, const char *val, msc_an_opts_t *o, char *err,
                        size_t errlen);
/* Frees what msc_an_parse_option allocated in o. */
void msc_an_opts_free(msc_an_opts_t *o);

typedef struct ws_ctx msc_an_ctx_t;
typedef struct ws_result msc_an_result_t;

/* Reads the locations of part `part` of `nparts` of the archive `anchor`
 * (…/traces.otf2): whole ranks, in contiguous blocks. NULL with a message in
 * err. `o` is copied (its strings must outlive the analysis). */
msc_an_ctx_t *msc_an_read(const char *anchor, int part, int nparts, const msc_an_opts_t *o,
                          char *err, size_t errlen);
/* Runs every pass on the parts together (net: NULL for one part) and frees
 * c. Every part gets the totals; the call sites and the lists of the new
 * analyses are complete on part 0 only. */
msc_an_result_t *msc_an_finish(msc_an_ctx_t *c, const msc_an_net_t *net);
/* Frees a context that is not finished (a failed start). */
void msc_an_ctx_free(msc_an_ctx_t *c);
/* The reading time that the result reports (the slowest part's, under MPI). */
void msc_an_set_read_time(msc_an_result_t *r, double seconds);
/* Both, in this process. */
msc_an_result_t *msc_an_analyze(const char *anchor, const msc_an_opts_t *o, char *err,
                                size_t errlen);
void msc_an_free(msc_an_result_t *r);
/* waitstates.json (schema in docs/report.md and docs/analysis.md): 0 or -1. */
int msc_an_write_json(FILE *f, const msc_an_result_t *r, const char *trace_rel);

#endif
