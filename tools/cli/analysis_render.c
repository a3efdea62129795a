/* The sections of `mpiscope report` that the analyses after the wait
 * states add (POP from the trace, the ideal-network and what-if replays,
 * the critical path, the delay analysis), rendered from the parsed
 * waitstates.json alone, as waitstate_render.c renders the wait states.
 * POP's usual reading: an efficiency of 0.8 or more is good. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report_cli.h"

static double sec(int64_t ns) { return (double)ns / 1e9; }

static const char *verdict(double e) { return e >= 0.8 ? "good" : e >= 0.6 ? "fair" : "poor"; }

static void pop_line(FILE *o, int depth, const char *name, double v)
{
    fprintf(o, "  %*s%-*s %6.3f  %s\n", 2 * depth, "", 32 - 2 * depth, name, v, verdict(v));
}

static const char *pattern_title(const msc_json_t *ws, const char *id)
{
    const msc_json_t *pats = msc_json_get(ws, "patterns");
    for (const msc_json_t *p = pats ? pats->child : NULL; p; p = p->next)
        if (!strcmp(msc_json_str(p, "id", ""), id)) return msc_json_str(p, "title", id);
    return id;
}

int msc_analysis_render(FILE *o, const msc_json_t *ws, int limit)
{
    const msc_json_t *pop = msc_json_get(ws, "pop");
    if (!pop) return 0; /* a waitstates.json from before these analyses */
    int64_t rt = msc_json_int(pop, "runtime_ns"), ideal = msc_json_int(pop, "ideal_runtime_ns");
    fprintf(o, "\nPOP efficiency (from the trace; 0.8 or more is good)\n");
    pop_line(o, 0, "Parallel Efficiency", msc_json_num(pop, "parallel_efficiency"));
    pop_line(o, 1, "Load Balance", msc_json_num(pop, "load_balance"));
    pop_line(o, 1, "Communication Efficiency", msc_json_num(pop, "communication_efficiency"));
    pop_line(o, 2, "Serialization Efficiency", msc_json_num(pop, "serialization_efficiency"));
    pop_line(o, 2, "Transfer Efficiency", msc_json_num(pop, "transfer_efficiency"));
    fprintf(o, "  run time %.6f s; useful computation per rank max %.6f s, mean %.6f s\n", sec(rt),
            sec(msc_json_int(pop, "useful_max_ns")), msc_json_num(pop, "useful_mean_ns") / 1e9);
    fprintf(o, "  on an ideal network (no latency, infinite bandwidth) %.6f s: the real network "
               "costs %.6f s (%.1f%% of the run)\n",
            sec(ideal), sec(rt - ideal), rt ? 100.0 * (double)(rt - ideal) / (double)rt : 0.0);
    const msc_json_t *rp = msc_json_get(ws, "replay");
    if (msc_json_int(rp, "unresolved_locations"))
        fprintf(o, "  note: the replay could not finish %lld location(s): the trace is inconsistent\n",
                (long long)msc_json_int(rp, "unresolved_locations"));
    const msc_json_t *wi = msc_json_get(rp, "whatif");
    if (wi && wi->type == MSC_JOBJ)
        fprintf(o, "  on the modelled network (latency %g s, bandwidth %g B/s) %.6f s\n",
                msc_json_num(wi, "latency_s"), msc_json_num(wi, "bandwidth_Bps"),
                sec(msc_json_int(wi, "runtime_ns")));

    const msc_json_t *cp = msc_json_get(ws, "critical_path");
    int64_t len = msc_json_int(cp, "length_ns"), imb = msc_json_int(cp, "imbalance_ns");
    fprintf(o, "\nCritical path (%.6f s, ends on rank %lld, %lld jumps between locations)\n",
            sec(len), (long long)msc_json_int(cp, "end_rank"), (long long)msc_json_int(cp, "hops"));
    fprintf(o, "  computation %.6f s, MPI %.6f s; critical-path imbalance %.6f s (%.1f%% of the path)\n",
            sec(msc_json_int(cp, "computation_ns")), sec(msc_json_int(cp, "mpi_ns")), sec(imb),
            len ? 100.0 * (double)imb / (double)len : 0.0);
    fprintf(o, "  %6s %16s %12s\n", "rank", "computation (s)", "MPI (s)");
    const msc_json_t *pr = msc_json_get(ws, "per_rank");
    for (const msc_json_t *r = pr ? pr->child : NULL; r; r = r->next) {
        int64_t c = msc_json_int(r, "critical_computation_ns"), m = msc_json_int(r, "critical_mpi_ns");
        if (c || m)
            fprintf(o, "  %6lld %16.6f %12.6f\n", (long long)msc_json_int(r, "rank"), sec(c), sec(m));
    }
    fprintf(o, "  %-12s %12s %14s  %s\n", "kind", "on path (s)", "all ranks (s)", "site");
    const msc_json_t *sites = msc_json_get(cp, "sites");
    int n = 0;
    for (const msc_json_t *s = sites ? sites->child : NULL; s; s = s->next) {
        if (!msc_json_int(s, "ns")) continue;
        if (limit > 0 && n++ >= limit) {
            fprintf(o, "  ... more (--all)\n");
            break;
        }
        bool mpi = !strcmp(msc_json_str(s, "kind", ""), "mpi");
        char all[32] = "";
        if (!mpi) snprintf(all, sizeof all, "%.6f", sec(msc_json_int(s, "all_ranks_ns")));
        fprintf(o, "  %-12s %12.6f %14s  %s\n", mpi ? "MPI" : "computation",
                sec(msc_json_int(s, "ns")), all, msc_json_str(s, "site", "?"));
    }

    const msc_json_t *dl = msc_json_get(ws, "delay");
    fprintf(o, "\nDelay: the computation that caused the waiting\n");
    fprintf(o, "  %-26s %14s %16s %16s\n", "pattern", "traced (s)", "propagated (s)",
            "long-term (s)");
    const msc_json_t *dp = msc_json_get(dl, "patterns");
    for (const msc_json_t *p = dp ? dp->child : NULL; p; p = p->next) {
        int64_t d = msc_json_int(p, "delay_ns"), q = msc_json_int(p, "propagated_ns");
        if (d || q)
            fprintf(o, "  %-26s %14.6f %16.6f %16.6f\n", pattern_title(ws, msc_json_str(p, "id", "?")),
                    sec(d), sec(q), sec(msc_json_int(p, "longterm_ns")));
    }
    fprintf(o, "  %-22s %6s %12s %14s %25s  %s\n", "pattern", "rank", "caused (s)",
            "long-term (s)", "largest interval (s)", "computation");
    const msc_json_t *cs = msc_json_get(dl, "causes");
    n = 0;
    for (const msc_json_t *c = cs ? cs->child : NULL; c; c = c->next) {
        if (limit > 0 && n++ >= limit) {
            fprintf(o, "  ... more (--all)\n");
            break;
        }
        fprintf(o, "  %-22s %6lld %12.6f %14.6f %12.6f-%-12.6f  %s\n",
                pattern_title(ws, msc_json_str(c, "pattern", "?")), (long long)msc_json_int(c, "rank"),
                sec(msc_json_int(c, "ns")), sec(msc_json_int(c, "longterm_ns")), sec(msc_json_int(c, "start_ns")),
                sec(msc_json_int(c, "end_ns")), msc_json_str(c, "site", "?"));
    }
    return 0;
}

int msc_replay_render(FILE *o, const msc_json_t *ws)
{
    const msc_json_t *pop = msc_json_get(ws, "pop"), *rp = msc_json_get(ws, "replay");
    const msc_json_t *wi = msc_json_get(rp, "whatif");
    if (!pop || !wi || wi->type != MSC_JOBJ) {
        fprintf(o, "(no what-if replay in the result)\n");
        return -1;
    }
    int64_t rt = msc_json_int(pop, "runtime_ns"), ideal = msc_json_int(rp, "ideal_runtime_ns"),
            pred = msc_json_int(wi, "runtime_ns");
    double bw = msc_json_num(wi, "bandwidth_Bps");
    char bws[64];
    if (bw > 0) snprintf(bws, sizeof bws, "%g B/s", bw);
    else snprintf(bws, sizeof bws, "infinite");
    fprintf(o, "What-if replay (%lld ranks): latency %g s, bandwidth %s\n",
            (long long)msc_json_int(ws, "ranks"), msc_json_num(wi, "latency_s"), bws);
    fprintf(o, "  %-34s %12.6f s\n", "real run time", sec(rt));
    fprintf(o, "  %-34s %12.6f s (the real network costs %.6f s, %.1f%%)\n",
            "on an ideal network", sec(ideal), sec(rt - ideal),
            rt ? 100.0 * (double)(rt - ideal) / (double)rt : 0.0);
    fprintf(o, "  %-34s %12.6f s (%+.1f%% against the real run)\n", "predicted on this network",
            sec(pred), rt ? 100.0 * (double)(pred - rt) / (double)rt : 0.0);
    if (msc_json_int(rp, "unresolved_locations"))
        fprintf(o, "  note: %lld location(s) could not be replayed to the end: the trace is "
                   "inconsistent\n", (long long)msc_json_int(rp, "unresolved_locations"));
    fprintf(o, "\n  %6s %14s %14s %16s %14s\n", "rank", "useful (s)", "ideal end (s)",
            "predicted end (s)", "in MPI (s)");
    const msc_json_t *pr = msc_json_get(ws, "per_rank");
    for (const msc_json_t *r = pr ? pr->child : NULL; r; r = r->next)
        fprintf(o, "  %6lld %14.6f %14.6f %16.6f %14.6f\n", (long long)msc_json_int(r, "rank"),
                sec(msc_json_int(r, "useful_ns")), sec(msc_json_int(r, "ideal_end_ns")),
                sec(msc_json_int(r, "whatif_end_ns")), sec(msc_json_int(r, "whatif_mpi_ns")));
    return 0;
}
