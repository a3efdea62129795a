/* Private to the analysis engine. Wait-state analysis of an OTF2 trace
 * (Scalasca's patterns), see waitstate.c and docs/report.md. */
#ifndef MSC_CLI_WAITSTATE_H
#define MSC_CLI_WAITSTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

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

/* A site of computation or MPI on the critical path (critpath.c). */
typedef struct {
    char *name;       /* "computation before MPI_Send @ f.c:9 in a", "MPI_Recv @ …", "work (VT_ region) in a" */
    bool mpi;         /* an MPI call's time, else computation */
    uint64_t ns;      /* on the critical path */
    uint64_t total_ns; /* computation: all ranks together (for the imbalance) */
} ws_cpsite_t;

/* The computation that caused waiting time (critpath.c). */
typedef struct {
    int pattern;      /* ws_pattern_t of the waiting it caused */
    int rank;         /* where the computation ran */
    char *name;       /* its site, as ws_cpsite_t's */
    uint64_t ns;      /* waiting time it caused */
    uint64_t start_ns, end_ns; /* the largest single interval, ns from the trace's start */
    uint64_t longterm_ns; /* waiting it caused through other ranks' waiting (long-term) */
} ws_cause_t;

typedef struct ws_result {
    int ranks;
    uint64_t locations;
    uint64_t events;         /* events read */
    uint64_t unreadable;     /* locations whose events could not be read whole
                              * (more or fewer than their definitions count) */
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
    /* POP from the trace and the replays (replay.c); ns */
    uint64_t runtime_ns;         /* first MPI call entered to last one left, all locations */
    uint64_t *rank_useful_ns;    /* [rank]: computation (time between MPI calls) */
    uint64_t ideal_ns;           /* run time on an ideal network */
    uint64_t *rank_ideal_end_ns; /* [rank]: end on the ideal network, from the trace's start */
    bool whatif;
    double latency_s, bandwidth_Bps;
    uint64_t whatif_ns;          /* run time predicted on the modelled network */
    uint64_t *rank_whatif_end_ns, *rank_whatif_mpi_ns;
    uint64_t unresolved;         /* locations a replay could not finish (inconsistent trace) */
    /* critical path and delay (critpath.c) */
    uint64_t cp_ns, cp_comp_ns, cp_mpi_ns, cp_hops, cp_imbalance_ns;
    int cp_end_rank, cp_start_rank;
    uint64_t cp_start_ns;        /* where the path starts, after the trace's start */
    uint64_t *rank_cp_comp_ns, *rank_cp_mpi_ns;
    ws_cpsite_t *cp_sites;       /* most time first */
    int ncp_sites;
    uint64_t delay_ns[WS_NPATTERNS];      /* waiting traced to a computation */
    uint64_t propagated_ns[WS_NPATTERNS]; /* waiting whose delayer computed nothing (it waited itself) */
    uint64_t longterm_ns[WS_NPATTERNS];   /* of the propagated, traced back along the chain */
    ws_cause_t *causes;          /* most waiting first */
    int ncauses;
    char *timeline;              /* the HTML timeline's data, lines of text (timeline.c); part 0 */
    size_t timeline_len;
} ws_result_t;

typedef msc_an_reduce_t ws_reduce_t;
#define WS_SUM MSC_AN_SUM
#define WS_MIN MSC_AN_MIN
#define WS_MAX MSC_AN_MAX

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
typedef msc_an_net_t ws_net_t;
ws_ctx_t *ws_read(const char *anchor, int part, int nparts, bool progress, char *err,
                  size_t errlen);
bool ws_part_owns(const ws_ctx_t *c, size_t loc, int part, int nparts);
uint64_t ws_ctx_events(const ws_ctx_t *c);
ws_result_t *ws_finish(ws_ctx_t *c, const ws_net_t *net);
void ws_ctx_free(ws_ctx_t *c);

/* waitstates.json (schema in docs/report.md). Returns 0 or -1. */
int ws_write_json(FILE *f, const ws_result_t *r, const char *trace_rel);

#endif
