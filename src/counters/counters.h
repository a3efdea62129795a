/* Private to mpiscope. Hardware counters of each rank's useful computation
 * (instructions and cycles outside MPI), for POP's Instruction and IPC
 * Scaling (docs/analysis.md, "Hardware counters"). No MPI here: the
 * accounting takes its counts from a source, so the unit tests drive it
 * with an injected one (tests/unit/test_counters.c) and the module
 * (module.c) with perf_event_open (perf_source.c).
 */
#ifndef MSC_COUNTERS_H
#define MSC_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MSC_CTR_INSTRUCTIONS, MSC_CTR_CYCLES, MSC_CTR_N };

/* Where counts come from: open (0, or -1 with the reason in why), read the
 * running totals (0 or -1), close. */
typedef struct {
    int (*open)(void *u, char *why, size_t whylen);
    int (*read)(void *u, uint64_t v[MSC_CTR_N]);
    void (*close)(void *u);
    void *u;
} msc_ctr_source_t;

typedef struct {
    const msc_ctr_source_t *src;
    bool on;                       /* the source opened and reads */
    char why[160];                 /* why not, when !on */
    unsigned depth;                /* nested MPI calls (only the outermost counts) */
    uint64_t start[MSC_CTR_N], at_enter[MSC_CTR_N], in_mpi[MSC_CTR_N];
} msc_ctr_acc_t;

/* Opens src and takes the starting counts. 0, or -1 (acc->why says why;
 * every later call does nothing). */
int msc_ctr_start(msc_ctr_acc_t *acc, const msc_ctr_source_t *src);
/* Around each MPI call of the counted thread. */
void msc_ctr_enter(msc_ctr_acc_t *acc);
void msc_ctr_leave(msc_ctr_acc_t *acc);
/* The counts since the start: all, and outside MPI (useful). false when the
 * counters were not on or a read failed (acc->why says why). Closes src. */
bool msc_ctr_finish(msc_ctr_acc_t *acc, uint64_t total[MSC_CTR_N], uint64_t useful[MSC_CTR_N]);

/* The perf_event_open source (instructions and cycles of the calling thread,
 * user and kernel, one group read). */
extern const msc_ctr_source_t msc_ctr_perf_source;

#endif
