/* The allocation functions of check mode: every live heap block known by
 * its start, size and allocating call, from the moment the library loads
 * (issue 26, "an object for any address").
 *
 * libmpiscope-heap.so defines malloc, free, calloc, realloc, reallocarray,
 * posix_memalign, aligned_alloc, memalign, valloc and pvalloc; preloaded, it
 * is the definition every object binds to (C++ new and delete and gfortran's
 * ALLOCATE call them). Each calls the next definition in the lookup order
 * (dlsym RTLD_NEXT: glibc's, or an allocator the application links, such as
 * jemalloc, so its allocator stays the one in use) and writes one entry to
 * its thread's log: address, size, the caller's return address and a
 * sequence number from one global counter. An allocation is logged after
 * the real call returns, a free before it, so two events on one address are
 * always in seq order, even from two threads (an address freed by one
 * thread and returned by the next malloc of another). The hot path is a
 * fetch-and-add and a few stores; nothing is locked and nothing searched.
 *
 * Look-ups (msc_heap_find, at check mode's buffer checks) drain the logs
 * into the index of live blocks (index.c) under one mutex, then search it;
 * msc_heap_find_freed searches the blocks freed last (a free's entry
 * carries its caller, for the finding's text).
 * A drain takes, from every log, the entries with seq below the counter's
 * value when it began; a thread that has taken a seq but not yet published
 * its entry is waited for (its `inflight` flag: a few instructions), so no
 * event is applied before an earlier one on the same address. A thread
 * whose log is full drains it itself.
 *
 * The traps of an allocator interposer:
 * - dlsym allocates (its error state) before the real functions are known:
 *   those requests are served from a static arena, whose blocks free and
 *   realloc recognise and never hand to the real allocator;
 * - frees of blocks never seen (made before the library was active) are
 *   passed on and counted; the index ignores them;
 * - a signal handler that allocates inside our own bookkeeping (a thread
 *   flag, `busy`) is passed straight through, unlogged; a look-up from it
 *   answers "not known" instead of waiting for a lock its thread holds;
 * - fork: the drain's mutex is held across fork, and in the child the
 *   other threads' logs (their threads are gone) lose their in-flight flags
 *   and owners; their entries stay and are drained;
 * - a thread's end: a key destructor leaves its log unowned; allocations
 *   after it (other destructors) take the lock and are applied at once;
 * - the sanitizers' runtimes define malloc too and are preloaded first
 *   (mpiscope run keeps the user's LD_PRELOAD ahead of its own): this
 *   library is then never called, and check mode knows no heap blocks.
 * A lost free can leave a block in the index that is no longer live; the
 * index removes every block a new one overlaps, so it misleads only a
 * look-up of memory no live block holds (docs/checks.md).
 */

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap_internal.h"

#define EXPORT __attribute__((visibility("default")))
#define CALLER ((uintptr_t)__builtin_return_address(0))

_Atomic(heap_log_t *) heap_logs;
_Atomic uint64_t heap_seq = 1;
pthread_mutex_t heap_drain_mu = PTHREAD_MUTEX_INITIALIZER;
HEAP_TLS heap_log_t *heap_my_log;
static HEAP_TLS int busy;    /* inside our bookkeeping on this thread */
static HEAP_TLS int exiting; /* past this thread's key destructor */
static _Atomic uint64_t nlogs;

/* --- the real functions, and the arena dlsym allocates from ------------- */

static void *(*real_malloc)(size_t);
static void (*real_free)(void *);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

static _Alignas(64) unsigned char arena[64 << 10];
static _Atomic size_t arena_used;

/* Each arena block is preceded by its size (realloc copies that much). */
static void *arena_alloc(size_t n)
{
    size_t need = (n + 16 + 15) & ~(size_t)15;
    size_t at = atomic_fetch_add(&arena_used, need);
    if (at + need > sizeof arena) {
        errno = ENOMEM;
        return NULL;
    }
    *(size_t *)(arena + at) = n;
    return arena + at + 16;
}

static bool in_arena(const void *p)
{
    return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof arena;
}

static pthread_key_t exit_key;
static void thread_exit(void *log);
static void fork_prepare(void) { pthread_mutex_lock(&heap_drain_mu); }
static void fork_parent(void) { pthread_mutex_unlock(&heap_drain_mu); }
static void fork_child(void)
{
    /* Only this thread lives on: the others' logs keep their entries but
     * nobody writes them any more. */
    for (heap_log_t *l = atomic_load(&heap_logs); l; l = l->next) {
        if (l == heap_my_log) continue;
        atomic_store(&l->inflight, 0);
        atomic_store(&l->owned, 0);
    }
    pthread_mutex_init(&heap_drain_mu, NULL);
}

static _Atomic int resolved; /* 0 not yet, 1 under way, 2 done */
static HEAP_TLS int resolving;

#define NEXT(name, fallback) \
    ((real_##name = dlsym(RTLD_NEXT, #name)) ? (void)0 : (void)(real_##name = fallback))
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

static int libc_posix_memalign(void **out, size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

static void *libc_aligned_alloc(size_t align, size_t n) { return __libc_memalign(align, n); }

/* Finds the next definitions (once; the thread that does it allocates from
 * the arena meanwhile, others wait). Returns false while they are unknown. */
static bool resolve(void)
{
    if (atomic_load_explicit(&resolved, memory_order_acquire) == 2) return true;
    if (resolving) return false;
    int expect = 0;
    if (!atomic_compare_exchange_strong(&resolved, &expect, 1)) {
        while (atomic_load_explicit(&resolved, memory_order_acquire) != 2) sched_yield();
        return true;
    }
    resolving = 1;
    NEXT(malloc, __libc_malloc);
    NEXT(free, __libc_free);
    NEXT(calloc, __libc_calloc);
    NEXT(realloc, __libc_realloc);
    NEXT(posix_memalign, libc_posix_memalign);
    NEXT(aligned_alloc, libc_aligned_alloc);
    NEXT(memalign, __libc_memalign);
    NEXT(valloc, __libc_valloc);
    NEXT(pvalloc, __libc_pvalloc);
    pthread_key_create(&exit_key, thread_exit);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    resolving = 0;
    atomic_store_explicit(&resolved, 2, memory_order_release);
    return true;
}

/* Before any other constructor of ours, and on the first allocation of all
 * if that comes first. */
__attribute__((constructor(101))) static void heap_init(void) { resolve(); }

void *heap_pages(uint64_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void heap_unpages(void *p, uint64_t bytes)
{
    if (p) munmap(p, bytes);
}

/* --- the logs -------------------------------------------------------------- */

static void thread_exit(void *log)
{
    heap_log_t *l = log;
    exiting = 1;
    heap_my_log = NULL;
    if (l) atomic_store_explicit(&l->owned, 0, memory_order_release);
}

/* This thread's log: an unowned one, or a new one. */
static heap_log_t *adopt_log(void)
{
    heap_log_t *l;
    for (l = atomic_load(&heap_logs); l; l = l->next) {
        int z = 0;
        if (atomic_load_explicit(&l->owned, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong(&l->owned, &z, 1))
            break;
    }
    if (!l) {
        l = heap_pages(sizeof *l);
        if (!l) return NULL;
        atomic_store(&l->owned, 1);
        l->next = atomic_load(&heap_logs);
        while (!atomic_compare_exchange_weak(&heap_logs, &l->next, l)) {
        }
        atomic_fetch_add(&nlogs, 1);
    }
    heap_my_log = l;
    pthread_setspecific(exit_key, l); /* may allocate: `busy` is set */
    return l;
}

/* Appends one event to this thread's log (see the design above). */
static void note(uintptr_t addr, uint64_t size, uintptr_t site)
{
    if (busy) return;
    busy = 1;
    heap_log_t *l = heap_my_log;
    if (__builtin_expect(!l, 0)) {
        if (exiting || atomic_load_explicit(&resolved, memory_order_acquire) != 2) {
            /* Past the thread's end: no log of its own any more. */
            if (exiting) {
                pthread_mutex_lock(&heap_drain_mu);
                heap_ent_t e = {addr, size, site, atomic_fetch_add(&heap_seq, 1)};
                heap_drain_locked(e.seq, &e);
                pthread_mutex_unlock(&heap_drain_mu);
            }
            busy = 0;
            return;
        }
        l = adopt_log();
        if (!l) {
            busy = 0;
            return;
        }
    }
    uint64_t h = atomic_load_explicit(&l->head, memory_order_relaxed);
    if (h - atomic_load_explicit(&l->tail, memory_order_acquire) >= HEAP_LOG_N) {
        pthread_mutex_lock(&heap_drain_mu);
        heap_drain_locked(atomic_load(&heap_seq), NULL);
        pthread_mutex_unlock(&heap_drain_mu);
    }
    atomic_store_explicit(&l->inflight, 1, memory_order_relaxed);
    heap_ent_t *e = &l->ent[h % HEAP_LOG_N];
    e->seq = atomic_fetch_add(&heap_seq, 1); /* a full barrier: inflight is seen first */
    e->addr = addr;
    e->size = size;
    e->site = site;
    atomic_store_explicit(&l->head, h + 1, memory_order_release);
    atomic_store_explicit(&l->inflight, 0, memory_order_release);
    busy = 0;
}

/* --- the allocation functions -------------------------------------------- */

EXPORT void *malloc(size_t n)
{
    if (__builtin_expect(!real_malloc, 0) && !resolve()) return arena_alloc(n);
    void *p = real_malloc(n);
    if (p) note((uintptr_t)p, n, CALLER);
    return p;
}

EXPORT void free(void *p)
{
    if (!p || in_arena(p)) return;
    if (__builtin_expect(!real_free, 0) && !resolve()) {
        __libc_free(p); /* dlsym under way on this thread: not ours, libc's */
        return;
    }
    note((uintptr_t)p, HEAP_FREED, CALLER);
    real_free(p);
}

EXPORT void *calloc(size_t n, size_t m)
{
    if (__builtin_expect(!real_calloc, 0) && !resolve()) {
        if (m && n > SIZE_MAX / m) {
            errno = ENOMEM;
            return NULL;
        }
        return arena_alloc(n * m); /* static: zeroed */
    }
    void *p = real_calloc(n, m);
    if (p) note((uintptr_t)p, (uint64_t)n * m, CALLER);
    return p;
}

static void *realloc_at(void *p, size_t n, uintptr_t site)
{
    if (__builtin_expect(!real_realloc, 0) && !resolve()) {
        void *q = arena_alloc(n);
        if (q && p) memcpy(q, p, ((size_t *)p)[-2] < n ? ((size_t *)p)[-2] : n);
        return q;
    }
    if (p && in_arena(p)) {
        void *q = real_malloc(n);
        if (q) {
            size_t had = *(size_t *)((unsigned char *)p - 16);
            memcpy(q, p, had < n ? had : n);
            note((uintptr_t)q, n, site);
        }
        return q;
    }
    /* The old block is gone once realloc returns non-NULL (or frees it for
     * size 0); logged first, as a free is. A failed realloc leaves it live
     * but unknown from here on: never a false finding. */
    if (p) note((uintptr_t)p, HEAP_FREED, site);
    void *q = real_realloc(p, n);
    if (q) note((uintptr_t)q, n, site);
    return q;
}

EXPORT void *realloc(void *p, size_t n) { return realloc_at(p, n, CALLER); }

EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
    if (m && n > SIZE_MAX / m) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc_at(p, n * m, CALLER);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (__builtin_expect(!real_posix_memalign, 0) && !resolve()) return ENOMEM;
    int rc = real_posix_memalign(out, align, n);
    if (rc == 0 && *out) note((uintptr_t)*out, n, CALLER);
    return rc;
}

#define ALIGNED(name, args, call, size)                                          \
    EXPORT void *name args                                                        \
    {                                                                             \
        if (__builtin_expect(!real_##name, 0) && !resolve()) return NULL;         \
        void *p = real_##name call;                                               \
        if (p) note((uintptr_t)p, size, CALLER);                                  \
        return p;                                                                 \
    }
ALIGNED(aligned_alloc, (size_t align, size_t n), (align, n), n)
ALIGNED(memalign, (size_t align, size_t n), (align, n), n)
ALIGNED(valloc, (size_t n), (n), n)
/* pvalloc's block is the request rounded up to whole pages, all of it the
 * program's. */
ALIGNED(pvalloc, (size_t n), (n), n ? (n + (size_t)sysconf(_SC_PAGESIZE) - 1) & ~((size_t)sysconf(_SC_PAGESIZE) - 1) : (size_t)sysconf(_SC_PAGESIZE))

/* --- look-ups -------------------------------------------------------------- */

/* The last answer of this thread, valid while no allocation or free has
 * happened anywhere since (the counter unchanged): a loop of MPI calls on
 * one buffer pays one load. */
static HEAP_TLS msc_heap_block_t last;
static HEAP_TLS uint64_t last_seq;
static HEAP_TLS heap_hint_t hints[HEAP_HINTS];

EXPORT uint64_t msc_heap_now(void) { return atomic_load(&heap_seq); }

EXPORT int msc_heap_find(uintptr_t addr, msc_heap_block_t *out)
{
    return msc_heap_find_at(addr, atomic_load(&heap_seq), out);
}

/* Events at or after `now` stay in the logs for a later drain. (A thread
 * whose log fills drains everything; a look-up after that sees a later
 * state, never a wrong one.) */
EXPORT int msc_heap_find_at(uintptr_t addr, uint64_t now, msc_heap_block_t *out)
{
    if (busy) return 0;
    if (now == last_seq && addr >= last.start &&
        (addr < last.start + last.size || (addr == last.start && last.size == 0))) {
        *out = last;
        return 1;
    }
    busy = 1;
    pthread_mutex_lock(&heap_drain_mu);
    heap_drain_locked(now, NULL);
    bool found = heap_index_find(addr, out, hints, HEAP_HINTS);
    pthread_mutex_unlock(&heap_drain_mu);
    if (found) {
        last = *out;
        last_seq = now;
    }
    busy = 0;
    return found;
}

EXPORT int msc_heap_find_freed(uintptr_t addr, msc_heap_freed_t *out)
{
    return msc_heap_find_freed_at(addr, atomic_load(&heap_seq), out);
}

EXPORT int msc_heap_find_freed_at(uintptr_t addr, uint64_t now, msc_heap_freed_t *out)
{
    if (busy) return 0;
    busy = 1;
    pthread_mutex_lock(&heap_drain_mu);
    heap_drain_locked(now, NULL);
    bool found = heap_index_find_freed(addr, out);
    pthread_mutex_unlock(&heap_drain_mu);
    busy = 0;
    return found;
}

EXPORT void msc_heap_stats(msc_heap_stats_t *out)
{
    busy++;
    pthread_mutex_lock(&heap_drain_mu);
    heap_drain_locked(atomic_load(&heap_seq), NULL);
    heap_index_stats(out);
    pthread_mutex_unlock(&heap_drain_mu);
    out->logs = atomic_load(&nlogs);
    busy--;
}
