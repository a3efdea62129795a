/* The analysis's spill file (tools/analysis/spill.c): blocks of the file
 * keep what was written into them through trims, reallocations and other
 * blocks' frees; a zeroed block is zero even where it reuses a range another
 * block gave back; and freed ranges are reused, so the file stays near the
 * largest amount in use at once instead of growing with every block ever
 * taken. Without a writable temporary directory the blocks come from malloc
 * and only the contents are checked. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spill.h"
#include "runner.h"

static uint64_t rng = 12345;
static size_t pick(size_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (size_t)((rng >> 33) % n);
}

TEST(spill_calloc_is_zero_on_reused_range)
{
    size_t n = (size_t)3 << 20;
    unsigned char *a = ws_big_alloc(n);
    ASSERT(a);
    memset(a, 0xab, n);
    size_t end = ws_spill_file_bytes();
    ws_spill_trim(); /* the old contents go to the file, out of the resident set */
    ws_mfree(a);
    unsigned char *b = ws_big_calloc(n, 1);
    ASSERT(b);
    if (end) ASSERT(ws_spill_file_bytes() <= end); /* the freed range, not a new one */
    for (size_t i = 0; i < n; i++)
        if (b[i]) FAIL("byte %zu of the zeroed block is %d", i, b[i]);
    ws_mfree(b);
}

enum { SLOTS = 40, OPS = 800 };

typedef struct {
    unsigned char *p;
    size_t n;
    unsigned char fill;
} blk_t;

static void check(const blk_t *k, int slot, int op, bool whole)
{
    if (!k->p) return;
    size_t step = whole ? 1 : 4093;
    for (size_t i = 0; i < k->n; i += step)
        if (k->p[i] != k->fill)
            FAIL("op %d: slot %d byte %zu of %zu is %d, not %d", op, slot, i, k->n, k->p[i],
                 k->fill);
    if (k->p[k->n - 1] != k->fill) FAIL("op %d: slot %d last byte changed", op, slot);
}

TEST(spill_blocks_keep_contents_and_ranges_are_reused)
{
    blk_t b[SLOTS] = {{0}};
    size_t live = 0, peak = 0, taken = 0;
    for (int op = 0; op < OPS; op++) {
        int s = (int)pick(SLOTS);
        blk_t *k = &b[s];
        size_t n = WS_SPILL_MIN + pick((size_t)512 << 10);
        unsigned char fill = (unsigned char)(1 + pick(254));
        switch (k->p ? pick(3) : 3) {
        case 0: /* free */
            live -= k->n;
            ws_mfree(k->p);
            k->p = NULL;
            break;
        case 1: { /* grow or shrink: the common part stays */
            unsigned char *q = ws_mrealloc(k->p, n);
            ASSERT(q);
            size_t keep = n < k->n ? n : k->n;
            for (size_t i = 0; i < keep; i += 4093)
                if (q[i] != k->fill) FAIL("op %d: realloc lost byte %zu", op, i);
            live += n - k->n, taken += n;
            memset(q, fill, n);
            *k = (blk_t){q, n, fill};
            break;
        }
        case 2: /* refill in place */
            memset(k->p, fill, k->n);
            k->fill = fill;
            break;
        default: { /* a new block, zeroed half of the time */
            bool zero = pick(2);
            unsigned char *q = zero ? ws_big_calloc(n, 1) : ws_big_alloc(n);
            ASSERT(q);
            if (zero)
                for (size_t i = 0; i < n; i += 509)
                    if (q[i]) FAIL("op %d: zeroed block has %d at %zu", op, q[i], i);
            memset(q, fill, n);
            *k = (blk_t){q, n, fill};
            live += n, taken += n;
        }
        }
        if (live > peak) peak = live;
        if (op % 37 == 0) ws_spill_trim();
        else ws_spill_check();
        for (int j = 0; j < SLOTS; j++) check(&b[j], j, op, false);
    }
    for (int j = 0; j < SLOTS; j++) check(&b[j], j, OPS, true);
    size_t file = ws_spill_file_bytes();
    if (file) {
        /* Every block ever taken would be `taken` bytes; reuse keeps the file
         * within a small multiple of the most in use at once. */
        if (file > 3 * peak)
            FAIL("file %zu bytes for at most %zu in use (%zu taken in all)", file, peak, taken);
    }
    for (int j = 0; j < SLOTS; j++) ws_mfree(b[j].p);
}
