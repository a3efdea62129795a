/* The trace's definition sets (src/trace/defset.c) and the binomial tree
 * they travel along at MPI_Finalize (unify.c does the same with MPI).
 *
 * The reference is the unification as one merge at rank 0 does it: the
 * ranks in order, each rank's definitions in order, a definition new when no
 * earlier one has its key (a linear search), its payload the first one's (a
 * region's: the first non-empty source file), references to other
 * definitions compared by their global index. The tree must give the same
 * global definitions in the same order and the same global index for every
 * local definition of every rank, for any number of ranks.
 */
#include <stdint.h>

#include "../../src/trace/defset.h"
#include "runner.h"

enum { MAXR = 70, MAXD = 64, MAXW = 8 };

typedef struct {
    int kind;
    int64_t key[MAXW];
    int nkey;
    int ref[2];          /* local definition that key word 0 / 1 refers to, or -1 */
    int64_t pay[MAXW];
    int npay;
} def_t;

typedef struct {
    def_t d[MAXD];
    int n;
} rank_defs_t;

static uint64_t rng;
static int pick(int n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((rng >> 33) % (uint64_t)n);
}

static int add_def(rank_defs_t *r, int kind, int nkey, int npay)
{
    def_t *d = &r->d[r->n];
    *d = (def_t){.kind = kind, .nkey = nkey, .npay = npay, .ref = {-1, -1}};
    return r->n++;
}

/* Pseudo-random definitions of rank `me` of `size`, in dependency order. */
static void make_defs(rank_defs_t *r, int me, int size)
{
    rng = (uint64_t)me * 7919u + (uint64_t)size * 104729u + 1;
    r->n = 0;
    int comms[8], nc = 0, files[4], nf = 0;
    int n = 1 + pick(6);
    for (int i = 0; i < n; i++) { /* communicators: a few groups, a rank-own one */
        int id = pick(3) ? pick(5) : 100 + me;
        int x = add_def(r, TU_COMM, 3, 1);
        r->d[x].key[0] = id, r->d[x].key[1] = id * 7, r->d[x].key[2] = id % 2;
        r->d[x].pay[0] = 1000 * me + i; /* name: the first rank's wins */
        bool dup = false;
        for (int j = 0; j < nc; j++) dup |= r->d[comms[j]].key[0] == id;
        if (!dup) comms[nc++] = x;
        else r->n--;
    }
    for (int i = pick(5); i > 0; i--) { /* regions: file known to some ranks only */
        int x = add_def(r, TU_REGION, 2, 2);
        r->d[x].key[0] = pick(9), r->d[x].key[1] = 3;
        r->d[x].pay[0] = pick(3) ? 0 : 50 + me, r->d[x].pay[1] = me;
        for (int j = 0; j < x; j++)
            if (r->d[j].kind == TU_REGION && r->d[j].key[0] == r->d[x].key[0]) r->n--, j = x;
    }
    for (int i = pick(4); i > 0; i--) { /* source code locations: duplicates allowed */
        int x = add_def(r, TU_SCL, 2, 0);
        r->d[x].key[0] = pick(4), r->d[x].key[1] = pick(2) ? 0x6f6f66 : 0x726162;
    }
    for (int i = pick(3); i > 0; i--) {
        int x = add_def(r, TU_FILE, 1, 0);
        r->d[x].key[0] = pick(3);
        bool dup = false;
        for (int j = 0; j < nf; j++) dup |= r->d[files[j]].key[0] == r->d[x].key[0];
        if (!dup) files[nf++] = x;
        else r->n--;
    }
    int h = add_def(r, TU_HOST, 1, 0);
    r->d[h].key[0] = me / 3 % 4;
    for (int i = pick(3); i > 0 && nc; i--) { /* windows over a communicator */
        int x = add_def(r, TU_WIN, 2, 0);
        r->d[x].ref[0] = comms[pick(nc)];
        r->d[x].key[1] = i;
        for (int j = 0; j < x; j++)
            if (r->d[j].kind == TU_WIN && r->d[j].ref[0] == r->d[x].ref[0] &&
                r->d[j].key[1] == r->d[x].key[1])
                r->n--, j = x;
    }
    for (int i = pick(3); i > 0 && nc && nf; i--) { /* handles: one each */
        int x = add_def(r, TU_HANDLE, 2, 0);
        r->d[x].ref[0] = files[pick(nf)], r->d[x].ref[1] = comms[pick(nc)];
    }
    int x = add_def(r, TU_RANK, 4, 0);
    r->d[x].key[0] = me, r->d[x].ref[1] = h, r->d[x].key[2] = 1, r->d[x].key[3] = me;
    if (pick(2)) {
        x = add_def(r, TU_LOCNAME, 2, 0);
        r->d[x].key[0] = me, r->d[x].key[1] = 0x4142 + me;
    }
}

/* The reference: one merge of every rank in order. */
typedef struct {
    int64_t key[MAXW], pay[MAXW];
    int nkey, npay, kind;
} gdef_t;
static gdef_t flat[MAXR * MAXD];
static int nflat;
static int flat_index[MAXR][MAXD];   /* global index, counted within the kind */

static void flat_merge(rank_defs_t *defs, int size)
{
    nflat = 0;
    int per_kind[TU_KINDS] = {0};
    static int kind_pos[TU_KINDS][MAXR * MAXD]; /* position in flat[] of each global index */
    for (int r = 0; r < size; r++) {
        for (int i = 0; i < defs[r].n; i++) {
            const def_t *d = &defs[r].d[i];
            gdef_t g = {.nkey = d->nkey, .npay = d->npay, .kind = d->kind};
            memcpy(g.key, d->key, sizeof g.key);
            memcpy(g.pay, d->pay, sizeof g.pay);
            for (int w = 0; w < 2; w++)
                if (d->ref[w] >= 0) g.key[w] = flat_index[r][d->ref[w]];
            bool dedupe = d->kind != TU_HANDLE && d->kind != TU_RANK && d->kind != TU_LOCNAME;
            int found = -1;
            for (int k = 0; dedupe && k < per_kind[d->kind] && found < 0; k++) {
                gdef_t *e = &flat[kind_pos[d->kind][k]];
                if (e->nkey == g.nkey && memcmp(e->key, g.key, (size_t)g.nkey * 8) == 0) found = k;
            }
            if (found >= 0) {
                gdef_t *e = &flat[kind_pos[d->kind][found]];
                if (d->kind == TU_REGION && e->pay[0] == 0 && g.pay[0] != 0)
                    memcpy(e->pay, g.pay, sizeof g.pay);
            } else {
                found = per_kind[d->kind]++;
                kind_pos[d->kind][found] = nflat;
                flat[nflat++] = g;
            }
            flat_index[r][i] = found;
        }
    }
}

static void check_tree(int size)
{
    static rank_defs_t defs[MAXR];
    static uint32_t lm[MAXR][MAXD];
    static tu_set_t *set[MAXR];
    static uint32_t *cmap[MAXR][32][TU_KINDS], ccount[MAXR][32][TU_KINDS];
    static uint32_t *glob[MAXR][TU_KINDS];
    int children[MAXR][32], nch[MAXR];
    for (int r = 0; r < size; r++) {
        make_defs(&defs[r], r, size);
        set[r] = tu_set_new();
        ASSERT(!tu_broken(set[r]));
        for (int i = 0; i < defs[r].n; i++) {
            def_t *d = &defs[r].d[i];
            int64_t key[MAXW];
            memcpy(key, d->key, sizeof key);
            for (int w = 0; w < 2; w++)
                if (d->ref[w] >= 0) key[w] = lm[r][d->ref[w]];
            lm[r][i] = tu_add(set[r], d->kind, key, (size_t)d->nkey, d->pay, (size_t)d->npay);
            ASSERT(lm[r][i] != UINT32_MAX);
        }
        nch[r] = tu_children(r, size, children[r]);
    }
    /* Up: a rank's children are higher ranks, so from the top down. */
    for (int r = size - 1; r >= 0; r--) {
        for (int c = 0; c < nch[r]; c++) {
            int ch = children[r][c];
            ASSERT_EQ(tu_parent(ch), r);
            size_t n = 0;
            int64_t *w = tu_serialize(set[ch], &n);
            ASSERT(w && n == tu_words(set[ch]));
            ASSERT(tu_merge(set[r], w, n, cmap[r][c], ccount[r][c]));
            free(w);
        }
    }
    /* Down: rank 0's set is the global one. */
    for (int k = 0; k < TU_KINDS; k++) {
        glob[0][k] = malloc((tu_count(set[0], k) + 1) * sizeof(uint32_t));
        for (uint32_t i = 0; i < tu_count(set[0], k); i++) glob[0][k][i] = i;
    }
    for (int r = 0; r < size; r++)
        for (int c = 0; c < nch[r]; c++) {
            int ch = children[r][c];
            for (int k = 0; k < TU_KINDS; k++) {
                ASSERT_EQ(ccount[r][c][k], tu_count(set[ch], k));
                glob[ch][k] = malloc((ccount[r][c][k] + 1) * sizeof(uint32_t));
                if (!tu_mapped(k)) continue;
                for (uint32_t i = 0; i < ccount[r][c][k]; i++)
                    glob[ch][k][i] = glob[r][k][cmap[r][c][k][i]];
                free(cmap[r][c][k]);
            }
        }

    flat_merge(defs, size);
    int at[TU_KINDS] = {0};
    for (int f = 0; f < nflat; f++) { /* the same global definitions, in the same order */
        const gdef_t *g = &flat[f];
        uint32_t i = (uint32_t)at[g->kind]++;
        ASSERT(i < tu_count(set[0], g->kind));
        size_t nkey, npay;
        const int64_t *key = tu_key(set[0], g->kind, i, &nkey);
        const int64_t *pay = tu_payload(set[0], g->kind, i, &npay);
        if (nkey != (size_t)g->nkey || memcmp(key, g->key, nkey * 8) != 0)
            FAIL("%d ranks: kind %d, global definition %u differs", size, g->kind, i);
        if (npay != (size_t)g->npay || memcmp(pay, g->pay, npay * 8) != 0)
            FAIL("%d ranks: kind %d, payload of global definition %u differs", size, g->kind, i);
    }
    for (int k = 0; k < TU_KINDS; k++) ASSERT_EQ(tu_count(set[0], k), at[k]);
    ASSERT_EQ(tu_count(set[0], TU_RANK), size);
    for (int r = 0; r < size; r++) /* every local definition's global index */
        for (int i = 0; i < defs[r].n; i++) {
            int k = defs[r].d[i].kind;
            if (!tu_mapped(k)) continue;
            if (glob[r][k][lm[r][i]] != (uint32_t)flat_index[r][i])
                FAIL("%d ranks: rank %d, definition %d (kind %d): global %u, expected %d", size, r,
                     i, k, glob[r][k][lm[r][i]], flat_index[r][i]);
        }
    for (int r = 0; r < size; r++) {
        for (int k = 0; k < TU_KINDS; k++) free(glob[r][k]);
        tu_set_free(set[r]);
    }
}

TEST(defset_tree_equals_one_merge)
{
    for (int size = 1; size <= MAXR; size++) check_tree(size);
}

/* Each rank but 0 has one parent, the subtree of a rank's k-th child is
 * [rank + 2^k, rank + 2^(k+1)) (so merging in order keeps rank order), a
 * rank sends in step k = its lowest set bit, after its children (steps
 * below k), and the steps are ceil(log2 P): rank 0 receives that many. */
TEST(defset_binomial_tree_shape)
{
    for (int size = 1; size <= 1100; size++) {
        int steps = 0, ch[32];
        for (int r = 0; r < size; r++) {
            int n = tu_children(r, size, ch);
            for (int c = 0; c < n; c++) {
                ASSERT_EQ(ch[c], r + (1 << c));
                ASSERT_EQ(tu_parent(ch[c]), r);
            }
            if (r == 0) continue;
            int k = __builtin_ctz((unsigned)r);
            ASSERT(n <= k);
            ASSERT_EQ(tu_parent(r), r - (1 << k));
            if (k + 1 > steps) steps = k + 1;
        }
        int want = 0;
        while ((1 << want) < size) want++;
        ASSERT_EQ(steps, want);
        ASSERT_EQ(tu_children(0, size, ch), want);
        ASSERT_EQ(tu_parent(0), -1);
    }
}

/* Malformed words (cut short, a reference out of range, a broken sender)
 * leave the receiving set broken, never read past the end. */
TEST(defset_merge_rejects_malformed)
{
    tu_set_t *a = tu_set_new();
    int64_t comm[2] = {1, 2}, win[2] = {0, 0};
    tu_add(a, TU_COMM, comm, 2, NULL, 0);
    tu_add(a, TU_WIN, win, 2, NULL, 0);
    size_t n = 0;
    int64_t *w = tu_serialize(a, &n);
    uint32_t *map[TU_KINDS], count[TU_KINDS];
    for (size_t cut = 0; cut < n; cut++) {
        tu_set_t *b = tu_set_new();
        ASSERT(!tu_merge(b, w, cut, map, count));
        ASSERT(tu_broken(b));
        tu_set_free(b);
    }
    tu_set_t *b = tu_set_new();
    ASSERT(tu_merge(b, w, n, map, count));
    ASSERT_EQ(tu_count(b, TU_WIN), 1);
    for (int k = 0; k < TU_KINDS; k++) free(map[k]);
    /* The window's communicator word set to 1: there is only communicator 0. */
    for (size_t i = 0; i + 3 < n; i++)
        if (w[i] == 2 && w[i + 1] == 0 && w[i + 2] == 0 && w[i + 3] == 0) w[i + 2] = 1;
    tu_set_t *c = tu_set_new();
    ASSERT(!tu_merge(c, w, n, map, count));
    w[0] = 1; /* a broken sender */
    tu_set_t *d = tu_set_new();
    ASSERT(!tu_merge(d, w, n, map, count));
    free(w);
    tu_set_free(a), tu_set_free(b), tu_set_free(c), tu_set_free(d);
}

/* A region's source file: the first rank that knows one gives it. */
TEST(defset_region_file_first_known)
{
    tu_set_t *a = tu_set_new(), *b = tu_set_new();
    int64_t key[2] = {7, 8}, none[2] = {0, 0}, file1[3] = {3, 0x616161, 10},
            file2[3] = {3, 0x626262, 20};
    tu_add(a, TU_REGION, key, 2, none, 2);
    tu_add(b, TU_REGION, key, 2, file1, 3);
    uint32_t *map[TU_KINDS], count[TU_KINDS];
    size_t n;
    int64_t *w = tu_serialize(b, &n);
    ASSERT(tu_merge(a, w, n, map, count));
    free(w);
    for (int k = 0; k < TU_KINDS; k++) free(map[k]);
    tu_set_t *c = tu_set_new();
    tu_add(c, TU_REGION, key, 2, file2, 3);
    w = tu_serialize(c, &n);
    ASSERT(tu_merge(a, w, n, map, count));
    free(w);
    for (int k = 0; k < TU_KINDS; k++) free(map[k]);
    size_t np;
    const int64_t *p = tu_payload(a, TU_REGION, 0, &np);
    ASSERT_EQ(tu_count(a, TU_REGION), 1);
    ASSERT_EQ(np, 3);
    ASSERT_EQ(p[1], 0x616161);
    ASSERT_EQ(p[2], 10);
    ASSERT_EQ(tu_words(a), 5 + TU_KINDS + 2 + 2 + 3);
    tu_set_free(a), tu_set_free(b), tu_set_free(c);
}
