/* Private to libmpiscope-heap.so: the per-thread logs the interposed
 * allocation functions write (interpose.c) and the index of live blocks
 * the drain builds from them (index.c). See interpose.c for the design.
 */
#ifndef MSC_HEAP_INTERNAL_H
#define MSC_HEAP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "heap.h"

#define HEAP_INTERNAL __attribute__((visibility("hidden")))
#define HEAP_TLS _Thread_local __attribute__((tls_model("initial-exec")))

enum { HEAP_LOG_N = 1024 };            /* entries per thread's log */
#define HEAP_FREED UINT64_MAX          /* size of a free's entry */

typedef struct {
    uintptr_t addr;
    uint64_t size; /* bytes asked for, or HEAP_FREED */
    uintptr_t site; /* the allocating or freeing call */
    uint64_t seq;  /* global order of the events on one address */
} heap_ent_t;

/* One thread's log: a single-producer ring (its thread appends, the drain
 * takes under heap_drain_mu). Logs are never unmapped: a thread's log is
 * left unowned when the thread ends and taken by the next new thread, its
 * entries not yet drained included (they keep their order). */
typedef struct heap_log {
    _Atomic uint64_t head;   /* entries published (the owner's) */
    _Atomic uint64_t tail;   /* entries taken (the drain's) */
    _Atomic int inflight;    /* the owner has taken a seq, not yet published */
    _Atomic int owned;       /* 1 while a live thread writes it */
    struct heap_log *next;   /* all logs, newest first */
    heap_ent_t ent[HEAP_LOG_N];
} heap_log_t;

extern _Atomic(heap_log_t *) heap_logs HEAP_INTERNAL;
extern _Atomic uint64_t heap_seq HEAP_INTERNAL;
extern pthread_mutex_t heap_drain_mu HEAP_INTERNAL;
extern HEAP_TLS heap_log_t *heap_my_log HEAP_INTERNAL;

/* Memory of the library's own, never from the allocator it interposes. */
void *heap_pages(uint64_t bytes) HEAP_INTERNAL;
void heap_unpages(void *p, uint64_t bytes) HEAP_INTERNAL;

/* Under heap_drain_mu: applies every logged event with seq < limit, in seq
 * order, to the index; then `extra` if not NULL (an event that could not be
 * logged: a thread past its log's end). */
void heap_drain_locked(uint64_t limit, const heap_ent_t *extra) HEAP_INTERNAL;
/* A thread's hint to a block it found: the index's node and its
 * generation then (valid while they match). */
typedef struct {
    void *node;
    uint32_t gen;
} heap_hint_t;
enum { HEAP_HINTS = 4 };
/* Under heap_drain_mu: the live block holding addr; hints[0..nhints) are
 * tried first and updated. */
bool heap_index_find(uintptr_t addr, msc_heap_block_t *out, heap_hint_t *hints, int nhints)
    HEAP_INTERNAL;
/* Under heap_drain_mu: the remembered freed block holding addr, if no
 * live block does. */
bool heap_index_find_freed(uintptr_t addr, msc_heap_freed_t *out) HEAP_INTERNAL;
void heap_index_stats(msc_heap_stats_t *out) HEAP_INTERNAL;

#endif
