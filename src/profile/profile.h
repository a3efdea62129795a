/* Private to the profile module. The tables each thread fills on the hot
 * path and the merged form that finalize reduces over the ranks.
 *
 * A thread owns one msc_ptab_t (msc_thread_t.module_data[slot]), made on its
 * first recorded call: a dense per-function array (statistics and a
 * power-of-two message-size histogram), an open-addressing table of call
 * sites with a fixed capacity (MPISCOPE_PROFILE_SITES; a full table counts
 * the call as dropped) and one row of the communication matrix (this rank as
 * the sender, to every world rank, point-to-point and collective apart). No
 * lock and no allocation happens per call after that first one, except when
 * a communicator is seen for the first time (its world-rank translation).
 *
 * At finalize (or on MPI_Pcontrol(2)) the threads' tables are folded into
 * one, call-site addresses are resolved to strings on the rank that owns
 * them, and the result becomes a list of keyed records (msc_prec_t) that the
 * ranks merge pairwise along a binomial tree (merge.c).
 */
#ifndef MSC_PROFILE_PROFILE_H
#define MSC_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "call.h"

enum {
    MSC_PROF_BINS = 48,      /* histogram bins: 0 bytes, then [2^(k-1), 2^k) */
    MSC_PROF_DEPTH_MAX = 8,  /* frames per call site (MPISCOPE_CALLSITE_DEPTH max) */
    MSC_PROF_COMM_CACHE = 16, /* communicators remembered per thread */
    MSC_PROF_SITE_MEMO = 64   /* depth-1 call sites remembered per thread */
};

enum { MSC_PROF_P2P = 0, MSC_PROF_COLL = 1 }; /* matrix classes */

typedef struct {
    uint64_t count;      /* calls */
    uint64_t time_ns;    /* ns, sum over calls */
    uint64_t tmin_ns;    /* ns, shortest call (UINT64_MAX: none) */
    uint64_t tmax_ns;    /* ns, longest call */
    uint64_t bytes_sent; /* bytes */
    uint64_t bytes_recv; /* bytes */
} msc_pstat_t;

typedef struct {
    msc_pstat_t s;
    uint64_t hist[MSC_PROF_BINS]; /* calls (or completed receives) per size bin */
} msc_pfn_t;

typedef struct {
    void *pc[MSC_PROF_DEPTH_MAX]; /* return addresses, innermost first; pc[0] NULL: free slot */
    int32_t fn;                   /* msc_fn_t */
    msc_pstat_t s;
} msc_psite_t;

typedef struct {
    uint64_t msgs;  /* messages */
    uint64_t bytes; /* bytes */
} msc_pcell_t;

typedef struct {
    MPI_Comm comm;
    int size;      /* ranks of the (remote, for intercommunicators) group */
    int me;        /* this process's rank in comm */
    bool inter;    /* intercommunicator: peers name remote ranks */
    bool topo;     /* nin/nout/in/out are known (the first neighbourhood collective) */
    int *world;    /* world rank of each peer rank; NULL: identity */
    int nin, nout; /* neighbourhood: in- and out-neighbours, in MPI's order */
    int *in, *out; /*   their ranks in comm (MPI_PROC_NULL at a Cartesian edge) */
    /* Collective matrix edges not yet in the row: a message of the same size
     * to every other rank (all) or to every higher rank (up) is counted
     * here in O(1) and spread over the peers' cells when the entry leaves
     * the cache or the tables are read (msc_prof_pending_edges). */
    msc_pcell_t all;              /* messages, bytes to each other rank */
    msc_pcell_t up;               /* messages, bytes to each higher rank */
} msc_pcomm_t;

/* A function's totals are fn[f].s plus the stats of all its sites: a call
 * whose site has an entry is counted in that entry only (one stats update
 * per call), fn[f].s takes the calls without one. The histogram is per
 * function. merge.c folds sites into their functions. */
typedef struct {
    msc_pfn_t *fn;           /* MSC_FN_COUNT entries */
    /* Depth-1 sites looked up lately, direct-mapped by a hash of the return
     * address: a loop of a few calls finds each one's entry without the
     * site table. */
    struct {
        void *pc;            /* NULL: empty */
        int32_t fn;
        msc_psite_t *site;
    } memo[MSC_PROF_SITE_MEMO];
    msc_psite_t *sites;      /* site_cap entries */
    uint32_t site_cap;       /* power of two */
    uint32_t site_used;      /* entries in use */
    uint64_t site_dropped;   /* calls whose site did not fit */
    msc_pcell_t *row;        /* 2 * world_size cells: [class * world_size + to]; NULL: off */
    uint64_t comm_epoch;     /* msc_prof.comm_epoch when comms[] was last valid */
    MPI_Datatype last_type;  /* last datatype sized on this thread */
    uint64_t last_type_size; /* bytes per element of last_type */
    uint64_t type_epoch;     /* msc_prof.type_epoch when last_type was sized */
    MPI_Comm edge_comm;      /* the last point-to-point edge, a one-entry memo: */
    int edge_peer;           /*   (communicator, peer rank) ... */
    uint64_t edge_epoch;     /*   msc_prof.comm_epoch when made (UINT64_MAX: empty) */
    msc_pcell_t *edge_cell;  /*   ... its matrix cell */
    /* The last collective of a shape whose bytes follow from (function,
     * communicator, datatype, count, root, MPI_IN_PLACE): Bcast, Reduce,
     * Allreduce, Scan, blocking or not. A one-entry memo of what it moved,
     * so that a loop of the same collective costs a few compares (profile.c
     * coll_memo). */
    int32_t coll_fn;         /* -1: empty (also when a communicator entry changes) */
    int32_t coll_root;
    bool coll_rooted, coll_in_place;
    uint8_t coll_bin;        /* histogram bin */
    MPI_Comm coll_comm;
    MPI_Datatype coll_type;
    MPI_Count coll_count;
    uint64_t coll_comm_epoch, coll_type_epoch;
    uint64_t coll_sent, coll_recv, coll_each; /* bytes */
    msc_pcell_t *coll_edge;  /* where its edge counts: the communicator entry's
                              * all or up cell, the root's cell, or coll_sink */
    msc_pcell_t coll_sink;   /* counts of no edge, never read */
    msc_pcomm_t comms[MSC_PROF_COMM_CACHE];
} msc_ptab_t;

/* A spawn call at whose root this rank was: its function, the processes
 * it asked for, its call site and its command line as given (commands
 * joined by " : " for MPI_Comm_spawn_multiple; empty from Fortran, whose
 * bindings give the tool no arguments). */
enum { MSC_PROF_SPAWNS = 32, MSC_PROF_SPAWN_CMD = 240 };
typedef struct {
    int fn;
    int procs;
    void *site;
    char command[MSC_PROF_SPAWN_CMD];
} msc_pspawn_t;

/* Process-wide state of the module. */
typedef struct {
    int slot;                /* module_data index */
    int depth;               /* MPISCOPE_CALLSITE_DEPTH */
    int site_cap;            /* MPISCOPE_PROFILE_SITES, rounded up to a power of two x2 */
    int max_sites;           /* MPISCOPE_PROFILE_SITES */
    int matrix_pairs;        /* MPISCOPE_PROFILE_MATRIX_PAIRS */
    bool matrix_on;          /* world_size <= MPISCOPE_PROFILE_MATRIX_RANKS */
    bool per_rank;           /* MPISCOPE_PROFILE_PER_RANK */
    _Atomic uint64_t comm_epoch;  /* bumped when a communicator is freed */
    _Atomic uint64_t type_epoch;  /* bumped when a datatype is freed */
    int fn_type_free;        /* function id of MPI_Type_free, or -1 */
    int fn_spawn, fn_spawn_multiple; /* MPI_Comm_spawn(_multiple), or -1 */
    /* Kind OTHER functions whose leave does work (MPI_Type_free, the
     * spawns): one load on the fast path instead of a compare per function. */
    unsigned char other_slow[MSC_FN_COUNT];
    _Atomic uint64_t worlds_spawned; /* spawn calls at whose root this rank was */
    /* The first MSC_PROF_SPAWNS of them, for naming a world that left no
     * results (profile.json "spawns", docs/worlds.md). */
    msc_pspawn_t spawns[MSC_PROF_SPAWNS];
    _Atomic int nspawns;     /* slots claimed (may exceed MSC_PROF_SPAWNS) */
    _Atomic bool coll_inits; /* a persistent collective was made: MPI_Start looks */
    unsigned char io_write[MSC_FN_COUNT]; /* IO_END functions: 1 for writes */
    uint64_t off_since_ns;   /* ns, when MPI_Pcontrol(0) took effect (0: recording) */
    uint64_t off_ns;         /* ns, total time with recording off */
    int flushes;             /* MPI_Pcontrol(2) calls so far */
    unsigned char shape[MSC_FN_COUNT]; /* collective shape of each function (msc_pshape_t) */
} msc_prof_t;

extern msc_prof_t msc_prof __attribute__((visibility("hidden")));

/* Adds the collective edges that thread table `p` holds per communicator
 * (msc_pcomm_t.all, up) into `row` (2 * world size cells, as
 * msc_ptab_t.row), without changing `p`. */
void msc_prof_pending_edges(const msc_ptab_t *p, msc_pcell_t *row) __attribute__((visibility("hidden")));

/* Folds every thread's tables, merges over the ranks (collective over
 * msc_g.comm) and writes profile.json and profile.txt from world rank 0.
 * With `flush` set it runs on this rank alone, without communication, and
 * writes profile.rank<R>.flush<K>.{json,txt} from this rank's tables. */
void msc_prof_write(bool flush) __attribute__((visibility("hidden")));

/* The rank is going down (module.h: emergency): writes
 * profile.rank<R>.incomplete.{json,txt} from this rank's tables, as a flush
 * does, with scope "rank-incomplete" and `why` as the reason. */
void msc_prof_write_incomplete(const char *why) __attribute__((visibility("hidden")));

#endif
