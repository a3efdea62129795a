/* Private to the trace module: what trace.c, defs.c and sync.c share.
 *
 * defs.c keeps the rank's local definitions (communicators, user regions,
 * metrics) and unifies them at finalize; sync.c measures clock offsets
 * against rank 0; trace.c owns the archive, the per-thread event writers and
 * the hooks.
 */
#ifndef MSC_TRACE_IMPL_H
#define MSC_TRACE_IMPL_H

#include <mpi.h>
#include <otf2/otf2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../core/state.h"
#include "defset.h"
#include "segments.h"

#define TRC_HIDDEN __attribute__((visibility("hidden")))

/* One communicator handle known to the rank (the hot path reads it). */
typedef struct {
    _Atomic uint64_t key;  /* the handle's bytes; 0: empty slot */
    uint32_t ref;          /* local communicator reference */
    int size, rank;        /* local group */
    int rsize;             /* remote group of an intercommunicator, else 0 */
    _Atomic int live;      /* 0 once freed (the handle may be reused) */
    /* An intercommunicator to another world (spawned, connected, joined):
     * its remote processes are not in this world's archive, so it is
     * defined by its local group and the messages on it are not written
     * (docs/worlds.md). */
    bool foreign;
} trc_comm_t;

extern trc_comm_t trc_world TRC_HIDDEN;
extern trc_comm_t *trc_self TRC_HIDDEN;      /* MPI_COMM_SELF's entry, once defined */
extern int64_t trc_skew TRC_HIDDEN;           /* ns added to every timestamp (test setting) */

/* Timestamps written to the archive. */
static inline uint64_t trc_ts(uint64_t t)
{
    return t + (uint64_t)trc_skew;
}

/* defs.c ------------------------------------------------------------------*/
void trc_defs_init(void) TRC_HIDDEN;
/* The trace in parts (output directory not shared by every node): rank 0
 * writes trace/parts.txt naming the ranks whose events are in other nodes'
 * copies (parts.c). Collective over msc_g.comm; nothing when every rank
 * shares the directory. */
void trc_parts_write(void) TRC_HIDDEN;
/* Rank 0: the archive's MPISCOPE::INCOMPLETE_REASON when it is written incomplete. */
void trc_defs_incomplete_reason(const char *why) TRC_HIDDEN;
trc_comm_t *trc_comm_lookup_slow(MPI_Comm comm) TRC_HIDDEN;  /* registers unknown handles */
void trc_comm_created(MPI_Comm comm) TRC_HIDDEN;             /* after a constructor */
void trc_comm_freed(MPI_Comm comm) TRC_HIDDEN;               /* before the handle dies */
/* A communicator known by its members only (VT_commdef): `handle` is a key
 * that no MPI communicator has, `ranks` the members' world ranks in order,
 * `me` this process's rank in it. Unified like the others. */
bool trc_comm_define_ranks(MPI_Comm handle, int n, const int *ranks, int me) TRC_HIDDEN;

static inline trc_comm_t *trc_comm(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return &trc_world;
    if (comm == MPI_COMM_SELF && trc_self) return trc_self;
    return trc_comm_lookup_slow(comm);
}

/* Windows: a local reference for a new window over `comm` (unified at
 * finalize like communicators), the reference of a live window, and the
 * window that the calling thread's last MPI_Win_free freed. */
uint32_t trc_win_created(MPI_Win w, MPI_Comm comm) TRC_HIDDEN;
uint32_t trc_win(MPI_Win w) TRC_HIDDEN;
uint32_t trc_win_freed(void) TRC_HIDDEN;

/* MPI-IO handles: a local reference for a file opened under `name` over
 * `comm` (`var`: the address of the application's handle variable), the
 * reference of a live handle, and the handle MPI_File_close(var) closed. */
uint32_t trc_io_opened(MPI_File h, const void *var, const char *name, MPI_Comm comm) TRC_HIDDEN;
uint32_t trc_io_handle(MPI_File h) TRC_HIDDEN;
uint32_t trc_io_closed(const void *var) TRC_HIDDEN;

/* Global definitions with fixed references (the same on every rank). */
enum {
    TRC_ATTR_SCL = 0,       /* attribute SOURCE_CODE_LOCATION on records with one */
    TRC_PARAM_COMMENT = 0,  /* parameter "comment" of VT_log_comment's ParameterString */
    /* Partitioned communication: in MPI_Pready*, for each partition made
     * ready, "MPI partition" (its index) then "MPI partition bytes" (its
     * size); in MPI_Parrived, the partition asked for, then the bytes it
     * found arrived (its size, or 0 when it has not arrived). */
    TRC_PARAM_PARTITION = 1,
    TRC_PARAM_PARTITION_BYTES = 2,
};

/* MPI call sites as source code locations. Each return address into the
 * application gets a local reference from a bounded per-rank table of
 * TRC_SITES addresses (lock-free, hashed): TRC_SCL_SITES + its slot, above
 * the VT_ API's references (msc_trace_scl_def, fewer than TRC_SCL_SITES).
 * The addresses become file and line only at MPI_Finalize (trc_defs_write).
 * Returns OTF2_UNDEFINED_SOURCE_CODE_LOCATION for a NULL address or when
 * the table is full (counted, and reported by rank 0 at finalize). */
enum { TRC_SCL_SITES = 1024, TRC_SITES = 4096 };
uint32_t trc_site_scl(const void *site) TRC_HIDDEN;

/* Thread-index part (bits 32..63) of the extra location that holds the
 * records other ranks logged for this one (VT_log_msgevent, VT_log_opevent). */
#define TRC_LOC_FOREIGN 0xFFFFull

/* A comment's text as a local string reference (unified by content at
 * finalize), or UINT32_MAX. */
uint32_t trc_comment_def(const char *text) TRC_HIDDEN;


/* A name for location `loc` (VT_registernamed), written at finalize. */
void trc_loc_name(uint64_t loc, const char *name) TRC_HIDDEN;

/* The value type a metric was defined with. */
OTF2_Type trc_metric_type(uint32_t metric) TRC_HIDDEN;

/* Collective over msc_g.comm at finalize: unifies the definitions, writes
 * the local definitions (mapping tables, clock offsets) of every location
 * in `locs` and, on rank 0, the global definitions. */
typedef struct {
    uint64_t id;
    uint64_t events;
} trc_loc_t;
void trc_defs_write(OTF2_Archive *archive, const trc_loc_t *locs, int nlocs,
                    const int64_t sync_time[2], const int64_t sync_offset[2],
                    const double sync_dev[2], bool complete) TRC_HIDDEN;

/* unify.c: collective over msc_g.comm at finalize. Merges every rank's set
 * up a binomial tree (rank 0's becomes the global definitions, in order of
 * first appearance in rank order) and sends the maps back down: on success
 * global[k][i] is the global index of record i of kind k of this rank's
 * own set `s` (mapped kinds; they point into *block, which the caller
 * frees). False on every rank if memory ran out on any (nothing to free). */
typedef struct {
    size_t own;                      /* words of this rank's own set, before merging */
    int children, up_msgs;           /* subtrees merged here; messages received */
    size_t up_recv, up_sent;         /* words of sets received from children, sent to the parent */
    size_t down_recv, down_sent;     /* words of maps received, sent */
    size_t held, global;             /* words of this rank's set after merging; rank 0: global */
} trc_unify_stats_t;
bool trc_unify(tu_set_t *s, uint32_t **block, uint32_t *global[TU_KINDS],
               trc_unify_stats_t *st) TRC_HIDDEN;

/* emergency.c: this rank's archive after its event writers were closed
 * (the rank is going down; no communication). false if anything failed. */
bool trc_emergency_archive(const char *why, const trc_loc_t *locs, int nlocs, uint64_t t0,
                           uint64_t t1) TRC_HIDDEN;

/* sync.c ------------------------------------------------------------------*/
/* Collective over msc_g.comm: offset of this rank's trace clock to rank 0's
 * (add it to a local time), the local time it was taken at, and half the
 * smallest round trip (an error bound). */
void trc_clock_sync(int64_t *time, int64_t *offset, double *dev) TRC_HIDDEN;

#endif
