/* Type signatures and buffer checksums.
 *
 * The MPI standard matches messages by type signature: the sequence of basic
 * types, layout ignored. A signature here is canonical: the type's basic
 * types are flattened (through PMPI_Type_get_envelope/contents) into runs of
 * equal types, adjacent runs merged, and the sequence reduced to its
 * shortest period. `unit` hashes one period, `reps` counts periods, so that
 * 4 x MPI_INT, MPI_Type_contiguous(4, MPI_INT) and a struct of two pairs of
 * ints all have the same signature. Basic types are named by their MPI name
 * (PMPI_Type_get_name), never by handle: handles differ between processes.
 * A type too irregular to flatten into CHK_RUNS runs (or a darray) gets
 * unit 0, "unknown", and is never reported. The top bit of `unit` marks a
 * period of a single basic type.
 *
 * Signatures of one element are cached per handle; the cache entry is
 * dropped when the type is freed (handles are reused).
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { CHK_RUNS = 64, CACHE = 1024 };
#define SIMPLE_BIT (1ull << 63)

typedef struct {
    uint64_t id, n;
} run_t;

typedef struct {
    run_t r[CHK_RUNS];
    int n;
    bool overflow;
} seq_t;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void push(seq_t *s, uint64_t id, uint64_t n)
{
    if (n == 0 || s->overflow) return;
    if (s->n > 0 && s->r[s->n - 1].id == id) {
        s->r[s->n - 1].n += n;
        return;
    }
    if (s->n == CHK_RUNS) {
        s->overflow = true;
        return;
    }
    s->r[s->n++] = (run_t){id, n};
}

static void append(seq_t *s, const seq_t *sub, uint64_t times)
{
    if (sub->overflow) {
        s->overflow = true;
        return;
    }
    if (sub->n == 1) {
        push(s, sub->r[0].id, sub->r[0].n * times);
        return;
    }
    if (times > CHK_RUNS) times = CHK_RUNS + 1; /* overflows below */
    for (uint64_t k = 0; k < times && !s->overflow; k++)
        for (int i = 0; i < sub->n; i++) push(s, sub->r[i].id, sub->r[i].n);
}

static void flatten(MPI_Datatype t, seq_t *out, int depth);

static void flatten_into(MPI_Datatype t, seq_t *out, uint64_t times, int depth)
{
    seq_t sub = {.n = 0};
    flatten(t, &sub, depth + 1);
    append(out, &sub, times);
}

static void free_if_derived(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS && comb != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
}

static void flatten(MPI_Datatype t, seq_t *out, int depth)
{
    int ni = 0, na = 0, nd = 0, comb = 0;
    if (depth > 16 || PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) {
        out->overflow = true;
        return;
    }
    if (comb == MPI_COMBINER_NAMED) {
        char name[MPI_MAX_OBJECT_NAME] = "";
        int len = 0;
        PMPI_Type_get_name(t, name, &len);
        if (strcmp(name, "MPI_PACKED") == 0 || !name[0]) {
            out->overflow = true; /* matches anything, or cannot be named */
            return;
        }
        /* The pair types of MINLOC and MAXLOC are named, yet their type
         * maps are two basic types (MPI-3.1 section 5.9.4): 2 MPI_DOUBLE_INT
         * match a struct of {double, int, double, int} (MPICH's
         * datatype/get_elements_pairtype). */
        static const struct {
            const char *pair, *first, *second;
        } pairs[] = {
            {"MPI_FLOAT_INT", "MPI_FLOAT", "MPI_INT"},
            {"MPI_DOUBLE_INT", "MPI_DOUBLE", "MPI_INT"},
            {"MPI_LONG_INT", "MPI_LONG", "MPI_INT"},
            {"MPI_2INT", "MPI_INT", "MPI_INT"},
            {"MPI_SHORT_INT", "MPI_SHORT", "MPI_INT"},
            {"MPI_LONG_DOUBLE_INT", "MPI_LONG_DOUBLE", "MPI_INT"},
            {"MPI_2REAL", "MPI_REAL", "MPI_REAL"},
            {"MPI_2DOUBLE_PRECISION", "MPI_DOUBLE_PRECISION", "MPI_DOUBLE_PRECISION"},
            {"MPI_2INTEGER", "MPI_INTEGER", "MPI_INTEGER"},
        };
        for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
            if (strcmp(name, pairs[i].pair) == 0) {
                push(out, hash_str(pairs[i].first), 1);
                push(out, hash_str(pairs[i].second), 1);
                return;
            }
        push(out, hash_str(name), 1);
        return;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    if (!ints || !addrs || !types ||
        PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) != MPI_SUCCESS) {
        free(ints), free(addrs), free(types);
        out->overflow = true;
        return;
    }
    uint64_t m = 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        flatten_into(types[0], out, 1, depth);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        flatten_into(types[0], out, (uint64_t)ints[0], depth);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        flatten_into(types[0], out, (uint64_t)ints[0] * (uint64_t)ints[1], depth);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < ints[0]; i++) m += (uint64_t)ints[1 + i];
        flatten_into(types[0], out, m, depth);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0] && !out->overflow; i++)
            flatten_into(types[i], out, (uint64_t)ints[1 + i], depth);
        break;
    case MPI_COMBINER_SUBARRAY:
        m = 1;
        for (int i = 0; i < ints[0]; i++) m *= (uint64_t)ints[1 + ints[0] + i];
        flatten_into(types[0], out, m, depth);
        break;
    default: /* darray, Fortran parameterised types: not flattened */
        out->overflow = true;
        break;
    }
    for (int i = 0; i < nd; i++) free_if_derived(types[i]);
    free(ints), free(addrs), free(types);
}

/* Shortest period p of the run sequence (runs compared cyclically). */
static chk_sig_t canonical(const seq_t *s)
{
    chk_sig_t g = {0, 0, 0};
    if (s->overflow || s->n == 0) return g;
    if (s->n == 1) {
        g.unit = mix(0, s->r[0].id) | SIMPLE_BIT;
        g.reps = s->r[0].n;
        return g;
    }
    /* A sequence of runs a1..an with a1 != an (else they would have merged
     * across a period boundary only when repeated): find the smallest p
     * dividing n with r[i] == r[i+p]. */
    for (int p = 1; p <= s->n; p++) {
        if (s->n % p) continue;
        bool ok = true;
        for (int i = 0; i + p < s->n && ok; i++)
            ok = s->r[i].id == s->r[i + p].id && s->r[i].n == s->r[i + p].n;
        if (!ok || (p < s->n && s->r[0].id == s->r[p - 1].id)) continue;
        uint64_t h = 0;
        for (int i = 0; i < p; i++) h = mix(mix(h, s->r[i].id), s->r[i].n);
        g.unit = h & ~SIMPLE_BIT;
        if (!g.unit) g.unit = 1;
        g.reps = (uint64_t)(s->n / p);
        return g;
    }
    return g;
}

typedef struct {
    uint64_t key;
    chk_sig_t sig;
    bool used;
} cache_t;

static cache_t cache[CACHE];

static uint64_t key_of(MPI_Datatype t)
{
    uint64_t k = 0;
    memcpy(&k, &t, sizeof t < sizeof k ? sizeof t : sizeof k);
    return k;
}

static chk_sig_t sig_one(MPI_Datatype t)
{
    uint64_t k = key_of(t);
    uint64_t h = mix(0, k) % CACHE;
    chk_lock();
    for (int i = 0; i < 8; i++) {
        cache_t *e = &cache[(h + (uint64_t)i) % CACHE];
        if (e->used && e->key == k) {
            chk_sig_t s = e->sig;
            chk_unlock();
            return s;
        }
    }
    chk_unlock();
    seq_t s = {.n = 0};
    flatten(t, &s, 0);
    chk_sig_t g = canonical(&s);
    MPI_Count size = 0;
    if (PMPI_Type_size_x(t, &size) == MPI_SUCCESS) g.bytes = size;
    chk_lock();
    for (int i = 0; i < 8; i++) {
        cache_t *e = &cache[(h + (uint64_t)i) % CACHE];
        if (!e->used || i == 7) {
            *e = (cache_t){k, g, true};
            break;
        }
    }
    chk_unlock();
    return g;
}

void chk_sig_forget(MPI_Datatype t)
{
    uint64_t k = key_of(t);
    uint64_t h = mix(0, k) % CACHE;
    for (int i = 0; i < 8; i++) {
        cache_t *e = &cache[(h + (uint64_t)i) % CACHE];
        if (e->used && e->key == k) e->used = false;
    }
}

enum { TMEMO = 4 };
static CHK_TLS chk_tinfo_t tmemo[TMEMO];
static CHK_TLS unsigned tmemo_next;

CHK_TLS chk_tinfo_t *chk_tlast;

const chk_tinfo_t *chk_tinfo_slow(MPI_Datatype t)
{
    uint64_t gen = atomic_load_explicit(&chk_gen, memory_order_acquire);
    for (int i = 0; i < TMEMO; i++)
        if (tmemo[i].t == t && tmemo[i].gen == gen) return chk_tlast = &tmemo[i];
    chk_tinfo_t *m = chk_tlast = &tmemo[tmemo_next++ % TMEMO];
    memset(m, 0, sizeof *m);
    m->t = t;
    m->gen = gen;
    m->state = t == MPI_DATATYPE_NULL ? CHK_UNKNOWN : chk_obj_state(MSC_OBJ_DATATYPE, &t, sizeof t);
    m->committed = chk_type_committed(t);
    if (t == MPI_DATATYPE_NULL || m->state == CHK_FREED) return m;
    m->ok = PMPI_Type_size_x(t, &m->size) == MPI_SUCCESS &&
            PMPI_Type_get_extent_x(t, &m->lb, &m->extent) == MPI_SUCCESS &&
            PMPI_Type_get_true_extent_x(t, &m->tlb, &m->textent) == MPI_SUCCESS;
    m->contig = m->ok && m->size > 0 && m->size == m->extent && m->size == m->textent;
    if (m->ok) m->sig = sig_one(t);
    return m;
}

chk_sig_t chk_sig(MPI_Datatype type, MPI_Count count)
{
    chk_sig_t g = {0, 0, 0};
    if (type == MPI_DATATYPE_NULL || count < 0) return g;
    const chk_tinfo_t *ti = chk_tinfo(type);
    if (!ti->ok) return g;
    g = ti->sig;
    g.reps *= (uint64_t)count;
    g.bytes *= count;
    if (count == 0) g.unit = 0; /* empty messages match everything */
    return g;
}

bool chk_sig_equal(chk_sig_t a, chk_sig_t b)
{
    if (!a.unit || !b.unit) return a.bytes == b.bytes || !a.unit || !b.unit;
    return a.unit == b.unit && a.reps == b.reps;
}

bool chk_sig_receivable(chk_sig_t s, chk_sig_t r)
{
    if (!s.unit || !r.unit) return true;
    if (s.unit == r.unit) return true; /* too long is MPI_ERR_TRUNCATE, not ours */
    /* Different periods: a real mismatch when both are one basic type, or
     * when the whole receive buffer was filled (the message's signature
     * must then equal the receive's). A shorter message of a compound
     * type may legally be a prefix: not judged. */
    if ((s.unit & SIMPLE_BIT) && (r.unit & SIMPLE_BIT)) return false;
    if (s.bytes == r.bytes) return false;
    return true;
}

/* The buffer checksum detects a change of the application's data between
 * two moments (never an adversary), so it need not be a strong hash, only
 * fast: a Fletcher-style pair of sums over 8-byte words in eight lanes,
 * a_l += w, b_l += a_l (a change of one word moves a_l; two changes that
 * cancel in a_l still move b_l unless they are a multiple of 2^64 apart in
 * weight), in 16-byte vectors (GCC/clang vector extension: SSE2's paddq on
 * x86-64, plain 64-bit adds elsewhere). Each step waits only for an add:
 * about 16 bytes per cycle. The earlier hash multiplied at every word (four
 * lanes, one multiply each per 32 bytes, bound by the multiply's latency)
 * and was most of check mode's cost in a halo exchange of 16 KiB faces
 * (bench/check/callgrind.sh mpich 300 halo: 97 k of check mode's 108 k
 * instructions added per iteration). The lanes are folded by a weighted
 * sum (a receive buffer is hashed in up to 16 blocks: the fold is paid per
 * block), then the tail of fewer than 64 bytes word by word. */
typedef uint64_t chk_v2u __attribute__((vector_size(16)));

/* The lanes over n bytes (a multiple of 64): v[0..7] the sums a, v[8..15]
 * the sums b; word k of the buffer goes to lane k mod 8. */
static void lanes_sse2(const unsigned char *p, uint64_t n, uint64_t h, uint64_t v[16])
{
    chk_v2u a0 = {h, h ^ 1}, a1 = {h ^ 2, h ^ 3}, a2 = {h ^ 4, h ^ 5}, a3 = {h ^ 6, h ^ 7};
    chk_v2u b0 = {0, 0}, b1 = b0, b2 = b0, b3 = b0;
    for (uint64_t i = 0; i < n; i += 64) {
        chk_v2u w0, w1, w2, w3;
        memcpy(&w0, p + i, 16), memcpy(&w1, p + i + 16, 16);
        memcpy(&w2, p + i + 32, 16), memcpy(&w3, p + i + 48, 16);
        a0 += w0, a1 += w1, a2 += w2, a3 += w3;
        b0 += a0, b1 += a1, b2 += a2, b3 += a3;
    }
    memcpy(v, &a0, 16), memcpy(v + 2, &a1, 16), memcpy(v + 4, &a2, 16);
    memcpy(v + 6, &a3, 16), memcpy(v + 8, &b0, 16), memcpy(v + 10, &b1, 16);
    memcpy(v + 12, &b2, 16), memcpy(v + 14, &b3, 16);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The same lanes in 32-byte AVX2 vectors where the processor has them
 * (chosen at each call: __builtin_cpu_supports is a load and a test), the
 * same result: 9 instructions per 64 bytes instead of 15. */
#define CHK_HAVE_AVX2 1
typedef uint64_t chk_v4u __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static void lanes_avx2(const unsigned char *p, uint64_t n,
                                                       uint64_t h, uint64_t v[16])
{
    chk_v4u a0 = {h, h ^ 1, h ^ 2, h ^ 3}, a1 = {h ^ 4, h ^ 5, h ^ 6, h ^ 7};
    chk_v4u b0 = {0, 0, 0, 0}, b1 = b0;
    for (uint64_t i = 0; i < n; i += 64) {
        chk_v4u w0, w1;
        memcpy(&w0, p + i, 32), memcpy(&w1, p + i + 32, 32);
        a0 += w0, a1 += w1;
        b0 += a0, b1 += a1;
    }
    memcpy(v, &a0, 32), memcpy(v + 4, &a1, 32), memcpy(v + 8, &b0, 32), memcpy(v + 12, &b1, 32);
}
#endif

static uint64_t hash_bytes(const unsigned char *p, uint64_t n, uint64_t h)
{
    const uint64_t m = 0x100000001b3ull;
    uint64_t i = n & ~(uint64_t)63;
    if (i) {
        uint64_t v[16];
#ifdef CHK_HAVE_AVX2
        if (__builtin_cpu_supports("avx2")) lanes_avx2(p, i, h, v);
        else
#endif
            lanes_sse2(p, i, h, v);
        /* Distinct odd weights (invertible modulo 2^64): a change of one
         * word always changes sa (the a and b lanes apart: a sum of both
         * could cancel a change of a word's top byte); independent
         * multiplies, no chain. */
        uint64_t sa = 0, sb = 0;
        for (int k = 0; k < 8; k++) {
            sa += v[k] * (0x9e3779b97f4a7c15ull + 2 * (uint64_t)k);
            sb += v[8 + k] * (0xc2b2ae3d27d4eb4full + 2 * (uint64_t)k);
        }
        h = (h ^ sa) * m, h ^= h >> 29;
        h = (h ^ sb) * m, h ^= h >> 29;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * m;
    return h;
}

/* Buffers up to 64 KiB whole; larger ones by sample, so that a 4 MiB send
 * does not cost two passes over its memory: the first and last 16 KiB and
 * 64 blocks of 512 bytes spread evenly between them. A change elsewhere is
 * missed (docs/checks.md). */
enum { SUM_WHOLE = 64 << 10, SUM_EDGE = 16 << 10, SUM_BLOCKS = 64, SUM_BLOCK = 512 };

uint64_t chk_checksum_span(const void *buf, int64_t len)
{
    len = chk_object_clamp(buf, len);
    if (!buf || len <= 0) return 0;
    const unsigned char *p = buf;
    uint64_t n = (uint64_t)len, h = 0x84222325cbf29ce4ull ^ n;
    if (n <= SUM_WHOLE) return hash_bytes(p, n, h) | 1; /* never 0: "not computed" */
    h = hash_bytes(p, SUM_EDGE, h);
    h = hash_bytes(p + n - SUM_EDGE, SUM_EDGE, h);
    uint64_t stride = (n - 2 * SUM_EDGE) / SUM_BLOCKS;
    for (int k = 0; k < SUM_BLOCKS && stride >= SUM_BLOCK; k++)
        h = hash_bytes(p + SUM_EDGE + (uint64_t)k * stride, SUM_BLOCK, h);
    return h | 1;
}

/* A receive buffer's block (check.c: up to 16 per buffer, at least 64
 * bytes, at most 4 KiB each). Small blocks are the common case (a buffer of
 * 1 KiB has 16 of 64 bytes), where the vector lanes' fold and the call
 * around them cost more than the words: up to 128 bytes, one Fletcher pair
 * of sums word by word and two multiplies (about 30 instructions for 64
 * bytes against 70); larger ones as chk_checksum_span. Never 0. */
uint64_t chk_checksum_block(const void *buf, int64_t len)
{
    if (len > 128) return chk_checksum_span(buf, len);
    if (!buf || len <= 0) return 0;
    const unsigned char *p = buf;
    uint64_t n = (uint64_t)len, a = 0x84222325cbf29ce4ull ^ n, s = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        a += w;
        s += a;
    }
    for (; i < n; i++) {
        a += p[i];
        s += a;
    }
    uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (s * 0xc2b2ae3d27d4eb4full);
    return (h ^ (h >> 29)) | 1;
}

uint64_t chk_checksum(const void *buf, MPI_Count count, MPI_Datatype type)
{
    if (!buf || count <= 0 || type == MPI_DATATYPE_NULL || buf == MPI_IN_PLACE) return 0;
    const chk_tinfo_t *ti = chk_tinfo(type);
    /* Only contiguous layouts: the gaps of other types may change legally. */
    if (!ti->contig) return 0;
    return chk_checksum_span((const unsigned char *)buf + ti->tlb, (int64_t)(ti->size * count));
}
