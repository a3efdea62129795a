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

/* Counts since the library loaded, for tests and bench/. */
typedef struct {
    uint64_t live;          /* blocks in the index after the last drain */
    uint64_t allocs, frees; /* events applied */
    uint64_t unknown_frees; /* frees of blocks never seen (made before the
                               library was active, or by a signal handler) */
    uint64_t drains;        /* times the per-thread logs were emptied */
    uint64_t logs;          /* per-thread logs made (threads alive at once) */
} msc_heap_stats_t;
void msc_heap_stats(msc_heap_stats_t *out);
typedef void (*msc_heap_stats_fn)(msc_heap_stats_t *out);

#endif
