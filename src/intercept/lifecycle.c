/* Hand-written C wrappers: MPI_Init, MPI_Init_thread, MPI_Finalize and
 * MPI_Pcontrol. These change the tool's state rather than record a call, so
 * they are not generated (the generator's coverage report names them as
 * "hand-written"). MPI_Init and MPI_Finalize are counted once each; their
 * duration lies outside the window that the profile calls "the run".
 * An MPI_Init* when MPI was initialized already (or finalized) and an
 * MPI_Finalize when it was finalized already change nothing of the tool's
 * state: they are handed to the check of calls outside MPI
 * (msc_runtime_outside) and go on to PMPI unchanged. The Fortran wrappers
 * (fortran.py) ask the same question (msc_lifecycle_misplaced) and then call
 * their twin with the thread marked busy: where the twin calls the C function
 * (MPICH's mpif.h binding does), the C wrapper sees the busy thread and does
 * not report the call a second time, at a site inside the MPI library.
 * In a process that entered MPI through a session, MPI_Init* and
 * MPI_Finalize open and close the world model instead (session.c).
 */
#include "lifecycle.h"

#include "../core/log.h"
#include "wrap.h"

#define MSC_API __attribute__((visibility("default")))

void msc_lifecycle_init_begin(void)
{
    msc_runtime_preinit();
    msc_thread_attach();
    atomic_fetch_or(&msc_tls.gate, MSC_GATE_BUSY);
}

void msc_lifecycle_init_end(msc_fn_t fn, int rc, int provided)
{
    msc_thread_t *t = msc_tls.thread;
    if (rc == MPI_SUCCESS) {
        msc_runtime_init(provided);
        if (t && msc_recording_on()) t->calls[fn]++;
    }
    msc_gate_release();
}

void msc_lifecycle_finalize_begin(msc_fn_t fn, void *site)
{
    msc_thread_t *t = msc_thread_attach();
    msc_tls.site = site; /* for the modules' finalize (check: a rank waiting in it) */
    if (t && msc_recording_on()) t->calls[fn]++;
    atomic_fetch_or(&msc_tls.gate, MSC_GATE_BUSY);
    if (atomic_load(&msc_g.phase) == MSC_PHASE_RUNNING) msc_runtime_finalize();
}

void msc_lifecycle_finalize_end(void)
{
    atomic_store(&msc_g.phase, MSC_PHASE_DONE);
    msc_gates_update();
    /* This thread's later MPI calls are looked at (wrap.h); other threads
     * stay closed. */
    msc_thread_detach();
}

void msc_lifecycle_pcontrol(int level)
{
    if (atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) & MSC_GATE_BUSY) return;
    msc_runtime_pcontrol(level);
}

bool msc_lifecycle_misplaced(msc_fn_t fn, void *site)
{
    /* Begun by a session: the world model is one more way in (session.c). */
    if (MSC_UNLIKELY(msc_g.solo)) return msc_session_world_call(fn, site);
    int phase = atomic_load(&msc_g.phase);
    if (fn == MSC_FN_MPI_Finalize ? phase != MSC_PHASE_DONE && phase != MSC_PHASE_BEFORE_INIT
                                  : phase == MSC_PHASE_BEFORE_INIT)
        return false;
    /* Busy: called by a Fortran wrapper's twin, which has told it already. */
    if (!(atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) & MSC_GATE_BUSY))
        msc_runtime_outside(fn, site);
    return true;
}

MSC_API int MPI_Init(int *argc, char ***argv)
{
    if (MSC_UNLIKELY(msc_lifecycle_misplaced(MSC_FN_MPI_Init, MSC_CALLER()))) return PMPI_Init(argc, argv);
    msc_lifecycle_init_begin();
    int rc = PMPI_Init(argc, argv);
    int provided = MPI_THREAD_SINGLE;
    if (rc == MPI_SUCCESS) PMPI_Query_thread(&provided);
    msc_lifecycle_init_end(MSC_FN_MPI_Init, rc, provided);
    return rc;
}

MSC_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (MSC_UNLIKELY(msc_lifecycle_misplaced(MSC_FN_MPI_Init_thread, MSC_CALLER())))
        return PMPI_Init_thread(argc, argv, required, provided);
    msc_lifecycle_init_begin();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    msc_lifecycle_init_end(MSC_FN_MPI_Init_thread, rc, rc == MPI_SUCCESS ? *provided : 0);
    return rc;
}

MSC_API int MPI_Finalize(void)
{
    if (MSC_UNLIKELY(msc_lifecycle_misplaced(MSC_FN_MPI_Finalize, MSC_CALLER()))) return PMPI_Finalize();
    msc_lifecycle_finalize_begin(MSC_FN_MPI_Finalize, MSC_CALLER());
    int rc = PMPI_Finalize();
    msc_lifecycle_finalize_end();
    return rc;
}

MSC_API int MPI_Pcontrol(const int level, ...)
{
    msc_lifecycle_pcontrol(level);
    return PMPI_Pcontrol(level);
}
