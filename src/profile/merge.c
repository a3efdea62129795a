/* The profile at MPI_Finalize (and MPI_Pcontrol(2)): fold, resolve, merge,
 * write.
 *
 * 1. Fold: every thread's tables are summed into one per-function array, one
 *    matrix row and a list of call sites (under the thread registry lock).
 * 2. Resolve: each rank turns its own call-site addresses into strings
 *    (callsite.c); from here on a site is a key such as
 *    "S\tMPI_Send\tmain\x1fping.c\x1f12\x1f/path/ping\x1f0x1234", so sites
 *    from different ranks meet by name, whatever their load addresses.
 * 3. Merge: records (function or site key, sums, min/max over calls, min/max
 *    over ranks with the rank) travel up a binomial tree over msc_g.comm:
 *    a rank receives its children's blobs (probe for the size, receive),
 *    merges them into its own by key, and sends the result to its parent.
 *    Sites beyond MPISCOPE_PROFILE_SITES (by time) and matrix pairs beyond
 *    MPISCOPE_PROFILE_MATRIX_PAIRS (by bytes) are folded into "omitted"
 *    totals at every step, so no rank ever holds more than those budgets.
 *    Only the per-rank summary (four numbers per rank) is gathered whole.
 * 4. Write: rank 0 prints profile.json and renders profile.txt from the
 *    parsed JSON with the same renderer `mpiscope report` uses.
 */
#include "profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "callsite.h"
#include "clock.h"
#include "log.h"
#include "output.h"
#include "pjson.h"
#include "pop.h"
#include "render.h"
#include "requests.h"
#include "state.h"
#include "../core/json_out.h"

/* src/mpit/pvars.c, if built: the "pvars" object of profile.json, or NULL. */
extern const char *msc_pvars_profile_section(void) __attribute__((weak, visibility("hidden")));

enum { TAG_MERGE = 7301, SCHEMA_VERSION = 1 };

typedef struct {
    msc_pstat_t s;
    uint64_t rmin_ns, rmax_ns; /* ns, per-rank total time: least and most */
    int32_t rmin_at, rmax_at;  /* world ranks where they occur */
    uint32_t nranks;           /* ranks that made the call */
    uint32_t has_hist;
    uint64_t hist[MSC_PROF_BINS]; /* only when has_hist */
} rec_t;

#define REC_WIRE_SMALL offsetof(rec_t, hist)

typedef struct {
    char *key;
    rec_t r;
} entry_t;

typedef struct {
    int32_t from, to, cls, pad;
    uint64_t msgs, bytes;
} pair_t;

typedef struct {
    uint64_t dropped_sites;   /* calls whose site did not fit a thread's table */
    uint64_t merged_sites;    /* site records left out by the merge budget */
    uint64_t dropped_requests;
    uint64_t tot[2][2];       /* [class][msgs, bytes], all pairs */
    uint64_t omitted[3];      /* pairs, msgs, bytes left out by the pair budget */
    uint64_t npairs, nrec;
} header_t;

typedef struct {
    entry_t *e;
    size_t n, cap;      /* entries, and slots in idx */
    size_t *idx;        /* open addressing over e; SIZE_MAX: empty */
    size_t idx_cap;
    pair_t *pairs;
    size_t npairs;
    header_t h;
} set_t;

/* ---- the keyed record set ------------------------------------------------ */

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void set_reindex(set_t *st)
{
    size_t cap = 64;
    while (cap < 2 * st->n + 2) cap *= 2;
    free(st->idx);
    st->idx = malloc(cap * sizeof *st->idx);
    st->idx_cap = st->idx ? cap : 0;
    if (!st->idx) return;
    memset(st->idx, 0xff, cap * sizeof *st->idx);
    for (size_t i = 0; i < st->n; i++) {
        size_t j = str_hash(st->e[i].key) & (cap - 1);
        while (st->idx[j] != SIZE_MAX) j = (j + 1) & (cap - 1);
        st->idx[j] = i;
    }
}

/* The record of `key`, created empty if new; NULL if memory ran out. */
static rec_t *set_get(set_t *st, const char *key)
{
    if (2 * (st->n + 1) > st->idx_cap) set_reindex(st);
    if (!st->idx) return NULL;
    size_t j = str_hash(key) & (st->idx_cap - 1);
    for (; st->idx[j] != SIZE_MAX; j = (j + 1) & (st->idx_cap - 1))
        if (strcmp(st->e[st->idx[j]].key, key) == 0) return &st->e[st->idx[j]].r;
    if (st->n == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 256;
        entry_t *e = realloc(st->e, cap * sizeof *e);
        if (!e) return NULL;
        st->e = e;
        st->cap = cap;
    }
    entry_t *e = &st->e[st->n];
    memset(e, 0, sizeof *e);
    e->key = strdup(key);
    if (!e->key) return NULL;
    e->r.s.tmin_ns = UINT64_MAX;
    e->r.rmin_ns = UINT64_MAX;
    e->r.rmin_at = e->r.rmax_at = -1;
    st->idx[j] = st->n++;
    return &e->r;
}

static void stat_add(msc_pstat_t *a, const msc_pstat_t *b)
{
    a->count += b->count;
    a->time_ns += b->time_ns;
    if (b->tmin_ns < a->tmin_ns) a->tmin_ns = b->tmin_ns;
    if (b->tmax_ns > a->tmax_ns) a->tmax_ns = b->tmax_ns;
    a->bytes_sent += b->bytes_sent;
    a->bytes_recv += b->bytes_recv;
}

static void rec_merge(rec_t *a, const rec_t *b)
{
    stat_add(&a->s, &b->s);
    a->nranks += b->nranks;
    if (b->rmin_at >= 0 && (a->rmin_at < 0 || b->rmin_ns < a->rmin_ns ||
                            (b->rmin_ns == a->rmin_ns && b->rmin_at < a->rmin_at)))
        a->rmin_ns = b->rmin_ns, a->rmin_at = b->rmin_at;
    if (b->rmax_at >= 0 && (a->rmax_at < 0 || b->rmax_ns > a->rmax_ns ||
                            (b->rmax_ns == a->rmax_ns && b->rmax_at < a->rmax_at)))
        a->rmax_ns = b->rmax_ns, a->rmax_at = b->rmax_at;
    if (b->has_hist) {
        a->has_hist = 1;
        for (int i = 0; i < MSC_PROF_BINS; i++) a->hist[i] += b->hist[i];
    }
}

static void set_free(set_t *st)
{
    for (size_t i = 0; i < st->n; i++) free(st->e[i].key);
    free(st->e);
    free(st->idx);
    free(st->pairs);
    memset(st, 0, sizeof *st);
}

/* ---- fold and resolve ------------------------------------------------------ */

typedef struct {
    msc_pfn_t *fn;
    msc_pcell_t *row;
    msc_psite_t *sites;
    size_t nsites, cap;
    uint64_t dropped;
} fold_t;

static void fold_thread(msc_thread_t *t, void *arg)
{
    fold_t *f = arg;
    msc_ptab_t *p = t->module_data[msc_prof.slot];
    if (!p) return;
    for (int i = 0; i < MSC_FN_COUNT; i++) {
        stat_add(&f->fn[i].s, &p->fn[i].s);
        for (int b = 0; b < MSC_PROF_BINS; b++) f->fn[i].hist[b] += p->fn[i].hist[b];
    }
    if (p->row && f->row)
        for (size_t i = 0; i < 2 * (size_t)msc_g.world_size; i++) {
            f->row[i].msgs += p->row[i].msgs;
            f->row[i].bytes += p->row[i].bytes;
        }
    for (uint32_t i = 0; i < p->site_cap; i++) {
        if (!p->sites[i].pc[0]) continue;
        stat_add(&f->fn[p->sites[i].fn].s, &p->sites[i].s);
        if (f->nsites == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 256;
            msc_psite_t *s = realloc(f->sites, cap * sizeof *s);
            if (!s) {
                f->dropped += p->sites[i].s.count;
                continue;
            }
            f->sites = s;
            f->cap = cap;
        }
        f->sites[f->nsites++] = p->sites[i];
    }
    f->dropped += p->site_dropped;
}

/* Appends one resolved frame to the key: fields separated by \x1f. */
static void key_frame(FILE *k, msc_callsite_resolver_t *r, void *pc)
{
    msc_frame_t fr;
    msc_callsite_resolve(r, pc, &fr);
    /* With a line, the line is the site: an unrolled loop or an inlined
     * helper has several return addresses for one line of source. */
    char off[32] = "";
    if (!fr.file || !fr.line) snprintf(off, sizeof off, "0x%lx", (unsigned long)fr.offset);
    fprintf(k, "\t%s\x1f" "%s\x1f" "%d\x1f" "%s\x1f" "%s", fr.symbol ? fr.symbol : "",
            fr.file ? fr.file : "", fr.line, fr.module, off);
}

/* This rank's records: one per function called, one per resolved site. */
static void local_set(set_t *st, const fold_t *f)
{
    int me = msc_g.world_rank;
    for (int i = 0; i < MSC_FN_COUNT; i++) {
        const msc_pfn_t *p = &f->fn[i];
        uint64_t h = 0;
        for (int b = 0; b < MSC_PROF_BINS; b++) h += p->hist[b];
        if (!p->s.count && !h) continue;
        char key[128];
        snprintf(key, sizeof key, "F\t%s", msc_fn_name[i]);
        rec_t *r = set_get(st, key);
        if (!r) continue;
        rec_t one = {.s = p->s, .rmin_ns = p->s.time_ns, .rmax_ns = p->s.time_ns,
                     .rmin_at = me, .rmax_at = me, .nranks = 1, .has_hist = 1};
        memcpy(one.hist, p->hist, sizeof one.hist);
        rec_merge(r, &one);
    }
    msc_callsite_resolver_t *res = f->nsites ? msc_callsite_open() : NULL;
    for (size_t i = 0; i < f->nsites; i++) {
        const msc_psite_t *s = &f->sites[i];
        char *buf = NULL;
        size_t len = 0;
        FILE *k = open_memstream(&buf, &len);
        if (!k) continue;
        fprintf(k, "S\t%s", msc_fn_name[s->fn]);
        for (int d = 0; d < msc_prof.depth && s->pc[d]; d++) key_frame(k, res, s->pc[d]);
        fclose(k);
        rec_t *r = set_get(st, buf);
        free(buf);
        if (!r) continue;
        /* A site seen by several threads is one record with one rank. */
        rec_t one = {.s = s->s, .nranks = 0, .rmin_at = -1, .rmax_at = -1};
        rec_merge(r, &one);
    }
    msc_callsite_close(res);
    for (size_t i = 0; i < st->n; i++) {
        rec_t *r = &st->e[i].r;
        if (st->e[i].key[0] != 'S') continue;
        r->nranks = 1;
        r->rmin_ns = r->rmax_ns = r->s.time_ns;
        r->rmin_at = r->rmax_at = me;
    }
}

static void local_pairs(set_t *st, const fold_t *f)
{
    if (!f->row) return;
    size_t n = 0, w = (size_t)msc_g.world_size;
    for (size_t i = 0; i < 2 * w; i++) n += f->row[i].msgs != 0;
    st->pairs = calloc(n ? n : 1, sizeof *st->pairs);
    if (!st->pairs) return;
    for (size_t i = 0; i < 2 * w; i++) {
        if (!f->row[i].msgs) continue;
        pair_t *p = &st->pairs[st->npairs++];
        p->from = msc_g.world_rank;
        p->to = (int32_t)(i % w);
        p->cls = (int32_t)(i / w);
        p->msgs = f->row[i].msgs;
        p->bytes = f->row[i].bytes;
        st->h.tot[p->cls][0] += p->msgs;
        st->h.tot[p->cls][1] += p->bytes;
    }
}

/* ---- budgets ----------------------------------------------------------------- */

static int by_time_desc(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->r.s.time_ns != y->r.s.time_ns) return x->r.s.time_ns < y->r.s.time_ns ? 1 : -1;
    return strcmp(x->key, y->key);
}

static int by_bytes_desc(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->msgs != y->msgs) return x->msgs < y->msgs ? 1 : -1;
    if (x->from != y->from) return x->from - y->from;
    if (x->to != y->to) return x->to - y->to;
    return x->cls - y->cls;
}

/* Keeps the heaviest sites and pairs within their budgets. */
static void set_trim(set_t *st)
{
    if (st->n > 1) qsort(st->e, st->n, sizeof *st->e, by_time_desc);
    size_t keep = 0, sites = 0;
    for (size_t i = 0; i < st->n; i++) {
        bool site = st->e[i].key[0] == 'S';
        if (site && sites >= (size_t)msc_prof.max_sites) {
            st->h.merged_sites++;
            free(st->e[i].key);
            continue;
        }
        sites += site;
        st->e[keep++] = st->e[i];
    }
    st->n = keep;
    set_reindex(st);
    if (st->npairs > 1) qsort(st->pairs, st->npairs, sizeof *st->pairs, by_bytes_desc);
    for (size_t i = (size_t)msc_prof.matrix_pairs; i < st->npairs; i++) {
        st->h.omitted[0]++;
        st->h.omitted[1] += st->pairs[i].msgs;
        st->h.omitted[2] += st->pairs[i].bytes;
    }
    if (st->npairs > (size_t)msc_prof.matrix_pairs) st->npairs = (size_t)msc_prof.matrix_pairs;
}

/* ---- wire format and the tree ------------------------------------------------- */

static char *pack(set_t *st, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    if (!o) return NULL;
    st->h.nrec = st->n;
    st->h.npairs = st->npairs;
    fwrite(&st->h, sizeof st->h, 1, o);
    for (size_t i = 0; i < st->n; i++) {
        uint32_t kl = (uint32_t)strlen(st->e[i].key);
        fwrite(&kl, sizeof kl, 1, o);
        fwrite(st->e[i].key, 1, kl, o);
        const rec_t *r = &st->e[i].r;
        fwrite(r, r->has_hist ? sizeof *r : REC_WIRE_SMALL, 1, o);
    }
    if (st->npairs) fwrite(st->pairs, sizeof *st->pairs, st->npairs, o);
    if (fclose(o) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Merges a child's blob into st. Sizes are checked: the blob came from our
 * own library on another rank, but a short message must not crash. */
static void unpack_merge(set_t *st, const char *b, size_t len)
{
    header_t h;
    if (len < sizeof h) return;
    memcpy(&h, b, sizeof h);
    size_t off = sizeof h;
    for (uint64_t i = 0; i < h.nrec; i++) {
        uint32_t kl;
        if (len - off < sizeof kl) return;
        memcpy(&kl, b + off, sizeof kl);
        off += sizeof kl;
        if (len - off < (size_t)kl + REC_WIRE_SMALL) return;
        char *key = strndup(b + off, kl);
        off += kl;
        rec_t r;
        memset(&r, 0, sizeof r);
        memcpy(&r, b + off, REC_WIRE_SMALL);
        off += REC_WIRE_SMALL;
        if (r.has_hist) {
            if (len - off < sizeof r.hist) {
                free(key);
                return;
            }
            memcpy(r.hist, b + off, sizeof r.hist);
            off += sizeof r.hist;
        }
        rec_t *dst = key ? set_get(st, key) : NULL;
        if (dst) rec_merge(dst, &r);
        free(key);
    }
    if ((len - off) / sizeof(pair_t) < h.npairs) return;
    pair_t *np = realloc(st->pairs, (st->npairs + h.npairs + 1) * sizeof *np);
    if (np) {
        memcpy(np + st->npairs, b + off, h.npairs * sizeof *np);
        st->pairs = np;
        st->npairs += h.npairs;
    }
    st->h.dropped_sites += h.dropped_sites;
    st->h.merged_sites += h.merged_sites;
    st->h.dropped_requests += h.dropped_requests;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++) st->h.tot[c][k] += h.tot[c][k];
    for (int k = 0; k < 3; k++) st->h.omitted[k] += h.omitted[k];
}

static void tree_merge(set_t *st)
{
    int me = msc_g.world_rank, n = msc_g.world_size;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            size_t len = 0;
            char *b = pack(st, &len);
            /* An empty message still tells the parent this subtree is done. */
            PMPI_Send(b ? b : "", b ? (int)len : 0, MPI_BYTE, me - mask, TAG_MERGE, msc_g.comm);
            free(b);
            return;
        }
        if (me + mask < n) {
            MPI_Status s;
            int cnt = 0;
            PMPI_Probe(me + mask, TAG_MERGE, msc_g.comm, &s);
            PMPI_Get_count(&s, MPI_BYTE, &cnt);
            char *b = malloc(cnt > 0 ? (size_t)cnt : 1);
            PMPI_Recv(b ? b : NULL, b ? cnt : 0, MPI_BYTE, me + mask, TAG_MERGE, msc_g.comm,
                      MPI_STATUS_IGNORE);
            if (b) unpack_merge(st, b, (size_t)cnt);
            free(b);
            set_trim(st);
        }
    }
}

/* ---- JSON ---------------------------------------------------------------------- */

typedef struct {
    uint64_t wall_ns, profiled_ns, mpi_ns, calls;
} rank_sum_t;

static void json_stats(FILE *o, const rec_t *r, int world)
{
    const msc_pstat_t *s = &r->s;
    fprintf(o,
            "\"calls\": %llu, \"time_ns\": %llu, \"time_min_ns\": %llu, \"time_max_ns\": %llu, "
            "\"bytes_sent\": %llu, \"bytes_recv\": %llu, \"ranks\": %u, "
            "\"rank_time_min_ns\": %llu, \"rank_time_min_at\": %d, \"rank_time_max_ns\": %llu, "
            "\"rank_time_max_at\": %d, \"rank_time_mean_ns\": %llu",
            (unsigned long long)s->count, (unsigned long long)s->time_ns,
            (unsigned long long)(s->count ? s->tmin_ns : 0), (unsigned long long)s->tmax_ns,
            (unsigned long long)s->bytes_sent, (unsigned long long)s->bytes_recv, r->nranks,
            (unsigned long long)(r->rmin_at >= 0 ? r->rmin_ns : 0), r->rmin_at,
            (unsigned long long)r->rmax_ns, r->rmax_at,
            (unsigned long long)(world ? s->time_ns / (uint64_t)world : 0));
}

static void json_frames(FILE *o, char *key)
{
    /* key: S \t fn \t frame \t frame ... ; frame: sym \x1f file \x1f line \x1f module \x1f off */
    char *save = NULL;
    strtok_r(key, "\t", &save);
    char *fn = strtok_r(NULL, "\t", &save);
    fprintf(o, "\"function\": ");
    msc_json_put_string(o, fn);
    fprintf(o, ", \"frames\": [");
    bool first = true;
    for (char *fr; (fr = strtok_r(NULL, "\t", &save)); first = false) {
        char *f[5] = {0};
        for (int i = 0; i < 5; i++) {
            f[i] = fr;
            char *sep = fr ? strchr(fr, '\x1f') : NULL;
            if (sep) *sep = 0, fr = sep + 1;
            else fr = NULL;
        }
        fprintf(o, "%s{\"symbol\": ", first ? "" : ", ");
        msc_json_put_string(o, f[0] ? f[0] : "");
        fprintf(o, ", \"file\": ");
        msc_json_put_string(o, f[1] ? f[1] : "");
        fprintf(o, ", \"line\": %d, \"module\": ", f[2] ? atoi(f[2]) : 0);
        msc_json_put_string(o, f[3] ? f[3] : "");
        fprintf(o, ", \"offset\": ");
        msc_json_put_string(o, f[4] ? f[4] : "");
        fputc('}', o);
    }
    fputc(']', o);
}

static void json_write(FILE *o, set_t *st, const rank_sum_t *ranks, int nranks, bool flush,
                       const char *per_rank_fns, const char *why)
{
    int world = nranks;
    rank_sum_t tot = {0};
    uint64_t wmax = 0, mmin = UINT64_MAX, mmax = 0;
    int mmin_at = 0, mmax_at = 0;
    for (int i = 0; i < nranks; i++) {
        tot.wall_ns += ranks[i].wall_ns;
        tot.profiled_ns += ranks[i].profiled_ns;
        tot.mpi_ns += ranks[i].mpi_ns;
        tot.calls += ranks[i].calls;
        if (ranks[i].wall_ns > wmax) wmax = ranks[i].wall_ns;
        if (ranks[i].mpi_ns < mmin) mmin = ranks[i].mpi_ns, mmin_at = i;
        if (ranks[i].mpi_ns > mmax) mmax = ranks[i].mpi_ns, mmax_at = i;
    }
    int rank0 = flush ? msc_g.world_rank : 0;
    double mean = nranks ? (double)tot.mpi_ns / nranks : 0;
    fprintf(o, "{\n\"schema_version\": %d,\n\"tool\": \"mpiscope\",\n\"mpi\": \"%s\",\n",
            SCHEMA_VERSION, MSC_MPI_NAME);
    char prog[256] = "";
    FILE *c = fopen("/proc/self/comm", "r");
    if (c) {
        if (fgets(prog, sizeof prog, c)) prog[strcspn(prog, "\n")] = 0;
        fclose(c);
    }
    fprintf(o, "\"program\": ");
    msc_json_put_string(o, prog);
    fprintf(o, ",\n\"scope\": \"%s\",\n", why ? "rank-incomplete" : flush ? "rank-flush" : "run");
    if (why) {
        fprintf(o, "\"incomplete\": {\"rank\": %d, \"reason\": ", msc_g.world_rank);
        msc_json_put_string(o, why);
        fprintf(o, "},\n");
    } else if (flush) {
        fprintf(o, "\"flush\": {\"rank\": %d, \"index\": %d},\n", msc_g.world_rank, msc_prof.flushes);
    }
    fprintf(o, "\"ranks\": %d,\n\"world_size\": %d,\n\"callsite_depth\": %lld,\n", nranks,
            msc_g.world_size, msc_g.settings.v[MSC_SET_CALLSITE_DEPTH].num);
    fprintf(o,
            "\"summary\": {\"wall_ns_max\": %llu, \"wall_ns_total\": %llu, \"profiled_ns_total\": "
            "%llu, \"mpi_ns_total\": %llu, \"mpi_pct\": %.3f, \"mpi_ns_rank_min\": %llu, "
            "\"mpi_ns_rank_min_at\": %d, \"mpi_ns_rank_max\": %llu, \"mpi_ns_rank_max_at\": %d, "
            "\"mpi_ns_rank_mean\": %.0f, \"imbalance_pct\": %.3f, \"calls\": %llu},\n",
            (unsigned long long)wmax, (unsigned long long)tot.wall_ns,
            (unsigned long long)tot.profiled_ns, (unsigned long long)tot.mpi_ns,
            tot.profiled_ns ? 100.0 * (double)tot.mpi_ns / (double)tot.profiled_ns : 0.0,
            (unsigned long long)(nranks ? mmin : 0), rank0 + mmin_at, (unsigned long long)mmax,
            rank0 + mmax_at, mean, mmax ? 100.0 * ((double)mmax - mean) / (double)mmax : 0.0,
            (unsigned long long)tot.calls);
    fprintf(o, "\"per_rank\": [");
    for (int i = 0; i < nranks; i++)
        fprintf(o, "%s\n  {\"rank\": %d, \"wall_ns\": %llu, \"profiled_ns\": %llu, \"mpi_ns\": %llu, \"calls\": %llu}",
                i ? "," : "", rank0 + i, (unsigned long long)ranks[i].wall_ns,
                (unsigned long long)ranks[i].profiled_ns, (unsigned long long)ranks[i].mpi_ns,
                (unsigned long long)ranks[i].calls);
    msc_pop_t pop; /* POP's efficiencies from the same per-rank times (pop.c) */
    msc_pop_compute(&ranks[0].profiled_ns, &ranks[0].mpi_ns, sizeof *ranks / sizeof(uint64_t),
                    nranks, &pop);
    pop.useful_max_at += rank0, pop.useful_min_at += rank0;
    fprintf(o, "],\n");
    msc_pop_json(o, &pop);
    fprintf(o, ",\n\"functions\": [");
    if (st->n > 1) qsort(st->e, st->n, sizeof *st->e, by_time_desc);
    bool first = true;
    for (size_t i = 0; i < st->n; i++) {
        if (st->e[i].key[0] != 'F') continue;
        rec_t *r = &st->e[i].r;
        fprintf(o, "%s\n  {\"name\": ", first ? "" : ",");
        msc_json_put_string(o, st->e[i].key + 2);
        fprintf(o, ", ");
        json_stats(o, r, world);
        fprintf(o, ", \"histogram\": [");
        bool f1 = true;
        for (int b = 0; b < MSC_PROF_BINS; b++) {
            if (!r->hist[b]) continue;
            unsigned long long lo = b ? 1ull << (b - 1) : 0;
            unsigned long long hi = b ? (b == MSC_PROF_BINS - 1 ? 0 : (1ull << b) - 1) : 0;
            fprintf(o, "%s{\"bin\": %d, \"lo\": %llu, \"hi\": %llu, \"count\": %llu}",
                    f1 ? "" : ", ", b, lo, hi, (unsigned long long)r->hist[b]);
            f1 = false;
        }
        fprintf(o, "]}");
        first = false;
    }
    fprintf(o, "],\n\"callsites\": [");
    first = true;
    for (size_t i = 0; i < st->n; i++) {
        if (st->e[i].key[0] != 'S') continue;
        fprintf(o, "%s\n  {", first ? "" : ",");
        char *k = strdup(st->e[i].key);
        if (k) json_frames(o, k);
        free(k);
        fprintf(o, ", ");
        json_stats(o, &st->e[i].r, world);
        fputc('}', o);
        first = false;
    }
    fprintf(o, "],\n\"matrix\": {\"recorded\": %s, \"ranks_limit\": %lld, \"pairs_limit\": %d,\n",
            msc_prof.matrix_on ? "true" : "false",
            msc_g.settings.v[MSC_SET_PROFILE_MATRIX_RANKS].num, msc_prof.matrix_pairs);
    fprintf(o, "  \"p2p\": {\"messages\": %llu, \"bytes\": %llu}, \"collective\": {\"messages\": %llu, \"bytes\": %llu},\n",
            (unsigned long long)st->h.tot[0][0], (unsigned long long)st->h.tot[0][1],
            (unsigned long long)st->h.tot[1][0], (unsigned long long)st->h.tot[1][1]);
    fprintf(o, "  \"omitted\": {\"pairs\": %llu, \"messages\": %llu, \"bytes\": %llu},\n  \"pairs\": [",
            (unsigned long long)st->h.omitted[0], (unsigned long long)st->h.omitted[1],
            (unsigned long long)st->h.omitted[2]);
    if (st->npairs > 1) qsort(st->pairs, st->npairs, sizeof *st->pairs, by_bytes_desc);
    for (size_t i = 0; i < st->npairs; i++) {
        const pair_t *p = &st->pairs[i];
        fprintf(o, "%s\n    {\"from\": %d, \"to\": %d, \"class\": \"%s\", \"messages\": %llu, \"bytes\": %llu}",
                i ? "," : "", p->from, p->to, p->cls ? "collective" : "p2p",
                (unsigned long long)p->msgs, (unsigned long long)p->bytes);
    }
    fprintf(o, "]},\n\"dropped\": {\"callsite_calls\": %llu, \"callsites_merged\": %llu, "
               "\"requests\": %llu}",
            (unsigned long long)st->h.dropped_sites, (unsigned long long)st->h.merged_sites,
            (unsigned long long)st->h.dropped_requests);
    if (per_rank_fns) fprintf(o, ",\n\"per_rank_functions\": [%s]", per_rank_fns);
    /* MPI_T performance variables sampled by src/mpit/pvars.c (whose
     * finalize hook runs before this module's), when it is built and did. */
    const char *pvars = msc_pvars_profile_section ? msc_pvars_profile_section() : NULL;
    if (pvars) fprintf(o, ",\n\"pvars\": %s", pvars);
    fprintf(o, "\n}\n");
}

/* ---- per-rank function tables (MPISCOPE_PROFILE_PER_RANK) ----------------------- */

typedef struct {
    int32_t fn, pad;
    uint64_t calls, time_ns, sent, recv;
} rank_fn_t;

static char *gather_per_rank(const fold_t *f)
{
    int n = 0;
    for (int i = 0; i < MSC_FN_COUNT; i++) n += f->fn[i].s.count != 0;
    rank_fn_t *mine = calloc((size_t)n + 1, sizeof *mine);
    int k = 0;
    for (int i = 0; i < MSC_FN_COUNT && mine; i++) {
        if (!f->fn[i].s.count) continue;
        mine[k++] = (rank_fn_t){i, 0, f->fn[i].s.count, f->fn[i].s.time_ns,
                                f->fn[i].s.bytes_sent, f->fn[i].s.bytes_recv};
    }
    int bytes = mine ? k * (int)sizeof *mine : 0;
    int me = msc_g.world_rank, np = msc_g.world_size;
    int *counts = me == 0 ? calloc((size_t)np, sizeof *counts) : NULL;
    int *displs = me == 0 ? calloc((size_t)np, sizeof *displs) : NULL;
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, msc_g.comm);
    size_t total = 0;
    if (me == 0)
        for (int i = 0; i < np; i++) displs[i] = (int)total, total += (size_t)counts[i];
    char *all = me == 0 ? malloc(total + 1) : NULL;
    PMPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, msc_g.comm);
    char *text = NULL;
    if (me == 0) {
        size_t len = 0;
        FILE *o = open_memstream(&text, &len);
        for (int r = 0; o && r < np; r++) {
            fprintf(o, "%s\n  {\"rank\": %d, \"functions\": [", r ? "," : "", r);
            const rank_fn_t *e = (const rank_fn_t *)(all + displs[r]);
            for (int j = 0; j < counts[r] / (int)sizeof *e; j++)
                fprintf(o, "%s{\"name\": \"%s\", \"calls\": %llu, \"time_ns\": %llu, \"bytes_sent\": %llu, \"bytes_recv\": %llu}",
                        j ? ", " : "", msc_fn_name[e[j].fn], (unsigned long long)e[j].calls,
                        (unsigned long long)e[j].time_ns, (unsigned long long)e[j].sent,
                        (unsigned long long)e[j].recv);
            fprintf(o, "]}");
        }
        if (o) fclose(o);
    }
    free(mine);
    free(counts);
    free(displs);
    free(all);
    return text;
}

/* ---- writing --------------------------------------------------------------------- */

static void write_files(const char *json, size_t len, const char *base)
{
    char name[256], err[256];
    msc_out_t out;
    snprintf(name, sizeof name, "%s.json", base);
    if (msc_out_open(&out, name)) {
        fwrite(json, 1, len, out.f);
        msc_out_close(&out);
    }
    msc_json_doc_t *doc = msc_json_parse(json, len, err, sizeof err);
    if (!doc) {
        msc_warn("profile: internal error, the JSON written does not parse: %s", err);
        return;
    }
    snprintf(name, sizeof name, "%s.txt", base);
    if (msc_out_open(&out, name)) {
        msc_render_opts_t opts = msc_render_defaults();
        msc_profile_render(out.f, msc_json_root(doc), &opts);
        msc_out_close(&out);
    }
    msc_json_free(doc);
}

static void prof_write(bool flush, const char *why);

void msc_prof_write(bool flush)
{
    prof_write(flush, NULL);
}

void msc_prof_write_incomplete(const char *why)
{
    prof_write(true, why);
}

/* flush: this rank alone, no communication; why: an emergency write (the
 * rank is going down), named profile.rank<R>.incomplete. */
static void prof_write(bool flush, const char *why)
{
    fold_t f = {0};
    f.fn = calloc(MSC_FN_COUNT, sizeof *f.fn);
    if (msc_prof.matrix_on) f.row = calloc(2 * (size_t)msc_g.world_size, sizeof *f.row);
    if (!f.fn) {
        msc_warn_once("profile-write", "profile: out of memory; no profile written");
        if (!flush) {
            /* Still take part in the collectives below so that no rank hangs. */
        }
    }
    for (int i = 0; f.fn && i < MSC_FN_COUNT; i++) f.fn[i].s.tmin_ns = UINT64_MAX;
    if (f.fn) msc_threads_foreach(fold_thread, &f);

    set_t st = {0};
    if (f.fn) {
        local_set(&st, &f);
        local_pairs(&st, &f);
    }
    st.h.dropped_sites = f.dropped;
    st.h.dropped_requests = msc_requests_dropped();
    set_trim(&st);

    uint64_t now = flush ? msc_now_ns() : msc_g.t_finalize_begin;
    rank_sum_t mine = {.wall_ns = now - (msc_g.t_ready ? msc_g.t_ready : msc_g.t_init_end)};
    uint64_t off = msc_prof.off_ns + (msc_prof.off_since_ns ? now - msc_prof.off_since_ns : 0);
    mine.profiled_ns = mine.wall_ns > off ? mine.wall_ns - off : 0;
    for (int i = 0; f.fn && i < MSC_FN_COUNT; i++) {
        mine.mpi_ns += f.fn[i].s.time_ns;
        mine.calls += f.fn[i].s.count;
    }

    rank_sum_t *ranks = NULL;
    int nranks = 1;
    char *per_rank = NULL;
    if (flush) {
        ranks = &mine;
    } else {
        tree_merge(&st);
        nranks = msc_g.world_size;
        if (msc_g.world_rank == 0) ranks = calloc((size_t)nranks, sizeof *ranks);
        PMPI_Gather(&mine, sizeof mine, MPI_BYTE, ranks, sizeof mine, MPI_BYTE, 0, msc_g.comm);
        if (msc_prof.per_rank && f.fn) per_rank = gather_per_rank(&f);
    }

    if ((flush || msc_g.world_rank == 0) && ranks && msc_g.outdir[0]) {
        char *json = NULL;
        size_t len = 0;
        FILE *o = open_memstream(&json, &len);
        if (o) {
            json_write(o, &st, ranks, nranks, flush, per_rank, why);
            fclose(o);
            char base[64];
            if (why) snprintf(base, sizeof base, "profile.rank%d.incomplete", msc_g.world_rank);
            else if (flush) snprintf(base, sizeof base, "profile.rank%d.flush%d", msc_g.world_rank, msc_prof.flushes);
            else snprintf(base, sizeof base, "profile");
            write_files(json, len, base);
        }
        free(json);
    }
    if (flush && !why) msc_prof.flushes++;
    if (!flush) free(ranks);
    free(per_rank);
    set_free(&st);
    free(f.fn);
    free(f.row);
    free(f.sites);
}
