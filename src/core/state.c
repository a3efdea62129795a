/* Thread registry and process state. The registry is a singly linked list
 * guarded by one mutex; it is touched only when a thread makes its first MPI
 * call, when a thread exits, and when the recording level changes, never on
 * the path of an ordinary call. Thread states are kept after their thread
 * exits, so what a short-lived thread recorded is still merged at
 * MPI_Finalize.
 */
#include "state.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "msc_functions.h"
#include "requests.h"
#include "solo.h"

_Thread_local msc_tls_t msc_tls __attribute__((tls_model("initial-exec")));
msc_global_t msc_g = {.comm = MPI_COMM_NULL, .world_group = MPI_GROUP_NULL, .world_rank = -1};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static msc_thread_t *registry;
static int registry_count;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(void *arg)
{
    msc_thread_t *t = arg;
    pthread_mutex_lock(&registry_lock);
    t->gate = NULL;
    pthread_mutex_unlock(&registry_lock);
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

static unsigned gate_for_level(void)
{
    return msc_recording_on() ? 0u : MSC_GATE_OFF;
}

msc_thread_t *msc_thread_attach(void)
{
    if (msc_tls.thread) return msc_tls.thread;
    msc_thread_t *t = calloc(1, sizeof *t);
    uint64_t *calls = calloc(MSC_FN_COUNT, sizeof *calls);
    if (!t || !calls) {
        free(t);
        free(calls);
        return NULL;
    }
    t->calls = calls;
    t->gate = &msc_tls.gate;
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, t);
    pthread_mutex_lock(&registry_lock);
    t->index = registry_count++;
    t->next = registry;
    registry = t;
    msc_tls.thread = t;
    /* Under the lock, so that a concurrent msc_gates_update cannot slip
     * between reading the level and publishing this thread. */
    atomic_store_explicit(&msc_tls.gate,
                          (atomic_load_explicit(&msc_tls.gate, memory_order_relaxed) &
                           MSC_GATE_BUSY) | gate_for_level(),
                          memory_order_relaxed);
    pthread_mutex_unlock(&registry_lock);
    return t;
}

void msc_thread_detach(void)
{
    msc_thread_t *t = msc_tls.thread;
    if (t) {
        pthread_mutex_lock(&registry_lock);
        t->gate = NULL;
        pthread_mutex_unlock(&registry_lock);
        pthread_setspecific(exit_key, NULL);
    }
    msc_tls.thread = NULL;
    atomic_store_explicit(&msc_tls.gate, 0u, memory_order_relaxed);
}

/* The changer's half of the gate handshake (state.h): a full memory barrier
 * in every running thread of the process. The expedited private command
 * (Linux 4.14) costs a few microseconds; the global one, where the private
 * one is refused, a scheduler grace period. Where neither exists (a seccomp
 * filter may refuse both), a thread whose call is in flight while the level
 * changes may keep the old level until the level changes again; that is
 * said once.
 *
 * The barrier is for other threads with a gate: while the changer is the
 * only one (MPI_Init and MPI_Finalize of a single-threaded program, the
 * common case), its own fence is enough, and neither the command nor its
 * registration runs. Registration is what costs: the kernel waits for an RCU
 * grace period when the process already has threads (Open MPI's progress
 * and PMIx threads), 15 ms of MPI_Init here. A thread that attaches after
 * the count reads the new level under the registry lock (msc_thread_attach).
 */
static int membarrier_cmd = -1;

static _Atomic bool membarrier_tried;

static void membarrier_setup(void)
{
    membarrier_tried = true;
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
        membarrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
    else if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL))
        membarrier_cmd = MEMBARRIER_CMD_GLOBAL;
}

/* Registered threads with a gate other than the calling one. */
static int other_gates(void)
{
    int n = 0;
    pthread_mutex_lock(&registry_lock);
    for (msc_thread_t *t = registry; t; t = t->next)
        if (t->gate && t->gate != &msc_tls.gate) n++;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

static pthread_once_t membarrier_once = PTHREAD_ONCE_INIT;

static void heavy_fence(void)
{
    /* This thread's own full fence (a seq_cst read-modify-write: TSan has no
     * model of atomic_thread_fence); the system call is one as well. */
    static _Atomic int fence_word;
    atomic_fetch_add(&fence_word, 0);
    if (other_gates() == 0) return;
    pthread_once(&membarrier_once, membarrier_setup);
    if (membarrier_cmd >= 0) syscall(SYS_membarrier, membarrier_cmd, 0, 0);
}

bool msc_fence_all_threads(void)
{
    static _Atomic int fence_word;
    atomic_fetch_add(&fence_word, 0);
    pthread_once(&membarrier_once, membarrier_setup);
    return membarrier_cmd >= 0 && syscall(SYS_membarrier, membarrier_cmd, 0, 0) == 0;
}

/* ---- msc_solo_t (solo.h) --------------------------------------------------- */

void msc_solo_init(msc_solo_t *s)
{
    if (msc_fence_all_threads()) return;
    atomic_store(&s->shared, true);
    atomic_store(&s->settled, true);
}

/* From now on everybody locks: returns when the owner is out of its last
 * lock-free section. */
static void solo_share(msc_solo_t *s)
{
    pthread_mutex_lock(&s->share_lock);
    if (!atomic_load(&s->shared)) {
        atomic_store(&s->shared, true);
        msc_fence_all_threads();
        while (atomic_load_explicit(&s->busy, memory_order_acquire)) sched_yield();
    }
    atomic_store_explicit(&s->settled, true, memory_order_release);
    pthread_mutex_unlock(&s->share_lock);
}

bool msc_solo_claim(msc_solo_t *s)
{
    if (atomic_load_explicit(&s->settled, memory_order_acquire)) return false;
    const void *none = NULL;
    if (!atomic_load(&s->shared) &&
        atomic_compare_exchange_strong(&s->owner, &none, (const void *)&msc_tls))
        return msc_solo_enter(s);
    solo_share(s); /* or wait until the thread sharing it is done */
    return false;
}

void msc_gates_update(void)
{
    msc_types_forget(); /* datatypes freed while recording was off went unseen */
    msc_recording_update();
    heavy_fence();
    bool on = msc_recording_on();
    pthread_mutex_lock(&registry_lock);
    if (membarrier_cmd < 0 && registry_count > 1 && membarrier_tried)
        msc_warn_once("membarrier", "membarrier(2) is not available: a change of the recording "
                                    "level may be missed by a thread busy in MPI at that moment");
    for (msc_thread_t *t = registry; t; t = t->next) {
        if (!t->gate) continue;
        if (on)
            atomic_fetch_and_explicit(t->gate, ~MSC_GATE_OFF, memory_order_seq_cst);
        else
            atomic_fetch_or_explicit(t->gate, MSC_GATE_OFF, memory_order_seq_cst);
    }
    pthread_mutex_unlock(&registry_lock);
}

void msc_threads_foreach(void (*fn)(msc_thread_t *t, void *arg), void *arg)
{
    pthread_mutex_lock(&registry_lock);
    for (msc_thread_t *t = registry; t; t = t->next) fn(t, arg);
    pthread_mutex_unlock(&registry_lock);
}

bool msc_thread_scratch(msc_thread_t *t, int n)
{
    if (n <= t->scratch_n) return true;
    int want = n < 64 ? 64 : n;
    MPI_Status *s = realloc(t->scratch_status, (size_t)want * sizeof *s);
    if (!s) return false;
    t->scratch_status = s;
    MPI_Request *r = realloc(t->scratch_req, (size_t)want * sizeof *r);
    if (!r) return false;
    t->scratch_req = r;
    t->scratch_n = want;
    return true;
}
