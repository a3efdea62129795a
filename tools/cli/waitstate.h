/* Private to the `mpiscope` program. Wait-state analysis of an OTF2 trace
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

/* Analyses the archive `anchor` (…/traces.otf2) in this process. `progress`
 * prints progress lines on stderr. Returns NULL with a message in err. */
ws_result_t *ws_analyze(const char *anchor, bool progress, char *err, size_t errlen);
void ws_free(ws_result_t *r);

/* The two phases apart, for the analysis under MPI (analyze/). ws_read
 * reads the locations of part `part` of `nparts` (whole ranks, contiguous
 * blocks; ws_part_owns says which). A part travels as a header and
 * segments: ws_part_export gives both for the locations with mine[i] (the
 * header and the array of segments malloc'd; the segments point into c).
 * On the receiving side ws_merge_begin reads a header and gives the
 * segments to receive into, in the same order, and ws_merge_end checks and
 * renumbers what arrived. Each returns 0, or -1 with a message in err.
 * ws_finish matches and classifies everything c holds, and frees c. */
typedef struct ws_ctx ws_ctx_t;
typedef struct {
    void *p;
    size_t len; /* bytes */
} ws_seg_t;
ws_ctx_t *ws_read(const char *anchor, int part, int nparts, bool progress, char *err,
                  size_t errlen);
bool ws_part_owns(const ws_ctx_t *c, size_t loc, int part, int nparts);
size_t ws_ctx_locations(const ws_ctx_t *c);
uint64_t ws_ctx_events(const ws_ctx_t *c);
int ws_part_export(ws_ctx_t *c, const bool *mine, void **header, size_t *hlen, ws_seg_t **segs,
                   size_t *nsegs);
int ws_merge_begin(ws_ctx_t *c, const void *header, size_t hlen, ws_seg_t **segs,
                   size_t *nsegs, char *err, size_t errlen);
int ws_merge_end(ws_ctx_t *c, char *err, size_t errlen);
ws_result_t *ws_finish(ws_ctx_t *c, int processes);
void ws_ctx_free(ws_ctx_t *c);

/* waitstates.json (schema in docs/report.md). Returns 0 or -1. */
int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel);

#endif
