/* Where the analysis keeps its large per-event arrays: in an unlinked
 * temporary file mapped into memory, so that the process's resident memory
 * stays bounded whatever the size of the trace (docs/analysis.md "Memory").
 *
 * Design. One file, opened with O_TMPFILE (never visible, gone when the
 * process ends, even on a crash) in $TMPDIR or /var/tmp, is mapped once
 * MAP_SHARED over a large reservation of address space (64 GiB, a single
 * mapping: no per-block mapping to count against vm.max_map_count). A
 * block of at least WS_SPILL_MIN bytes takes the smallest free range of the
 * file that holds it, else the next page-aligned range at the end (the file
 * grows with ftruncate and stays sparse beyond what was ever used), with a
 * 64-byte header holding its length; freeing a block puts its range on a
 * sorted list of free ranges, merged with its neighbours, and moves the end
 * back when it was the last. The freed pages stay in the file and the page
 * cache for the next block: on this kind of machine a fresh page (a hole
 * filled at the first touch) costs several times a reused one, so the file
 * is as large as the most that was in use at once, and its pages are
 * allocated once. A zeroed block is cleared where it reuses a range.
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
 * Costs: disk space for the records (at most what was in use at once,
 * about twice the trace, written back by the kernel at its own pace and
 * given back when the process ends), a page fault per page (or large folio,
 * or fault-around batch) touched after a trim, and the page cache's work for
 * every fresh page of the file (allocate, zero, dirty): the larger part of
 * the system time. When the file or the
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

/* A free range of the file, below the bump. */
typedef struct {
    size_t off, len;
} extent_t;

static struct {
    bool inited;
    int fd;
    char *base;   /* NULL: no spill */
    size_t bump;  /* bytes of the file handed out */
    size_t hwm;   /* the highest bump so far: beyond it the file is a hole */
    size_t fsize; /* the file's length */
    int statm;    /* /proc/self/statm, or -1 */
    size_t floor; /* file_resident() after the last trim */
    extent_t *free; /* sorted by offset, never adjacent */
    size_t nfree, capfree;
} S = {false, -1, NULL, 0, 0, 0, -1, SIZE_MAX, NULL, 0, 0};

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
    /* No MADV_RANDOM: the passes walk their arrays in order, and a fault
     * then maps the neighbouring pages already in the page cache too (fault
     * around), and reads a fresh range of the file (a hole) in batches
     * instead of one page per fault. */
    S.fd = fd;
    S.base = b;
    S.statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
}

/* Gives the pages [from, to) of the file back (disk and page cache). */
static void punch(size_t from, size_t to)
{
    if (to > from)
        (void)fallocate(S.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)from,
                        (off_t)(to - from));
}

static inline bool spilled(const void *p)
{
    return S.base && (const char *)p >= S.base && (const char *)p < S.base + SPILL_RESERVE;
}

static size_t *header(const void *p) { return (size_t *)((char *)p - SPILL_HDR); }

/* Takes `len` bytes (page multiple) of the file: the smallest free range
 * that holds them, else the end. Returns the offset, or SIZE_MAX. */
static size_t take(size_t len)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < S.nfree; i++)
        if (S.free[i].len >= len && (best == SIZE_MAX || S.free[i].len < S.free[best].len))
            best = i;
    if (best != SIZE_MAX) {
        size_t off = S.free[best].off;
        S.free[best].off += len, S.free[best].len -= len;
        if (!S.free[best].len) {
            memmove(&S.free[best], &S.free[best + 1], (S.nfree - best - 1) * sizeof *S.free);
            S.nfree--;
        }
        return off;
    }
    if (len > SPILL_RESERVE - S.bump) return SIZE_MAX;
    size_t off = S.bump;
    if (off + len > S.fsize) {
        /* grow the file in steps of 64 MiB (or more): fewer calls */
        size_t want = off + len + ((size_t)64 << 20);
        if (want > SPILL_RESERVE) want = SPILL_RESERVE;
        if (ftruncate(S.fd, (off_t)want)) return SIZE_MAX;
        S.fsize = want;
    }
    S.bump = off + len;
    if (S.bump > S.hwm) S.hwm = S.bump;
    return off;
}

/* Gives [off, off + len) back: merged with its free neighbours, and the
 * bump lowered when it is the last range. Its pages stay in the file and
 * the page cache for the next block (a fresh page costs the kernel far more
 * than a reused one); when the free list cannot grow, they are punched out. */
static void give(size_t off, size_t len)
{
    size_t i = 0;
    while (i < S.nfree && S.free[i].off < off) i++;
    bool left = i > 0 && S.free[i - 1].off + S.free[i - 1].len == off;
    bool right = i < S.nfree && off + len == S.free[i].off;
    if (left && right) {
        S.free[i - 1].len += len + S.free[i].len;
        memmove(&S.free[i], &S.free[i + 1], (S.nfree - i - 1) * sizeof *S.free);
        S.nfree--;
        i--;
    } else if (left) {
        S.free[--i].len += len;
    } else if (right) {
        S.free[i].off = off, S.free[i].len += len;
    } else {
        if (S.nfree == S.capfree) {
            size_t cap = S.capfree ? 2 * S.capfree : 64;
            extent_t *n = realloc(S.free, cap * sizeof *n);
            if (!n) {
                punch(off, off + len);
                return;
            }
            S.free = n, S.capfree = cap;
        }
        memmove(&S.free[i + 1], &S.free[i], (S.nfree - i) * sizeof *S.free);
        S.free[i] = (extent_t){off, len};
        S.nfree++;
    }
    if (i == S.nfree - 1 && S.free[i].off + S.free[i].len == S.bump) {
        S.bump = S.free[i].off;
        S.nfree--;
    }
}

void *ws_big_alloc(size_t n)
{
    if (!S.inited) spill_init();
    if (!S.base || n < WS_SPILL_MIN) return malloc(n ? n : 1);
    size_t len = (SPILL_HDR + n + SPILL_PAGE - 1) & ~(SPILL_PAGE - 1);
    size_t off = take(len);
    if (off == SIZE_MAX) return malloc(n);
    char *p = S.base + off;
    *(size_t *)p = len;
    return p + SPILL_HDR;
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
    give(off, *header(p));
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
            if (nlen < len) give(off + nlen, len - nlen);
            *header(p) = nlen;
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
                if (S.bump > S.hwm) S.hwm = S.bump;
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

_Thread_local size_t ws_spill_count; /* per thread: the parts test runs analyses in threads */

size_t ws_spill_file_bytes(void) { return S.base ? S.bump : 0; }

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
    size_t hwm = S.hwm;
    void *p = ws_big_alloc(b);
    if (!p) return NULL;
    if (!spilled(p)) {
        memset(p, 0, b ? b : 1);
        return p;
    }
    /* Beyond the old high-water mark the file is a hole and reads as zero;
     * a range given back before holds old records. */
    size_t off = (size_t)((char *)p - S.base);
    if (off < hwm) ws_big_fill(p, 0, (hwm - off < b ? hwm - off : b));
    return p;
}
