/* The analysis's large arrays in an unlinked temporary file, mapped, with
 * a bounded resident set (spill.c). */
#ifndef MSC_ANALYSIS_SPILL_H
#define MSC_ANALYSIS_SPILL_H

#include <stddef.h>

/* Blocks from this size on go to the file; smaller ones to malloc. */
#define WS_SPILL_MIN ((size_t)64 << 10)
/* The passes trim the resident set at least every this many records. */
#define WS_SPILL_EVERY ((size_t)1 << 12)

/* malloc, realloc and free for blocks that may live in the file: take and
 * give both kinds of pointer. NULL when out of memory. */
void *ws_big_alloc(size_t n);
void *ws_mrealloc(void *p, size_t n);
void ws_mfree(void *p);
/* Zeroed. */
void *ws_big_calloc(size_t n, size_t size);
/* memset and memcpy (not overlapping), with the resident set trimmed every
 * few MiB: a bulk fill or copy (a vector's doubling) touches it all. */
void ws_big_fill(void *p, int byte, size_t n);
void ws_big_copy(void *to, const void *from, size_t n);
/* Drops the file's pages from the resident set (their contents stay). */
void ws_spill_trim(void);
/* Counts a record a pass touched; trims every WS_SPILL_EVERY of them. */
extern size_t ws_spill_count;
static inline void ws_spill_step(void)
{
    if (++ws_spill_count >= WS_SPILL_EVERY) ws_spill_trim();
}

#endif
