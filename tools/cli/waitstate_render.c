/* The wait-state section of `mpiscope report`, rendered from the parsed
 * waitstates.json alone (so a saved analysis prints the same text). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_cli.h"

static double sec(int64_t ns) { return (double)ns / 1e9; }

static int64_t num_or0(const msc_json_t *o, const char *k) { return msc_json_int(o, k); }

/* A sub-pattern (counted in its parent's time); false when part_of is missing. */
static bool is_part(const msc_json_t *p)
{
    const msc_json_t *of = msc_json_get(p, "part_of");
    return of && of->type == MSC_JSTR;
}

/* Sums of numbers read from a file: a damaged one must not overflow them. */
static void add(int64_t *sum, int64_t v)
{
    if (__builtin_add_overflow(*sum, v, sum)) *sum = v < 0 ? INT64_MIN : INT64_MAX;
}

int msc_waitstates_render(FILE *o, const msc_json_t *ws, int limit)
{
    if (!ws || strcmp(msc_json_str(ws, "kind", ""), "waitstates") != 0) {
        fprintf(o, "(not a waitstates.json)\n");
        return -1;
    }
    const msc_json_t *pats = msc_json_get(ws, "patterns");
    int64_t mpi = num_or0(ws, "mpi_ns");
    fprintf(o, "Wait states (from the trace: %lld events, %lld ranks, %lld locations; "
               "%lld messages, %lld collective operations)\n",
            (long long)num_or0(ws, "events"), (long long)num_or0(ws, "ranks"),
            (long long)num_or0(ws, "locations"), (long long)num_or0(ws, "messages"),
            (long long)num_or0(ws, "collectives"));
    if (num_or0(ws, "unmatched"))
        fprintf(o, "note: %lld message ends without a partner in the trace\n",
                (long long)num_or0(ws, "unmatched"));
    fprintf(o, "%-26s %12s %9s %10s\n", "pattern", "waiting (s)", "% of MPI", "instances");
    int64_t total = 0;
    for (const msc_json_t *p = pats ? pats->child : NULL; p; p = p->next) {
        bool part = is_part(p);
        int64_t t = num_or0(p, "time_ns");
        if (!part) add(&total, t);
        fprintf(o, "%s%-*s %12.6f %8.1f%% %10lld\n", part ? "  " : "", part ? 24 : 26,
                msc_json_str(p, "title", "?"), sec(t), mpi ? 100.0 * (double)t / (double)mpi : 0.0,
                (long long)num_or0(p, "instances"));
    }
    fprintf(o, "%-26s %12.6f %8.1f%%\n", "total waiting", sec(total),
            mpi ? 100.0 * (double)total / (double)mpi : 0.0);

    fprintf(o, "\nWaiting time per rank\n%6s %12s %12s  %s\n", "rank", "MPI (s)", "waiting (s)",
            "largest pattern");
    const msc_json_t *pr = msc_json_get(ws, "per_rank");
    for (const msc_json_t *r = pr ? pr->child : NULL; r; r = r->next) {
        int64_t w = 0, best = 0;
        const char *bt = "-";
        for (const msc_json_t *p = pats ? pats->child : NULL; p; p = p->next) {
            if (is_part(p)) continue;
            int64_t v = num_or0(r, msc_json_str(p, "id", ""));
            add(&w, v);
            if (v > best) best = v, bt = msc_json_str(p, "title", "?");
        }
        fprintf(o, "%6lld %12.6f %12.6f  %s", (long long)num_or0(r, "rank"),
                sec(num_or0(r, "mpi_ns")), sec(w), bt);
        if (best) fprintf(o, " (%.6f s)", sec(best));
        fputc('\n', o);
    }

    fprintf(o, "\nCall sites with waiting time%s\n%12s %12s %9s  %s\n",
            limit ? " (the first rows; --all for every one)" : "", "waiting (s)", "MPI (s)", "calls",
            "site: patterns");
    const msc_json_t *cs = msc_json_get(ws, "callsites");
    int shown = 0;
    for (const msc_json_t *s = cs ? cs->child : NULL; s; s = s->next) {
        int64_t w = 0;
        for (const msc_json_t *p = pats ? pats->child : NULL; p; p = p->next)
            if (!is_part(p)) add(&w, num_or0(s, msc_json_str(p, "id", "")));
        if (!w) break; /* sorted: the rest have none */
        if (limit && shown >= limit) break;
        shown++;
        fprintf(o, "%12.6f %12.6f %9lld  %s:", sec(w), sec(num_or0(s, "mpi_ns")),
                (long long)num_or0(s, "calls"), msc_json_str(s, "site", "?"));
        for (const msc_json_t *p = pats ? pats->child : NULL; p; p = p->next) {
            int64_t v = num_or0(s, msc_json_str(p, "id", ""));
            if (!v) continue;
            const char *t = msc_json_str(p, "title", "?");
            while (*t == ' ') t++;
            fprintf(o, " %s %.6f", t, sec(v));
        }
        fputc('\n', o);
    }
    if (!shown) fprintf(o, "%12s\n", "(none)");
    return 0;
}
