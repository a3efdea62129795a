/* The interface of libmpiscope-heap.so, the allocator interposer of check
 * mode (issue 26: a heap buffer's block without recompiling).
 *
 * The library is preloaded by `mpiscope run --check` only (profile and trace
 * runs never interpose the allocator). It exports the functions below with
 * default visibility; check mode looks them up with dlsym(RTLD_DEFAULT) at
 * its first buffer check and treats their absence (another mode's run, a
 * sanitizer's allocator bound first) as "heap blocks not known". Nothing
 * else of the library is visible.
 */
#ifndef MSC_HEAP_H
#define MSC_HEAP_H

#include <stdint.h>

/* A live heap block: its first byte, the bytes the program asked for and
 * the return address of the allocating call (the caller of malloc, calloc,
 * realloc, ...; for C++ new, the allocation inside libstdc++). */
typedef struct {
    uintptr_t start;
    uint64_t size;
    uintptr_t site;
} msc_heap_block_t;

/* The live block holding `addr` ([start, start + size), or `addr` ==
 * start of a block of 0 bytes): 1 and *out filled, or 0 (no block, or the
 * call came from a signal handler inside the interposer). Thread-safe. */
int msc_heap_find(uintptr_t addr, msc_heap_block_t *out);
typedef int (*msc_heap_find_fn)(uintptr_t addr, msc_heap_block_t *out);

/* The same as of `when`, a value msc_heap_now gave: the allocations and
 * frees made since are not applied yet. A caller that allocates between
 * taking `when` and looking up (the checker's first look at a module's
 * symbols) sees the blocks as they were, not its own. */
uint64_t msc_heap_now(void);
typedef uint64_t (*msc_heap_now_fn)(void);
int msc_heap_find_at(uintptr_t addr, uint64_t when, msc_heap_block_t *out);
typedef int (*msc_heap_find_at_fn)(uintptr_t addr, uint64_t when, msc_heap_block_t *out);

/* A block the program freed and the allocator has not handed out again:
 * its first byte, size, allocating call and freeing call (the caller of
 * free or realloc). Only the last few thousand frees are kept. */
typedef struct {
    uintptr_t start;
    uint64_t size;
    uintptr_t site;
    uintptr_t free_site;
} msc_heap_freed_t;

/* The recently freed block holding `addr` when no live block holds it: 1
 * and *out filled, or 0. Thread-safe; a look-up of memory no object holds,
 * so it is off the common path. */
int msc_heap_find_freed(uintptr_t addr, msc_heap_freed_t *out);
typedef int (*msc_heap_find_freed_fn)(uintptr_t addr, msc_heap_freed_t *out);
int msc_heap_find_freed_at(uintptr_t addr, uint64_t when, msc_heap_freed_t *out);
typedef int (*msc_heap_find_freed_at_fn)(uintptr_t addr, uint64_t when, msc_heap_freed_t *out);

/* Counts since the library loaded, for tests and bench/. */
typedef struct {
    uint64_t live;          /* blocks in the index after the last drain */
    uint64_t allocs, frees; /* events applied */
    uint64_t unknown_frees; /* frees of blocks never seen (made before the
                               library was active, or by a signal handler) */
    uint64_t drains;        /* times the per-thread logs were emptied */
    uint64_t logs;          /* per-thread logs made (threads alive at once) */
    uint64_t freed_kept;    /* freed blocks remembered (at most a few thousand) */
} msc_heap_stats_t;
void msc_heap_stats(msc_heap_stats_t *out);
typedef void (*msc_heap_stats_fn)(msc_heap_stats_t *out);

#endif
