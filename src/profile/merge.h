/* Private to the profile module (merge.c and pwrite.c): the merged form of
 * the profile. A set of keyed records (functions "F\t<name>", call sites
 * "S\t<function>\t<frames>", files "I\t<name>" and "O" for other files),
 * the matrix pairs, counters of what the budgets left out, and the per-rank
 * summaries, as each node of the merge tree holds them for its subtree.
 */
#ifndef MSC_PROFILE_MERGE_H
#define MSC_PROFILE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "io.h"
#include "profile.h"

typedef struct {
    msc_pstat_t s;
    uint64_t rmin_ns, rmax_ns; /* ns, per-rank total time: least and most */
    int32_t rmin_at, rmax_at;  /* world ranks where they occur */
    uint32_t nranks;           /* ranks that made the call */
    uint32_t has_hist;
    uint32_t has_io;           /* a file: an iorec_t follows on the wire */
    uint64_t hist[MSC_PROF_BINS]; /* only when has_hist */
} rec_t;

#define REC_WIRE_SMALL offsetof(rec_t, hist)

/* A file of the I/O section (key "I\t<name>", or "O" for the files beyond
 * the budget): its rec_t has the time (all of the file's calls), the
 * operations as calls and the per-rank spread of the time. */
typedef struct {
    msc_pio_stat_t s;
    uint64_t rank_max_ns[2];   /* ns, the most time one rank spent reading, writing it */
} iorec_t;

typedef struct {
    char *key;
    rec_t r;
    iorec_t *io;               /* files only */
} entry_t;

typedef struct {
    int32_t from, to, cls, pad;
    uint64_t msgs, bytes;
} pair_t;

typedef struct {
    uint64_t dropped_sites;   /* calls whose site did not fit a thread's table */
    uint64_t merged_sites;    /* site records left out by the merge budget */
    uint64_t dropped_requests;
    uint64_t tot[2][2];       /* [class][msgs, bytes], all pairs */
    uint64_t omitted[3];      /* pairs, msgs, bytes left out by the pair budget */
    uint64_t files_dropped;   /* opens of files beyond a rank's MPISCOPE_PROFILE_FILES */
    uint64_t files_merged;    /* file records summed into "O" by the merge budget */
    uint64_t worlds_spawned;  /* MPI_Comm_spawn(_multiple) calls, counted at their roots */
    uint64_t npairs, nrec, nranks, nhosts, ncmds;
} header_t;

/* One rank's line of the per-rank table: gathered whole, up the same tree
 * (a node's ranks are a contiguous range, so concatenation keeps them in
 * rank order): the root holds sizeof(rank_sum_t) bytes per rank. */
typedef struct {
    uint64_t wall_ns, profiled_ns, mpi_ns, calls;
    uint64_t io_ns;            /* ns in MPI-IO calls on files (io.c) */
    uint32_t host, cmd;        /* indices into the set's hosts and cmds */
} rank_sum_t;

/* Strings the ranks of a set share (host names, command lines), each once:
 * a rank holds its index into the table. */
typedef struct {
    char **s;
    uint32_t n;
} strtab_t;

typedef struct {
    entry_t *e;
    size_t n, cap;      /* entries, and slots in idx */
    size_t *idx;        /* open addressing over e; SIZE_MAX: empty */
    size_t idx_cap;
    pair_t *pairs;
    size_t npairs;
    rank_sum_t *ranks;  /* the ranks of this subtree, in rank order */
    size_t nranks;
    strtab_t hosts;     /* the host names of those ranks */
    strtab_t cmds;      /* their command lines (several: MPMD, MPI_Comm_spawn_multiple) */
    header_t h;
} set_t;


/* The set's wire form (merge.c): packed by a rank, merged into another set
 * (records by key, pairs appended, the ranks after st's), trimmed to the
 * budgets, freed. */
char *msc_pset_pack(set_t *st, size_t *len) __attribute__((visibility("hidden")));
void msc_pset_merge(set_t *st, const char *b, size_t len) __attribute__((visibility("hidden")));
void msc_pset_trim(set_t *st) __attribute__((visibility("hidden")));
void msc_pset_free(set_t *st) __attribute__((visibility("hidden")));

/* A solo process's profile (join.c): its set to its own file, and the
 * whole profile when it is the last of the world to write. */
void msc_pjoin_write(set_t *st) __attribute__((visibility("hidden")));

/* qsort orders: records by time (heaviest first, then by key), pairs by
 * bytes (heaviest first, then by sender, receiver, class). */
int msc_pmerge_by_time(const void *a, const void *b) __attribute__((visibility("hidden")));
int msc_pmerge_by_bytes(const void *a, const void *b) __attribute__((visibility("hidden")));

/* profile.json of the set (pwrite.c). `flush`: one rank's own file (scope
 * rank-flush, or rank-incomplete with `why`); per_rank_fns: the
 * per_rank_functions array's elements, or NULL. Sorts st's records. */
void msc_pwrite_json(FILE *o, set_t *st, bool flush, const char *per_rank_fns, const char *why)
    __attribute__((visibility("hidden")));

/* profile.json of the set as <base>.json and <base>.txt (msc_pwrite_json,
 * msc_pwrite_files) and, for the run's profile (not `flush`) outside
 * `mpiscope run`'s quiet, the closing summary on stderr. */
void msc_pwrite_profile(set_t *st, bool flush, const char *per_rank_fns, const char *why,
                        const char *base) __attribute__((visibility("hidden")));

/* Writes <base>.json and renders <base>.txt from it (rank 0, or a rank
 * writing its own). */
void msc_pwrite_files(const char *json, size_t len, const char *base)
    __attribute__((visibility("hidden")));

#endif
