/* The index of live heap blocks, built from the threads' logs (see
 * interpose.c for how the logs are written).
 *
 * The index is a treap keyed by block start: the block holding an address
 * is the one with the greatest start not above it, found in O(log n)
 * expected steps; insertion and removal are a split and a merge. Its nodes
 * come from pages of the library's own (mmap), never from the allocator it
 * watches. Live blocks never overlap, and the index keeps it so: a new
 * block removes every block it overlaps (blocks whose free was lost).
 * A program passes the same few buffers to MPI again and again, so each
 * thread keeps hints to the last blocks it found (node and generation: a
 * freed node's generation changes), checked before the tree is searched;
 * the tree's nodes are scattered, and a search of 10^4 blocks costs some
 * fifteen cache misses.
 *
 * Beside it, a ring keeps the last GRAVE_N blocks freed (start, size,
 * allocating and freeing calls): a buffer that lies in one of them and in
 * no live block is memory the program gave back (msc_heap_find_freed).
 * Every free pays an append, so the ring is not searchable by itself: a
 * table of counters by page (a hash of the page number; 16 bits, 64 Ki of
 * them) says which pages some remembered block covers, and only a look-up
 * of such a page scans the ring, newest first. The block found must not
 * overlap a live block (memory the allocator has handed out again is never
 * "freed").
 *
 * A drain takes every log's entries below a sequence number, orders them
 * by it (each log is in order already; several logs are heap-sorted
 * together), and applies them. Most blocks of a program live briefly, and
 * the drain does not pay the tree for them: a block allocated and freed
 * within one drain only passes through a small hash table of pending
 * allocations (cleared per drain); the tree sees the frees of older blocks
 * and the allocations still live at the end. Everything here runs under
 * heap_drain_mu.
 */

#include <sched.h>
#include <string.h>
#include <time.h>

#include "heap_internal.h"

/* --- the treap ------------------------------------------------------------ */

typedef struct node {
    uintptr_t start;
    uint64_t size;
    uintptr_t site;
    uint32_t prio;
    uint32_t gen; /* bumped when the node is freed: a hint to it goes stale */
    struct node *l, *r;
} node_t;

typedef struct {
    node_t *root;
    uint64_t n; /* nodes */
} tree_t;

static tree_t live; /* live blocks */
static node_t *spare;
static uint32_t rng = 2463534242u;
static msc_heap_stats_t stats;

/* The freed blocks' starts, oldest first (a ring): the next to evict. A
 * start whose node went earlier (overlapped by a new block) is skipped. */
enum { GRAVE_N = 4096, GRAVE_PAGES = 1 << 16 };
#define GRAVE_MAX_BYTES (128u << 10)
typedef struct {
    uintptr_t start;
    uint64_t size;
    uintptr_t site, free_site;
} grave_t;
static grave_t grave_ring[GRAVE_N];
static uint64_t grave_head; /* blocks written */
static uint16_t grave_pages[GRAVE_PAGES];

enum { SLAB_NODES = 16384 };

static node_t *node_new(uintptr_t start, uint64_t size, uintptr_t site)
{
    if (!spare) {
        node_t *slab = heap_pages(SLAB_NODES * sizeof *slab);
        if (!slab) return NULL;
        for (int i = 0; i < SLAB_NODES; i++) {
            slab[i].l = spare;
            spare = &slab[i];
        }
    }
    node_t *n = spare;
    spare = n->l;
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    uint32_t gen = n->gen; /* kept across reuse: stale hints stay stale */
    *n = (node_t){start, size, site, rng, gen, NULL, NULL};
    return n;
}

static void node_free_all(tree_t *tr, node_t *t)
{
    while (t) {
        node_free_all(tr, t->r);
        node_t *l = t->l;
        t->gen++;
        t->l = spare;
        spare = t;
        tr->n--;
        t = l;
    }
}

/* Keys below `key` to *a, the others to *b. */
static void split(node_t *t, uintptr_t key, node_t **a, node_t **b)
{
    if (!t) {
        *a = *b = NULL;
    } else if (t->start < key) {
        split(t->r, key, &t->r, b);
        *a = t;
    } else {
        split(t->l, key, a, &t->l);
        *b = t;
    }
}

static node_t *merge(node_t *a, node_t *b)
{
    if (!a) return b;
    if (!b) return a;
    if (a->prio > b->prio) {
        a->r = merge(a->r, b);
        return a;
    }
    b->l = merge(a, b->l);
    return b;
}

/* Removes the blocks starting in [lo, hi); returns how many. */
static uint64_t remove_range(tree_t *tr, uintptr_t lo, uintptr_t hi)
{
    node_t *a, *m, *b;
    uint64_t before = tr->n;
    split(tr->root, lo, &a, &m);
    split(m, hi, &m, &b);
    node_free_all(tr, m);
    tr->root = merge(a, b);
    return before - tr->n;
}

/* The block with the greatest start <= addr, or NULL. */
static node_t *floor_of(const tree_t *tr, uintptr_t addr)
{
    node_t *best = NULL;
    for (node_t *t = tr->root; t;) {
        if (t->start <= addr) {
            best = t;
            t = t->r;
        } else {
            t = t->l;
        }
    }
    return best;
}

/* Removes every block of `tr` that overlaps [start, end). */
static void remove_overlaps(tree_t *tr, uintptr_t start, uintptr_t end)
{
    node_t *below = start ? floor_of(tr, start - 1) : NULL;
    if (below && below->start + (below->size ? below->size : 1) > start)
        remove_range(tr, below->start, below->start + 1);
    remove_range(tr, start, end);
}

static node_t *tree_insert(tree_t *tr, uintptr_t start, uint64_t size, uintptr_t site)
{
    uintptr_t end = start + (size ? size : 1);
    if (end < start) end = UINTPTR_MAX;
    remove_overlaps(tr, start, end);
    node_t *n = node_new(start, size, site);
    if (!n) return NULL;
    node_t *a, *b;
    split(tr->root, start, &a, &b);
    tr->root = merge(merge(a, n), b);
    tr->n++;
    return n;
}

static void index_insert(uintptr_t start, uint64_t size, uintptr_t site)
{
    tree_insert(&live, start, size, site);
    stats.live = live.n;
}

static uint32_t page_slot(uintptr_t page)
{
    return (uint32_t)((page * 0x9e3779b97f4a7c15ull) >> 48) & (GRAVE_PAGES - 1);
}

/* Counts the pages of a remembered block up (+1) or down (-1). */
static void grave_pages_add(const grave_t *g, int by)
{
    for (uintptr_t p = g->start >> 12; p <= (g->start + g->size - 1) >> 12; p++)
        grave_pages[page_slot(p)] += (uint16_t)by;
}

/* A block given back: into the ring, the oldest evicted past GRAVE_N. */
static void grave_insert(uintptr_t start, uint64_t size, uintptr_t site, uintptr_t free_site)
{
    /* No byte a buffer could use; or a block glibc may have served with
     * mmap and now unmapped (from M_MMAP_THRESHOLD's default up), whose
     * addresses another mapping may take: never remembered, so never a
     * false finding about memory that is no longer the allocator's. */
    if (!size || size >= GRAVE_MAX_BYTES) return;
    grave_t *g = &grave_ring[grave_head++ % GRAVE_N];
    if (grave_head > GRAVE_N) grave_pages_add(g, -1);
    *g = (grave_t){start, size, site, free_site};
    grave_pages_add(g, +1);
}

/* A free of the live block at `addr`: moved to the freed tree. False if no
 * live block starts there. */
static bool index_free(uintptr_t addr, uintptr_t free_site)
{
    node_t *n = floor_of(&live, addr);
    if (!n || n->start != addr) return false;
    uint64_t size = n->size;
    uintptr_t site = n->site;
    remove_range(&live, addr, addr + 1);
    stats.live = live.n;
    grave_insert(addr, size, site, free_site);
    return true;
}

static bool holds(const node_t *n, uintptr_t addr)
{
    return addr >= n->start && (addr < n->start + n->size || (addr == n->start && n->size == 0));
}

bool heap_index_find(uintptr_t addr, msc_heap_block_t *out, heap_hint_t *hints, int nhints)
{
    node_t *n = NULL;
    for (int i = 0; i < nhints && !n; i++) {
        node_t *h = hints[i].node;
        if (h && h->gen == hints[i].gen && holds(h, addr)) n = h;
    }
    if (!n) {
        n = floor_of(&live, addr);
        if (!n || !holds(n, addr)) return false;
        /* The oldest hint gives way. */
        for (int i = nhints - 1; i > 0; i--) hints[i] = hints[i - 1];
        if (nhints) hints[0] = (heap_hint_t){n, n->gen};
    }
    *out = (msc_heap_block_t){n->start, n->size, n->site};
    return true;
}

bool heap_index_find_freed(uintptr_t addr, msc_heap_freed_t *out)
{
    if (floor_of(&live, addr) && holds(floor_of(&live, addr), addr)) return false;
    if (!grave_pages[page_slot(addr >> 12)]) return false;
    uint64_t kept = grave_head < GRAVE_N ? grave_head : GRAVE_N;
    for (uint64_t k = 1; k <= kept; k++) { /* newest first */
        const grave_t *g = &grave_ring[(grave_head - k) % GRAVE_N];
        if (addr < g->start || addr >= g->start + g->size) continue;
        /* Handed out again, in part: live memory, not freed. */
        node_t *n = floor_of(&live, g->start + g->size - 1);
        if (n && n->start + (n->size ? n->size : 1) > g->start) return false;
        *out = (msc_heap_freed_t){g->start, g->size, g->site, g->free_site};
        return true;
    }
    return false;
}

void heap_index_stats(msc_heap_stats_t *out)
{
    *out = stats;
    out->freed_kept = grave_head < GRAVE_N ? grave_head : GRAVE_N;
}

/* --- the drain -------------------------------------------------------------- */

static heap_ent_t *batch;
static uint64_t batch_cap; /* entries */
typedef struct {
    uintptr_t addr; /* 0: empty, 1: removed */
    uint64_t at;    /* index in batch */
} pend_t;
static pend_t *pend;
static uint64_t pend_cap; /* slots (a power of two) */

static bool grow(void **buf, uint64_t *cap, uint64_t need, size_t each)
{
    if (need <= *cap) return true;
    uint64_t n = *cap ? *cap : 4096;
    while (n < need) n *= 2;
    void *p = heap_pages(n * each);
    if (!p) return false;
    if (*buf) memcpy(p, *buf, *cap * each); /* what was gathered so far */
    heap_unpages(*buf, *cap * each);
    *buf = p;
    *cap = n;
    return true;
}

static void sift(heap_ent_t *e, uint64_t i, uint64_t n)
{
    for (;;) {
        uint64_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && e[c + 1].seq > e[c].seq) c++;
        if (e[i].seq >= e[c].seq) return;
        heap_ent_t t = e[i];
        e[i] = e[c];
        e[c] = t;
        i = c;
    }
}

static void sort_by_seq(heap_ent_t *e, uint64_t n)
{
    for (uint64_t i = n / 2; i-- > 0;) sift(e, i, n);
    for (uint64_t k = n; k-- > 1;) {
        heap_ent_t t = e[0];
        e[0] = e[k];
        e[k] = t;
        sift(e, 0, k);
    }
}

static uint64_t slot_of(uintptr_t addr, uint64_t mask)
{
    return (uint64_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 17) & mask;
}

/* Waits until the log's owner has published the entry it took a seq for;
 * an owner that never does (a signal handler left it by longjmp) is given
 * up after a second. */
static void wait_published(heap_log_t *l)
{
    if (l == heap_my_log) return;
    struct timespec t0 = {0}, t;
    for (unsigned spins = 0; atomic_load_explicit(&l->inflight, memory_order_acquire); spins++) {
        if ((spins & 1023) == 1023) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (!t0.tv_sec) t0 = t;
            else if (t.tv_sec - t0.tv_sec > 1) {
                atomic_store(&l->inflight, 0);
                return;
            }
        }
        sched_yield();
    }
}

void heap_drain_locked(uint64_t limit, const heap_ent_t *extra)
{
    /* Gather: every log's published entries below the limit. */
    uint64_t total = 0;
    int segments = 0;
    for (heap_log_t *l = atomic_load(&heap_logs); l; l = l->next) {
        wait_published(l);
        uint64_t h = atomic_load_explicit(&l->head, memory_order_acquire);
        uint64_t t = atomic_load_explicit(&l->tail, memory_order_relaxed);
        uint64_t n = 0;
        while (t + n < h && l->ent[(t + n) % HEAP_LOG_N].seq < limit) n++;
        if (!n) continue;
        if (!grow((void **)&batch, &batch_cap, total + n + 1, sizeof *batch)) return;
        for (uint64_t i = 0; i < n; i++) batch[total + i] = l->ent[(t + i) % HEAP_LOG_N];
        total += n;
        segments++;
        atomic_store_explicit(&l->tail, t + n, memory_order_release);
    }
    if (extra) {
        if (!grow((void **)&batch, &batch_cap, total + 1, sizeof *batch)) return;
        batch[total++] = *extra;
        segments++;
    }
    if (!total) return;
    stats.drains++;
    if (segments > 1) sort_by_seq(batch, total);

    /* Apply, in order: allocations wait in `pend` until the end. */
    uint64_t slots = 16;
    while (slots < 2 * total) slots *= 2;
    if (!grow((void **)&pend, &pend_cap, slots, sizeof *pend)) return;
    memset(pend, 0, slots * sizeof *pend);
    uint64_t mask = slots - 1;
    for (uint64_t i = 0; i < total; i++) {
        const heap_ent_t *e = &batch[i];
        uint64_t s = slot_of(e->addr, mask);
        if (e->size != HEAP_FREED) {
            stats.allocs++;
            uint64_t hole = UINT64_MAX;
            for (; pend[s].addr; s = (s + 1) & mask) {
                if (pend[s].addr == e->addr) break;
                if (pend[s].addr == 1 && hole == UINT64_MAX) hole = s;
            }
            if (pend[s].addr != e->addr && hole != UINT64_MAX) s = hole;
            pend[s] = (pend_t){e->addr, i};
            continue;
        }
        stats.frees++;
        for (; pend[s].addr && pend[s].addr != e->addr; s = (s + 1) & mask) {
        }
        if (pend[s].addr == e->addr) {
            /* Born and gone within this drain: only the freed tree sees it. */
            const heap_ent_t *a = &batch[pend[s].at];
            pend[s].addr = 1;
            grave_insert(a->addr, a->size, a->site, e->site);
        } else if (!index_free(e->addr, e->site)) {
            stats.unknown_frees++;
        }
    }
    for (uint64_t s = 0; s < slots; s++)
        if (pend[s].addr > 1) {
            const heap_ent_t *e = &batch[pend[s].at];
            index_insert(e->addr, e->size, e->site);
        }
}
