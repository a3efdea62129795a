/* Sets of definitions for the unification (defset.h has the model).
 *
 * Each kind keeps its records in one growing array of words, a record being
 * [key length, payload length, key words, payload words], and the offset of
 * each record's current copy; a region whose first copy had no source file
 * gets a new copy with the file of a later one (the old copy stays, unused).
 * A kind that dedupes has an open-addressed hash table of record indices,
 * kept at most half full, so a merge costs O(words received), not the
 * O(records²) of comparing every incoming record with every known one.
 *
 * The serialized form is a header (broken flag, the totals) and then, per
 * kind in order, the record count and the records as stored. A merge reads
 * it in place: no copy but of the key words that refer to earlier kinds,
 * which it maps to this set's indices before looking the key up.
 */
#include "defset.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    bool dedupe, mapped, fill; /* fill: a payload starting with 0 is replaced by a later non-0 */
    int nref;
    int word[2], kind[2];      /* key words that refer to records of an earlier kind */
} kinds[TU_KINDS] = {
    [TU_COMM] = {true, true, false, 0, {0}, {0}},
    [TU_REGION] = {true, true, true, 0, {0}, {0}},
    [TU_METRIC] = {true, true, false, 0, {0}, {0}},
    [TU_SCL] = {true, true, false, 0, {0}, {0}},
    [TU_COMMENT] = {true, true, false, 0, {0}, {0}},
    [TU_FILE] = {true, true, false, 0, {0}, {0}},
    [TU_HOST] = {true, false, false, 0, {0}, {0}},
    [TU_WIN] = {true, true, false, 1, {0}, {TU_COMM}},
    [TU_HANDLE] = {false, true, false, 2, {0, 1}, {TU_FILE, TU_COMM}},
    [TU_RANK] = {false, false, false, 1, {1}, {TU_HOST}},
    [TU_LOCNAME] = {false, false, false, 0, {0}, {0}},
};

bool tu_mapped(int kind)
{
    return kind >= 0 && kind < TU_KINDS && kinds[kind].mapped;
}

typedef struct {
    int64_t *w;          /* records */
    size_t nw, capw;
    size_t *off;         /* offset of each record's current copy */
    uint32_t n, cap;
    uint32_t *slot;      /* hash table: record index + 1; 0 empty */
    uint32_t nslot;      /* a power of two, or 0 */
    size_t live;         /* words of the current copies */
} kindset_t;

struct tu_set {
    kindset_t k[TU_KINDS];
    tu_totals_t totals;
    bool broken;
};

/* --- Word buffers ---------------------------------------------------------- */

void tu_put(tu_buf_t *b, int64_t v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        int64_t *p = realloc(b->w, cap * sizeof *p);
        if (!p) {
            b->oom = true;
            return;
        }
        b->w = p;
        b->cap = cap;
    }
    b->w[b->n++] = v;
}

void tu_put_str(tu_buf_t *b, const char *s, size_t max)
{
    size_t len = strnlen(s, max);
    tu_put(b, (int64_t)len);
    for (size_t i = 0; i < len; i += 8) {
        int64_t v = 0;
        memcpy(&v, s + i, len - i < 8 ? len - i : 8);
        tu_put(b, v);
    }
}

int64_t tu_get(const int64_t **p)
{
    return *(*p)++;
}

void tu_get_str(const int64_t **p, char *out, size_t cap)
{
    size_t len = (size_t)tu_get(p), o = 0;
    for (size_t i = 0; i < len; i += 8) {
        int64_t v = tu_get(p);
        size_t k = len - i < 8 ? len - i : 8;
        if (o + k >= cap) k = cap > o + 1 ? cap - o - 1 : 0;
        memcpy(out + o, &v, k);
        o += k;
    }
    if (cap) out[o < cap ? o : cap - 1] = 0;
}

/* --- Sets -------------------------------------------------------------------- */

/* What tu_set_new gives without memory: a set that is broken from the start
 * and still takes part in the tree. */
static tu_set_t no_set = {.broken = true};

tu_set_t *tu_set_new(void)
{
    tu_set_t *s = calloc(1, sizeof *s);
    if (!s) return &no_set;
    s->totals.tmin = INT64_MAX;
    s->totals.tmax = INT64_MIN;
    return s;
}

void tu_set_free(tu_set_t *s)
{
    if (!s || s == &no_set) return;
    for (int k = 0; k < TU_KINDS; k++) free(s->k[k].w), free(s->k[k].off), free(s->k[k].slot);
    free(s);
}

static uint64_t hash_words(const int64_t *w, size_t n)
{
    uint64_t h = 0x84222325cbf29ce4ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint64_t)w[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

static bool same_key(const kindset_t *ks, uint32_t i, const int64_t *key, size_t nkey)
{
    const int64_t *r = ks->w + ks->off[i];
    return (size_t)r[0] == nkey && memcmp(r + 2, key, nkey * sizeof *key) == 0;
}

/* The table's slot for `key`: the one holding it, or the empty one where it goes. */
static uint32_t *find_slot(kindset_t *ks, const int64_t *key, size_t nkey)
{
    uint32_t mask = ks->nslot - 1, i = (uint32_t)hash_words(key, nkey) & mask;
    while (ks->slot[i] && !same_key(ks, ks->slot[i] - 1, key, nkey)) i = (i + 1) & mask;
    return &ks->slot[i];
}

static bool grow_table(kindset_t *ks)
{
    uint32_t n = ks->nslot ? 2 * ks->nslot : 64;
    if (n < ks->nslot) return false;
    uint32_t *slot = calloc(n, sizeof *slot);
    if (!slot) return false;
    free(ks->slot);
    ks->slot = slot;
    ks->nslot = n;
    for (uint32_t i = 0; i < ks->n; i++) {
        const int64_t *r = ks->w + ks->off[i];
        *find_slot(ks, r + 2, (size_t)r[0]) = i + 1;
    }
    return true;
}

/* Appends a copy of a record to the words; its offset, or SIZE_MAX. */
static size_t store(kindset_t *ks, const int64_t *key, size_t nkey, const int64_t *pay, size_t npay)
{
    size_t need = ks->nw + 2 + nkey + npay;
    if (need > ks->capw) {
        size_t cap = ks->capw ? 2 * ks->capw : 256;
        while (cap < need) cap *= 2;
        int64_t *p = realloc(ks->w, cap * sizeof *p);
        if (!p) return SIZE_MAX;
        ks->w = p;
        ks->capw = cap;
    }
    size_t at = ks->nw;
    ks->w[at] = (int64_t)nkey;
    ks->w[at + 1] = (int64_t)npay;
    if (nkey) memcpy(ks->w + at + 2, key, nkey * sizeof *key);
    if (npay) memcpy(ks->w + at + 2 + nkey, pay, npay * sizeof *pay);
    ks->nw = need;
    return at;
}

uint32_t tu_add(tu_set_t *s, int kind, const int64_t *key, size_t nkey, const int64_t *pay,
                size_t npay)
{
    if (s->broken || kind < 0 || kind >= TU_KINDS) return UINT32_MAX;
    kindset_t *ks = &s->k[kind];
    uint32_t *slot = NULL;
    if (kinds[kind].dedupe) {
        if ((uint64_t)(ks->n + 1) * 2 > ks->nslot && !grow_table(ks)) goto oom;
        slot = find_slot(ks, key, nkey);
        if (*slot) {
            uint32_t i = *slot - 1;
            const int64_t *r = ks->w + ks->off[i];
            if (kinds[kind].fill && r[1] > 0 && r[2 + r[0]] == 0 && npay && pay[0] != 0) {
                size_t at = store(ks, key, nkey, pay, npay);
                if (at == SIZE_MAX) goto oom;
                ks->live += npay - (size_t)ks->w[ks->off[i] + 1];
                ks->off[i] = at;
            }
            return i;
        }
    }
    if (ks->n == ks->cap) {
        uint32_t cap = ks->cap ? 2 * ks->cap : 64;
        size_t *p = cap > ks->cap ? realloc(ks->off, cap * sizeof *p) : NULL;
        if (!p) goto oom;
        ks->off = p;
        ks->cap = cap;
    }
    size_t at = store(ks, key, nkey, pay, npay);
    if (at == SIZE_MAX) goto oom;
    ks->off[ks->n] = at;
    ks->live += 2 + nkey + npay;
    if (slot) *slot = ks->n + 1;
    return ks->n++;
oom:
    s->broken = true;
    return UINT32_MAX;
}

uint32_t tu_count(const tu_set_t *s, int kind)
{
    return s->k[kind].n;
}

const int64_t *tu_key(const tu_set_t *s, int kind, uint32_t i, size_t *nkey)
{
    const int64_t *r = s->k[kind].w + s->k[kind].off[i];
    if (nkey) *nkey = (size_t)r[0];
    return r + 2;
}

const int64_t *tu_payload(const tu_set_t *s, int kind, uint32_t i, size_t *npay)
{
    const int64_t *r = s->k[kind].w + s->k[kind].off[i];
    if (npay) *npay = (size_t)r[1];
    return r + 2 + r[0];
}

tu_totals_t *tu_totals(tu_set_t *s)
{
    return &s->totals;
}

bool tu_broken(const tu_set_t *s)
{
    return s->broken;
}

void tu_break(tu_set_t *s)
{
    s->broken = true;
}

size_t tu_words(const tu_set_t *s)
{
    size_t n = 5 + TU_KINDS;
    for (int k = 0; k < TU_KINDS; k++) n += s->k[k].live;
    return n;
}

/* --- Serialization and merge ------------------------------------------------ */

int64_t *tu_serialize(const tu_set_t *s, size_t *nwords)
{
    size_t n = s->broken ? 5 : tu_words(s);
    int64_t *w = malloc(n * sizeof *w), *p = w;
    *nwords = 0;
    if (!w) return NULL;
    int64_t err;
    memcpy(&err, &s->totals.err, sizeof err);
    *p++ = s->broken;
    *p++ = s->totals.tmin;
    *p++ = s->totals.tmax;
    *p++ = err;
    *p++ = (int64_t)s->totals.dropped;
    for (int k = 0; !s->broken && k < TU_KINDS; k++) {
        const kindset_t *ks = &s->k[k];
        *p++ = ks->n;
        for (uint32_t i = 0; i < ks->n; i++) {
            const int64_t *r = ks->w + ks->off[i];
            size_t len = 2 + (size_t)r[0] + (size_t)r[1];
            memcpy(p, r, len * sizeof *r);
            p += len;
        }
    }
    *nwords = n;
    return w;
}

bool tu_merge(tu_set_t *s, const int64_t *w, size_t nwords, uint32_t *map[TU_KINDS],
              uint32_t count[TU_KINDS])
{
    uint32_t *m[TU_KINDS] = {0}; /* every kind's map while merging; kept for the mapped ones */
    const int64_t *p = w, *end = w + nwords;
    int64_t *tmp = NULL;
    size_t tmpcap = 0;
    for (int k = 0; k < TU_KINDS; k++) map[k] = NULL, count[k] = 0;
    if (s->broken || nwords < 5 || p[0]) goto bad;
    tu_totals_t *t = &s->totals;
    double err;
    memcpy(&err, &p[3], sizeof err);
    if (p[1] < t->tmin) t->tmin = p[1];
    if (p[2] > t->tmax) t->tmax = p[2];
    if (err > t->err) t->err = err;
    t->dropped += (uint64_t)p[4];
    p += 5;
    for (int k = 0; k < TU_KINDS; k++) {
        if (p >= end || p[0] < 0 || (uint64_t)p[0] > (uint64_t)(end - p)) goto bad;
        uint32_t n = (uint32_t)*p++;
        m[k] = malloc(((size_t)n + 1) * sizeof *m[k]);
        if (!m[k]) goto oom;
        for (uint32_t i = 0; i < n; i++) {
            if (end - p < 2) goto bad;
            int64_t nkey = p[0], npay = p[1];
            if (nkey < 0 || npay < 0 || nkey > end - p - 2 || npay > end - p - 2 - nkey) goto bad;
            const int64_t *key = p + 2;
            if (kinds[k].nref) {
                if ((size_t)nkey > tmpcap) {
                    int64_t *q = realloc(tmp, (size_t)nkey * sizeof *q);
                    if (!q) goto oom;
                    tmp = q;
                    tmpcap = (size_t)nkey;
                }
                memcpy(tmp, key, (size_t)nkey * sizeof *key);
                for (int r = 0; r < kinds[k].nref; r++) {
                    int wd = kinds[k].word[r], rk = kinds[k].kind[r];
                    if (wd >= nkey || tmp[wd] < 0 || tmp[wd] >= (int64_t)count[rk]) goto bad;
                    tmp[wd] = m[rk][tmp[wd]];
                }
                key = tmp;
            }
            uint32_t at = tu_add(s, k, key, (size_t)nkey, p + 2 + nkey, (size_t)npay);
            if (at == UINT32_MAX) goto oom;
            m[k][i] = at;
            p += 2 + nkey + npay;
        }
        count[k] = n;
    }
    if (p != end) goto bad;
    free(tmp);
    for (int k = 0; k < TU_KINDS; k++) {
        if (kinds[k].mapped) map[k] = m[k];
        else free(m[k]);
    }
    return true;
bad:
oom:
    free(tmp);
    for (int k = 0; k < TU_KINDS; k++) free(m[k]), count[k] = 0;
    s->broken = true;
    return false;
}

/* --- The tree --------------------------------------------------------------- */

int tu_parent(int rank)
{
    return rank > 0 ? rank & (rank - 1) : -1; /* clear the lowest set bit */
}

int tu_children(int rank, int size, int *children)
{
    int n = 0;
    for (int step = 1; step > 0 && step < size && !(rank & step); step <<= 1)
        if (rank + step < size) children[n++] = rank + step;
    return n;
}
