/* Private to mpiscope. A lock that costs the thread that owns it nothing.
 *
 * Most programs make their MPI calls from one thread, and there the mutexes
 * of a table shared by threads (each lock and unlock a locked instruction,
 * tens of ns together) were most of the cost of a recorded call that uses
 * one. The first thread to enter an msc_solo_t owns it and takes neither
 * lock nor locked instruction: it marks itself busy (a plain store), checks
 * that the lock is still its own and works. The first entry by any other
 * thread makes it shared for good: that thread sets `shared`, puts a fence
 * into every thread of the process (msc_fence_all_threads, membarrier(2), as
 * the gate does: state.h) and waits until the owner is no longer busy; from
 * then on every thread, the owner included, takes the caller's mutex. The
 * owner's store of busy and load of shared, and the other thread's store of
 * shared and load of busy, are the two halves of a Dekker handshake, the
 * membarrier the fence of both. A third thread that finds it shared waits
 * until it is `settled` (the owner out), which also orders the owner's last
 * lock-free writes before its own. Without membarrier a lock is shared from
 * the start (msc_solo_init).
 *
 *     bool solo = msc_solo_enter(&s);
 *     if (!solo) pthread_mutex_lock(&m);
 *     ...
 *     if (solo) msc_solo_leave(&s); else pthread_mutex_unlock(&m);
 *
 * What runs between enter and leave must not wait for another thread that
 * may be entering the same msc_solo_t (that thread waits for this one).
 */
#ifndef MSC_CORE_SOLO_H
#define MSC_CORE_SOLO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "state.h"

typedef struct {
    _Atomic(const void *) owner; /* &msc_tls of the owning thread; NULL: none yet */
    _Atomic int busy;            /* the owner is between enter and leave */
    _Atomic bool shared;         /* every thread locks */
    _Atomic bool settled;        /* shared, and the owner is out of its last lock-free section */
    pthread_mutex_t share_lock;  /* serializes the change to shared */
} msc_solo_t;

#define MSC_SOLO_INIT {.share_lock = PTHREAD_MUTEX_INITIALIZER}

/* Under ThreadSanitizer, which knows neither membarrier nor signal fences,
 * both halves of the handshake are sequentially consistent atomics (correct
 * on their own, and what TSan models). */
#if defined(__SANITIZE_THREAD__)
#define MSC_SOLO_ORDER memory_order_seq_cst
#else
#define MSC_SOLO_ORDER memory_order_relaxed
#endif

/* Makes `s` shared from the start when membarrier(2) is not available. */
void msc_solo_init(msc_solo_t *s) MSC_INTERNAL;

/* msc_solo_enter for a thread that is not the owner: it becomes the owner
 * if there is none (and is then entered), or makes `s` shared (false). */
bool msc_solo_claim(msc_solo_t *s) MSC_INTERNAL;

/* Whether the calling thread may go on without the lock; if so it is
 * marked busy until msc_solo_leave. */
static inline bool msc_solo_enter(msc_solo_t *s)
{
    if (MSC_UNLIKELY(atomic_load_explicit(&s->owner, memory_order_relaxed) != (const void *)&msc_tls))
        return msc_solo_claim(s);
    atomic_store_explicit(&s->busy, 1, MSC_SOLO_ORDER);
    atomic_signal_fence(memory_order_seq_cst); /* a full fence when another thread shares it */
    if (MSC_LIKELY(!atomic_load_explicit(&s->shared, MSC_SOLO_ORDER))) return true;
    atomic_store_explicit(&s->busy, 0, memory_order_release);
    return false;
}

static inline void msc_solo_leave(msc_solo_t *s)
{
    atomic_store_explicit(&s->busy, 0, memory_order_release);
}

#endif
