/* The analysis's large arrays in an unlinked temporary file, mapped, with
 * a bounded resident set (spill.c). */
#ifndef MSC_ANALYSIS_SPILL_H
#define MSC_ANALYSIS_SPILL_H

#include <stddef.h>

/* Blocks from this size on go to the file; smaller ones to malloc. */
#define WS_SPILL_MIN ((size_t)64 << 10)
/* The passes look at the resident set every this many records... */
#define WS_SPILL_EVERY ((size_t)1 << 12)
/* ...and drop the file's pages from it when they have grown by more than
 * this since the last trim. */
#define WS_SPILL_BUDGET ((size_t)8 << 20)

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
/* Bytes of the file up to the end of its last block in use (0: no file):
 * freed ranges below it are reused before the file grows. */
size_t ws_spill_file_bytes(void);
/* Drops the file's pages from the resident set (their contents stay). */
void ws_spill_trim(void);
/* Trims when the file's resident pages exceed WS_SPILL_BUDGET. */
void ws_spill_check(void);
/* Counts a record a pass touched; checks every WS_SPILL_EVERY of them. */
extern _Thread_local size_t ws_spill_count;
static inline void ws_spill_step(void)
{
    if (++ws_spill_count >= WS_SPILL_EVERY) ws_spill_check();
}

#endif
