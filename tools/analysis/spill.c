/* Where the analysis keeps its large per-event arrays: in an unlinked
 * temporary file mapped into memory, so that the process's resident memory
 * stays bounded whatever the size of the trace (docs/analysis.md "Memory").
 *
 * Design. One file, opened with O_TMPFILE (never visible, gone when the
 * process ends, even on a crash) in $TMPDIR or /var/tmp, is mapped once
 * MAP_SHARED over a large reservation of address space (64 GiB, a single
 * mapping: no per-block mapping to count against vm.max_map_count). A
 * block of at least WS_SPILL_MIN bytes takes the next page-aligned range of
 * the file (a bump pointer; the file grows with ftruncate and stays sparse),
 * with a 64-byte header holding its length; freeing a block punches its
 * range out of the file (disk and page cache are given back at once).
 * ws_spill_trim() drops every page of the mapping from the process's
 * resident set (madvise MADV_DONTNEED): what was written stays in the file
 * (in the page cache until the kernel writes it back and evicts it under
 * pressure), and the next access faults it back in. The passes count their
 * records (ws_spill_step) and every WS_SPILL_EVERY of them look at the
 * process's resident file pages (/proc/self/statm, one pread); only when
 * these have grown by more than WS_SPILL_BUDGET since the last trim is the
 * mapping trimmed. So the resident set is a window of a few MB that a pass
 * works in, not the trace, and a page touched again inside the window (a
 * pass reading several arrays at different rates, the next pass starting
 * where the last ended) does not fault again: trimming every 4,096 records
 * unconditionally, as before, cost twice the page faults and ten times the
 * madvise calls.
 *
 * Costs: disk space for the records (about twice the trace, written back
 * by the kernel at its own pace, freed as the passes free their arrays), a
 * page fault per page (or large folio) touched after a trim, and the page
 * cache's work for every fresh page of the file (allocate, zero, dirty,
 * and free when punched): the larger part of the system time. When the file or the
 * reservation cannot be had (no writable temporary directory, a sanitizer's
 * address-space layout, the reservation used up), or MPISCOPE_ANALYSIS_SPILL=0,
 * blocks come from malloc: the results are the same, only the memory is not
 * bounded. ws_mfree and ws_mrealloc accept both kinds of pointer. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "spill.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SPILL_RESERVE ((size_t)64 << 30)
#define SPILL_PAGE ((size_t)4096)
#define SPILL_HDR ((size_t)64)

static struct {
    bool inited;
    int fd;
    char *base;   /* NULL: no spill */
    size_t bump;  /* bytes of the file handed out */
    size_t fsize; /* the file's length */
    int statm;    /* /proc/self/statm, or -1 */
    size_t floor; /* file_resident() after the last trim */
} S = {false, -1, NULL, 0, 0, -1, SIZE_MAX};

static void spill_init(void)
{
    S.inited = true;
    const char *on = getenv("MPISCOPE_ANALYSIS_SPILL");
    if (on && !strcmp(on, "0")) return;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/var/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) return;
    void *b = mmap(NULL, SPILL_RESERVE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (b == MAP_FAILED) {
        close(fd);
        return;
    }
    /* Random reads fault in one page, not a read-ahead window. */
    (void)madvise(b, SPILL_RESERVE, MADV_RANDOM);
    S.fd = fd;
    S.base = b;
    S.statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
}

static inline bool spilled(const void *p)
{
    return S.base && (const char *)p >= S.base && (const char *)p < S.base + SPILL_RESERVE;
}

static size_t *header(const void *p) { return (size_t *)((char *)p - SPILL_HDR); }

void *ws_big_alloc(size_t n)
{
    if (!S.inited) spill_init();
    if (!S.base || n < WS_SPILL_MIN) return malloc(n ? n : 1);
    size_t len = (SPILL_HDR + n + SPILL_PAGE - 1) & ~(SPILL_PAGE - 1);
    if (len > SPILL_RESERVE - S.bump) return malloc(n);
    size_t off = S.bump;
    if (off + len > S.fsize) {
        /* grow the file in steps of 64 MiB (or more): fewer calls */
        size_t want = off + len + ((size_t)64 << 20);
        if (want > SPILL_RESERVE) want = SPILL_RESERVE;
        if (ftruncate(S.fd, (off_t)want)) return malloc(n);
        S.fsize = want;
    }
    S.bump = off + len;
    char *p = S.base + off;
    *(size_t *)p = len;
    return p + SPILL_HDR;
}

/* Gives the pages [from, to) of the file back (disk and page cache). */
static void punch(size_t from, size_t to)
{
    if (to > from)
        (void)fallocate(S.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
                        (off_t)(to - from));
}

void ws_big_copy(void *to, const void *from, size_t n)
{
    const size_t step = (size_t)4 << 20;
    for (size_t o = 0; o < n; o += step) {
        memcpy((char *)to + o, (const char *)from + o, n - o < step ? n - o : step);
        if (n > step) ws_spill_check();
    }
}

void ws_big_fill(void *p, int byte, size_t n)
{
    const size_t step = (size_t)4 << 20;
    for (size_t o = 0; o < n; o += step) {
        memset((char *)p + o, byte, n - o < step ? n - o : step);
        if (n > step) ws_spill_check();
    }
}

void ws_mfree(void *p)
{
    if (!p) return;
    if (!spilled(p)) {
        free(p);
        return;
    }
    size_t off = (size_t)((char *)p - SPILL_HDR - S.base);
    size_t len = *header(p);
    punch(off, off + len);
    if (off + len == S.bump) S.bump = off; /* the last block: its range is reused */
}

void *ws_mrealloc(void *p, size_t n)
{
    if (!S.inited) spill_init();
    if (!p) return ws_big_alloc(n);
    if (spilled(p)) {
        size_t off = (size_t)((char *)p - SPILL_HDR - S.base);
        size_t len = *header(p);
        size_t nlen = (SPILL_HDR + n + SPILL_PAGE - 1) & ~(SPILL_PAGE - 1);
        if (nlen <= len) { /* shrink in place */
            punch(off + nlen, off + len);
            *header(p) = nlen;
            if (off + len == S.bump) S.bump = off + nlen;
            return p;
        }
        if (off + len == S.bump && nlen - len <= SPILL_RESERVE - S.bump) {
            /* the last block grows in place */
            if (off + nlen > S.fsize) {
                size_t want = off + nlen + ((size_t)64 << 20);
                if (want > SPILL_RESERVE) want = SPILL_RESERVE;
                if (!ftruncate(S.fd, (off_t)want)) S.fsize = want;
            }
            if (off + nlen <= S.fsize) {
                *header(p) = nlen;
                S.bump = off + nlen;
                return p;
            }
        }
        void *q = ws_big_alloc(n);
        if (!q) return NULL;
        ws_big_copy(q, p, len - SPILL_HDR);
        ws_mfree(p);
        return q;
    }
    if (!S.base || n < WS_SPILL_MIN) return realloc(p, n);
    void *q = ws_big_alloc(n);
    if (!q) return NULL;
    size_t old = malloc_usable_size(p);
    memcpy(q, p, old < n ? old : n);
    free(p);
    return q;
}

size_t ws_spill_count;

/* The process's resident file-backed pages (the third field of
 * /proc/self/statm: RssFile + RssShmem), or SIZE_MAX when unknown. */
static size_t file_resident(void)
{
    if (S.statm < 0) return SIZE_MAX;
    char buf[128];
    ssize_t n = pread(S.statm, buf, sizeof buf - 1, 0);
    if (n <= 0) return SIZE_MAX;
    buf[n] = 0;
    char *q = buf;
    (void)strtoull(q, &q, 10), (void)strtoull(q, &q, 10);
    return (size_t)strtoull(q, NULL, 10);
}

void ws_spill_trim(void)
{
    ws_spill_count = 0;
    if (!S.base || !S.bump) return;
    (void)madvise(S.base, S.bump, MADV_DONTNEED);
    S.floor = file_resident();
}

void ws_spill_check(void)
{
    ws_spill_count = 0;
    if (!S.base || !S.bump) return;
    size_t now = file_resident();
    if (now == SIZE_MAX || S.floor == SIZE_MAX || now > S.floor + WS_SPILL_BUDGET / SPILL_PAGE)
        ws_spill_trim();
}

void *ws_big_calloc(size_t n, size_t size)
{
    size_t b = n * size;
    void *p = ws_big_alloc(b);
    /* the file's fresh ranges read as zero (extended or punched) */
    if (p && !spilled(p)) memset(p, 0, b ? b : 1);
    return p;
}
