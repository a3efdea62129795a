/* Private to mpiscope. POP's efficiency metrics from a profile, with no
 * trace (as TALP computes them at run time): per rank the useful
 * computation (profiled time outside MPI) and the MPI time, then
 *   Load Balance             = mean useful / max useful
 *   Communication Efficiency = max useful / run time
 *   Parallel Efficiency      = Load Balance × Communication Efficiency
 *                            = mean useful / run time
 * where the run time is the longest rank's profiled time. An efficiency of
 * 0.8 or more is good (POP's reading). The library writes the "pop" object
 * of profile.json (merge.c) and both it and `mpiscope report` print the
 * section of profile.txt (render.c) from the same numbers. No MPI here.
 */
#ifndef MSC_PROFILE_POP_H
#define MSC_PROFILE_POP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pjson.h"

typedef struct {
    int ranks;
    uint64_t runtime_ns;               /* the longest rank's profiled time */
    uint64_t useful_max_ns, useful_min_ns;
    int useful_max_at, useful_min_at;  /* ranks (index in the per-rank list) */
    double useful_mean_ns;
    uint64_t mpi_max_ns;
    double load_balance, communication_efficiency, parallel_efficiency;
} msc_pop_t;

/* The metrics of n ranks: rank i's profiled and MPI time are
 * profiled_ns[i * stride] and mpi_ns[i * stride]. Useful time is profiled
 * minus MPI, at least 0 (MPI time of several threads can exceed it). */
void msc_pop_compute(const uint64_t *profiled_ns, const uint64_t *mpi_ns, size_t stride, int n,
                     msc_pop_t *out);

/* The metrics of a parsed profile.json, from its "per_rank" list. -1 when
 * it has none. */
int msc_pop_from_profile(const msc_json_t *root, msc_pop_t *out);

/* The "pop" member of profile.json: `"pop": {...}` (no comma around it). */
void msc_pop_json(FILE *o, const msc_pop_t *p);

/* The "POP efficiency" section of the profile text, with the useful and MPI
 * time of up to `limit` ranks (0: all). Nothing when the profile has no
 * per-rank list. */
void msc_pop_render(FILE *o, const msc_json_t *root, int limit);

#endif
