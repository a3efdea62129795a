/* POP's efficiency metrics from a profile (see pop.h). Integers in, a few
 * divisions out, so profile.json and the text agree to the last digit. */
#include "pop.h"

#include <stdlib.h>
#include <string.h>

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

void msc_pop_compute(const uint64_t *profiled_ns, const uint64_t *mpi_ns, size_t stride, int n,
                     msc_pop_t *p)
{
    memset(p, 0, sizeof *p);
    p->ranks = n;
    p->useful_min_ns = UINT64_MAX;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        uint64_t prof = profiled_ns[(size_t)i * stride], mpi = mpi_ns[(size_t)i * stride];
        uint64_t useful = prof > mpi ? prof - mpi : 0;
        sum += (double)useful;
        if (prof > p->runtime_ns) p->runtime_ns = prof;
        if (mpi > p->mpi_max_ns) p->mpi_max_ns = mpi;
        if (useful > p->useful_max_ns || i == 0) p->useful_max_ns = useful, p->useful_max_at = i;
        if (useful < p->useful_min_ns) p->useful_min_ns = useful, p->useful_min_at = i;
    }
    if (!n) p->useful_min_ns = 0;
    p->useful_mean_ns = n ? sum / n : 0.0;
    p->load_balance = ratio(p->useful_mean_ns, (double)p->useful_max_ns);
    p->communication_efficiency = ratio((double)p->useful_max_ns, (double)p->runtime_ns);
    p->parallel_efficiency = p->load_balance * p->communication_efficiency;
}

/* Per-rank times of a profile.json: rank, profiled, MPI; n entries. */
static uint64_t *per_rank(const msc_json_t *root, int *n)
{
    const msc_json_t *pr = msc_json_get(root, "per_rank");
    *n = 0;
    if (!pr || pr->type != MSC_JARR || !pr->n) return NULL;
    uint64_t *v = calloc(pr->n, 3 * sizeof *v);
    if (!v) return NULL;
    for (const msc_json_t *r = pr->child; r; r = r->next, (*n)++) {
        int64_t rank = msc_json_int(r, "rank"), prof = msc_json_int(r, "profiled_ns"),
                mpi = msc_json_int(r, "mpi_ns");
        v[3 * *n] = rank > 0 ? (uint64_t)rank : 0;
        v[3 * *n + 1] = prof > 0 ? (uint64_t)prof : 0;
        v[3 * *n + 2] = mpi > 0 ? (uint64_t)mpi : 0;
    }
    return v;
}

int msc_pop_from_profile(const msc_json_t *root, msc_pop_t *out)
{
    int n = 0;
    uint64_t *v = per_rank(root, &n);
    if (!v) return -1;
    msc_pop_compute(v + 1, v + 2, 3, n, out);
    /* indexes into the list to world ranks */
    out->useful_max_at = (int)v[3 * out->useful_max_at];
    out->useful_min_at = (int)v[3 * out->useful_min_at];
    free(v);
    return 0;
}

void msc_pop_json(FILE *o, const msc_pop_t *p)
{
    fprintf(o, "\"pop\": {\"runtime_ns\": %llu, \"useful_max_ns\": %llu, \"useful_max_rank\": %d, "
               "\"useful_min_ns\": %llu, \"useful_min_rank\": %d, \"useful_mean_ns\": %.1f, "
               "\"parallel_efficiency\": %.6f, \"load_balance\": %.6f, "
               "\"communication_efficiency\": %.6f}",
            (unsigned long long)p->runtime_ns, (unsigned long long)p->useful_max_ns,
            p->useful_max_at, (unsigned long long)p->useful_min_ns, p->useful_min_at,
            p->useful_mean_ns, p->parallel_efficiency, p->load_balance,
            p->communication_efficiency);
}

static const char *verdict(double e) { return e >= 0.8 ? "good" : e >= 0.6 ? "fair" : "poor"; }

void msc_pop_render(FILE *o, const msc_json_t *root, int limit)
{
    int n = 0;
    uint64_t *v = per_rank(root, &n);
    if (!v) return;
    msc_pop_t p;
    msc_pop_compute(v + 1, v + 2, 3, n, &p);
    fprintf(o, "\nPOP efficiency (useful = profiled time outside MPI; 0.8 or more is good)\n");
    fprintf(o, "  %-30s %6.3f  %s\n", "Parallel Efficiency", p.parallel_efficiency,
            verdict(p.parallel_efficiency));
    fprintf(o, "    %-28s %6.3f  %s\n", "Load Balance", p.load_balance, verdict(p.load_balance));
    fprintf(o, "    %-28s %6.3f  %s\n", "Communication Efficiency", p.communication_efficiency,
            verdict(p.communication_efficiency));
    fprintf(o, "  run time %.6f s; useful per rank min %.6f s @%d, mean %.6f s, max %.6f s @%d\n",
            (double)p.runtime_ns / 1e9, (double)p.useful_min_ns / 1e9, (int)v[3 * p.useful_min_at],
            p.useful_mean_ns / 1e9, (double)p.useful_max_ns / 1e9, (int)v[3 * p.useful_max_at]);
    fprintf(o, "  %6s %14s %14s\n", "rank", "useful (s)", "MPI (s)");
    for (int i = 0; i < n && (limit <= 0 || i < limit); i++) {
        uint64_t prof = v[3 * i + 1], mpi = v[3 * i + 2];
        fprintf(o, "  %6d %14.6f %14.6f\n", (int)v[3 * i], (double)(prof > mpi ? prof - mpi : 0) / 1e9,
                (double)mpi / 1e9);
    }
    if (limit > 0 && n > limit) fprintf(o, "  ... %d more\n", n - limit);
    free(v);
}
