/* Private to mpiscope. Per-thread and per-process state of the tool.
 *
 * The hot path of every wrapper reads one word: the calling thread's `gate`
 * (initial-exec TLS, so the load is a single %fs-relative mov). Zero means
 * "take the recording path"; any bit set means "call PMPI and return":
 *   MSC_GATE_BUSY  this thread is already inside a wrapper (the MPI library
 *                  calling itself, or the tool's own MPI use: the standard's
 *                  "multiple counting", section 14.2.7);
 *   MSC_GATE_OFF   recording is off for the process (before MPI_Init, after
 *                  MPI_Finalize, MPI_Pcontrol(0)).
 * A thread owns BUSY and writes its gate with plain atomic stores; the thread
 * that changes the recording level sets or clears OFF in every registered
 * thread's gate with atomic read-modify-writes. The owner recomputes OFF from
 * the process-wide level when it leaves a wrapper (msc_gate_release), so a
 * change that races with a call in flight is never lost, and no
 * lock-prefixed instruction is needed on the path of a recorded call.
 * The owner's "store the gate, then read the level again" and the changer's
 * "store the level, then update every gate" are the two halves of a Dekker
 * handshake: each needs a full fence between its store and its load. The
 * changer (rare) issues membarrier(2), which puts that fence into every
 * running thread of the process, so the owner's half needs only a compiler
 * barrier: either the owner's second read sees the new level, or the
 * changer's update lands after the owner's store. A thread registers itself (heap
 * state, a gate pointer in the registry) on its first call; a thread-exit
 * destructor unregisters the gate before its TLS goes away.
 */
#ifndef MSC_CORE_STATE_H
#define MSC_CORE_STATE_H

#include <limits.h>
#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "settings.h"

#define MSC_LIKELY(x) __builtin_expect(!!(x), 1)
#define MSC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MSC_INTERNAL __attribute__((visibility("hidden")))
/* The recording path's helpers: inlined into every wrapper, whatever the
 * compiler's size limits say (calls and register saves cost more than they). */
#define MSC_HOT inline __attribute__((always_inline))

enum { MSC_GATE_BUSY = 1u, MSC_GATE_OFF = 2u };
enum { MSC_MODULES_MAX = 8 };

typedef struct msc_thread {
    struct msc_thread *next;
    _Atomic unsigned *gate;      /* this thread's TLS gate; NULL once the thread has exited */
    int index;                   /* 0, 1, ... in order of first MPI call */
    uint64_t *calls;             /* recorded calls per function id */
    MPI_Status *scratch_status;  /* stand-in for MPI_STATUSES_IGNORE, scratch_n entries */
    MPI_Request *scratch_req;    /* copy of request arrays taken before completion calls */
    int scratch_n;
    struct msc_done *scratch_done; /* completed operations of one call */
    int scratch_done_n;
    /* Sizes of the datatypes sized last (msc_type_bytes), direct-mapped by
     * handle, valid while type_epoch is the process's (requests.c). */
    MPI_Datatype type_key[4];
    int64_t type_size[4];        /* bytes per element */
    uint64_t type_epoch;
    void *module_data[MSC_MODULES_MAX]; /* one slot per registered module */
} msc_thread_t;

typedef struct {
    _Atomic unsigned gate;
    msc_thread_t *thread;
    void *site;                  /* return address of the C wrapper being entered (wrap.h) */
} msc_tls_t;

extern _Thread_local msc_tls_t msc_tls __attribute__((tls_model("initial-exec")));

typedef enum {
    MSC_PHASE_BEFORE_INIT = 0,
    MSC_PHASE_RUNNING,
    MSC_PHASE_FINALIZING,
    MSC_PHASE_DONE,
} msc_phase_t;

typedef struct {
    _Atomic int phase;           /* msc_phase_t */
    _Atomic int level;           /* MPI_Pcontrol level; recording needs >= 1 */
    _Atomic int recording;       /* phase RUNNING and level >= 1: msc_recording_update */
    int world_rank, world_size;
    int thread_provided;         /* what MPI_Init_thread gave the application */
    MPI_Comm comm;               /* private duplicate of MPI_COMM_WORLD for the tool's traffic;
                                  * MPI_COMM_NULL when solo */
    /* The process entered MPI through MPI_Session_init (MPI-4 sessions):
     * there may be no MPI_COMM_WORLD, and the tool makes no collective of
     * its own (processes initialize and finalize at different times); each
     * process writes its own results, joined by the last to finish
     * (runtime.c, session.c). */
    bool solo;
    MPI_Group world_group;       /* the world's processes: MPI_COMM_WORLD's group, or the
                                  * mpi://WORLD process set's when solo; ranks of other
                                  * groups are translated into it */
    char world_id[64];           /* "" for the job's first world; a spawned world's id
                                  * (the PMIx namespace under Open MPI, else made by the
                                  * tool): its results go to <outdir>/worlds/<id> */
    msc_settings_t settings;
    char outdir[PATH_MAX];       /* output directory; empty when output is impossible */
    bool outdir_shared;          /* this rank sees rank 0's output directory (output.c) */
    int outdir_unseen;           /* ranks that do not see it (the same on every rank) */
    uint64_t t_init_begin;       /* ns, entry of MPI_Init */
    uint64_t t_init_end;         /* ns, return of PMPI_Init */
    uint64_t t_ready;            /* ns, the tool's own start done (its collectives waited for
                                  * every rank): where the profile's wall time begins */
    uint64_t t_finalize_begin;   /* ns, entry of MPI_Finalize */
} msc_global_t;

extern msc_global_t msc_g;

/* Whether calls are recorded: one word, so that a wrapper leaving reads one
 * load (twice, see msc_gate_release). Whoever changes phase or level calls
 * msc_recording_update (msc_gates_update does). */
static inline bool msc_recording_on(void)
{
    return atomic_load_explicit(&msc_g.recording, memory_order_acquire) != 0;
}

static inline void msc_recording_update(void)
{
    atomic_store(&msc_g.recording,
                 atomic_load(&msc_g.phase) == MSC_PHASE_RUNNING && atomic_load(&msc_g.level) >= 1);
}

/* Leaving a wrapper: drops BUSY and sets OFF as the level says, read again
 * after the store until it is stable (see the handshake above). */
static MSC_HOT void msc_gate_release(void)
{
    bool on = msc_recording_on();
    for (;;) {
        atomic_store_explicit(&msc_tls.gate, on ? 0u : MSC_GATE_OFF, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* a full fence when a level change runs */
        bool now = msc_recording_on();
        if (MSC_LIKELY(now == on)) return;
        on = now;
    }
}

/* Registers the calling thread (idempotent); NULL only if out of memory. */
msc_thread_t *msc_thread_attach(void) MSC_INTERNAL;

/* After MPI_Finalize: the calling thread leaves the gate registry (its
 * state and counts stay) and opens its gate, so that its later MPI calls
 * reach msc_call_begin's unregistered-thread branch (wrap.h). */
void msc_thread_detach(void) MSC_INTERNAL;

/* A full memory barrier in every running thread of the process
 * (membarrier(2)), for the slow half of an asymmetric handshake whose fast
 * half has only a compiler barrier (the gate above, the request table's
 * single-thread path). false: not available, and nothing was done beyond
 * this thread's own fence. */
bool msc_fence_all_threads(void) MSC_INTERNAL;

/* Sets or clears MSC_GATE_OFF in every registered thread from msc_g. */
void msc_gates_update(void) MSC_INTERNAL;

/* Calls this thread function `fn` at every registered thread's state, under
 * the registry lock (for merging per-thread tables). */
void msc_threads_foreach(void (*fn)(msc_thread_t *t, void *arg), void *arg) MSC_INTERNAL;

/* Makes sure t->scratch_* hold at least n entries; false if memory ran out. */
bool msc_thread_scratch(msc_thread_t *t, int n) MSC_INTERNAL;

#endif
