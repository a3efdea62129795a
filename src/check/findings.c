/* Findings: recorded by any thread, filtered by class (MPISCOPE_CHECK_CLASSES,
 * comma-separated globs, a leading '-' disables, the last match wins),
 * folded when one class recurs at one call site, capped per class
 * (MPISCOPE_CHECK_MAX_REPEATS distinct findings; the rest are counted).
 *
 * A finding is out the moment it is found: one line on stderr (class,
 * function, file:line) and one line appended with write(2) to this rank's
 * <outdir>/checks.rank<R>.jsonl (findings_io.h), so that it survives any
 * death of the process, MPI's own abort under MPI_ERRORS_ARE_FATAL
 * included. At MPI_Finalize rank 0 gathers every rank's findings (the same
 * records, with their final counts), merges those of one group (a collective
 * mismatch seen by every member), writes checks.txt and checks.json, and the
 * per-rank files go; when the run died first they stay, and `mpiscope
 * report` assembles the report from them.
 *
 * Cost: whether a finding is new is decided first, under one mutex, from a
 * table of the classes (enabled or not, how many listed) and a hash of
 * (class, site, rank); a repeat or a disabled class costs that lookup and
 * nothing else: no text is formatted and nothing is resolved. Call sites
 * are return addresses, meaningful only in the process that took them
 * (ASLR); each is symbolized once per process through one libdwfl session
 * of the profile module's resolver (src/profile/callsite.h, linked weakly:
 * without it, object+offset), kept open and cached per address. A site of
 * another rank (the sender of a mismatched message) travels as (object,
 * offset) and is resolved in this process's copy of the same object.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "log.h"
#include "output.h"

#if __has_include("callsite.h")
#include "callsite.h"
#pragma weak msc_callsite_open
#pragma weak msc_callsite_resolve
#pragma weak msc_callsite_close
#define CHK_HAVE_CALLSITE 1
#endif

enum { CLASSES_MAX = 96, CCACHE = 64 };

static pthread_mutex_t flock = PTHREAD_MUTEX_INITIALIZER;

/* Classes: name, whether enabled, how many listed and suppressed. */
typedef struct {
    char name[CHK_CLASS];
    bool enabled;
    long long listed, suppressed;
} class_t;
static class_t classes[CLASSES_MAX];
static int nclasses;
static struct {
    const char *ptr;
    int idx;
} ccache[CCACHE];

/* Findings of this rank in the order found; fold: (class, site, rank) ->
 * index + 1 (0: empty), open addressing. */
static chk_finding_t *found;
static int *found_ci; /* class index of each */
static int nfound, capfound;
static uint64_t *fold_key;
static int *fold_val, fold_cap;
static uint64_t findings_dropped; /* findings that did not fit in memory */
static int rank_fd = -1;          /* checks.rank<R>.jsonl, O_APPEND */
static char rank_path[PATH_MAX + 64];

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

/* Index of a class (under flock); -1 if the table is full. The pointer
 * cache makes the usual case (a string literal) one comparison. */
static int class_of(const char *cls)
{
    size_t h = ((uintptr_t)cls >> 3) % CCACHE;
    /* The cache is keyed by the string's address, which a caller's buffer
     * (chk_report_full's f->cls) reuses for another class: the name is
     * compared too. */
    if (ccache[h].ptr == cls && !strcmp(classes[ccache[h].idx].name, cls)) return ccache[h].idx;
    int i = 0;
    while (i < nclasses && strcmp(classes[i].name, cls) != 0) i++;
    if (i == nclasses) {
        if (nclasses == CLASSES_MAX) return -1;
        snprintf(classes[i].name, CHK_CLASS, "%s", cls);
        classes[i].enabled = chk_class_enabled(cls);
        nclasses++;
    }
    ccache[h].ptr = cls;
    ccache[h].idx = i;
    return i;
}

static uint64_t fold_hash(int ci, const void *site, int rank)
{
    uint64_t k = ((uint64_t)(uintptr_t)site * 0x9e3779b97f4a7c15ull) ^
                 ((uint64_t)ci << 48) ^ ((uint64_t)(uint32_t)rank << 20);
    return k ? k : 1;
}

/* Index of the finding folded under key k, or -1. */
static int fold_find(uint64_t k)
{
    if (!fold_cap) return -1;
    for (int i = (int)(k % (uint64_t)fold_cap), n = 0; n < fold_cap; n++, i = (i + 1) % fold_cap) {
        if (!fold_val[i]) return -1;
        if (fold_key[i] == k) return fold_val[i] - 1;
    }
    return -1;
}

static bool fold_put(uint64_t k, int idx)
{
    if ((nfound + 1) * 2 > fold_cap) {
        int cap = fold_cap ? fold_cap * 2 : 64;
        uint64_t *nk = calloc((size_t)cap, sizeof *nk);
        int *nv = calloc((size_t)cap, sizeof *nv);
        if (!nk || !nv) {
            free(nk), free(nv);
            return false;
        }
        for (int i = 0; i < fold_cap; i++)
            if (fold_val[i]) {
                int j = (int)(fold_key[i] % (uint64_t)cap);
                while (nv[j]) j = (j + 1) % cap;
                nk[j] = fold_key[i], nv[j] = fold_val[i];
            }
        free(fold_key), free(fold_val);
        fold_key = nk, fold_val = nv, fold_cap = cap;
    }
    int j = (int)(k % (uint64_t)fold_cap);
    while (fold_val[j]) j = (j + 1) % fold_cap;
    fold_key[j] = k, fold_val[j] = idx + 1;
    return true;
}

typedef enum { FRESH, KNOWN, DROP } verdict_t;

/* Under flock: what to do with (class, site, rank); counts repeats and
 * suppressed ones. `claim`: a fresh finding gets its slot now (index in
 * *idx), so that repeats from other threads fold into it. */
static verdict_t judge(const char *cls, void *site, int rank, bool claim, int *idx)
{
    int ci = class_of(cls);
    if (ci < 0 || !classes[ci].enabled) return DROP;
    uint64_t k = fold_hash(ci, site, rank);
    int i = fold_find(k);
    if (i >= 0 && found[i].parts[0].site == site && found[i].parts[0].rank == rank &&
        found_ci[i] == ci) {
        found[i].count++;
        return KNOWN;
    }
    if (classes[ci].listed >= chk_cfg.max_repeats) {
        classes[ci].suppressed++;
        return DROP;
    }
    if (!claim) return FRESH;
    if (nfound == capfound) {
        int cap = capfound ? capfound * 2 : 32;
        chk_finding_t *m = realloc(found, sizeof *m * (size_t)cap);
        if (m) found = m;
        int *mc = m ? realloc(found_ci, sizeof *mc * (size_t)cap) : NULL;
        if (mc) found_ci = mc;
        if (!m || !mc) {
            findings_dropped++;
            return DROP;
        }
        capfound = cap;
    }
    if (!fold_put(k, nfound)) {
        findings_dropped++;
        return DROP;
    }
    classes[ci].listed++;
    memset(&found[nfound], 0, sizeof found[nfound]);
    snprintf(found[nfound].cls, CHK_CLASS, "%s", cls);
    found[nfound].nparts = 1;
    found[nfound].parts[0].site = site;
    found[nfound].parts[0].rank = rank;
    found[nfound].count = 1;
    found_ci[nfound] = ci;
    *idx = nfound++;
    return FRESH;
}

bool chk_fresh(const char *cls, void *site)
{
    pthread_mutex_lock(&flock);
    verdict_t v = judge(cls, site, msc_g.world_rank, false, NULL);
    pthread_mutex_unlock(&flock);
    return v == FRESH;
}

/* --- call sites ---------------------------------------------------------- */

static pthread_mutex_t rlock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    void *site;
    char file[CHK_WHERE];
    char func[128];
    int line;
} resolved_t;
static resolved_t *rcache;
static int nrcache, caprcache;

#ifdef CHK_HAVE_CALLSITE
static msc_callsite_resolver_t *resolver;
#endif

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

/* Resolves an address of this process (under rlock), once per address. */
static void resolve_local(void *site, chk_part_t *p)
{
    for (int i = 0; i < nrcache; i++)
        if (rcache[i].site == site) {
            memcpy(p->file, rcache[i].file, sizeof p->file);
            memcpy(p->func, rcache[i].func, sizeof p->func);
            p->line = rcache[i].line;
            return;
        }
    bool ok = false;
#ifdef CHK_HAVE_CALLSITE
    if (msc_callsite_open && msc_callsite_resolve && msc_callsite_close) {
        /* One session for the process; opened again (once per new address)
         * only when no object maps the address: one loaded since. */
        for (int attempt = 0; attempt < 2 && !ok; attempt++) {
            if (attempt || !resolver) {
                if (resolver) msc_callsite_close(resolver);
                resolver = msc_callsite_open();
            }
            msc_frame_t fr;
            bool mapped = resolver && msc_callsite_resolve(resolver, site, &fr);
            if (mapped && fr.file && fr.line > 0) {
                snprintf(p->file, sizeof p->file, "%s", fr.file);
                p->line = fr.line;
                snprintf(p->func, sizeof p->func, "%s", fr.symbol ? fr.symbol : "");
                ok = true;
            }
            if (mapped) break;
        }
    }
#endif
    if (!ok) resolve_raw(site, p);
    if (nrcache == caprcache) {
        int cap = caprcache ? caprcache * 2 : 32;
        resolved_t *m = realloc(rcache, sizeof *m * (size_t)cap);
        if (!m) return;
        rcache = m, caprcache = cap;
    }
    resolved_t *e = &rcache[nrcache++];
    e->site = site;
    memcpy(e->file, p->file, sizeof e->file);
    memcpy(e->func, p->func, sizeof e->func);
    e->line = p->line;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ? h : 1;
}

/* This process's objects by key, for the sites of other ranks. */
typedef struct {
    uint64_t key;
    uintptr_t base;
} objmap_t;
static objmap_t *objs;
static int nobjs, capobjs;

static int add_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_LOAD) continue;
        Dl_info di;
        void *addr = (void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        if (!dladdr(addr, &di) || !di.dli_fname) return 0;
        if (nobjs == capobjs) {
            int cap = capobjs ? capobjs * 2 : 64;
            objmap_t *m = realloc(objs, sizeof *m * (size_t)cap);
            if (!m) return 1;
            objs = m, capobjs = cap;
        }
        objs[nobjs++] = (objmap_t){hash_name(di.dli_fname), (uintptr_t)di.dli_fbase};
        return 0;
    }
    return 0;
}

static void *local_address(uint64_t key, uint64_t off)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < nobjs; i++)
            if (objs[i].key == key) return (void *)(objs[i].base + off);
        if (pass == 0) {
            nobjs = 0;
            dl_iterate_phdr(add_obj, NULL);
        }
    }
    return NULL;
}

/* (object, offset) of a return address of this process; a small cache per
 * thread, since every send passes its site. */
void chk_site_key(void *site, uint64_t *key, uint64_t *off)
{
    enum { N = 32 };
    static CHK_TLS struct {
        void *site;
        uint64_t key, off;
    } memo[N];
    size_t h = ((uintptr_t)site >> 2) % N;
    if (memo[h].site == site && site) {
        *key = memo[h].key, *off = memo[h].off;
        return;
    }
    Dl_info di;
    *key = 0, *off = (uint64_t)(uintptr_t)site;
    if (site && dladdr(site, &di) && di.dli_fname) {
        *key = hash_name(di.dli_fname);
        *off = (uint64_t)((uintptr_t)site - (uintptr_t)di.dli_fbase);
    }
    memo[h].site = site, memo[h].key = *key, memo[h].off = *off;
}

void chk_resolve(chk_part_t *p)
{
    if (p->resolved) return;
    p->resolved = true;
    p->file[0] = p->func[0] = 0;
    p->line = 0;
    void *site = p->site;
    bool foreign = p->rank != msc_g.world_rank;
    pthread_mutex_lock(&rlock);
    if (foreign) site = p->objkey ? local_address(p->objkey, p->objoff) : NULL;
    if (site)
        resolve_local(site, p);
    else if (foreign && p->objkey)
        snprintf(p->file, sizeof p->file, "(an object of rank %d)+0x%llx", p->rank,
                 (unsigned long long)p->objoff);
    else
        snprintf(p->file, sizeof p->file, "?");
    pthread_mutex_unlock(&rlock);
}

/* --- recording ----------------------------------------------------------- */

/* After MPI_Finalize the report is written and the per-rank file gone; a
 * finding made later (a call after MPI_Finalize) starts it again, for
 * `mpiscope report` and whoever reads the directory. */
static bool rank_file_late;

static void write_line(const char *buf, size_t n)
{
    if (rank_fd < 0 && rank_file_late && rank_path[0])
        rank_fd = open(rank_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (rank_fd < 0 || n == 0) return;
    ssize_t w = write(rank_fd, buf, n);
    if (w != (ssize_t)n)
        msc_warn_once("check-rankfile", "check: could not append to %s; findings of this rank "
                                        "are only in memory until MPI_Finalize",
                      rank_path);
}

/* Out now: the per-rank file and one line on stderr. */
static void publish(const chk_finding_t *f)
{
    char *buf = malloc(CHK_LINE_MAX);
    if (buf) {
        write_line(buf, chk_io_encode(f, buf, CHK_LINE_MAX));
        free(buf);
    }
    const chk_part_t *p = &f->parts[0];
    char where[CHK_WHERE + 16];
    if (p->line)
        snprintf(where, sizeof where, "%s:%d", p->file, p->line);
    else
        snprintf(where, sizeof where, "%s", p->file);
    msc_warn("check: %s in %s at %s", f->cls, p->call[0] ? p->call : "?", where);
}

static void abort_now(const chk_finding_t *f)
{
    chk_finding_t *copy = malloc(sizeof *copy);
    if (copy && msc_g.outdir[0]) {
        *copy = *f;
        char err[256];
        if (!chk_io_write(msc_g.outdir, copy, 1, NULL, 0,
                          "MPISCOPE_CHECK_ABORT: the run was ended at this first finding", err,
                          sizeof err))
            msc_warn("check: %s", err);
    }
    free(copy);
    msc_warn("check: ending the run at the first finding (MPISCOPE_CHECK_ABORT)");
    PMPI_Abort(MPI_COMM_WORLD, 1);
}

void chk_report_full(chk_finding_t *f)
{
    if (f->count == 0) f->count = 1;
    int idx = -1;
    pthread_mutex_lock(&flock);
    verdict_t v = judge(f->cls, f->parts[0].site, f->parts[0].rank, true, &idx);
    pthread_mutex_unlock(&flock);
    if (v != FRESH) return;
    for (int k = 0; k < f->nparts; k++) chk_resolve(&f->parts[k]);
    pthread_mutex_lock(&flock);
    uint64_t count = found[idx].count;
    found[idx] = *f;
    found[idx].count = count > f->count ? count : f->count; /* f->count: found at once */
    pthread_mutex_unlock(&flock);
    publish(f);
    if (chk_cfg.abort_first) abort_now(f);
}

void chk_report(const char *cls, msc_fn_t fn, void *site, const char *fmt, ...)
{
    int idx = -1;
    pthread_mutex_lock(&flock);
    verdict_t v = judge(cls, site, msc_g.world_rank, true, &idx);
    pthread_mutex_unlock(&flock);
    if (v != FRESH) return;
    chk_finding_t *f = calloc(1, sizeof *f);
    if (!f) return;
    snprintf(f->cls, sizeof f->cls, "%s", cls);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
    f->nparts = 1;
    f->parts[0].rank = msc_g.world_rank;
    f->parts[0].site = site;
    if (fn < MSC_FN_COUNT) snprintf(f->parts[0].call, sizeof f->parts[0].call, "%s", msc_fn_name[fn]);
    chk_resolve(&f->parts[0]);
    pthread_mutex_lock(&flock);
    f->count = found[idx].count;
    found[idx] = *f;
    pthread_mutex_unlock(&flock);
    publish(f);
    if (chk_cfg.abort_first) abort_now(f);
    free(f);
}

int chk_findings_count(void)
{
    pthread_mutex_lock(&flock);
    int n = nfound;
    pthread_mutex_unlock(&flock);
    return n;
}

/* This rank's findings (malloc'ed; *n entries) and suppression notes. */
static chk_finding_t *snapshot(int *n, chk_suppressed_t **sup, int *nsup)
{
    pthread_mutex_lock(&flock);
    chk_finding_t *copy = malloc(sizeof *copy * (size_t)(nfound + 1));
    *n = copy ? nfound : 0;
    if (copy && nfound) memcpy(copy, found, sizeof *copy * (size_t)nfound);
    if (sup) {
        *nsup = 0;
        *sup = calloc((size_t)nclasses + 1, sizeof **sup);
        for (int i = 0; *sup && i < nclasses; i++)
            if (classes[i].suppressed) {
                chk_suppressed_t *s = &(*sup)[(*nsup)++];
                memcpy(s->cls, classes[i].name, sizeof s->cls);
                s->rank = msc_g.world_rank;
                s->count = classes[i].suppressed;
            }
    }
    pthread_mutex_unlock(&flock);
    return copy;
}

/* --- life cycle ---------------------------------------------------------- */

void chk_findings_init(void)
{
    if (!msc_g.outdir[0]) return;
    snprintf(rank_path, sizeof rank_path, "%s/checks.rank%d.jsonl", msc_g.outdir,
             msc_g.world_rank);
    unlink(rank_path);
    rank_fd = open(rank_path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (rank_fd < 0)
        msc_warn("check: cannot create %s; findings are kept in memory until MPI_Finalize only",
                 rank_path);
}

void chk_findings_rank_path(int rank, char *out, size_t n)
{
    snprintf(out, n, "%s/checks.rank%d.jsonl", msc_g.outdir, rank);
}

/* The counts as they are now, and the suppressed classes, appended to the
 * per-rank file (the rank is going down, or at the end). */
static void append_counts(bool may_block)
{
    if (rank_fd < 0) return;
    if (may_block)
        pthread_mutex_lock(&flock);
    else if (pthread_mutex_trylock(&flock) != 0)
        return; /* the interrupted thread holds it */
    char buf[512];
    for (int i = 0; i < nfound; i++)
        if (found[i].count > 1) write_line(buf, chk_io_encode_update(i, found[i].count, buf, sizeof buf));
    for (int i = 0; i < nclasses; i++)
        if (classes[i].suppressed) {
            chk_suppressed_t s;
            memcpy(s.cls, classes[i].name, sizeof s.cls);
            s.rank = msc_g.world_rank;
            s.count = classes[i].suppressed;
            write_line(buf, chk_io_encode_suppressed(&s, buf, sizeof buf));
        }
    pthread_mutex_unlock(&flock);
}

void chk_findings_emergency(void)
{
    append_counts(false);
}

void chk_findings_for_deadlock(void)
{
    append_counts(true);
}

/* Writes the report of `l` (merged here) and says so on stderr. */
void chk_findings_publish_report(chk_io_list_t *l, const char *note)
{
    int n = chk_io_merge(l->f, l->n);
    l->n = n;
    char err[512];
    if (msc_g.outdir[0] && !chk_io_write(msc_g.outdir, l->f, n, l->s, l->ns, note, err, sizeof err))
        msc_warn("check: %s", err);
    if (n == 0) {
        if (!msc_g.settings.v[MSC_SET_QUIET].num) msc_warn("check: no findings");
        return;
    }
    msc_warn("check: %d finding%s%s%s%s", n, n == 1 ? "" : "s", msc_g.outdir[0] ? ", see " : "",
             msc_g.outdir[0] ? msc_g.outdir : "", msc_g.outdir[0] ? "/checks.txt" : "");
}

static void *gather_bytes(const void *mine, int bytes, long long *total)
{
    int me = msc_g.world_rank, size = msc_g.world_size;
    int *counts = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    int *displs = me == 0 ? calloc((size_t)size, sizeof(int)) : NULL;
    PMPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, msc_g.comm);
    *total = 0;
    if (me == 0)
        for (int r = 0; r < size; r++) displs[r] = (int)*total, *total += counts[r];
    char *all = me == 0 ? malloc((size_t)*total + 1) : NULL;
    PMPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, msc_g.comm);
    free(counts);
    free(displs);
    return all;
}

void chk_findings_finalize(void)
{
    int n = 0, ns = 0;
    chk_suppressed_t *sup = NULL;
    chk_finding_t *mine = snapshot(&n, &sup, &ns);
    int me = msc_g.world_rank;
    long long tf = 0, ts = 0;
    chk_finding_t *all = gather_bytes(mine, n * (int)sizeof *mine, &tf);
    chk_suppressed_t *allsup = gather_bytes(sup, ns * (int)sizeof *sup, &ts);
    /* What did not fit: the tables' bound, findings memory. */
    uint64_t d[3] = {0, 0, 0}, dsum[3] = {0, 0, 0};
    chk_objects_dropped(&d[0], &d[1]);
    pthread_mutex_lock(&flock);
    d[2] = findings_dropped;
    pthread_mutex_unlock(&flock);
    PMPI_Reduce(d, dsum, 3, MPI_UINT64_T, MPI_SUM, 0, msc_g.comm);
    if (me == 0) {
        char note[512] = "";
        if (dsum[0] || dsum[1] || dsum[2]) {
            snprintf(note, sizeof note,
                     "incomplete: %llu requests and %llu other MPI objects did not fit the "
                     "check's tables (MPISCOPE_MAX_REQUESTS=%lld of each per rank) and %llu "
                     "findings did not fit in memory; findings about them (leaks, freed handles, "
                     "pending buffers, what a blocked rank waits for) are missing",
                     (unsigned long long)dsum[0], (unsigned long long)dsum[1],
                     (long long)msc_g.settings.v[MSC_SET_MAX_REQUESTS].num,
                     (unsigned long long)dsum[2]);
            msc_warn("check: %s", note);
        }
        chk_io_list_t l = {.f = all, .n = all ? (int)(tf / (long long)sizeof *all) : 0,
                           .cap = all ? (int)(tf / (long long)sizeof *all) : 0,
                           .s = allsup, .ns = allsup ? (int)(ts / (long long)sizeof *allsup) : 0};
        l.scap = l.ns;
        chk_findings_publish_report(&l, note[0] ? note : NULL);
        all = l.f, allsup = l.s;
    }
    /* The report is complete: the per-rank files have served. */
    PMPI_Barrier(msc_g.comm);
    if (rank_fd >= 0) {
        close(rank_fd);
        rank_fd = -1;
        unlink(rank_path);
        rank_file_late = true;
    }
    free(all);
    free(allsup);
    free(mine);
    free(sup);
}
