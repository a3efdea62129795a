/* Calls that break the thread level MPI provided (MPI-3.1 section 12.4.3):
 * LOCAL:THREAD:NOT_MAIN, a call from a thread other than the one that
 * called MPI_Init/MPI_Init_thread when the level provided is
 * MPI_THREAD_FUNNELED or MPI_THREAD_SINGLE; LOCAL:THREAD:CONCURRENT, a
 * thread entering MPI while another is inside it when the level is below
 * MPI_THREAD_MULTIPLE.
 *
 * Both are decided in the check module's enter hook, before the PMPI call
 * (the MPI library may crash or hang at such a call): a per-process atomic
 * count of the threads inside MPI, raised by a thread's outermost call and
 * lowered by its leave hook, and a thread-local mark of the main thread.
 * Under MPI_THREAD_MULTIPLE the hooks cost one load and a test; below it one
 * atomic add at enter and one at leave, and nothing outside check mode. A
 * call made from inside another of the same thread (an application callback
 * run by MPI, a user reduction) is not counted again. The functions the
 * standard lets any thread call at any time (MPI_Initialized,
 * MPI_Finalized, MPI_Query_thread, MPI_Is_thread_main, MPI_Get_version,
 * MPI_Get_library_version, MPI_T_*) are neither counted nor flagged.
 * Limits: the level is the one provided (an MPI library that gives more
 * than was asked for makes a call legal); the hand-written MPI_Init* and
 * MPI_Finalize wrappers are not counted; two threads in MPI at once are seen
 * only when their calls overlap in time, so a race that happens to
 * serialize goes unnoticed, and only the thread that comes second reports.
 */
#include <pthread.h>
#include <string.h>

#include "check.h"

static _Atomic int levelv = MPI_THREAD_MULTIPLE; /* provided; MULTIPLE: nothing to check */
static _Atomic int inside;              /* threads inside a counted MPI call */
static CHK_TLS bool is_main;
static CHK_TLS int depth;               /* this thread's counted calls, nested */
static bool exempt[MSC_FN_COUNT];

void chk_thr_init(void)
{
    static const char *const any_time[] = {"MPI_Initialized",   "MPI_Finalized",
                                           "MPI_Query_thread",  "MPI_Is_thread_main",
                                           "MPI_Get_version",   "MPI_Get_library_version"};
    for (int f = 0; f < MSC_FN_COUNT; f++) {
        const char *n = msc_fn_name[f];
        exempt[f] = strncmp(n, "MPI_T_", 6) == 0;
        for (size_t i = 0; i < sizeof any_time / sizeof *any_time; i++)
            if (strcmp(n, any_time[i]) == 0) exempt[f] = true;
    }
    is_main = true; /* the module starts in the thread that initialized MPI */
    atomic_store(&inside, 0);
    atomic_store(&levelv, msc_g.thread_provided);
}

static const char *level_name(int l)
{
    return l == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : l == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : l == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                                        : "MPI_THREAD_MULTIPLE";
}

void chk_thr_enter(const msc_call_t *c)
{
    int level = atomic_load_explicit(&levelv, memory_order_relaxed);
    if (MSC_LIKELY(level >= MPI_THREAD_MULTIPLE) || exempt[c->fn]) return;
    if (depth++ > 0) return;
    int others = atomic_fetch_add_explicit(&inside, 1, memory_order_acq_rel);
    if ((level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED) && !is_main)
        chk_report("LOCAL:THREAD:NOT_MAIN", c->fn, c->site,
                   "%s was called from a thread other than the one that initialized MPI, but "
                   "MPI provides only %s: %s. Make every MPI call from the main thread, or ask "
                   "MPI_Init_thread for MPI_THREAD_SERIALIZED (one thread at a time) or "
                   "MPI_THREAD_MULTIPLE and check the level it provides.",
                   msc_fn_name[c->fn], level_name(level),
                   level == MPI_THREAD_SINGLE ? "only one thread may execute"
                                              : "only the main thread may make MPI calls");
    if (others > 0)
        chk_report("LOCAL:THREAD:CONCURRENT", c->fn, c->site,
                   "%s was called while another thread of this process was inside an MPI call, "
                   "but MPI provides only %s, under which threads must not call MPI at the same "
                   "time (MPI-3.1 section 12.4.3). Serialize the calls (a mutex around every MPI "
                   "call), or ask MPI_Init_thread for MPI_THREAD_MULTIPLE and check the level "
                   "it provides.",
                   msc_fn_name[c->fn], level_name(level));
}

void chk_thr_leave(const msc_call_t *c)
{
    if (MSC_LIKELY(atomic_load_explicit(&levelv, memory_order_relaxed) >= MPI_THREAD_MULTIPLE) ||
        exempt[c->fn] || depth == 0)
        return;
    if (--depth == 0) atomic_fetch_sub_explicit(&inside, 1, memory_order_acq_rel);
}

/* At MPI_Finalize: nothing is checked any more. */
void chk_thr_finalize(void)
{
    atomic_store(&levelv, MPI_THREAD_MULTIPLE);
}
