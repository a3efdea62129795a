/* The profile at MPI_Finalize (and MPI_Pcontrol(2)): fold, resolve, merge,
 * write.
 *
 * 1. Fold: every thread's tables are summed into one per-function array, one
 *    matrix row and a list of call sites (under the thread registry lock).
 * 2. Resolve: each rank turns its own call-site addresses into strings
 *    (callsite.c, reading the objects that hold them only); from here on a
 *    site is a key such as
 *    "S\tMPI_Send\tmain\x1fping.c\x1f12\x1f/path/ping\x1f0x1234", so sites
 *    from different ranks meet by name, whatever their load addresses.
 * 3. Merge, in one pass up a binomial tree over msc_g.comm (ceil(log2 P)
 *    rounds): a rank receives its children's blobs (probe for the size,
 *    receive), merges their records into its own by key (function, site or
 *    file: sums, min/max over calls, min/max over ranks with the rank),
 *    appends their matrix pairs and their per-rank summaries (a subtree's
 *    ranks are contiguous, so the summaries stay in rank order) and sends
 *    the result to its parent. Sites beyond MPISCOPE_PROFILE_SITES (by
 *    time), files beyond MPISCOPE_PROFILE_FILES and matrix pairs beyond
 *    MPISCOPE_PROFILE_MATRIX_PAIRS (by bytes) are folded into "omitted"
 *    totals at every step, so no rank ever holds more than those budgets
 *    plus sizeof(rank_sum_t) bytes per rank below it. docs/profile.md has
 *    the cost model.
 * 4. Write: rank 0 prints profile.json and renders profile.txt (pwrite.c).
 *
 * Waiting: a rank that waits for a child probes with short sleeps in
 * between (msc_wait_sleepy, src/core/wait.c, which the tool's set-up at
 * MPI_Init shares) instead of spinning in the MPI library's progress loop, so that
 * on oversubscribed cores the ranks still working get the CPU. Nothing
 * waits for rank 0's writing: the other ranks go on to PMPI_Finalize,
 * whose own wait sleeps in both MPIs (Open MPI's lazy wait, Hydra's PMI).
 */
#include "profile.h"

#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callsite.h"
#include "clock.h"
#include "runinfo.h"
#include "wait.h"
#include "log.h"
#include "requests.h"
#include "state.h"

enum { TAG_MERGE = 7301 };

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

/* The entry of `key`, created empty if new; NULL if memory ran out. */
static entry_t *set_entry(set_t *st, const char *key)
{
    if (2 * (st->n + 1) > st->idx_cap) set_reindex(st);
    if (!st->idx) return NULL;
    size_t j = str_hash(key) & (st->idx_cap - 1);
    for (; st->idx[j] != SIZE_MAX; j = (j + 1) & (st->idx_cap - 1))
        if (strcmp(st->e[st->idx[j]].key, key) == 0) return &st->e[st->idx[j]];
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
    if (key[0] == 'I' || key[0] == 'O') {
        e->io = calloc(1, sizeof *e->io);
        if (!e->io) {
            free(e->key);
            return NULL;
        }
        e->r.has_io = 1;
    }
    st->idx[j] = st->n++;
    return e;
}

static rec_t *set_get(set_t *st, const char *key)
{
    entry_t *e = set_entry(st, key);
    return e ? &e->r : NULL;
}

/* The index of `str` in the table, added if new (0 without memory: the
 * first string stands for it). */
static uint32_t strtab_index(strtab_t *t, const char *str)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->s[i], str) == 0) return i;
    char **s = realloc(t->s, (t->n + 1) * sizeof *s);
    char *copy = strdup(str);
    if (!s || !copy) {
        if (s) t->s = s;
        free(copy);
        return 0;
    }
    t->s = s;
    s[t->n] = copy;
    return t->n++;
}

static void strtab_free(strtab_t *t)
{
    for (uint32_t i = 0; i < t->n; i++) free(t->s[i]);
    free(t->s);
    t->s = NULL, t->n = 0;
}

static void strtab_pack(FILE *o, const strtab_t *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t l = (uint32_t)strlen(t->s[i]);
        fwrite(&l, sizeof l, 1, o);
        fwrite(t->s[i], 1, l, o);
    }
}

/* Which index of a rank a table's strings are for. */
typedef enum { TAB_HOST, TAB_CMD } tab_of_t;

static uint32_t *rank_index(rank_sum_t *r, tab_of_t which)
{
    return which == TAB_HOST ? &r->host : &r->cmd;
}

/* A child's table of `n` strings (at b + *off) merged into t: the child's
 * ranks' indices become indices into t. False when the blob is short. */
static bool strtab_merge(strtab_t *t, tab_of_t which, const char *b, size_t len, size_t *off,
                         uint64_t n, rank_sum_t *child, uint64_t nranks)
{
    for (uint64_t i = 0; i < n; i++) {
        uint32_t l;
        if (len - *off < sizeof l) return false;
        memcpy(&l, b + *off, sizeof l);
        *off += sizeof l;
        if (len - *off < l) return false;
        char *str = strndup(b + *off, l);
        *off += l;
        uint32_t to = str ? strtab_index(t, str) : 0;
        free(str);
        for (uint64_t r = 0; r < nranks; r++)
            if (*rank_index(&child[r], which) == i) *rank_index(&child[r], which) = to | 0x80000000u;
    }
    for (uint64_t r = 0; r < nranks; r++) *rank_index(&child[r], which) &= 0x7fffffffu;
    return true;
}

static void io_merge(iorec_t *a, const iorec_t *b)
{
    msc_pio_stat_add(&a->s, &b->s);
    for (int i = 0; i < 2; i++)
        if (b->rank_max_ns[i] > a->rank_max_ns[i]) a->rank_max_ns[i] = b->rank_max_ns[i];
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

void msc_pset_free(set_t *st)
{
    for (size_t i = 0; i < st->n; i++) free(st->e[i].key), free(st->e[i].io);
    free(st->e);
    free(st->idx);
    free(st->pairs);
    free(st->ranks);
    strtab_free(&st->hosts);
    strtab_free(&st->cmds);
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
    if (p->row && f->row) {
        for (size_t i = 0; i < 2 * (size_t)msc_g.world_size; i++) {
            f->row[i].msgs += p->row[i].msgs;
            f->row[i].bytes += p->row[i].bytes;
        }
        msc_prof_pending_edges(p, f->row);
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
    msc_callsite_resolver_t *res = NULL;
    if (f->nsites) {
        size_t np = 0;
        void **pcs = malloc(f->nsites * (size_t)msc_prof.depth * sizeof *pcs);
        for (size_t i = 0; pcs && i < f->nsites; i++)
            for (int d = 0; d < msc_prof.depth && f->sites[i].pc[d]; d++) pcs[np++] = f->sites[i].pc[d];
        res = pcs ? msc_callsite_open_for(pcs, np) : msc_callsite_open();
        free(pcs);
    }
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
    /* The spawn calls this rank was the root of (profile.h: msc_pspawn_t):
     * "W \t rank \t procs \t command \t function \t frame", counted. */
    int nsp = atomic_load_explicit(&msc_prof.nspawns, memory_order_relaxed);
    if (nsp > MSC_PROF_SPAWNS) nsp = MSC_PROF_SPAWNS;
    if (nsp && !res) res = msc_callsite_open();
    for (int i = 0; i < nsp; i++) {
        const msc_pspawn_t *sp = &msc_prof.spawns[i];
        char *buf = NULL;
        size_t len = 0;
        FILE *k = open_memstream(&buf, &len);
        if (!k) continue;
        fprintf(k, "W\t%d\t%d\t%s\t%s", me, sp->procs, sp->command, msc_fn_name[sp->fn]);
        if (sp->site) key_frame(k, res, sp->site);
        fclose(k);
        rec_t *r = set_get(st, buf);
        free(buf);
        if (!r) continue;
        rec_t one = {.s = {.count = 1, .tmin_ns = UINT64_MAX}, .rmin_at = me, .rmax_at = me,
                     .nranks = 1};
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

/* This rank's files (io.c): one record each, "O" for the files beyond its
 * budget. Returns the rank's I/O time (ns). */
static uint64_t local_files(set_t *st)
{
    size_t n = 0;
    uint64_t others = 0, total = 0;
    msc_pio_file_t *files = msc_pio_snapshot(&n, &others);
    int me = msc_g.world_rank;
    for (size_t i = 0; files && i < n; i++) {
        char key[4200];
        if (files[i].name) snprintf(key, sizeof key, "I\t%s", files[i].name);
        else snprintf(key, sizeof key, "O");
        entry_t *e = set_entry(st, key);
        if (!e) continue;
        const msc_pio_stat_t *x = &files[i].s;
        uint64_t t = x->time_ns[0] + x->time_ns[1] + x->time_ns[2];
        total += t;
        rec_t one = {.s = {.count = x->ops[0][0] + x->ops[0][1] + x->ops[1][0] + x->ops[1][1],
                           .time_ns = t, .tmin_ns = UINT64_MAX},
                     .rmin_ns = t, .rmax_ns = t, .rmin_at = me, .rmax_at = me, .nranks = 1};
        rec_merge(&e->r, &one);
        iorec_t io = {.s = *x, .rank_max_ns = {x->time_ns[0], x->time_ns[1]}};
        io_merge(e->io, &io);
    }
    st->h.files_dropped = others;
    msc_pio_free(files, n);
    return total;
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

int msc_pmerge_by_time(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->r.s.time_ns != y->r.s.time_ns) return x->r.s.time_ns < y->r.s.time_ns ? 1 : -1;
    return strcmp(x->key, y->key);
}

int msc_pmerge_by_bytes(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    if (x->msgs != y->msgs) return x->msgs < y->msgs ? 1 : -1;
    if (x->from != y->from) return x->from - y->from;
    if (x->to != y->to) return x->to - y->to;
    return x->cls - y->cls;
}

/* Keeps the heaviest sites, files and pairs within their budgets: lighter
 * sites are counted, lighter files summed into the others' record. */
void msc_pset_trim(set_t *st)
{
    if (st->n > 1) qsort(st->e, st->n, sizeof *st->e, msc_pmerge_by_time);
    size_t keep = 0, sites = 0, nfiles = 0, max_files = (size_t)msc_g.settings.v[MSC_SET_PROFILE_FILES].num;
    entry_t *spill = NULL; /* files left out, until they go into "O" */
    size_t nspill = 0;
    for (size_t i = 0; i < st->n; i++) {
        bool site = st->e[i].key[0] == 'S', file = st->e[i].key[0] == 'I';
        if (site && sites >= (size_t)msc_prof.max_sites) {
            st->h.merged_sites++;
            free(st->e[i].key);
            continue;
        }
        if (file && nfiles >= max_files) {
            entry_t *sp = realloc(spill, (nspill + 1) * sizeof *sp);
            if (sp) {
                spill = sp;
                spill[nspill++] = st->e[i];
            } else {
                free(st->e[i].key), free(st->e[i].io);
            }
            st->h.files_merged++;
            continue;
        }
        sites += site, nfiles += file;
        st->e[keep++] = st->e[i];
    }
    st->n = keep;
    set_reindex(st);
    for (size_t i = 0; i < nspill; i++) {
        entry_t *o = set_entry(st, "O");
        if (o) {
            rec_merge(&o->r, &spill[i].r);
            io_merge(o->io, spill[i].io);
        }
        free(spill[i].key), free(spill[i].io);
    }
    free(spill);
    if (st->npairs > 1) qsort(st->pairs, st->npairs, sizeof *st->pairs, msc_pmerge_by_bytes);
    for (size_t i = (size_t)msc_prof.matrix_pairs; i < st->npairs; i++) {
        st->h.omitted[0]++;
        st->h.omitted[1] += st->pairs[i].msgs;
        st->h.omitted[2] += st->pairs[i].bytes;
    }
    if (st->npairs > (size_t)msc_prof.matrix_pairs) st->npairs = (size_t)msc_prof.matrix_pairs;
}

/* ---- wire format and the tree ------------------------------------------------- */

char *msc_pset_pack(set_t *st, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *o = open_memstream(&buf, &n);
    if (!o) return NULL;
    st->h.nrec = st->n;
    st->h.npairs = st->npairs;
    st->h.nranks = st->nranks;
    st->h.nhosts = st->hosts.n;
    st->h.ncmds = st->cmds.n;
    fwrite(&st->h, sizeof st->h, 1, o);
    for (size_t i = 0; i < st->n; i++) {
        uint32_t kl = (uint32_t)strlen(st->e[i].key);
        fwrite(&kl, sizeof kl, 1, o);
        fwrite(st->e[i].key, 1, kl, o);
        const rec_t *r = &st->e[i].r;
        fwrite(r, r->has_hist ? sizeof *r : REC_WIRE_SMALL, 1, o);
        if (r->has_io) fwrite(st->e[i].io, sizeof *st->e[i].io, 1, o);
    }
    if (st->npairs) fwrite(st->pairs, sizeof *st->pairs, st->npairs, o);
    if (st->nranks) fwrite(st->ranks, sizeof *st->ranks, st->nranks, o);
    strtab_pack(o, &st->hosts);
    strtab_pack(o, &st->cmds);
    if (fclose(o) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Merges a child's blob into st. Sizes are checked: the blob came from our
 * own library on another rank, but a short message must not crash. */
void msc_pset_merge(set_t *st, const char *b, size_t len)
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
        iorec_t io;
        if (r.has_io) {
            if (len - off < sizeof io) {
                free(key);
                return;
            }
            memcpy(&io, b + off, sizeof io);
            off += sizeof io;
        }
        entry_t *dst = key ? set_entry(st, key) : NULL;
        if (dst) {
            rec_merge(&dst->r, &r);
            if (r.has_io && dst->io) io_merge(dst->io, &io);
        }
        free(key);
    }
    if ((len - off) / sizeof(pair_t) < h.npairs) return;
    pair_t *np = realloc(st->pairs, (st->npairs + h.npairs + 1) * sizeof *np);
    if (np) {
        memcpy(np + st->npairs, b + off, h.npairs * sizeof *np);
        st->pairs = np;
        st->npairs += h.npairs;
    }
    off += h.npairs * sizeof(pair_t);
    /* The child's ranks follow this node's (the subtree of me + mask). */
    if ((len - off) / sizeof(rank_sum_t) < h.nranks) return;
    rank_sum_t *nr = realloc(st->ranks, (st->nranks + h.nranks + 1) * sizeof *nr);
    if (!nr) return;
    memcpy(nr + st->nranks, b + off, h.nranks * sizeof *nr);
    off += h.nranks * sizeof *nr;
    st->ranks = nr;
    rank_sum_t *child = nr + st->nranks;
    st->nranks += h.nranks;
    /* The child's host and command indices become indices into this
     * node's tables. */
    if (!strtab_merge(&st->hosts, TAB_HOST, b, len, &off, h.nhosts, child, h.nranks) ||
        !strtab_merge(&st->cmds, TAB_CMD, b, len, &off, h.ncmds, child, h.nranks))
        return;
    st->h.dropped_sites += h.dropped_sites;
    st->h.merged_sites += h.merged_sites;
    st->h.dropped_requests += h.dropped_requests;
    st->h.files_dropped += h.files_dropped;
    st->h.files_merged += h.files_merged;
    st->h.worlds_spawned += h.worlds_spawned;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++) st->h.tot[c][k] += h.tot[c][k];
    for (int k = 0; k < 3; k++) st->h.omitted[k] += h.omitted[k];
}

typedef struct {
    int src;
    MPI_Status st;
} probe_t;

static int probe_test(void *arg)
{
    probe_t *p = arg;
    int flag = 0;
    PMPI_Iprobe(p->src, TAG_MERGE, msc_g.comm, &flag, &p->st);
    return flag;
}

/* One pass up the binomial tree: rank me receives from me + 1, me + 2,
 * me + 4, ... (while below P and me has that bit clear), then sends to
 * me - (its lowest set bit). Rank 0 ends with everything. */
static void tree_merge(set_t *st)
{
    int me = msc_g.world_rank, n = msc_g.world_size;
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            size_t len = 0;
            char *b = msc_pset_pack(st, &len);
            /* An empty message still tells the parent this subtree is done. */
            PMPI_Send(b ? b : "", b ? (int)len : 0, MPI_BYTE, me - mask, TAG_MERGE, msc_g.comm);
            free(b);
            return;
        }
        if (me + mask < n) {
            probe_t p = {.src = me + mask};
            int cnt = 0;
            msc_wait_sleepy(probe_test, &p, 0);
            PMPI_Get_count(&p.st, MPI_BYTE, &cnt);
            char *b = malloc(cnt > 0 ? (size_t)cnt : 1);
            PMPI_Recv(b ? b : NULL, b ? cnt : 0, MPI_BYTE, me + mask, TAG_MERGE, msc_g.comm,
                      MPI_STATUS_IGNORE);
            if (b) msc_pset_merge(st, b, (size_t)cnt);
            free(b);
            msc_pset_trim(st);
        }
    }
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
    uint64_t io_ns = 0;
    if (f.fn) {
        local_set(&st, &f);
        local_pairs(&st, &f);
    }
    io_ns = local_files(&st);
    st.h.dropped_sites = f.dropped;
    st.h.dropped_requests = msc_requests_dropped();
    st.h.worlds_spawned = atomic_load(&msc_prof.worlds_spawned);
    msc_pset_trim(&st);

    uint64_t now = flush ? msc_now_ns() : msc_g.t_finalize_begin;
    rank_sum_t mine = {.wall_ns = now - (msc_g.t_ready ? msc_g.t_ready : msc_g.t_init_end)};
    uint64_t off = msc_prof.off_ns + (msc_prof.off_since_ns ? now - msc_prof.off_since_ns : 0);
    mine.profiled_ns = mine.wall_ns > off ? mine.wall_ns - off : 0;
    for (int i = 0; f.fn && i < MSC_FN_COUNT; i++) {
        mine.mpi_ns += f.fn[i].s.time_ns;
        mine.calls += f.fn[i].s.count;
    }
    mine.io_ns = io_ns;

    mine.host = strtab_index(&st.hosts, msc_prun_host());
    mine.cmd = strtab_index(&st.cmds, msc_prun_command());
    st.ranks = malloc(sizeof *st.ranks);
    if (st.ranks) st.ranks[0] = mine, st.nranks = 1;
    char *per_rank = NULL;
    if (!flush && msc_g.solo) {
        /* No collective in a solo process: its own file, joined by the last
         * (join.c). */
        msc_pjoin_write(&st);
        msc_pset_free(&st);
        free(f.fn);
        free(f.row);
        free(f.sites);
        return;
    }
    if (!flush) {
        tree_merge(&st);
        if (msc_prof.per_rank && f.fn) per_rank = gather_per_rank(&f);
    }

    bool writer = flush || msc_g.world_rank == 0;
    if (writer && st.nranks && msc_g.outdir[0]) {
        char base[64];
        if (why) snprintf(base, sizeof base, "profile.rank%d.incomplete", msc_g.world_rank);
        else if (flush) snprintf(base, sizeof base, "profile.rank%d.flush%d", msc_g.world_rank, msc_prof.flushes);
        else snprintf(base, sizeof base, "profile");
        msc_pwrite_profile(&st, flush, per_rank, why, base);
    }
    if (flush && !why) msc_prof.flushes++;
    free(per_rank);
    msc_pset_free(&st);
    free(f.fn);
    free(f.row);
    free(f.sites);
}
