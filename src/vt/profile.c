/* Time per VT_ user region, and MPI time split by the user region that
 * encloses it, for MPISCOPE_MODE containing "profile".
 *
 * A module of its own (mode "profile") whose leave hook adds each MPI call's
 * duration to the innermost user region open on the calling thread (row 0:
 * outside any region); VT_leave adds the region's inclusive time and one
 * call. Each thread owns its table, so nothing is locked per event. At
 * MPI_Finalize the rows are summed over threads, sent to rank 0 as text
 * lines keyed by "class:name" (handles differ between ranks) and written as
 * <outdir>/profile-vt.json and profile-vt.txt. The profile module's
 * profile.json is not touched: it has no interface for extra sections yet.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/call.h"
#include "../core/log.h"
#include "../core/module.h"
#include "../core/output.h"
#include "../core/state.h"
#include "impl.h"

typedef struct {
    uint64_t calls;     /* VT_leave of the region */
    uint64_t incl_ns;   /* ns, inclusive time */
    uint64_t mpi_calls; /* MPI calls with this region innermost */
    uint64_t mpi_ns;    /* ns, their time */
} vt_row_t;

struct vt_pthread {
    struct vt_pthread *next;
    vt_row_t *rows;     /* [handle], 0: outside any region */
    int cap;
};

static _Atomic bool active;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct vt_pthread *all;

static vt_row_t *row(int handle)
{
    struct vt_pthread *p = vt_tls.prof;
    if (MSC_UNLIKELY(!p)) {
        p = calloc(1, sizeof *p);
        if (!p) return NULL;
        pthread_mutex_lock(&lock);
        p->next = all;
        all = p;
        pthread_mutex_unlock(&lock);
        vt_tls.prof = p;
    }
    if (MSC_UNLIKELY(handle >= p->cap)) {
        int cap = p->cap ? p->cap : 64;
        while (cap <= handle) cap *= 2;
        pthread_mutex_lock(&lock); /* finalize may be reading */
        vt_row_t *r = realloc(p->rows, (size_t)cap * sizeof *r);
        if (r) {
            memset(r + p->cap, 0, (size_t)(cap - p->cap) * sizeof *r);
            p->rows = r;
            p->cap = cap;
        }
        pthread_mutex_unlock(&lock);
        if (!r) return NULL;
    }
    return &p->rows[handle];
}

void vt_prof_region(int handle, uint64_t ns)
{
    if (!atomic_load_explicit(&active, memory_order_relaxed) || !msc_recording_on()) return;
    vt_row_t *r = row(handle);
    if (r) r->calls++, r->incl_ns += ns;
}

static void on_leave(msc_call_t *c)
{
    /* Programs that never define a user region pay one load per MPI call.
     * MPI calls made before the first VT_funcdef are therefore not split by
     * region here; profile.json counts them as every other call. */
    if (atomic_load_explicit(&vt_nfuncs, memory_order_relaxed) == 0 ||
        !atomic_load_explicit(&active, memory_order_relaxed))
        return;
    int h = vt_tls.depth > 0 ? vt_tls.stack[vt_tls.depth - 1] : 0;
    vt_row_t *r = row(h);
    if (r) r->mpi_calls++, r->mpi_ns += c->t_leave - c->t_enter;
}

static int prof_init(int slot)
{
    (void)slot;
    atomic_store(&active, msc_g.outdir[0] != 0);
    return 0;
}

typedef struct {
    char key[200];
    vt_row_t s;
} agg_t;

static void write_files(agg_t *a, int n)
{
    /* Created exclusively under a temporary name, renamed into place
     * (src/core/output.c): never through a symlink planted in the directory. */
    msc_out_t jo, to;
    bool jok = msc_out_open(&jo, "profile-vt.json"), tok = msc_out_open(&to, "profile-vt.txt");
    if (!jok || !tok) {
        msc_warn("vt: cannot write the user-region profile in %s", msc_g.outdir);
        if (jok) fclose(jo.f), unlink(jo.temp_path);
        if (tok) fclose(to.f), unlink(to.temp_path);
        return;
    }
    FILE *j = jo.f, *t = to.f;
    fprintf(j, "{\"ranks\": %d, \"regions\": [", msc_g.world_size);
    fprintf(t, "%-40s %10s %14s %10s %14s\n", "user region (all ranks)", "calls", "time [s]",
            "MPI calls", "MPI time [s]");
    for (int i = 0; i < n; i++) {
        const char *k = a[i].key;
        fprintf(j, "%s\n  {\"region\": \"", i ? "," : "");
        for (const char *p = k; *p; p++) {
            if (*p == '"' || *p == '\\') fputc('\\', j);
            if ((unsigned char)*p >= 0x20) fputc(*p, j);
        }
        fprintf(j, "\", \"calls\": %llu, \"time_ns\": %llu, \"mpi_calls\": %llu, \"mpi_time_ns\": %llu}",
                (unsigned long long)a[i].s.calls, (unsigned long long)a[i].s.incl_ns,
                (unsigned long long)a[i].s.mpi_calls, (unsigned long long)a[i].s.mpi_ns);
        fprintf(t, "%-40s %10llu %14.6f %10llu %14.6f\n", k, (unsigned long long)a[i].s.calls,
                (double)a[i].s.incl_ns * 1e-9, (unsigned long long)a[i].s.mpi_calls,
                (double)a[i].s.mpi_ns * 1e-9);
    }
    fprintf(j, "\n]}\n");
    msc_out_close(&jo);
    msc_out_close(&to);
}

static void prof_finalize(void)
{
    atomic_store(&active, false); /* collective all the same: every rank takes part */
    int n = atomic_load(&vt_nfuncs);
    vt_row_t *sum = calloc((size_t)n + 1, sizeof *sum);
    pthread_mutex_lock(&lock);
    for (struct vt_pthread *p = all; p && sum; p = p->next)
        for (int h = 0; h < p->cap && h <= n; h++) {
            sum[h].calls += p->rows[h].calls, sum[h].incl_ns += p->rows[h].incl_ns;
            sum[h].mpi_calls += p->rows[h].mpi_calls, sum[h].mpi_ns += p->rows[h].mpi_ns;
        }
    pthread_mutex_unlock(&lock);
    /* One text line per region with data: key \t calls incl mpi_calls mpi_ns. */
    size_t cap = 256 * ((size_t)n + 1) + 1, len = 0;
    char *text = malloc(cap);
    for (int h = 0; text && sum && h <= n; h++) {
        const vt_row_t *r = &sum[h];
        if (!r->calls && !r->mpi_calls) continue;
        char key[200];
        if (h == 0) snprintf(key, sizeof key, "(outside user regions)");
        else if (vt_funcs[h - 1].cls_name[0])
            snprintf(key, sizeof key, "%s:%s", vt_funcs[h - 1].cls_name, vt_funcs[h - 1].name);
        else snprintf(key, sizeof key, "%s", vt_funcs[h - 1].name);
        for (char *p = key; *p; p++)
            if (*p == '\t' || *p == '\n') *p = ' ';
        len += (size_t)snprintf(text + len, cap - len, "%s\t%llu %llu %llu %llu\n", key,
                                (unsigned long long)r->calls, (unsigned long long)r->incl_ns,
                                (unsigned long long)r->mpi_calls, (unsigned long long)r->mpi_ns);
    }
    free(sum);
    int mine = text ? (int)len : 0, size = msc_g.world_size, rank = msc_g.world_rank;
    int *counts = rank == 0 ? calloc((size_t)size, sizeof *counts) : NULL;
    int *displs = rank == 0 ? calloc((size_t)size, sizeof *displs) : NULL;
    PMPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, msc_g.comm);
    char *every = NULL;
    long total = 0;
    if (rank == 0) {
        for (int r = 0; r < size; r++) displs[r] = (int)total, total += counts[r];
        every = malloc((size_t)total + 1);
    }
    PMPI_Gatherv(text, mine, MPI_CHAR, every, counts, displs, MPI_CHAR, 0, msc_g.comm);
    free(text);
    if (rank == 0 && every && msc_g.outdir[0]) {
        every[total] = 0;
        agg_t *a = NULL;
        int na = 0;
        for (char *line = strtok(every, "\n"); line; line = strtok(NULL, "\n")) {
            char *tab = strchr(line, '\t');
            if (!tab) continue;
            *tab = 0;
            unsigned long long v[4] = {0};
            if (sscanf(tab + 1, "%llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3]) != 4) continue;
            int i = 0;
            while (i < na && strcmp(a[i].key, line) != 0) i++;
            if (i == na) {
                agg_t *p = realloc(a, (size_t)(na + 1) * sizeof *p);
                if (!p) break;
                a = p;
                memset(&a[na], 0, sizeof a[na]);
                snprintf(a[na++].key, sizeof a[0].key, "%s", line);
            }
            a[i].s.calls += v[0], a[i].s.incl_ns += v[1];
            a[i].s.mpi_calls += v[2], a[i].s.mpi_ns += v[3];
        }
        /* Only "(outside user regions)": the program used no VT_ regions,
         * and the profile already has all there is to say. */
        bool regions = na > 1 || (na == 1 && strcmp(a[0].key, "(outside user regions)") != 0);
        if (regions) write_files(a, na);
        free(a);
    }
    free(every), free(counts), free(displs);
}

static const msc_module_t vt_profile_module = {
    .abi = MSC_MODULE_ABI,
    .name = "vt-profile",
    .mode = "profile",
    .init = prof_init,
    .leave = on_leave,
    .leave_wanted = &vt_nfuncs, /* no user region defined: nothing to split */
    .finalize = prof_finalize,
};

MSC_CONSTRUCTOR static void vt_profile_register(void)
{
    msc_module_register(&vt_profile_module);
}
