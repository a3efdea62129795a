/* `mpiscope report A B C ...`: POP's scaling table across runs of one
 * program at different rank counts (docs/analysis.md, "Scaling").
 *
 * Each run's profile gives its per-rank useful (profiled outside MPI) and
 * MPI time (src/profile/pop.c); the run with the fewest ranks is the
 * reference. Per run:
 *   Parallel Efficiency = Load Balance × Communication Efficiency (pop.c)
 *   Computation Scaling = useful_ref / useful_run (sums over ranks; with
 *                         --weak, times ranks_run / ranks_ref)
 *   Global Efficiency   = Parallel Efficiency × Computation Scaling
 *   Serialization and Transfer Efficiency when the run has a trace (its
 *   saved analysis, or analysed now)
 *   Instruction Scaling = instructions_ref / instructions_run and IPC Scaling
 *   = IPC_run / IPC_ref over the useful computation, when every run recorded
 *   hardware counters (DIR/counters.json, MPISCOPE_COUNTERS=1); otherwise marked as not
 *   recorded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/profile/pop.h"
#include "report_cli.h"

typedef struct {
    const char *name;
    msc_json_doc_t *doc, *ws;
    msc_pop_t pop;
    double useful_sum;      /* ns, all ranks */
    double ins, cyc;        /* useful instructions and cycles, all ranks; < 0: not recorded */
    bool has_trace;
    double ser, tra;
} run_t;

static void row(FILE *o, const char *label, run_t *r, int n, double (*f)(run_t *, run_t *), run_t *ref)
{
    fprintf(o, "%-30s", label);
    for (int i = 0; i < n; i++) {
        double v = f(&r[i], ref);
        if (v < 0) fprintf(o, " %12s", "-");
        else fprintf(o, " %12.3f", v);
    }
    fputc('\n', o);
}

static bool weak_mode;
static double f_pe(run_t *r, run_t *ref) { (void)ref; return r->pop.parallel_efficiency; }
static double f_lb(run_t *r, run_t *ref) { (void)ref; return r->pop.load_balance; }
static double f_ce(run_t *r, run_t *ref) { (void)ref; return r->pop.communication_efficiency; }
static double f_se(run_t *r, run_t *ref) { (void)ref; return r->has_trace ? r->ser : -1; }
static double f_te(run_t *r, run_t *ref) { (void)ref; return r->has_trace ? r->tra : -1; }
static double f_cs(run_t *r, run_t *ref)
{
    if (!(r->useful_sum > 0)) return 0;
    double s = ref->useful_sum / r->useful_sum;
    return weak_mode ? s * r->pop.ranks / ref->pop.ranks : s;
}
static double f_ge(run_t *r, run_t *ref) { return f_pe(r, ref) * f_cs(r, ref); }
static double f_is(run_t *r, run_t *ref)
{
    if (r->ins <= 0 || ref->ins <= 0) return -1;
    double s = ref->ins / r->ins;
    return weak_mode ? s * r->pop.ranks / ref->pop.ranks : s;
}
static double f_ipc(run_t *r, run_t *ref)
{
    if (r->ins <= 0 || ref->ins <= 0 || r->cyc <= 0 || ref->cyc <= 0) return -1;
    return (r->ins / r->cyc) / (ref->ins / ref->cyc);
}

/* Sum of a per-rank counter of DIR/counters.json (src/counters/module.c), or
 * -1 when the run has none or did not record them. */
static double counter_sum(const msc_json_t *c, const char *key)
{
    if (!c || !msc_json_get(c, "recorded") || !msc_json_num(c, "recorded")) return -1;
    const msc_json_t *pr = msc_json_get(c, "per_rank");
    double s = 0;
    for (const msc_json_t *r = pr ? pr->child : NULL; r; r = r->next) s += msc_json_num(r, key);
    return s;
}

int msc_report_scaling(int n, char **dirs, bool weak, const msc_ws_opts_t *wso, FILE *o)
{
    run_t *r = calloc((size_t)n, sizeof *r);
    int rc = 0, ref = 0;
    weak_mode = weak;
    for (int i = 0; i < n && !rc; i++) {
        struct stat sb;
        bool is_dir = stat(dirs[i], &sb) == 0 && S_ISDIR(sb.st_mode);
        char path[4200];
        snprintf(path, sizeof path, is_dir ? "%s/profile.json" : "%s", dirs[i]);
        r[i].name = dirs[i];
        r[i].doc = msc_load_json(path, false);
        if (!r[i].doc || msc_pop_from_profile(msc_json_root(r[i].doc), &r[i].pop) != 0) {
            if (r[i].doc) fprintf(stderr, "mpiscope report: %s has no per-rank times\n", path);
            rc = 1;
            break;
        }
        r[i].useful_sum = r[i].pop.useful_mean_ns * r[i].pop.ranks;
        r[i].ins = r[i].cyc = -1;
        if (is_dir) {
            snprintf(path, sizeof path, "%s/counters.json", dirs[i]);
            msc_json_doc_t *cd = msc_load_json(path, true);
            r[i].ins = counter_sum(cd ? msc_json_root(cd) : NULL, "useful_instructions");
            r[i].cyc = counter_sum(cd ? msc_json_root(cd) : NULL, "useful_cycles");
            msc_json_free(cd);
            r[i].ws = msc_report_waitstates(dirs[i], false, wso);
            const msc_json_t *pt = r[i].ws ? msc_json_get(msc_json_root(r[i].ws), "pop") : NULL;
            if (pt) {
                r[i].has_trace = true;
                r[i].ser = msc_json_num(pt, "serialization_efficiency");
                r[i].tra = msc_json_num(pt, "transfer_efficiency");
            }
        }
        if (r[i].pop.ranks < r[ref].pop.ranks) ref = i;
    }
    if (!rc) {
        bool counters = true;
        for (int i = 0; i < n; i++) counters &= r[i].ins > 0 && r[i].cyc > 0;
        fprintf(o, "Scaling across %d runs (%s scaling; reference: the run with the fewest ranks, "
                   "%s; 0.8 or more is good)\n", n, weak ? "weak" : "strong", r[ref].name);
        fprintf(o, "%-30s", "run");
        for (int i = 0; i < n; i++) fprintf(o, " %12d", i + 1);
        fprintf(o, "\n%-30s", "ranks");
        for (int i = 0; i < n; i++) fprintf(o, " %12d", r[i].pop.ranks);
        fprintf(o, "\n%-30s", "run time (s)");
        for (int i = 0; i < n; i++) fprintf(o, " %12.6f", (double)r[i].pop.runtime_ns / 1e9);
        fprintf(o, "\n%-30s", "useful, all ranks (s)");
        for (int i = 0; i < n; i++) fprintf(o, " %12.6f", r[i].useful_sum / 1e9);
        fputc('\n', o);
        row(o, "Global Efficiency", r, n, f_ge, &r[ref]);
        row(o, "  Parallel Efficiency", r, n, f_pe, &r[ref]);
        row(o, "    Load Balance", r, n, f_lb, &r[ref]);
        row(o, "    Communication Efficiency", r, n, f_ce, &r[ref]);
        row(o, "      Serialization Eff.", r, n, f_se, &r[ref]);
        row(o, "      Transfer Efficiency", r, n, f_te, &r[ref]);
        row(o, "  Computation Scaling", r, n, f_cs, &r[ref]);
        row(o, "    Instruction Scaling", r, n, f_is, &r[ref]);
        row(o, "    IPC Scaling", r, n, f_ipc, &r[ref]);
        for (int i = 0; i < n; i++) fprintf(o, "  %d: %s\n", i + 1, r[i].name);
        int traced = 0;
        for (int i = 0; i < n; i++) traced += r[i].has_trace;
        if (traced < n)
            fprintf(o, "  (-) Serialization and Transfer Efficiency need the run's trace "
                       "(MPISCOPE_MODE=trace)\n");
        if (!counters)
            fprintf(o, "  (-) Instruction and IPC Scaling need hardware counters in every run "
                       "(MPISCOPE_COUNTERS=1 on a machine that has them); not recorded\n");
    }
    for (int i = 0; i < n; i++) msc_json_free(r[i].doc), msc_json_free(r[i].ws);
    free(r);
    return rc;
}
