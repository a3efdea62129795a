/* Findings: recorded by any thread, filtered by class (MPISCOPE_CHECK_CLASSES,
 * comma-separated globs, a leading '-' disables, the last match wins),
 * folded when one class recurs at one call site, capped per class
 * (MPISCOPE_CHECK_MAX_REPEATS distinct findings; the rest are counted).
 *
 * Call sites are return addresses, meaningful only in the process that took
 * them (ASLR), so every rank resolves its own: at MPI_Finalize each rank
 * resolves its findings, rank 0 gathers them (fixed-size records, the same
 * binary everywhere), asks the owners to resolve the few foreign addresses
 * (the sender's site of a point-to-point mismatch, reported by the
 * receiver), merges findings of one group (a collective mismatch seen by
 * every member) and writes checks.txt and checks.json. Resolution goes
 * through the profile module's call-site resolver (src/profile/callsite.h);
 * its symbols are weak, so without that module sites are printed as object
 * and offset.
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "log.h"
#include "output.h"

#if __has_include("callsite.h")
#include "callsite.h"
#include "../core/json_out.h"
#pragma weak msc_callsite_open
#pragma weak msc_callsite_resolve
#pragma weak msc_callsite_close
#define CHK_HAVE_CALLSITE 1
#endif

enum { CLASS_COUNTERS = 64 };

static pthread_mutex_t flock = PTHREAD_MUTEX_INITIALIZER;
static chk_finding_t *found;
static int nfound, capfound;
static uint64_t findings_dropped; /* findings that did not fit in memory */
static struct {
    char cls[CHK_CLASS];
    long long listed, suppressed;
} per_class[CLASS_COUNTERS];
static int nclasses;

bool chk_class_enabled(const char *cls)
{
    const char *list = chk_cfg.classes && *chk_cfg.classes ? chk_cfg.classes : "*";
    bool on = false;
    char pat[128];
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len < sizeof pat) {
            memcpy(pat, p, len);
            pat[len] = 0;
            char *q = pat;
            while (*q == ' ') q++;
            bool neg = *q == '-';
            if (neg) q++;
            if (*q && fnmatch(q, cls, 0) == 0) on = !neg;
        }
        p += len;
        if (*p == ',') p++;
    }
    return on;
}

static void resolve_raw(void *site, chk_part_t *p)
{
    Dl_info di;
    if (site && dladdr(site, &di) && di.dli_fname) {
        snprintf(p->file, sizeof p->file, "%s+0x%lx", di.dli_fname,
                 (unsigned long)((char *)site - (char *)di.dli_fbase));
        if (di.dli_sname) snprintf(p->func, sizeof p->func, "%s", di.dli_sname);
    } else {
        snprintf(p->file, sizeof p->file, "%p", site);
    }
}

static pthread_mutex_t rlock = PTHREAD_MUTEX_INITIALIZER;

void chk_resolve(chk_part_t *p)
{
    if (p->resolved) return;
    p->resolved = true;
    p->file[0] = p->func[0] = 0;
    p->line = 0;
    if (!p->site) {
        snprintf(p->file, sizeof p->file, "?");
        return;
    }
    bool ok = false;
    pthread_mutex_lock(&rlock);
#ifdef CHK_HAVE_CALLSITE
    if (msc_callsite_open && msc_callsite_resolve && msc_callsite_close) {
        /* Opened per use: cheap next to a report, and always current with
         * the objects loaded since the last one. */
        msc_callsite_resolver_t *r = msc_callsite_open();
        msc_frame_t fr;
        if (r && msc_callsite_resolve(r, p->site, &fr) && fr.file && fr.line > 0) {
            snprintf(p->file, sizeof p->file, "%s", fr.file);
            p->line = fr.line;
            snprintf(p->func, sizeof p->func, "%s", fr.symbol ? fr.symbol : "");
            ok = true;
        }
        if (r) msc_callsite_close(r);
    }
#endif
    pthread_mutex_unlock(&rlock);
    if (!ok) resolve_raw(p->site, p);
}

static int class_index(const char *cls)
{
    for (int i = 0; i < nclasses; i++)
        if (strcmp(per_class[i].cls, cls) == 0) return i;
    if (nclasses == CLASS_COUNTERS) return -1;
    snprintf(per_class[nclasses].cls, CHK_CLASS, "%s", cls);
    return nclasses++;
}

static void abort_now(const chk_finding_t *f)
{
    chk_finding_t copy = *f;
    for (int i = 0; i < copy.nparts; i++)
        if (copy.parts[i].rank == msc_g.world_rank) chk_resolve(&copy.parts[i]);
    chk_findings_write(&copy, 1, "MPISCOPE_CHECK_ABORT: the run was ended at this first finding");
    msc_warn("check: %s at %s:%d; ending the run (MPISCOPE_CHECK_ABORT)", copy.cls,
             copy.parts[0].file, copy.parts[0].line);
    PMPI_Abort(MPI_COMM_WORLD, 1);
}

void chk_report_full(chk_finding_t *f)
{
    if (!chk_class_enabled(f->cls)) return;
    if (f->count == 0) f->count = 1;
    pthread_mutex_lock(&flock);
    for (int i = 0; i < nfound; i++) {
        chk_finding_t *g = &found[i];
        if (strcmp(g->cls, f->cls) == 0 && g->parts[0].site == f->parts[0].site &&
            g->parts[0].rank == f->parts[0].rank && !f->group[0] && !g->group[0]) {
            g->count += f->count;
            pthread_mutex_unlock(&flock);
            return;
        }
    }
    int ci = class_index(f->cls);
    if (ci >= 0 && per_class[ci].listed >= chk_cfg.max_repeats) {
        per_class[ci].suppressed++;
        pthread_mutex_unlock(&flock);
        return;
    }
    if (ci >= 0) per_class[ci].listed++;
    if (nfound == capfound) {
        int cap = capfound ? capfound * 2 : 32;
        chk_finding_t *m = realloc(found, sizeof *m * (size_t)cap);
        if (!m) {
            findings_dropped++;
            pthread_mutex_unlock(&flock);
            return;
        }
        found = m;
        capfound = cap;
    }
    found[nfound++] = *f;
    pthread_mutex_unlock(&flock);
    if (chk_cfg.abort_first) abort_now(f);
}

void chk_report(const char *cls, msc_fn_t fn, void *site, const char *fmt, ...)
{
    if (!chk_class_enabled(cls)) return;
    chk_finding_t f;
    memset(&f, 0, sizeof f);
    snprintf(f.cls, sizeof f.cls, "%s", cls);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f.text, sizeof f.text, fmt, ap);
    va_end(ap);
    f.nparts = 1;
    f.parts[0].rank = msc_g.world_rank;
    f.parts[0].site = site;
    if (fn < MSC_FN_COUNT) snprintf(f.parts[0].call, sizeof f.parts[0].call, "%s", msc_fn_name[fn]);
    chk_report_full(&f);
}

int chk_findings_count(void)
{
    pthread_mutex_lock(&flock);
    int n = nfound;
    pthread_mutex_unlock(&flock);
    return n;
}

chk_finding_t *chk_findings_snapshot(int *n)
{
    pthread_mutex_lock(&flock);
    chk_finding_t *copy = malloc(sizeof *copy * (size_t)(nfound + 1));
    *n = copy ? nfound : 0;
    if (copy && nfound) memcpy(copy, found, sizeof *copy * (size_t)nfound);
    pthread_mutex_unlock(&flock);
    for (int i = 0; i < *n; i++)
        for (int k = 0; k < copy[i].nparts; k++)
            if (copy[i].parts[k].rank == msc_g.world_rank) chk_resolve(&copy[i].parts[k]);
    return copy;
}

/* --- writing ------------------------------------------------------------- */

static int by_class(const void *a, const void *b)
{
    const chk_finding_t *x = a, *y = b;
    int c = strcmp(x->cls, y->cls);
    if (c) return c;
    return x->parts[0].rank - y->parts[0].rank;
}

static int merge_groups(chk_finding_t *f, int n)
{
    int out = 0;
    for (int i = 0; i < n; i++) {
        int into = -1;
        if (f[i].group[0])
            for (int j = 0; j < out && into < 0; j++)
                if (strcmp(f[j].group, f[i].group) == 0 && strcmp(f[j].cls, f[i].cls) == 0)
                    into = j;
        if (into < 0) {
            f[out++] = f[i];
            continue;
        }
        chk_finding_t *g = &f[into];
        for (int k = 0; k < f[i].nparts && g->nparts < CHK_PARTS_MAX; k++) {
            bool dup = false;
            for (int m = 0; m < g->nparts; m++)
                dup |= g->parts[m].rank == f[i].parts[k].rank;
            if (!dup) g->parts[g->nparts++] = f[i].parts[k];
        }
    }
    return out;
}

static void write_txt(chk_finding_t *f, int n, const char *note)
{
    msc_out_t o;
    if (!msc_out_open(&o, "checks.txt")) return;
    fprintf(o.f, "mpiscope correctness checks: %d finding%s\n", n, n == 1 ? "" : "s");
    if (note) fprintf(o.f, "note: %s\n", note);
    for (int i = 0; i < nclasses; i++)
        if (per_class[i].suppressed)
            fprintf(o.f, "note: %lld more %s findings on rank %d not listed "
                         "(MPISCOPE_CHECK_MAX_REPEATS)\n",
                    per_class[i].suppressed, per_class[i].cls, msc_g.world_rank);
    for (int i = 0; i < n; i++) {
        fprintf(o.f, "\n[%d] %s  rank%s", i + 1, f[i].cls, f[i].nparts > 1 ? "s" : "");
        for (int k = 0; k < f[i].nparts; k++)
            fprintf(o.f, "%s%d", k ? "," : " ", f[i].parts[k].rank);
        if (f[i].count > 1) fprintf(o.f, "  (%llu times)", (unsigned long long)f[i].count);
        fputc('\n', o.f);
        for (int k = 0; k < f[i].nparts; k++) {
            const chk_part_t *p = &f[i].parts[k];
            fprintf(o.f, "    rank %d: %s at %s", p->rank, p->call[0] ? p->call : "?", p->file);
            if (p->line) fprintf(o.f, ":%d", p->line);
            if (p->func[0]) fprintf(o.f, " (%s)", p->func);
            fputc('\n', o.f);
        }
        fprintf(o.f, "    %s\n", f[i].text);
    }
    msc_out_close(&o);
}

static void write_json(chk_finding_t *f, int n, const char *note)
{
    msc_out_t o;
    if (!msc_out_open(&o, "checks.json")) return;
    fprintf(o.f, "{\n  \"version\": 1,\n  \"note\": ");
    msc_json_put_string(o.f, note ? note : "");
    fprintf(o.f, ",\n  \"count\": %d,\n  \"findings\": [", n);
    for (int i = 0; i < n; i++) {
        fprintf(o.f, "%s\n    {\"class\": ", i ? "," : "");
        msc_json_put_string(o.f, f[i].cls);
        fprintf(o.f, ", \"count\": %llu, \"ranks\": [", (unsigned long long)f[i].count);
        for (int k = 0; k < f[i].nparts; k++) fprintf(o.f, "%s%d", k ? ", " : "", f[i].parts[k].rank);
        fprintf(o.f, "], \"sites\": [");
        for (int k = 0; k < f[i].nparts; k++) {
            const chk_part_t *p = &f[i].parts[k];
            fprintf(o.f, "%s{\"rank\": %d, \"call\": ", k ? ", " : "", p->rank);
            msc_json_put_string(o.f, p->call);
            fprintf(o.f, ", \"file\": ");
            msc_json_put_string(o.f, p->file);
            fprintf(o.f, ", \"line\": %d, \"function\": ", p->line);
            msc_json_put_string(o.f, p->func);
            fputc('}', o.f);
        }
        fprintf(o.f, "],\n     \"explanation\": ");
        msc_json_put_string(o.f, f[i].text);
        fputc('}', o.f);
    }
    fprintf(o.f, "\n  ]\n}\n");
    msc_out_close(&o);
}

void chk_findings_write(chk_finding_t *f, int n, const char *note)
{
    n = merge_groups(f, n);
    qsort(f, (size_t)n, sizeof *f, by_class);
    if (msc_g.outdir[0]) {
        write_txt(f, n, note);
        write_json(f, n, note);
    }
    if (n == 0) {
        if (!msc_g.settings.v[MSC_SET_QUIET].num) msc_warn("check: no findings");
        return;
    }
    msc_warn("check: %d finding%s%s%s", n, n == 1 ? "" : "s",
             msc_g.outdir[0] ? ", see " : "", msc_g.outdir[0] ? msc_g.outdir : "");
    for (int i = 0; i < n && i < 20; i++) {
        const chk_part_t *p = &f[i].parts[0];
        fprintf(stderr, "mpiscope:   %s rank %d %s at %s:%d\n", f[i].cls, p->rank,
                p->call[0] ? p->call : "?", p->file, p->line);
    }
    if (n > 20) fprintf(stderr, "mpiscope:   ... %d more in checks.txt\n", n - 20);
}

void chk_findings_finalize(void)
{
    int n = 0;
    chk_finding_t *mine = chk_findings_snapshot(&n);
    int me = msc_g.world_rank, size = msc_g.world_size;
    int bytes = n * (int)sizeof(chk_finding_t);
    int *counts = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, msc_g.comm);
    long long total = 0;
    if (me == 0)
        for (int r = 0; r < size; r++) displs[r] = (int)total, total += counts[r];
    chk_finding_t *all = me == 0 ? malloc((size_t)total + sizeof *all) : NULL;
    PMPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, msc_g.comm);
    int nall = (int)(total / (long long)sizeof(chk_finding_t));

    /* Foreign sites: resolved by the rank that owns them. */
    int nforeign = 0;
    struct fsite {
        int rank;
        void *site;
    } *fs = NULL;
    if (me == 0) {
        fs = malloc(sizeof *fs * (size_t)(nall * CHK_PARTS_MAX + 1));
        for (int i = 0; fs && i < nall; i++)
            for (int k = 0; k < all[i].nparts; k++)
                if (!all[i].parts[k].resolved)
                    fs[nforeign++] = (struct fsite){all[i].parts[k].rank, all[i].parts[k].site};
    }
    PMPI_Bcast(&nforeign, 1, MPI_INT, 0, msc_g.comm);
    if (nforeign > 0) {
        if (me != 0) fs = malloc(sizeof *fs * (size_t)nforeign);
        PMPI_Bcast(fs, nforeign * (int)sizeof *fs, MPI_BYTE, 0, msc_g.comm);
        chk_part_t *res = calloc((size_t)nforeign, sizeof *res);
        chk_part_t *sum = me == 0 ? calloc((size_t)nforeign, sizeof *sum) : NULL;
        for (int i = 0; i < nforeign; i++)
            if (fs[i].rank == me) res[i].site = fs[i].site, chk_resolve(&res[i]);
        /* Only the owner writes each entry: a bitwise OR of the bytes merges. */
        PMPI_Reduce(res, sum, nforeign * (int)sizeof *res, MPI_BYTE, MPI_BOR, 0, msc_g.comm);
        if (me == 0) {
            int j = 0;
            for (int i = 0; i < nall; i++)
                for (int k = 0; k < all[i].nparts; k++) {
                    chk_part_t *p = &all[i].parts[k];
                    if (p->resolved || j >= nforeign) continue;
                    chk_part_t *r = &sum[j++];
                    memcpy(p->file, r->file, sizeof p->file);
                    memcpy(p->func, r->func, sizeof p->func);
                    p->line = r->line;
                    p->resolved = true;
                }
        }
        free(res);
        free(sum);
    }
    /* What did not fit: the tables' bound, findings memory. */
    uint64_t d[3] = {0, 0, 0}, dsum[3] = {0, 0, 0};
    chk_objects_dropped(&d[0], &d[1]);
    pthread_mutex_lock(&flock);
    d[2] = findings_dropped;
    pthread_mutex_unlock(&flock);
    PMPI_Reduce(d, dsum, 3, MPI_UINT64_T, MPI_SUM, 0, msc_g.comm);
    char note[512] = "";
    if (me == 0 && (dsum[0] || dsum[1] || dsum[2])) {
        snprintf(note, sizeof note,
                 "incomplete: %llu requests and %llu other MPI objects did not fit the check's "
                 "tables (MPISCOPE_MAX_REQUESTS=%lld of each per rank) and %llu findings did not "
                 "fit in memory; findings about them (leaks, freed handles, pending buffers, "
                 "what a blocked rank waits for) are missing",
                 (unsigned long long)dsum[0], (unsigned long long)dsum[1],
                 (long long)msc_g.settings.v[MSC_SET_MAX_REQUESTS].num,
                 (unsigned long long)dsum[2]);
        msc_warn("check: %s", note);
    }
    if (me == 0) chk_findings_write(all, nall, note[0] ? note : NULL);
    free(fs);
    free(all);
    free(counts);
    free(displs);
    free(mine);
}
